"""The outcome of a student's self-check (``grader check``): each assignment's results.json document, and what
the output formats (:mod:`grader.outputs.formats`) read from it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grader.course.config import Assignment
from grader.outputs.failures import LoadError
from grader.outputs.results import grader_data, score_of, withheld


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
        tests: list[dict[str, Any]] = self.results.get(assignment.id, {}).get("tests", [])
        return tests

    def score(self, assignment: Assignment) -> tuple[float, float]:
        return score_of(self.results.get(assignment.id, {}))

    def notes(self, assignment: Assignment) -> list[str]:
        """What intake noted (which notebook or files were graded, what was skipped)."""
        return list(grader_data(self.results.get(assignment.id, {})).get("notes", []))

    def problems(self, assignment: Assignment) -> list[str]:
        return list(grader_data(self.results.get(assignment.id, {})).get("problems", []))

    def load_errors(self, assignment: Assignment) -> list[LoadError]:
        """The student modules that could not be loaded, each cause once (one-line ``problem`` and ``detail``)."""
        found = grader_data(self.results.get(assignment.id, {})).get("load_errors")
        return [LoadError(problem=e["problem"], detail=e["detail"]) for e in found or []
                if isinstance(e, dict) and isinstance(e.get("problem"), str) and isinstance(e.get("detail"), str)]

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
            if not t.get("number") and not t["max_score"]:
                continue  # a contract test: no task, no points (it names what blocks the others)
            score, most = tasks.get(t.get("number", ""), (0.0, 0.0))
            tasks[t.get("number", "")] = (score + t["score"], most + t["max_score"])
        return tasks
