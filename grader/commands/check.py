"""``grader check``: a student's self-check against the public tests.

Grades one submission (a folder holding ``micrograd/`` or flat files, a
``.zip`` or a notebook) on the public tests only, through the same judge and
sandbox as ``grader grade``. It needs neither the hidden tests nor the
reference solution, so it runs in a student's copy of the release, in
classroom CI, or in Colab.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from grader.commands import course_of
from grader.course.config import Course
from grader.errors import GRADER_ERROR, GraderError
from grader.grading.one import JudgeFailed, grade_one
from grader.judge.backends import choose
from grader.outputs import formats
from grader.outputs.inert import terminal
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
    result.results = {aid: doc for aid, doc in docs.items() if doc is not None}
    return result


def run(args: argparse.Namespace) -> int:
    """``grader check [PATH]``: a student's self-check on the public tests (exit 0 only when all pass)."""
    course = course_of(args)
    choice = choose(args.sandbox)
    if choice.kind == "portable":
        print(choice.describe(), file=sys.stderr)
    result = check(course, Path(args.path), args.assignment or None, sandbox=choice.kind)
    render = {"text": formats.text, "json": formats.as_json, "junit": formats.check_junit, "github": formats.github}
    shown = render[args.format](result)
    print(terminal(shown) if args.format in ("text", "github") else shown)
    if result.withheld:
        return GRADER_ERROR
    return 0 if result.passed else 1
