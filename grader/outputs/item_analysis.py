"""Item analysis for instructors: how the class did on each test.

After a class is graded, :func:`analyse` reads every student's results.json
and computes, per test: how many students passed it, the mean score, and the
methods its failures named most often. ``grader grade`` writes the table to
``OUT/item_analysis.csv`` (worst tests first) and prints the worst few, so an
instructor sees at once which concepts the class missed.
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from grader.course.config import Assignment
from grader.files import write_atomic
from grader.outputs.store import ResultStore


@dataclass
class Item:
    """One test across the class.

    Attributes:
        assignment: Assignment id.
        key: Stable test id (``path::name[params]``).
        name: The test's title.
        task: Handout task.
        max_score: Points the test is worth.
        public: Whether it is a public test (students have it), not a hidden one.
        attempts: Students graded on it.
        passed: Students who passed it.
        total_score: Sum of the students' scores, in points.
        methods: How often each method was named in its failures.
    """

    assignment: str
    key: str
    name: str
    task: str
    max_score: float
    public: bool = False
    attempts: int = 0
    passed: int = 0
    total_score: float = 0.0
    methods: Counter[str] = field(default_factory=Counter)

    @property
    def pass_rate(self) -> float:
        return self.passed / self.attempts if self.attempts else 0.0

    @property
    def mean_score(self) -> float:
        return self.total_score / self.attempts if self.attempts else 0.0


def analyse(store: ResultStore, assignments: list[Assignment], students: list[str]) -> list[Item]:
    """Per-test statistics over ``students``, worst pass rate first (ties: assignment order)."""
    items: dict[tuple[str, str], Item] = {}
    for a in assignments:
        for student in students:
            result = store.get(a.id, student)
            for t in result.tests if result is not None else ():
                item = items.setdefault((a.id, t.key), Item(a.id, t.key, t.name, t.task, t.max_score, t.public))
                item.attempts += 1
                item.passed += t.passed
                item.total_score += t.score
                item.methods.update(t.methods)
    order = {a.id: i for i, a in enumerate(assignments)}
    return sorted(items.values(), key=lambda it: (it.pass_rate, order[it.assignment]))


def write_csv(path: Path, items: list[Item]) -> None:
    """Write ``item_analysis.csv``: one row per test, worst pass rate first."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["assignment", "test", "task", "name", "pass_rate", "passed", "students", "mean_score",
                     "max_score", "methods_named"])
    for it in items:
        writer.writerow([it.assignment, it.key.rsplit("::", 1)[-1], it.task, it.name, f"{it.pass_rate:.3f}",
                         it.passed, it.attempts, f"{it.mean_score:.3g}", f"{it.max_score:g}",
                         "; ".join(f"{m} ({n})" for m, n in it.methods.most_common(3))])
    write_atomic(path, buffer.getvalue())


def summary(items: list[Item], count: int = 5) -> str:
    """The ``count`` tests the class did worst on, one line each."""
    lines = ["Tests the class found hardest (pass rate, test, methods named in failures):"]
    for it in items[:count]:
        methods = ", ".join(m for m, _ in it.methods.most_common(2))
        lines.append(f"  {it.pass_rate:>4.0%}  {it.assignment}: {it.name}" + (f"  [{methods}]" if methods else ""))
    return "\n".join(lines)
