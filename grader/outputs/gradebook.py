"""Class-level outputs: ``grades.csv`` and the summary table.

``grades.csv`` has one row per student (a cell a spreadsheet would read as a
formula starts with an apostrophe; see :mod:`grader.inert`): ``student``, one column per
assignment (points), ``total``, and ``notes`` (one-line reasons for anything
that could not be graded, the templates handed in unchanged, work on another branch than the one graded and what
intake asks the instructor to look at: the report's :func:`grader.outputs.attention.finding`; never cut, each naming
its assignments); and after ``total``, for each
assignment in course order: when any of its submissions was read from a git repository at a due date,
``<id>.commit`` and ``<id>.commit_time`` (the commit graded for that assignment and its time, UTC: a repository per
student and assignment, or one read at each assignment's due date, gives each its own); when it has a due date
(``due`` in ``assignment.yaml``, or ``--deadline``), ``<id>.raw`` (the tests' points), ``<id>.late_seconds``,
``<id>.late`` (the lateness as the policy counts it: ``2 started days``, ``within the grace period``, ``after the
cut-off``; for a commit, from its time) and ``<id>.penalty`` (points taken), the assignment's own column holding
the final score. The first data row is not special; the maximum
points are printed in the summary table's header. A score withheld because
the grader itself failed is an empty cell (and an empty total), never 0,
with the reason in ``notes``. The gradebook is the output folder's: one column for every assignment graded into
it by any run, one row for every student with a result there; an assignment never graded for a student (one who
joined after it was graded, say) is an empty cell too, noted ``not graded in this folder``, and the total counts
the scores there are.
"""

from __future__ import annotations

import csv
import io
import re
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grader.course.adjustments import Adjustments
from grader.course.config import Assignment
from grader.course.csv_file import read_csv
from grader.errors import GraderError
from grader.files import write_atomic
from grader.inert import csv_cell, terminal
from grader.outputs.adjusted import cell
from grader.outputs.attention import finding, other_branch
from grader.outputs.store import LateWork, ResultStore

GRADEBOOK_BYTES = 256 * 1024 * 1024
"""Largest ``grades.csv`` read back (:func:`read_gradebook`), in bytes: the grader writes it, so the bound is only
against a file that is not one (the course's own CSV files are read up to 10 MB)."""

def points(x: float) -> str:
    """Points for display: at most two decimals, no trailing zeros (``35.71``, ``40``)."""
    return f"{round(x, 2):g}"


@dataclass
class StudentGrade:
    """One student's scores.

    Attributes:
        student: The student id.
        scores: Assignment id to (score, max score) in points.
        notes: One-line reasons for anything that could not be graded, is the template handed in unchanged or was
            graded on a branch while the work is on another.
        withheld: Assignment id to why its score is withheld (a grader error).
        origins: Assignment id to the commit graded for it, for a submission read from git at a due date:
            ``commit``, ``time`` and ``late``, as checked by :func:`origin_of` (assignments without one left out).
        late: Assignment id to what its due date and late policy did (assignments with a due date only).
        unadjusted: Assignment id to its score before a person's adjustments (adjusted assignments only:
            ``scores`` holds the adjusted one, :mod:`grader.outputs.adjusted`).
    """

    student: str
    scores: dict[str, tuple[float, float]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    withheld: dict[str, str] = field(default_factory=dict)
    origins: dict[str, dict[str, str]] = field(default_factory=dict)
    late: dict[str, LateWork] = field(default_factory=dict)
    unadjusted: dict[str, float] = field(default_factory=dict)

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
    groups = [(a.id, (GIT_COLUMNS if any(a.id in g.origins for g in grades) else ())
               + (LATE_COLUMNS if any(a.id in g.late for g in grades) else ())
               + (ADJUSTED_COLUMNS if any(a.id in g.unadjusted for g in grades) else ())) for a in assignments]
    writer.writerow(["student", *[a.id for a in assignments], "total",
                     *[f"{aid}.{c}" for aid, columns in groups for c in columns], "notes"])
    for g in sorted(grades, key=lambda g: g.student):
        row = [g.cell(a.id) for a in assignments]
        after = [cell for aid, columns in groups for cell in _assignment_cells(g, aid, columns)]
        writer.writerow([csv_cell(g.student), *row, g.total_cell(), *after, csv_cell("; ".join(g.notes))])
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, buffer.getvalue())


