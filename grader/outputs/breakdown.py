"""Where each student's points come from: per handout task, and public against hidden tests.

Every test carries the handout task it grades (its ``task`` marker, written
to results.json as ``number``: ``"1.2"``, or a range such as ``"1.1-1.4"`` for a
hidden test that covers several tasks) and is public (a file under the
assignment's ``tests/public/``, which students have and run with ``grader
check``) or hidden. :func:`task_table` adds a class's points up both ways for
one assignment; a task range is its own column, as its points cannot be split
between the tasks it covers.

A score withheld because the grader itself failed is left out (shown as
withheld, never as 0), and so is a student without results. A submission that
could not be graded or is the unchanged template (the report's "needs
attention": :func:`grader.outputs.attention.finding`) keeps its points in its
row (0 in every task when no test ran, as in ``grades.csv``) but is left out of
the class means, which say how the class did on each task.

Student ids and task labels (results.json's ``number``) are shown as they are in the table's records: one inert,
capped line (:func:`grader.outputs.attention.one_line`).
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from grader.course.config import Assignment
from grader.outputs.attention import MAX_ID, one_line, shown_id
from grader.outputs.entries import TestEntry


@dataclass(frozen=True)
class Points:
    """Points earned out of points possible.

    Attributes:
        score: Points earned.
        max_score: Points possible.
    """

    score: float = 0.0
    max_score: float = 0.0

    def __add__(self, other: Points) -> Points:
        return Points(self.score + other.score, self.max_score + other.max_score)

    @property
    def share(self) -> float:
        """The share earned, from 0 to 1 (0 when nothing was possible)."""
        return self.score / self.max_score if self.max_score else 0.0


def task_key(task: str) -> tuple[bool, tuple[int, ...], bool, tuple[int, ...], str]:
    """Sort key of task labels: by the last task they cover, a range (``1.1-1.4``) right after its last task,
    unnumbered tests last (``1.1``, ``1.2``, ``1.3``, ``1.4``, ``1.1-1.4``, ``2.1-2.5``, ``2.6``)."""
    parts = task.split("-")
    first, last = (tuple(int(n) for n in re.findall(r"\d+", p)) for p in (parts[0], parts[-1]))
    return not task, last, len(parts) > 1, first, task


@dataclass
class TaskColumn:
    """One task of one assignment across the class.

    Attributes:
        task: The task label ("" for tests without one).
        tests: How many tests grade it.
        public_tests: How many of them are public.
        max_score: Its points.
        public_max: The points of its public tests.
        scores: One score per student counted (results present, not withheld, not left out).
    """

    task: str
    tests: int = 0
    public_tests: int = 0
    max_score: float = 0.0
    public_max: float = 0.0
    scores: list[float] = field(default_factory=list)

    @property
    def mean(self) -> float:
        return statistics.fmean(self.scores) if self.scores else 0.0

    @property
    def share(self) -> float:
        """The class mean as a share of the task's points."""
        return self.mean / self.max_score if self.max_score else 0.0


@dataclass
class TaskRow:
    """One student's points on one assignment.

    Attributes:
        student: The student id, as the report shows it (:func:`grader.outputs.attention.shown_id`).
        tasks: Task label to the student's points on it (empty when not counted).
        public: Points in the public tests.
        hidden: Points in the hidden tests.
        status: "" when its points are shown, else why not (``withheld``, ``no results``, ``no submission``).
        left_out: "" when its points count in the class means, else why not (``template unchanged``, ``could not
            be graded``): its points are shown all the same.
    """

    student: str
    tasks: dict[str, Points] = field(default_factory=dict)
    public: Points = field(default_factory=Points)
    hidden: Points = field(default_factory=Points)
    status: str = ""
    left_out: str = ""

    @property
    def total(self) -> Points:
        return self.public + self.hidden

    @property
    def counted(self) -> bool:
        """Whether the row counts in the class means."""
        return not self.status and not self.left_out


@dataclass
class TaskTable:
    """Points per task and public/hidden, per student and for the class, on one assignment.

    Attributes:
        assignment: The assignment.
        columns: Its tasks, in :func:`task_key` order.
        rows: One per student, in the gradebook's order.
    """

    assignment: Assignment
    columns: list[TaskColumn]
    rows: list[TaskRow]

    @property
    def left_out(self) -> int:
        """How many students the class means leave out (withheld, no results, could not be graded, template)."""
        return sum(not r.counted for r in self.rows)

    @property
    def public_mean(self) -> Points:
        """The class mean of the public tests' points, out of their points."""
        counted = [r.public.score for r in self.rows if r.counted]
        return Points(statistics.fmean(counted) if counted else 0.0, sum(c.public_max for c in self.columns))

    @property
    def hidden_mean(self) -> Points:
        """The class mean of the hidden tests' points, out of their points."""
        counted = [r.hidden.score for r in self.rows if r.counted]
        return Points(statistics.fmean(counted) if counted else 0.0,
                      sum(c.max_score - c.public_max for c in self.columns))


def task_row(student: str, tests: Sequence[TestEntry]) -> TaskRow:
    """One student's points per task and in public and hidden tests, from their tests on one assignment."""
    row = TaskRow(student)
    for t in tests:
        got = Points(t.score, t.max_score)
        row.tasks[t.task] = row.tasks.get(t.task, Points()) + got
        if t.public:
            row.public += got
        else:
            row.hidden += got
    return row


def task_table(assignment: Assignment, results: Mapping[str, Sequence[TestEntry] | str],
               left_out: Mapping[str, str] | None = None) -> TaskTable:
    """Add up one assignment's points per task and public/hidden, per student and for the class.

    Args:
        assignment: The assignment.
        results: Student id (in the gradebook's order) to their tests on it,
            or to why they are not counted (``"withheld"``, ``"no results"``, ``"no submission"``).
        left_out: Student id to why their points, shown in their row, are left
            out of the class means (``"template unchanged"``, ``"could not be graded"``).

    Returns:
        The table; the columns are the tasks any student's tests name; its rows are in the order of ``results``, each
        id and task label as the report shows it (one inert, capped line).
    """
    columns: dict[str, TaskColumn] = {}
    rows = []
    for student, tests in results.items():
        if isinstance(tests, str):
            rows.append(TaskRow(shown_id(student), status=tests))
            continue
        tests = [replace(t, task=one_line(t.task, MAX_ID))  # results.json's text: inert before it is a label
                 for t in tests if t.task or t.max_score]  # a contract test: no task, no points
        rows.append(task_row(shown_id(student), tests))
        rows[-1].left_out = (left_out or {}).get(student, "")
        if not columns or sum(c.tests for c in columns.values()) < len(tests):  # the fullest set of tests describes the tasks
            columns = {}
            for t in tests:
                column = columns.setdefault(t.task, TaskColumn(t.task))
                column.tests += 1
                column.public_tests += t.public
                column.max_score += t.max_score
                column.public_max += t.max_score if t.public else 0.0
    ordered = sorted(columns.values(), key=lambda c: task_key(c.task))
    table = TaskTable(assignment, ordered, rows)
    for row in rows:
        if not row.status and not row.tasks:  # no test ran (nothing to grade): 0 in every task, as in grades.csv
            row.tasks = {c.task: Points(0.0, c.max_score) for c in ordered}
            row.public, row.hidden = Points(0.0, table.public_mean.max_score), Points(0.0, table.hidden_mean.max_score)
    for column in ordered:
        column.scores = [r.tasks[column.task].score for r in rows if r.counted and column.task in r.tasks]
    return table
