"""Class-level outputs: ``grades.csv`` and the summary table.

``grades.csv`` has one row per student (a cell a spreadsheet would read as a
formula starts with an apostrophe; see :mod:`grader.outputs.inert`): ``student``, one column per
assignment (points), ``total``, and ``notes`` (one-line reasons for anything
that could not be graded). The first data row is not special; the maximum
points are printed in the summary table's header. A score withheld because
the grader itself failed is an empty cell (and an empty total), never 0,
with the reason in ``notes``.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from pathlib import Path

from grader.course.config import Assignment
from grader.files import write_atomic
from grader.outputs.inert import csv_cell, terminal
from grader.outputs.results import grader_data, read_results, score_of, withheld


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
        withheld: Assignment id to why its score is withheld (a grader error).
    """

    student: str
    scores: dict[str, tuple[float, float]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    withheld: dict[str, str] = field(default_factory=dict)

    @property
    def total(self) -> float:
        return round(sum(s for a, (s, _) in self.scores.items() if a not in self.withheld), 4)

    def cell(self, assignment: str, missing: str = "") -> str:
        """The score of one assignment for display: points, ``missing`` when absent or withheld."""
        if assignment not in self.scores or assignment in self.withheld:
            return missing
        return points(self.scores[assignment][0])

    def total_cell(self, missing: str = "") -> str:
        """The total for display; ``missing`` when any score is withheld."""
        return missing if self.withheld else points(self.total)


def write_csv(path: Path, assignments: list[Assignment], grades: list[StudentGrade]) -> None:
    """Write ``grades.csv`` (UTF-8, comma-separated, header row first)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["student", *[a.id for a in assignments], "total", "notes"])
    for g in sorted(grades, key=lambda g: g.student):
        row = [g.cell(a.id) for a in assignments]
        writer.writerow([csv_cell(g.student), *row, g.total_cell(), csv_cell("; ".join(g.notes))])
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, buffer.getvalue())


def table(assignments: list[Assignment], grades: list[StudentGrade], note_width: int = 60) -> str:
    """A plain-text summary table, one row per student, maximum points in the header."""
    header = ["student", *[f"{a.id} /{a.points:g}" for a in assignments], f"total /{sum(a.points for a in assignments):g}", "notes"]
    rows = []
    for g in sorted(grades, key=lambda g: g.student):
        note = terminal("; ".join(g.notes), keep="")
        if len(note) > note_width:
            note = note[: note_width - 3] + "..."
        rows.append([terminal(g.student, keep=""), *[g.cell(a.id, "withheld" if a.id in g.withheld else "-") for a in assignments],
                     g.total_cell("withheld"), note])
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    def fmt(row: list[str]) -> str:
        cells = [c.ljust(w) if i in (0, len(row) - 1) else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))]
        return "  ".join(cells).rstrip()
    rule = "  ".join("-" * w for w in widths)
    return "\n".join([fmt(header), rule, *[fmt(r) for r in rows]])


def grade_from_results(out: Path, assignments: list[Assignment], student: str) -> StudentGrade:
    """A student's grade read back from their results files, each distinct problem noted once."""
    grade_ = StudentGrade(student)
    where: dict[str, list[str]] = {}
    for a in assignments:
        doc = read_results(out, a, student) or {"tests": []}
        grade_.scores[a.id] = score_of(doc)
        error = withheld(doc)
        if error:
            grade_.withheld[a.id] = error
            where.setdefault(f"grader error, score withheld: {error}", []).append(a.id)
        for problem in grader_data(doc).get("problems", []):
            where.setdefault(str(problem), []).append(a.id)
    grade_.notes = [f"{', '.join(ids)}: {problem}" for problem, ids in where.items()]
    return grade_
