"""Item analysis for instructors: how the class did on each test.

After a class is graded, :func:`analyse` reads every student's results.json
and computes, per test: how many students passed it, the mean score, and the
methods its failures named most often. ``grader grade`` writes the table to
``OUT/item_analysis.csv`` (worst tests first) and prints the worst few, so an
instructor sees at once which concepts the class missed.

The statistics count only the submissions graded normally. One that needs attention
(:func:`grader.outputs.attention.class_attention`: it could not be graded, as with no files, code that cannot be
imported or crashes as it loads; it is the template handed in unchanged; the grader failed and withheld its score...)
says nothing about how hard a test is, so it is left out: of ``students`` (the submissions counted), ``passed``,
``pass_rate``, ``mean_score`` and ``methods_named``. ``left_out`` says how many of the assignment's submissions
were left out; they stay in ``grades.csv`` and in the report's "needs attention" list. A test no submission
counted for (every one was left out) has empty ``pass_rate`` and ``mean_score`` cells and comes last.
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from grader.course.config import Assignment
from grader.files import write_atomic
from grader.outputs.attention import MAX_ID, MAX_MESSAGE, ClassAttention, class_attention, one_line
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
        attempts: Students counted on it (graded normally: see the module's docstring).
        passed: Students counted who passed it.
        total_score: Sum of the counted students' scores, in points.
        methods: How often each method was named in the counted students' failures.
        left_out: Students of its assignment left out because their results need attention.
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
    left_out: int = 0

    @property
    def pass_rate(self) -> float:
        """The share of the counted students who passed it (0 when none was counted: see :attr:`attempts`)."""
        return self.passed / self.attempts if self.attempts else 0.0

    @property
    def mean_score(self) -> float:
        return self.total_score / self.attempts if self.attempts else 0.0


def analyse(store: ResultStore, assignments: list[Assignment], students: list[str],
            attention: ClassAttention | None = None) -> list[Item]:
    """Per-test statistics over the submissions of ``students`` graded normally, worst pass rate first (ties:
    assignment order); tests no submission counted for come last.

    A submission that needs attention (``attention``, the caller's findings on the same folder, assignments and
    students; None: :func:`grader.outputs.attention.class_attention` finds them) is left out of every statistic and
    counted in :attr:`Item.left_out`; its tests still name the assignment's tests.
    """
    attention = attention if attention is not None else class_attention(store, assignments, students)
    items: dict[tuple[str, str], Item] = {}
    for a in assignments:
        left_out, mine = 0, set()
        for student in students:
            result = store.get(a.id, student)
            counted = not attention.left_out(student, a.id)
            left_out += not counted
            for t in result.tests if result is not None else ():
                item = items.setdefault((a.id, t.key), Item(a.id, t.key, t.name, t.task, t.max_score, t.public))
                mine.add(t.key)
                if counted:
                    item.attempts += 1
                    item.passed += t.passed
                    item.total_score += t.score
                    item.methods.update(t.methods)
        for key in mine:
            items[(a.id, key)].left_out = left_out
    order = {a.id: i for i, a in enumerate(assignments)}
    return sorted(items.values(), key=lambda it: (not it.attempts, it.pass_rate, order[it.assignment]))


def left_out(items: list[Item]) -> dict[str, int]:
    """Assignment id to how many of its submissions the statistics left out (assignments with any, in order)."""
    found: dict[str, int] = {}
    for it in items:
        if it.left_out:
            found.setdefault(it.assignment, it.left_out)
    return found


def write_csv(path: Path, items: list[Item]) -> None:
    """Write ``item_analysis.csv``: one row per test, worst pass rate first.

    Columns: ``assignment``, ``test``, ``task``, ``name``, ``pass_rate``, ``passed``, ``students`` (the
    submissions counted), ``left_out`` (the assignment's submissions left out because they need attention: see
    the module's docstring), ``mean_score``, ``max_score`` and ``methods_named``.
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["assignment", "test", "task", "name", "pass_rate", "passed", "students", "left_out",
                     "mean_score", "max_score", "methods_named"])
    for it in items:
        writer.writerow([it.assignment, it.key.rsplit("::", 1)[-1], it.task, it.name,
                         f"{it.pass_rate:.3f}" if it.attempts else "", it.passed, it.attempts, it.left_out,
                         f"{it.mean_score:.3g}" if it.attempts else "", f"{it.max_score:g}",
                         "; ".join(f"{m} ({n})" for m, n in it.methods.most_common(3))])
    write_atomic(path, buffer.getvalue())


def summary(items: list[Item], count: int = 5) -> str:
    """The ``count`` tests the class did worst on, one line each with its number of results, and that the results
    that need attention were left out (test titles and methods from results.json inert for the terminal:
    :func:`grader.outputs.attention.one_line`; how many need attention is
    :meth:`grader.outputs.attention.ClassAttention.headline`'s to say). Tests graded on at least half as many results as the most come
    first: a test only one notebook reached is no measure of the class."""
    lines = ["Tests the class found hardest (pass rate of n results, test, methods named in failures):"]
    counted = [it for it in items if it.attempts]
    most = max((it.attempts for it in counted), default=0)
    # a test few results reached (one notebook graded on an assignment nobody else handed in) says little about
    # the class: those graded on at least half as many as the most are listed first
    counted.sort(key=lambda it: it.attempts * 2 < most)  # stable: worst pass rate first within each group
    for it in counted[:count]:
        methods = ", ".join(one_line(m, MAX_ID) for m, _ in it.methods.most_common(2))
        lines.append(f"  {it.pass_rate:>4.0%} of {it.attempts:<4} {it.assignment}: {one_line(it.name, MAX_MESSAGE)}"
                     + (f"  [{methods}]" if methods else ""))
    if not counted:
        lines.append("  none: no submission was graded normally")
    if left_out(items):
        lines.append("  (pass rates leave out the results that need attention: could not be graded, the unchanged "
                     "template, work on another branch, a withheld score...)")
    return "\n".join(lines)
