"""The outcome of a student's self-check (``grader check``): each assignment's results.json document, and what
the output formats (:mod:`grader.outputs.formats`) read from it.

Several assignments import the same file, so one error in it (a syntax error in ``micrograd/engine.py``) stops them
all: :meth:`CheckResult.shared_load_errors` gives each such error once, with the assignments it stops, so that every
format can report it once; :meth:`CheckResult.focus` is the assignment a student works on next (the first one not
passing yet), the one the text report shows in detail by default.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grader.course.config import Assignment
from grader.outputs.failures import LoadError, not_run
from grader.outputs.store import Result, parse

MAX_LABEL = 40
"""The longest part of a title before its first colon that :func:`label` uses as the assignment's short name."""


def label(assignment: Assignment) -> str:
    """An assignment's short name: its title up to the first colon (``Assignment 2``), or the whole title."""
    head = assignment.title.split(": ", 1)[0]
    return head if head != assignment.title and len(head) <= MAX_LABEL else assignment.title


def package_of(result: CheckResult) -> str:
    """The student's package a check's assignments are about (``micrograd``), for its titles; "code" when it checked
    none."""
    return result.assignments[0].package if result.assignments else "code"


def headline(problem: str) -> str:
    """What could not be graded, without why: ``micrograd/engine.py could not be imported`` from its one-line
    problem (the text before its first colon or parenthesis), at most 120 characters."""
    return re.split(r": | \(", problem, maxsplit=1)[0][:120]


@dataclass(frozen=True)
class SharedLoadError:
    """A student module that could not be loaded, and every assignment of the check it stopped.

    Attributes:
        error: The error (its one-line ``problem`` and its ``detail``).
        assignments: The ids of the assignments whose results name it, in the check's order.
    """

    error: LoadError
    assignments: tuple[str, ...]


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

    def result(self, assignment: Assignment) -> Result:
        """The assignment's result (:func:`grader.outputs.store.parse`; no tests when there is none)."""
        return parse(self.results.get(assignment.id), assignment.id) or Result(assignment.id, "", ())

    def tests(self, assignment: Assignment) -> list[dict[str, Any]]:
        """The assignment's tests as results.json holds them (Gradescope's schema)."""
        tests = self.results.get(assignment.id, {}).get("tests", [])
        return [t for t in tests if isinstance(t, dict)] if isinstance(tests, list) else []

    def score(self, assignment: Assignment) -> tuple[float, float]:
        result = self.result(assignment)
        return result.score, result.max_score

    def notes(self, assignment: Assignment) -> list[str]:
        """What intake noted (which notebook or files were graded, what was skipped)."""
        return list(self.result(assignment).notes)

    def problems(self, assignment: Assignment) -> list[str]:
        return list(self.result(assignment).problems)

    def load_errors(self, assignment: Assignment) -> list[LoadError]:
        """The student modules that could not be loaded, each cause once (one-line ``problem`` and ``detail``)."""
        return list(self.result(assignment).load_errors)

    def program_output(self, assignment: Assignment) -> str:
        """The capped excerpt of what the program printed, or ""."""
        return self.result(assignment).program_output

    @property
    def withheld(self) -> dict[str, str]:
        """Assignment id to why its result is withheld (the grader itself failed, not the student's code)."""
        found = {a.id: self.result(a).withheld for a in self.assignments}
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
            if not t.get("number") and not t["max_score"]:
                continue  # a contract test: no task, no points (it names what blocks the others)
            score, most = tasks.get(t.get("number", ""), (0.0, 0.0))
            tasks[t.get("number", "")] = (score + t["score"], most + t["max_score"])
        return tasks

    def not_run(self, assignment: Assignment) -> int:
        """How many of the assignment's tests could not run because the submission could not be loaded."""
        return sum(1 for t in self.tests(assignment) if not_run(t))

    def blocked(self, assignment: Assignment) -> bool:
        """No public test of the assignment could run: the code could not be loaded, or intake found nothing to
        grade."""
        tests = self.tests(assignment)
        return self.not_run(assignment) == len(tests) if tests else bool(self.problems(assignment))

    def passing(self, assignment: Assignment) -> bool:
        """Every public test of the assignment passed (and it has at least one)."""
        tests = self.tests(assignment)
        return bool(tests) and all(t["status"] == "passed" for t in tests)

    def focus(self) -> Assignment | None:
        """The first assignment (in the check's order) not passing yet and not withheld: what to work on next."""
        withheld = self.withheld
        return next((a for a in self.assignments if a.id not in withheld and not self.passing(a)), None)

    def shared_load_errors(self) -> list[SharedLoadError]:
        """Each distinct load error of the check once (the same detail in several assignments is one error), with
        the assignments it stopped, in order of first appearance."""
        found: dict[str, tuple[LoadError, list[str]]] = {}
        for a in self.assignments:
            for error in self.load_errors(a):
                found.setdefault(error["detail"], (error, []))[1].append(a.id)
        return [SharedLoadError(error, tuple(ids)) for error, ids in found.values()]
