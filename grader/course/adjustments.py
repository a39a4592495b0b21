"""Scores a person changed, ``adjustments.csv``: a regrade upheld, a late penalty waived, an integrity case set to 0.

UTF-8 (a byte-order mark is allowed), comma-separated, a header row first, its columns in any order (their names
stripped and matched without regard to case), one row per change, read as :mod:`grader.course.csv_file` reads every
course file::

    student,assignment,add,set,stage,reason,by,date
    s03,mlp,2,,raw,test 3 was unfair to your recursive topological sort,TA Lee,2026-10-03
    s05-gh,backward,,50,final,late penalty waived: illness,Prof. Ada,2026-10-10
    s06,graph,,0,final,academic integrity case 2026-14,Prof. Ada,2026-10-17

* ``student`` (required): the course's id of the student (the roster's ``student``), their GitHub name or a previous
  id on the roster, or, without a roster, the name of their submission;
* ``assignment`` (required): an assignment id;
* exactly one of ``add``, points added (``2``) or taken (``-5``), and ``set``, the score set (``0``), in points of
  the assignment (a cell starting with ``+`` or ``=`` is refused, as a spreadsheet would run it as a formula);
* ``stage`` (required): ``raw``, the change is to the tests' points and the late penalty still applies (a regrade),
  or ``final``, to the score after the penalty (a waived penalty, an integrity zero);
* ``reason`` (required): why, shown to the student in their feedback;
* ``by`` (required): who made the change (shown to the student);
* ``date`` (optional): when (``YYYY-MM-DD``; ``grader adjust`` writes today's).

Several rows for one student and assignment add up in file order: every ``raw`` row, then the late penalty, then
every ``final`` row; after each stage the score must lie in [0, the assignment's points]
(:func:`grader.outputs.adjusted.adjusted`). Each error names the file, the line and the column
(:class:`~grader.errors.ConfigError`): an unknown, missing or repeated column, an unknown assignment or student
(:func:`resolve`), both or neither of ``add`` and ``set``, a number that does not parse or lies outside what the
assignment is worth, a ``stage`` other than the two, an empty reason or ``by``, two ``set`` rows for one student and
assignment, a cell a spreadsheet would run as a formula, a row with the wrong number of cells, a file that is too
large or not UTF-8. The file is never changed except by :func:`append_row`, which adds one row at its end.
"""

from __future__ import annotations

import csv
import io
import os
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from grader.course.csv_file import CourseFile, CsvFile, finite_number, read_csv
from grader.course.roster import Identities, Student, nobody_named
from grader.errors import ConfigError
from grader.files import write_atomic

COLUMNS = ("student", "assignment", "add", "set", "stage", "reason", "by", "date")
REQUIRED = {"student": "the course's id of each student", "assignment": "an assignment id",
            "stage": "raw (before the late penalty) or final (after it)", "reason": "why, shown to the student",
            "by": "who made the change"}
STAGES = ("raw", "final")
"""When a row applies: to the tests' points before the late penalty, or to the score after it."""
DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
NAME_CHARS = 60
"""Characters of a name from the file quoted in a message."""


@dataclass(frozen=True)
class Adjustment:
    """One row of ``adjustments.csv``.

    Attributes:
        student: The student's id: as the file gives it, or, once :func:`resolve`\\ d, the course's id.
        assignment: The assignment id.
        points: Points added (negative: taken) or, with ``sets``, the score set, in points.
        sets: True: the row sets the score to ``points``; False: it adds ``points``.
        stage: ``raw`` (before the late penalty) or ``final`` (after it).
        reason: Why (shown to the student).
        by: Who made the change.
        date: When (``YYYY-MM-DD``), or "".
        line: The row's line in the file.
        given: The student as the file names them (their GitHub name, say).
    """

    student: str
    assignment: str
    points: float
    sets: bool
    stage: str
    reason: str
    by: str
    date: str = ""
    line: int = 0
    given: str = ""

    @property
    def change(self) -> str:
        """The change as a person writes it: ``+2``, ``-5``, ``=0`` (points)."""
        number = f"{round(self.points, 4):g}"
        return f"={number}" if self.sets else (number if self.points < 0 else f"+{number}")

    def describe(self) -> str:
        """The row in one line for the student's feedback: ``+2 before the late penalty by TA Lee on 2026-10-03:
        test 3 was unfair`` (after ``adjusted: ``)."""
        when = f" on {self.date}" if self.date else ""
        stage = "before the late penalty" if self.stage == "raw" else "to the final score"
        return f"{self.change} {stage} by {self.by}{when}: {self.reason}"


@dataclass(frozen=True)
class Adjustments:
    """The adjustments of one run: the file's rows, resolved to the course's ids (empty: no file).

    Attributes:
        rows: Every row, in file order.
        path: The file they were read from (None: none).
        warnings: Rows that name nobody in this run, without a roster to find them on (one line each).
    """

    rows: tuple[Adjustment, ...] = ()
    path: Path | None = None
    warnings: tuple[str, ...] = ()

    def of(self, student: str, assignment: str) -> list[Adjustment]:
        """The rows of one student (the course's id) on one assignment, in file order."""
        return [r for r in self.rows if r.student == student and r.assignment == assignment]

    def error(self, row: Adjustment, column: str, message: str) -> ConfigError:
        """The error naming the file, ``row``'s line and ``column``."""
        return ConfigError(self.path or "adjustments.csv", f"line {row.line}, {column}", message)

    def __bool__(self) -> bool:
        return bool(self.rows)


