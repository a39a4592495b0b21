"""Class-level outputs: ``grades.csv`` and the summary table.

``grades.csv`` has one row per student: ``student``, one column per
assignment (points), ``total``, and ``notes`` (one-line reasons for anything
that could not be graded). The first data row is not special; the maximum
points are printed in the summary table's header.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from pathlib import Path

from .config import Assignment


def points(x: float) -> str:
    """Points for display: at most two decimals, no trailing zeros (``35.71``, ``40``)."""
    return f"{round(x, 2):g}"


@dataclass
class StudentGrade:
    """One student's scores.

    Attributes:
        student: The student id.
        scores: Assignment id to (score, max score) in points.
        notes: One-line reasons for anything that could not be graded.
    """

    student: str
    scores: dict[str, tuple[float, float]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def total(self) -> float:
        return round(sum(s for s, _ in self.scores.values()), 4)


def write_csv(path: Path, assignments: list[Assignment], grades: list[StudentGrade]) -> None:
    """Write ``grades.csv`` (UTF-8, comma-separated, header row first)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["student", *[a.id for a in assignments], "total", "notes"])
    for g in sorted(grades, key=lambda g: g.student):
        row = [points(g.scores[a.id][0]) if a.id in g.scores else "" for a in assignments]
        writer.writerow([g.student, *row, points(g.total), "; ".join(g.notes)])
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(buffer.getvalue(), encoding="utf-8")
    tmp.replace(path)


def table(assignments: list[Assignment], grades: list[StudentGrade], note_width: int = 60) -> str:
    """A plain-text summary table, one row per student, maximum points in the header."""
    header = ["student", *[f"{a.id} /{a.points:g}" for a in assignments], f"total /{sum(a.points for a in assignments):g}", "notes"]
    rows = []
    for g in sorted(grades, key=lambda g: g.student):
        note = "; ".join(g.notes)
        if len(note) > note_width:
            note = note[: note_width - 3] + "..."
        rows.append([g.student, *[points(g.scores[a.id][0]) if a.id in g.scores else "-" for a in assignments], points(g.total), note])
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    def fmt(row: list[str]) -> str:
        cells = [c.ljust(w) if i in (0, len(row) - 1) else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))]
        return "  ".join(cells).rstrip()
    rule = "  ".join("-" * w for w in widths)
    return "\n".join([fmt(header), rule, *[fmt(r) for r in rows]])
