"""The class report's "Adjustments" section: every score a person changed, as the outputs applied it.

Read from the results of the graded folder, where each run writes the rows of ``adjustments.csv`` it applied
(:mod:`grader.outputs.adjusted`: one line of ``tests`` per row, marked ``extra_data.adjustment``), so the report
lists what the gradebook holds, nothing else. Every text is one inert, capped line (:func:`grader.outputs.attention.
one_line`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from grader.course.config import Assignment
from grader.outputs.attention import one_line, shown_id
from grader.outputs.entries import ADJUSTMENT
from grader.outputs.store import ResultStore

TEXT_CHARS = 200
"""Characters of a reason or a name shown."""


@dataclass(frozen=True)
class AdjustmentRow:
    """One adjustment applied, for the report.

    Attributes:
        student: The student id, as the report shows it.
        assignment: The assignment id.
        change: ``+2``, ``-5`` or ``=0`` (points).
        stage: ``raw`` (before the late penalty) or ``final``.
        by: Who made it.
        date: When (``YYYY-MM-DD``), or "".
        reason: Why.
        line: Its line in ``adjustments.csv``.
    """

    student: str
    assignment: str
    change: str
    stage: str
    by: str
    date: str
    reason: str
    line: int


def adjustments_section(store: ResultStore, assignments: Sequence[Assignment], students: Sequence[str]
                        ) -> list[AdjustmentRow]:
    """Every adjustment the folder's results carry, by line of the file."""
    rows = []
    for a in assignments:
        for student in students:
            result = store.get(a.id, student)
            tests = result.document.get("tests") if result is not None else None
            for t in tests if isinstance(tests, list) else []:
                extra = t.get("extra_data") if isinstance(t, dict) else None
                made = extra.get(ADJUSTMENT) if isinstance(extra, dict) else None
                if not isinstance(made, dict):
                    continue
                line = made.get("line")
                change, stage, by, when = (one_line(str(made.get(k) or ""), TEXT_CHARS)
                                           for k in ("change", "stage", "by", "date"))
                rows.append(AdjustmentRow(shown_id(student), a.id, change, stage, by, when,
                                          one_line(str(t.get("output") or ""), TEXT_CHARS),
                                          line if isinstance(line, int) and not isinstance(line, bool) else 0))
    return sorted(rows, key=lambda r: r.line)
