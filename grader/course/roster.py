"""The course roster, ``roster.csv``: who the students are, under every name the course's systems know them by.

One row per student, UTF-8 (a byte-order mark is allowed), comma-separated, a header row first::

    student,github,email,sis_id,section,name
    alice,alice-gh,alice@example.edu,2026001,A,"Liddell, Alice"

``student`` (required) is the course's id: the name of the student's submission (a folder, a zip, a repository) in
``grader grade``'s output. The other columns are optional: ``github`` (a GitHub user name, matched without regard to
case, as GitHub does), ``email`` and ``sis_id`` (what an LMS imports by), ``section`` and ``name``. Each value that
identifies a student belongs to one row: no two rows share a student id, GitHub name, e-mail address or SIS id, and no
row's student id is another row's GitHub name (without regard to case, as a submission is matched). Each error names
the file, the line and the column (:class:`~grader.errors.ConfigError`), and the file is never changed. A file in
UTF-16 (with or without a byte-order mark) or another encoding is refused, saying to save it as CSV UTF-8.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from grader.course.csv_file import read_csv

COLUMNS = ("student", "github", "email", "sis_id", "section", "name")
REQUIRED = {"student": "the course's id of each student"}
LABELS = {"student": "student id", "github": "GitHub name"}


@dataclass(frozen=True)
class Student:
    """One row of the roster (every value stripped; "" when the column is absent or empty)."""

    student: str
    github: str = ""
    email: str = ""
    sis_id: str = ""
    section: str = ""
    name: str = ""
    line: int = 0


@dataclass
class Matching:
    """How a set of graded ids met the roster.

    Attributes:
        matched: Graded id to its roster row.
        unknown: Graded ids with no roster row, in the given order.
        missing: Roster rows no graded id matched ("missing" work), in roster order.
        claimed_twice: Roster row's ``student`` to the graded ids that each matched it (two submissions, one student).
    """

    matched: dict[str, Student] = field(default_factory=dict)
    unknown: list[str] = field(default_factory=list)
    missing: list[Student] = field(default_factory=list)
    claimed_twice: dict[str, list[str]] = field(default_factory=dict)

    def problems(self) -> list[str]:
        """One line for each kind of mismatch: submissions the roster does not know, roster students with no
        submission, and students several submissions claim."""
        lines = [f"graded but not on the roster: {', '.join(self.unknown)}"] if self.unknown else []
        lines += [f"on the roster with no grades (missing): {', '.join(s.student for s in self.missing)}"
                  ] if self.missing else []
        lines += [f"{sid} is claimed by several submissions ({', '.join(ids)})" for sid, ids in self.claimed_twice.items()]
        return lines


def read_roster(path: Path) -> list[Student]:
    """Read ``roster.csv`` (see the module docstring).

    Raises:
        ConfigError: Naming the file, the line and the column: no ``student`` column, an unknown or repeated column,
            an empty or repeated student id, a GitHub name or e-mail address or SIS id that two rows share, a student id
            that is another row's GitHub name (without regard to case: a submission of that name would match both), a
            cell a spreadsheet would run as a formula, or a value over 200 characters.
    """
    table = read_csv(path, "the roster", COLUMNS, REQUIRED)
    if not table.header:
        raise table.error("line 1", "empty: expected a header row with a student column")
    students: list[Student] = []
    seen: dict[tuple[str, str], int] = {}
    ids: dict[tuple[str, str], int] = {}  # (student or github, its value in lower case): its first line
    for number, values in table.records(COLUMNS):
        if not values["student"]:
            raise table.error(f"line {number}, student", "empty student id")
        for name in ("student", "github", "email", "sis_id"):
            key = values.get(name, "").lower() if name in ("github", "email") else values.get(name, "")
            if key:
                if (name, key) in seen:
                    raise table.error(f"line {number}, {name}",
                                      f"{values[name][:60]!r} is also on line {seen[(name, key)]}")
                seen[(name, key)] = number
        for name, other in (("student", "github"), ("github", "student")):  # match finds a submission by either
            key = values.get(name, "").lower()
            line = ids.get((other, key), number) if key else number
            if line != number:
                raise table.error(f"line {number}, {name}",
                                  f"{values[name][:60]!r} is also the {LABELS[other]} on line {line} (without regard "
                                  "to case): a submission of that name would match both rows; give each row its own")
        for name in ("student", "github"):
            if values.get(name):
                ids.setdefault((name, values[name].lower()), number)
        students.append(Student(line=number, **values))
    return students


def match(roster: Sequence[Student], graded: Iterable[str]) -> Matching:
    """Match graded ids (the gradebook's ``student`` column) to roster rows: by ``student``, else by ``github``
    (without regard to case). Every graded id and every row ends up in exactly one of the result's lists."""
    by_id = {s.student: s for s in roster}
    by_github = {s.github.lower(): s for s in roster if s.github}
    result = Matching()
    claims: dict[str, list[str]] = {}
    for gid in graded:
        row = by_id.get(gid) or by_github.get(gid.lower())
        if row is None:
            result.unknown.append(gid)
            continue
        result.matched[gid] = row
        claims.setdefault(row.student, []).append(gid)
    result.claimed_twice = {sid: ids for sid, ids in claims.items() if len(ids) > 1}
    result.missing = [s for s in roster if s.student not in claims]
    return result
