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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grader.commands import course_of
from grader.course.config import Assignment, Course
from grader.errors import GRADER_ERROR, GraderError
from grader.grading.one import JudgeFailed, grade_one
from grader.judge.backends import choose
from grader.outputs.inert import terminal
from grader.outputs.results import grader_data, score_of, withheld

STUDENT = "self-check"


@dataclass
class CheckResult:
    """The outcome of a self-check.

    Attributes:
        assignments: The assignments checked, in order.
        results: Assignment id to its results.json document (Gradescope schema).
        path: What was checked.
    """

    assignments: list[Assignment]
    results: dict[str, dict[str, Any]] = field(default_factory=dict)
    path: Path = Path(".")

    def tests(self, assignment: Assignment) -> list[dict[str, Any]]:
        return self.results.get(assignment.id, {}).get("tests", [])

    def score(self, assignment: Assignment) -> tuple[float, float]:
        return score_of(self.results.get(assignment.id, {}))

    def notes(self, assignment: Assignment) -> list[str]:
        """What intake noted (which notebook or files were graded, what was skipped)."""
        return list(grader_data(self.results.get(assignment.id, {})).get("notes", []))

    def problems(self, assignment: Assignment) -> list[str]:
        return list(grader_data(self.results.get(assignment.id, {})).get("problems", []))

    @property
    def withheld(self) -> dict[str, str]:
        """Assignment id to why its result is withheld (the grader itself failed, not the student's code)."""
        found = {a.id: withheld(self.results.get(a.id, {"tests": []})) for a in self.assignments}
        return {aid: reason for aid, reason in found.items() if reason}

    @property
    def passed(self) -> bool:
        """Every public test of every assignment passed (and there was at least one)."""
        tests = [t for a in self.assignments for t in self.tests(a)]
        return bool(tests) and all(t["status"] == "passed" for t in tests)

    def tasks(self, assignment: Assignment) -> dict[str, tuple[float, float]]:
        """Task to (score, max score) over the public tests."""
        tasks: dict[str, tuple[float, float]] = {}
        for t in self.tests(assignment):
            score, most = tasks.get(t.get("number", ""), (0.0, 0.0))
            tasks[t.get("number", "")] = (score + t["score"], most + t["max_score"])
        return tasks


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
    from grader.outputs import formats  # formats imports this module's CheckResult

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