def read_adjustments(path: Path, points: Mapping[str, float]) -> list[Adjustment]:
    """Read ``adjustments.csv`` (see the module docstring), in file order; the students as written.

    Args:
        path: The file.
        points: Each assignment of the course to its points.

    Raises:
        ConfigError: Naming the file, the line and the column (``line 3, add``) and the value.
    """
    table = read_csv(path, "the adjustments file", COLUMNS, REQUIRED)
    if not table.header:
        return []
    if "add" not in table.header and "set" not in table.header:
        raise table.error(f"line {table.header_line}", "no add or set column (points added, or the score set)")
    return [_adjustment(table, number, values, points) for number, values in table.records(COLUMNS)]


def resolve(rows: Sequence[Adjustment], path: Path | None, roster: Sequence[Student],
            names: Collection[str]) -> Adjustments:
    """The rows with each student named by the course's id, checked against the class.

    Args:
        rows: The file's rows (:func:`read_adjustments`).
        path: The file, for errors.
        roster: The roster (a row may name its id, GitHub name or a previous id).
        names: The other names a student goes by in this run: submission names, students with results.

    Raises:
        ConfigError: Naming the file, the line and the column: a student neither on the roster nor among ``names``
            (without a roster, a warning: the student may have no submission in this run), or two ``set`` rows for
            one student and assignment (under one name or two).
    """
    where: object = path or "adjustments.csv"
    identities = Identities(roster)
    known = set(names) | {n for s in roster for _, n in s.names()}
    resolved: list[Adjustment] = []
    warnings: list[str] = []
    sets: dict[tuple[str, str], Adjustment] = {}
    for row in rows:
        found = identities.find(row.student) if roster else None
        if found is None and row.student not in known:
            warnings.append(nobody_named("adjustment", where, row.line, row.student, known, bool(roster)))
        mine = replace(row, student=found[0].student if found is not None else row.student, given=row.student)
        if mine.sets:
            first = sets.setdefault((mine.student, mine.assignment), mine)
            if first is not mine:
                raise ConfigError(where, f"line {row.line}, set",
                                  f"a second score set for {mine.student[:NAME_CHARS]} on {mine.assignment} (the "
                                  f"first on line {first.line}): keep one (several add rows add up, two set rows "
                                  "contradict each other)")
        resolved.append(mine)
    return Adjustments(tuple(resolved), path, tuple(warnings))


def load_adjustments(path: Path | None, points: Mapping[str, float], roster: Sequence[Student],
                     names: Collection[str]) -> Adjustments:
    """Read ``path`` (:func:`read_adjustments`) and :func:`resolve` its rows; no rows without a file (none named, or
    the file named not made yet: ``grader adjust`` makes it).

    Raises:
        ConfigError: Naming the file, the line and the column, for a row refused.
    """
    if path is None or not os.path.lexists(path):
        return Adjustments(path=path)
    return resolve(read_adjustments(path, points), path, roster, names)


def _adjustment(table: CsvFile, number: int, values: dict[str, str], points: Mapping[str, float]) -> Adjustment:
    """The adjustment of the row on line ``number`` of ``table`` (``values``: each column's stripped cell)."""
    def error(column: str, message: str) -> ConfigError:
        return table.error(f"line {number}, {column}", message)

    student, assignment, stage = values["student"], values["assignment"], values["stage"].lower()
    if not student:
        raise error("student", "empty student id")
    if assignment not in points:
        raise error("assignment", f"{assignment[:NAME_CHARS]!r} is not an assignment; known: "
                                  f"{', '.join(sorted(points)) or 'none'}")
    add, set_ = values["add"], values["set"]
    if add and set_:
        raise error("set", f"{set_[:20]!r} as well as add {add[:20]!r}: give one of add and set")
    if not add and not set_:
        raise error("add", "neither points added (add) nor a score set (set): give one of them")
    column = "set" if set_ else "add"
    value = finite_number(set_ or add)
    worth = points[assignment]
    if value is None:
        raise error(column, f"{(set_ or add)[:20]!r} is not a number of points")
    if set_ and not 0 <= value <= worth:
        raise error("set", f"{value:g} is outside 0 to {worth:g}, the points {assignment} is worth")
    if add and (value == 0 or abs(value) > worth):
        raise error("add", f"{value:g}: give points added (2) or taken (-5), at most the {worth:g} "
                           f"{assignment} is worth")
    if stage not in STAGES:
        raise error("stage", f"{values['stage'][:20]!r}: raw (a regrade: the late penalty still applies) or "
                             "final (after the penalty: a waived penalty, an integrity zero)")
    for name in ("reason", "by"):
        if not values[name]:
            raise error(name, f"empty: {REQUIRED[name]}")
    if values["date"] and not DATE.fullmatch(values["date"]):
        raise error("date", f"{values['date'][:20]!r}: a date as YYYY-MM-DD")
    return Adjustment(student, assignment, value, bool(set_), stage, values["reason"], values["by"], values["date"],
                      number, student)


def append_row(path: Path, row: Adjustment) -> None:
    """Add ``row`` at the end of the file ``path`` (written with a header row when it is new or empty), every byte
    before it kept.

    Raises:
        ConfigError: If the file exists and cannot be read.
    """
    before = ""
    if path.exists():
        source = CourseFile(path, "the adjustments file")
        before = source.decode(source.read_bytes())
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    if not before.strip():
        writer.writerow(COLUMNS)
    number = f"{round(row.points, 4):g}"
    writer.writerow([row.given or row.student, row.assignment, "" if row.sets else number, number if row.sets else "",
                     row.stage, row.reason, row.by, row.date])
    joint = "" if not before or before.endswith(("\n", "\r")) else "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, before + joint + buffer.getvalue())
