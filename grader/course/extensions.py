"""Per-student extensions (accommodations), ``extensions.csv``: a student's own due date on one assignment or all.

UTF-8 (a byte-order mark is allowed), comma-separated, a header row first, its columns in any order (their names
stripped and matched without regard to case)::

    student,assignment,due,extra,reason
    alice,mlp,2026-12-04T23:59,,medical
    bob,*,,2d,accommodation letter

* ``student`` (required): the course's id of the student, the roster's ``student`` column or the name of their
  submission (matched exactly);
* ``assignment`` (required): an assignment id, or ``*`` for every assignment; a row for the assignment itself wins
  over a ``*`` row for the same student (:func:`extension_for`);
* exactly one of ``due``, a new due date (ISO 8601 as :func:`~grader.course.late_policy.parse_due` reads it: a date
  alone means 23:59:59 that day, a time without an offset is in the course's time zone), and ``extra``, more time
  after the assignment's due date (``2d``, ``36h``, ``90m``): whole days are calendar days in the due date's time
  zone, as the late policy's ``per: day`` counts them (``2d`` after 23:59 ends at 23:59, also across a
  daylight-saving change), any other amount is elapsed time (``36h`` is 129,600 seconds);
* ``reason`` (optional): kept for the instructor, at most 200 characters; never shown in a student's feedback
  (:meth:`Extension.describe` leaves it out).

An empty file, or one with only its header row, means no extensions; blank lines are skipped. Each error names the
file, the line and the column (:class:`~grader.errors.ConfigError`): an unknown, missing or repeated column, an
unknown assignment id, both or neither of ``due`` and ``extra``, a date or duration that does not parse, a row for a
student and assignment already given, a cell a spreadsheet would run as a formula, a row with the wrong number of
cells, a value over 200 characters, a file that is too large or not UTF-8. The file is never changed.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone, tzinfo
from pathlib import Path

from grader.course.csv_file import CsvFile, read_csv
from grader.course.late_policy import LATEST, duration_seconds, duration_text, parse_due
from grader.errors import ConfigError

COLUMNS = ("student", "assignment", "due", "extra", "reason")
REQUIRED = {"student": "the course's id of each student", "assignment": "an assignment id, or * for every one"}
EVERY = "*"
"""The ``assignment`` of a row for every assignment."""


@dataclass(frozen=True)
class Extension:
    """One row of ``extensions.csv``: exactly one of ``due`` and ``extra`` is set.

    Attributes:
        student: The student's id, as the file gives it.
        assignment: The assignment id, or ``"*"`` for every assignment.
        due: The student's new due date (aware), or None.
        extra: Seconds added to the assignment's due date (whole days as calendar days: :meth:`applied_to`), or None.
        reason: Why, for the instructor ("" when not given); not for the student's feedback.
        line: The row's line in the file.
    """

    student: str
    assignment: str
    due: datetime | None
    extra: int | None
    reason: str = ""
    line: int = 0

    def __post_init__(self) -> None:
        if (self.due is None) == (self.extra is None):
            raise ValueError("an Extension has exactly one of due and extra")

    def applied_to(self, due: datetime) -> datetime:
        """The student's due date when the assignment's is ``due`` (aware): the new due date, or ``due`` plus
        ``extra``: its whole days on the wall clock of ``due``'s time zone (one day after 2026-03-07T23:59 in New
        York, where the clocks spring forward that night, is 2026-03-08T23:59-04:00, 23 hours later), the rest as
        elapsed seconds (``36h`` after 2026-03-07T23:59 is 2026-03-09T12:59-04:00); past the year 9999 (a
        placeholder due date), :data:`~grader.course.late_policy.LATEST`.

        Raises:
            ValueError: If ``due`` is naive.
        """
        if due.tzinfo is None:
            raise ValueError("applied_to needs an aware datetime")
        if self.due is not None:
            return self.due
        days, rest = divmod(self.extra or 0, 86400)
        try:
            if rest:  # elapsed time, added in UTC (Python adds to a zone's datetime on its wall clock)
                return (due.astimezone(timezone.utc) + timedelta(seconds=self.extra or 0)).astimezone(due.tzinfo)
            return (due.replace(tzinfo=None) + timedelta(days=days)).replace(tzinfo=due.tzinfo)
        except OverflowError:  # past the year 9999 (a placeholder due date): the end of it
            return LATEST

    def overflows(self, due: datetime) -> bool:
        """Whether the extension moves ``due`` past the year 9999 (:meth:`applied_to` then gives :data:`LATEST`)."""
        return self.due is None and self.applied_to(due) == LATEST

    def describe(self, due: datetime) -> str:
        """The extension in one sentence for the student's feedback, given the assignment's due date ``due``
        (aware): ``Extension: 2 d more, due 2026-12-02T23:59:00-05:00 instead of 2026-11-30T23:59:00-05:00.``
        The reason is left out (it is for the instructor).

        Raises:
            ValueError: If ``due`` is naive.
        """
        own, usual = self.applied_to(due).isoformat(timespec="seconds"), due.isoformat(timespec="seconds")
        more = f"{duration_text(self.extra)} more, " if self.extra is not None else ""
        return f"Extension: {more}due {own} instead of {usual}."


def read_extensions(path: Path, zone: tzinfo | None, assignments: Collection[str]) -> list[Extension]:
    """Read ``extensions.csv`` (see the module docstring), in file order.

    Args:
        path: The file.
        zone: The course's time zone, for a ``due`` without an offset (None: every ``due`` must have one).
        assignments: The course's assignment ids (a row's ``assignment`` is one of them or ``*``).

    Raises:
        ConfigError: Naming the file, the line and the column (``line 3, due``) and the value.
    """
    table = read_csv(path, "the extensions file", COLUMNS, REQUIRED)
    if not table.header:
        return []
    if "due" not in table.header and "extra" not in table.header:
        raise table.error(f"line {table.header_line}", "no due or extra column (a new due date, or more time)")
    known = set(assignments)
    seen: dict[tuple[str, str], int] = {}
    extensions: list[Extension] = []
    for number, values in table.records(COLUMNS):
        extension = _extension(table, number, values, zone, known)
        pair = (extension.student, extension.assignment)
        if pair in seen:
            raise table.error(f"line {number}, student", f"{extension.student[:60]!r} already has an extension for "
                                                         f"{extension.assignment[:60]!r}, on line {seen[pair]}")
        seen[pair] = number
        extensions.append(extension)
    return extensions


def extension_for(extensions: Sequence[Extension], student_ids: Sequence[str], assignment: str, *,
                  where: object = "extensions.csv") -> Extension | None:
    """The extension of the student known by ``student_ids`` (every id of one submission: its name, its roster
    ``student`` id) on ``assignment``: their row for ``assignment``, else their ``*`` row, else None.

    Raises:
        ConfigError: If two rows of one kind match under two of the ids (``alice`` and ``alice-gh`` both given an
            extension for ``mlp``): the file gives one student two extensions (``where`` names it in the error).
    """
    ids = set(student_ids)
    for wanted in (assignment, EVERY):
        found = [e for e in extensions if e.student in ids and e.assignment == wanted]
        if len(found) > 1:
            a, b = found[0], found[1]
            raise ConfigError(where, f"line {b.line}, student",
                              f"{b.student[:60]!r} and {a.student[:60]!r} (line {a.line}) are one student, given two "
                              f"extensions for {wanted[:60]!r}: keep one")
        if found:
            return found[0]
    return None


def _extension(table: CsvFile, number: int, values: dict[str, str], zone: tzinfo | None,
               known: Collection[str]) -> Extension:
    """The extension of the row on line ``number`` of ``table`` (``values``: each column's stripped cell, "" when
    absent)."""
    student, assignment, due, extra = values["student"], values["assignment"], values["due"], values["extra"]
    if not student:
        raise table.error(f"line {number}, student", "empty student id")
    if not assignment:
        raise table.error(f"line {number}, assignment", "empty: an assignment id, or * for every assignment")
    if assignment != EVERY and assignment not in known:
        raise table.error(f"line {number}, assignment", f"{assignment[:60]!r} is not an assignment; known: "
                                                        f"{', '.join(sorted(known)) or 'none'} (or * for all)")
    if due and extra:
        raise table.error(f"line {number}, extra",
                          f"{extra[:60]!r} as well as a due date ({due[:60]!r}): give one of due and extra")
    if not due and not extra:
        raise table.error(f"line {number}, due", "neither a due date nor extra time: give one of due and extra")
    if due:
        return Extension(student, assignment, parse_due(due, zone, str(table.path), f"line {number}, due"), None,
                         values["reason"], number)
    seconds = duration_seconds(extra, str(table.path), f"line {number}, extra")
    if seconds == 0:
        raise table.error(f"line {number}, extra", f"{extra[:60]!r} is no time: give more than 0")
    return Extension(student, assignment, None, seconds, values["reason"], number)
