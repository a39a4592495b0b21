"""The outcome of a student's self-check (``grader check``): each assignment's results.json document, and what
the output formats (:mod:`grader.outputs.formats`) read from it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grader.course.config import Assignment
from grader.outputs.failures import LoadError
from grader.outputs.store import Result, parse


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
