"""What each export wrote into each LMS cell, and the hand edits it must not overwrite.

``grader export`` keeps, in the graded folder, a record of the value it wrote into each cell of each LMS
(``GRADED/_instructor/exported.json``: the LMS to the roster's student id to the assignment id to the cell's text, as
written). On the next Canvas export, a cell of Canvas's file that differs both from what was written last time and
from what would be written now was changed by a person in Canvas (a TA's regrade): the export leaves it as it is and
names it (:class:`HandEdit`), unless told to overwrite hand edits. An empty cell is never one (Canvas shows no grade:
nothing of a person's to keep), nor a cell never written before. Numbers are compared as numbers (Canvas writes
``38.00`` for ``38``), to the cent.

The record also says what moved since the last export (:func:`grader.outputs.score_changes.changes`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from grader.course.csv_file import finite_number
from grader.files import write_atomic

RECORD = Path("_instructor") / "exported.json"
"""Where in the graded folder the record is kept."""
MAX_RECORD_BYTES = 64 * 1024 * 1024
"""Largest record read back, in bytes (larger: read as none)."""

Cells = dict[str, dict[str, str]]
"""Student id to assignment id to a cell's text."""


@dataclass(frozen=True)
class HandEdit:
    """A cell a person changed in the LMS since the last export.

    Attributes:
        student: The roster's student id.
        assignment: The assignment id.
        line: The line of the LMS file it is on.
        in_lms: The cell as the LMS file has it (kept).
        last: What the last export wrote into it.
        now: What this export would write.
    """

    student: str
    assignment: str
    line: int
    in_lms: str
    last: str
    now: str

    def describe(self) -> str:
        """One line for the terminal: who, which assignment, the three values."""
        return (f"{self.student[:60]} {self.assignment} (line {self.line}): {self.in_lms[:20]!r} in the LMS, "
                f"{self.last!r} exported last time, {self.now!r} now")


def read_record(graded: Path, lms: str) -> Cells:
    """What the last export to ``lms`` wrote from the graded folder ``graded`` (empty: none, or a record that cannot
    be read)."""
    path = graded / RECORD
    try:
        if path.stat().st_size > MAX_RECORD_BYTES:
            return {}
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    mine = data.get(lms) if isinstance(data, dict) else None
    if not isinstance(mine, dict):
        return {}
    return {str(s): {str(a): str(v) for a, v in cells.items() if isinstance(v, str)}
            for s, cells in mine.items() if isinstance(cells, dict)}


def write_record(graded: Path, lms: str, written: Mapping[str, Mapping[str, str]]) -> None:
    """Record ``written`` as what the export to ``lms`` wrote (the cells it did not write keep their last value)."""
    path = graded / RECORD
    try:
        data = json.loads(path.read_text(encoding="utf-8")) if path.stat().st_size <= MAX_RECORD_BYTES else {}
    except (OSError, ValueError, RecursionError):
        data = {}
    data = data if isinstance(data, dict) else {}
    mine = read_record(graded, lms)
    for student, cells in written.items():
        mine.setdefault(student, {}).update(cells)
    data[lms] = mine
    write_atomic(path, json.dumps(data, indent=1, sort_keys=True))


def same(a: str, b: str) -> bool:
    """Whether two cells hold one score: equal as numbers to the cent, else as text (stripped)."""
    x, y = finite_number(a), finite_number(b)
    if x is not None and y is not None:
        return abs(x - y) < 0.005
    return a.strip() == b.strip()


def is_hand_edit(in_lms: str, last: str | None, now: str) -> bool:
    """Whether the LMS's cell ``in_lms`` was changed by a person: it is not empty, and differs both from what was
    written last time (``last``; None: nothing was) and from what would be written ``now``."""
    return last is not None and bool(in_lms.strip()) and not same(in_lms, last) and not same(in_lms, now)


def remedy(overwrite_flag: str) -> str:
    """What to do about the hand edits left, in one sentence."""
    return ("to keep one, record it as an adjustment (grader adjust STUDENT ASSIGNMENT --set POINTS --stage final "
            f"--reason ... --by ...) and export again; to replace them with the grader's scores, export with "
            f"{overwrite_flag}")


@dataclass(frozen=True)
class CellWrite:
    """One cell an export would write.

    Attributes:
        student: The roster's student id.
        assignment: The assignment id.
        text: What would be written.
        in_lms: What the LMS's file holds there now ("" for a file written from scratch).
        line: The line of the LMS file (0: a file written from scratch).
    """

    student: str
    assignment: str
    text: str
    in_lms: str = ""
    line: int = 0


def split_hand_edits(cells: list[CellWrite], last: Cells, overwrite: bool
                     ) -> tuple[list[CellWrite], list[HandEdit], list[HandEdit]]:
    """The cells to write, the hand edits left (none with ``overwrite``), and those overwritten (only with it)."""
    written: list[CellWrite] = []
    left: list[HandEdit] = []
    replaced: list[HandEdit] = []
    for cell in cells:
        before = last.get(cell.student, {}).get(cell.assignment)
        if before is not None and is_hand_edit(cell.in_lms, before, cell.text):
            edit = HandEdit(cell.student, cell.assignment, cell.line, cell.in_lms.strip(), before, cell.text)
            (replaced if overwrite else left).append(edit)
            if not overwrite:
                continue
        written.append(cell)
    return written, left, replaced