GIT_COLUMNS = ("commit", "commit_time")
"""The columns of ``grades.csv`` (``<id>.commit``, ...) for each assignment any submission of which was read from a
git repository at a due date: the commit graded for it and its time (its lateness is ``<id>.late``)."""
LATE_COLUMNS = ("raw", "late_seconds", "late", "penalty")
"""The columns of ``grades.csv`` (``<id>.raw``, ...) for each assignment with a due date (after its git columns)."""
ADJUSTED_COLUMNS = ("unadjusted",)
"""The column of ``grades.csv`` (``<id>.unadjusted``: the score before a person's adjustments, every student's) for each
assignment a row of ``adjustments.csv`` changed (after its late columns)."""


def _assignment_cells(grade_: StudentGrade, assignment: str, columns: Sequence[str]) -> list[str]:
    """One student's cells of one assignment's ``columns`` (of :data:`GIT_COLUMNS` and :data:`LATE_COLUMNS`)."""
    origin, late = grade_.origins.get(assignment, {}), grade_.late.get(assignment)
    withheld = assignment in grade_.withheld
    cells = {"commit": origin.get("commit", ""), "commit_time": origin.get("time", ""),
             "unadjusted": points(grade_.unadjusted.get(assignment, grade_.scores.get(assignment, (0.0, 0.0))[0]))
             if assignment in grade_.scores and not withheld else ""}
    if late is not None:
        cells.update(raw="" if withheld else points(late.raw_score), late_seconds=str(late.seconds),
                     late=csv_cell(late.counted),
                     penalty="" if withheld or not late.applied else points(late.penalty_points))
    return [cells.get(c, "") for c in columns]


MIN_NOTE_WIDTH = 60
"""Characters of a student's notes the summary table shows at least (more when the terminal is wider)."""


def note_width(used: int) -> int:
    """Characters left for the notes column on this terminal (:func:`shutil.get_terminal_size`: ``COLUMNS``, the
    terminal, else 80) once ``used`` characters hold the other columns; at least :data:`MIN_NOTE_WIDTH`."""
    return max(MIN_NOTE_WIDTH, shutil.get_terminal_size().columns - used)


def table(assignments: list[Assignment], grades: list[StudentGrade], width: int | None = None) -> str:
    """A plain-text summary table, one row per student, maximum points in the header.

    Args:
        assignments: The assignments, one column each.
        grades: The students' grades.
        width: Characters of notes shown before they are cut with "..."; None fits the table to the terminal
            (:func:`note_width`). ``grades.csv`` never cuts them.
    """
    header = ["student", *[f"{a.id} /{a.points:g}" for a in assignments], f"total /{sum(a.points for a in assignments):g}", "notes"]
    rows = [[terminal(g.student, keep=""), *[g.cell(a.id, "withheld" if a.id in g.withheld else "-") for a in assignments],
             g.total_cell("withheld"), terminal("; ".join(g.notes), keep="")] for g in sorted(grades, key=lambda g: g.student)]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header) - 1)]
    cap = width if width is not None else note_width(sum(widths) + 2 * len(widths))
    for row in rows:
        if len(row[-1]) > cap:
            row[-1] = row[-1][: cap - 3] + "..."
    widths.append(max(len(r[-1]) for r in [header, *rows]))
    def fmt(row: list[str]) -> str:
        cells = [c.ljust(w) if i in (0, len(row) - 1) else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))]
        return "  ".join(cells).rstrip()
    rule = "  ".join("-" * w for w in widths)
    return "\n".join([fmt(header), rule, *[fmt(r) for r in rows]])


HEX = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")
UTC_TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z")


def origin_of(origin: Mapping[str, Any]) -> dict[str, str]:
    """The commit a result says was graded (:attr:`grader.outputs.store.Result.origin`), each field checked: a
    SHA-1 or SHA-256 commit id, a UTC time, and ``late`` as ``yes``/``no``; empty when there is none or it does not
    fit."""
    commit, time, late = origin.get("commit"), origin.get("time"), origin.get("late")
    if not (isinstance(commit, str) and HEX.fullmatch(commit) and isinstance(time, str) and UTC_TIME.fullmatch(time)
            and isinstance(late, bool)):
        return {}
    return {"commit": commit, "time": time, "late": "yes" if late else "no"}


