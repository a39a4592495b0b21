"""The course's public part: what a student's copy holds of ``assignments/`` (a release, a Classroom 50 autograder).

Public tests need the course's code that runs them: the probe modules (they
run the student's code in the sandbox) and the judge-side checks they import
(graph specs, comparisons, strategies, contracts). So a student's copy holds

* ``assignments/shared/`` without its ``parts/`` folder (the grader's own
  working engine and network, and the local gradients: answer keys);
* ``assignments/course.yaml`` with the course's time zone only (an ``assignment.yaml`` whose ``due`` has no UTC
  offset needs it), never where the roster and extensions are;
* for each assignment: ``assignment.yaml``, the handout, the public tests, and
  the assignment's own top-level modules (its ``probes.py`` and any checks
  module its public tests import); a concept check's ``questions.yaml`` (its
  key stays in ``reference/answers/``).

Never: ``assignments/shared/parts``, hidden tests, ``bugs.yaml``, the
reference. An assignment that needs code only its hidden tests may see keeps
it in its hidden tests' folder or in a part.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from grader.course.config import PARTS, QUESTIONS, SHARED, Assignment
from grader.course.course import Course
from grader.course.term import COURSE_FILE

IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc")


def copy_shared(course: Course, dest: Path) -> None:
    """Copy ``assignments/shared`` without ``parts/`` into ``dest`` (a copy's ``assignments`` folder), and the
    public part of ``course.yaml`` (:func:`public_term`)."""
    shared = course.assignments_dir / SHARED
    if shared.is_dir():
        shutil.copytree(shared, dest / SHARED, ignore=lambda d, names: [
            *IGNORE(d, names), *([PARTS] if Path(d) == shared else [])], dirs_exist_ok=True)
    if (term := public_term(course)) is not None:
        dest.mkdir(parents=True, exist_ok=True)
        (dest / COURSE_FILE).write_text(term, encoding="utf-8")


def public_term(course: Course) -> str | None:
    """The public part of ``assignments/course.yaml``: its time zone alone (None when it sets none); the roster's
    and extensions' paths stay with the instructor."""
    zone = course.term.time_zone
    return f"time_zone: {getattr(zone, 'key', str(zone))}\n" if zone is not None else None


def copy_assignment(assignment: Assignment, dest: Path, handout: str | None = None) -> Path:
    """Copy the public part of ``assignment`` into ``dest/<id>``; return that folder.

    Args:
        assignment: The assignment.
        dest: A copy's ``assignments`` folder.
        handout: The handout's text to write as ``README.md`` (None: the assignment's own, if it has one).
    """
    target = dest / assignment.id
    target.mkdir(parents=True, exist_ok=True)
    shutil.copy(assignment.root / "assignment.yaml", target / "assignment.yaml")
    if assignment.is_concept_check:  # the questions students answer (the key is the reference's, never copied)
        shutil.copy(assignment.root / QUESTIONS, target / QUESTIONS)
    for module in sorted(assignment.root.glob("*.py")):
        shutil.copy(module, target / module.name)
    if handout is not None:
        (target / "README.md").write_text(handout, encoding="utf-8")
    elif (assignment.root / "README.md").is_file():
        shutil.copy(assignment.root / "README.md", target / "README.md")
    if assignment.public_tests.is_dir():
        shutil.copytree(assignment.public_tests, target / "tests" / "public", ignore=IGNORE)
    return target
