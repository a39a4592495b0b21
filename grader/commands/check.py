"""``grader check``: a student's self-check against the public tests.

Grades one submission (a folder holding ``micrograd/`` or flat files, a
``.zip`` or a notebook) on the public tests only, through the same judge and
sandbox as ``grader grade``. It needs neither the hidden tests nor the
reference solution, so it runs in a student's copy of the release, in
classroom CI, or in Colab.

With ``--format classroom50`` it is what a Classroom 50 ``autograder.py`` runs: it writes ``result.json`` and
``release-body.md`` into the current folder (:mod:`grader.outputs.classroom50`) and exits 0 whenever grading ran,
the score being in the file; when the grader itself failed it writes no ``result.json`` and exits non-zero, which the
runner records as an error, never as a score.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from grader.commands import course_of
from grader.course.config import Course
from grader.errors import GRADER_ERROR, GraderError
from grader.grading.one import JudgeFailed, grade_one
from grader.inert import terminal
from grader.judge.backends import choose
from grader.outputs import classroom50, formats
from grader.outputs.self_check import CheckResult

STUDENT = "self-check"


def check(course: Course, path: Path, assignment_ids: list[str] | None = None, sandbox: str | None = None) -> CheckResult:
    """Run the public tests of the chosen assignments (default: all) on the submission at ``path``.

    Args:
        course: The course (the release, for a student).
        path: A folder holding ``micrograd/`` (or flat files), a ``.zip`` or a ``.ipynb``.
        assignment_ids: Assignments to check; None for all.
        sandbox: The sandbox backend, ``"linux"`` or ``"portable"``; None picks it (:func:`grader.judge.backends.choose`).

    Raises:
        GraderError: If ``path`` does not exist, or the judge fails.
    """
    if not path.exists():
        raise GraderError(f"{path} does not exist (give the folder holding micrograd/, a .zip or a .ipynb)")
    assignments = course.assignments(assignment_ids)
    result = CheckResult(assignments, path=path)
    try:
        docs = grade_one(course, path, assignments, include_hidden=False, sandbox=sandbox or choose("auto").kind,
                         student=STUDENT)
    except JudgeFailed as exc:
        raise GraderError(f"the self-check could not run (status {exc.status}):\n{exc.log_tail}") from None
    result.results = {aid: found.document for aid, found in docs.items() if found is not None}
    return result


def run(args: argparse.Namespace) -> int:
    """``grader check [PATH]``: a student's self-check on the public tests (exit 0 only when all pass; with
    ``--format classroom50``, whenever grading ran)."""
    course = course_of(args)
    choice = choose(args.sandbox)
    if choice.kind == "portable":
        print(choice.describe(), file=sys.stderr)
    if args.format == "classroom50":
        classroom50.clear(Path.cwd())  # no result.json from an earlier run (or a commit) outlives a failed one
    result = check(course, Path(args.path), args.assignment or None, sandbox=choice.kind)
    if args.format == "classroom50":
        print(terminal(formats.text(result)))
        if result.withheld:
            return GRADER_ERROR
        doc = classroom50.write(result, Path.cwd(), os.environ)
        print(f"Classroom 50: wrote {classroom50.RESULT_FILE} and {classroom50.BODY_FILE} "
              f"({doc['score']} / {doc['max-score']} points)")
        return 0
    render = {"text": formats.text, "json": formats.as_json, "junit": formats.check_junit, "github": formats.github}
    shown = render[args.format](result)
    print(terminal(shown) if args.format in ("text", "github") else shown)
    if result.withheld:
        return GRADER_ERROR
    return 0 if result.passed else 1