def grade_from_results(store: ResultStore, assignments: list[Assignment], student: str,
                       adjustments: Adjustments | None = None) -> StudentGrade:
    """A student's grade from their results in ``store``, each distinct problem noted once; with ``adjustments``,
    each score adjusted (:func:`grader.outputs.adjusted.cell`), noted, the stored one kept in ``unadjusted``.

    Raises:
        ConfigError: When an adjustment takes a score out of range (naming the file and its line).
    """
    grade_ = StudentGrade(student)
    where: dict[str, list[str]] = {}
    for a in assignments:
        stored = store.get(a.id, student)
        if stored is None:  # never graded into this folder (or its results.json is unreadable): no score, not 0
            where.setdefault("not graded in this folder", []).append(a.id)
            continue
        result = stored
        grade_.scores[a.id] = (result.score, result.max_score)
        made = cell(store, a, student, adjustments) if adjustments else None
        if made is not None:
            grade_.scores[a.id], grade_.unadjusted[a.id] = (made.score, result.max_score), made.unadjusted
            where.setdefault("adjusted: " + ", ".join(f"{r.change} {r.stage} by {r.by} (line {r.line})"
                                                      for r in made.rows), []).append(a.id)
        if result.withheld:
            grade_.withheld[a.id] = result.withheld
            where.setdefault(f"grader error, score withheld: {result.withheld}", []).append(a.id)
        if origin := origin_of(result.origin):
            grade_.origins[a.id] = origin
        if result.late is not None:
            grade_.late[a.id] = result.late
            if result.late.late and not result.withheld:
                taken = f", {points(result.late.penalty_points)} points taken" if result.late.penalty_points else ""
                where.setdefault(f"late ({result.late.counted}{taken})", []).append(a.id)
        if elsewhere := other_branch(result):  # first: it explains the problems and the template below
            where.setdefault(f"work on another branch: {elsewhere}", []).append(a.id)
        for problem in [*result.problems, *result.attention]:
            where.setdefault(problem, []).append(a.id)
        # what the report's attention list says and the lines above do not: the unchanged template, no test ran
        found = finding(stored) if not stored.problems and not elsewhere else None
        if found is not None and found.kind != "grader error":
            where.setdefault(f"{found.kind}: {found.reason}", []).append(a.id)
    late_commits: dict[str, list[str]] = {}  # first: a late commit, each naming its assignments
    for aid, origin in grade_.origins.items():
        if origin["late"] == "yes":
            late_commits.setdefault(f"late: graded commit {origin['commit'][:7]} of {origin['time']}", []).append(aid)
    grade_.notes = [f"{', '.join(ids)}: {problem}" for problem, ids in [*late_commits.items(), *where.items()]]
    return grade_


def read_gradebook(out: Path) -> tuple[list[str], list[dict[str, str]]]:
    """The header and rows of ``out/grades.csv`` (as :func:`write_csv` wrote it), read by the course's CSV reader
    (:func:`grader.course.csv_file.read_csv`: at most :data:`GRADEBOOK_BYTES`, UTF-8, strict CSV).

    Raises:
        GraderError: If the file is missing or not a gradebook.
        ConfigError: If it is too large, not UTF-8 or not CSV (naming the file and the line).
    """
    path = out / "grades.csv"
    try:
        path.stat()
    except OSError as exc:
        raise GraderError(f"cannot read {path} ({exc.strerror}): run `grader grade` first") from None
    table = read_csv(path, "the gradebook", limit=GRADEBOOK_BYTES)
    header = list(table.header)
    if header[:1] != ["student"] or "total" not in header:
        raise GraderError(f"{path} is not a gradebook written by `grader grade`")
    return header, [dict(zip(header, row.cells)) for row in table.rows]


def student_id(cell: str, out: Path, assignment_ids: Sequence[str]) -> str:
    """The student id of a gradebook cell: ``grades.csv`` puts an apostrophe before an id a spreadsheet would read
    as a formula (:func:`grader.inert.csv_cell`); the id is the one with results folders."""
    if cell.startswith("'") and csv_cell(cell[1:]) == cell and not any((out / aid / cell).is_dir() for aid in assignment_ids):
        return cell[1:]
    return cell
