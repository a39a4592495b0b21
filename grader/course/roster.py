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

import csv
import io
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from grader.errors import ConfigError

COLUMNS = ("student", "github", "email", "sis_id", "section", "name")
MAX_BYTES = 10 * 1024 * 1024
"""Largest roster read, in bytes (a course of 10,000 students needs about 1 MB)."""
MAX_CELL = 200
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


def read_bytes(path: Path, what: str) -> bytes:
    """A course file's bytes, at most :data:`MAX_BYTES` of them: a folder, a FIFO or a device is refused before it is
    opened, and no more than one byte past the limit is ever read (a file that grows while it is read included).

    Raises:
        ConfigError: If it is missing, not a regular file, cannot be read, or is too large.
    """
    try:
        info = path.stat()
        if stat.S_ISDIR(info.st_mode):
            raise ConfigError(path, "", f"{what} is a folder: give the file itself")
        if not stat.S_ISREG(info.st_mode):
            raise ConfigError(path, "", f"{what} is not a regular file")
        if info.st_size > MAX_BYTES:
            raise ConfigError(path, "", f"{what} is {info.st_size} bytes, more than the {MAX_BYTES} read")
        with open(path, "rb") as f:
            data = f.read(MAX_BYTES + 1)
    except OSError as exc:
        raise ConfigError(path, "", f"cannot read {what} ({exc.strerror or exc})") from None
    if len(data) > MAX_BYTES:
        raise ConfigError(path, "", f"{what} is more than the {MAX_BYTES} bytes read")
    return data


def decode_text(path: Path, what: str, data: bytes) -> str:
    """A course CSV file's text from its bytes ``data``: UTF-8 with an optional byte-order mark (removed).

    Raises:
        ConfigError: If it is UTF-16 (with or without a byte-order mark: any NUL byte) or not UTF-8, saying how to
            save it.
    """
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise ConfigError(path, "", f"{what} is UTF-16: save it as CSV UTF-8")
    nul = data.find(b"\x00")
    if nul >= 0:  # UTF-16 without a byte-order mark (or not text at all): no CSV UTF-8 file holds one
        raise ConfigError(path, f"byte {nul}", f"{what} holds NUL bytes, as UTF-16 does: save it as CSV UTF-8")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConfigError(path, f"byte {exc.start}", f"{what} is not UTF-8: save it as CSV UTF-8") from None


def read_text(path: Path, what: str) -> str:
    """A course CSV file's text: at most :data:`MAX_BYTES` (:func:`read_bytes`), UTF-8 with an optional byte-order
    mark (:func:`decode_text`).

    Raises:
        ConfigError: If it cannot be read, is not a file, is too large, or is not UTF-8 (saying how to save it).
    """
    return decode_text(path, what, read_bytes(path, what))


def check_cell(path: Path, where: str, value: str) -> None:
    """Refuse a (stripped) cell of a course CSV file over :data:`MAX_CELL` characters, or one a spreadsheet would run
    as a formula when the file is opened: it starts with ``=``, ``+`` or ``@``, or ``-`` not followed by a number.

    Raises:
        ConfigError: Naming ``path``, ``where`` (``line 3, name``) and, for a formula, the value.
    """
    if len(value) > MAX_CELL:
        raise ConfigError(path, where, f"longer than {MAX_CELL} characters")
    if value[:1] in ("=", "+", "@") or value[:1] == "-" and not value[1:].replace(".", "").isdigit():
        raise ConfigError(path, where, f"{value[:40]!r} would run as a spreadsheet formula")


def read_roster(path: Path) -> list[Student]:
    """Read ``roster.csv`` (see the module docstring).

    Raises:
        ConfigError: Naming the file, the line and the column: no ``student`` column, an unknown or repeated column,
            an empty or repeated student id, a GitHub name or e-mail address or SIS id that two rows share, a student id
            that is another row's GitHub name (without regard to case: a submission of that name would match both), a
            cell a spreadsheet would run as a formula, or a value over 200 characters.
    """
    text = read_text(path, "the roster")
    try:
        rows = list(csv.reader(io.StringIO(text, newline=""), strict=True))
    except csv.Error as exc:
        raise ConfigError(path, "", f"not a CSV file ({exc})") from None
    if not rows:
        raise ConfigError(path, "line 1", "empty: expected a header row with a student column")
    header = [h.strip().lower() for h in rows[0]]
    for i, name in enumerate(header):
        if name not in COLUMNS:
            raise ConfigError(path, f"line 1, column {i + 1}", f"unknown column {name[:40]!r}; known: {', '.join(COLUMNS)}")
        if header.index(name) != i:
            raise ConfigError(path, f"line 1, column {i + 1}", f"the column {name!r} appears twice")
    if "student" not in header:
        raise ConfigError(path, "line 1", "no student column (the course's id of each student)")
    students: list[Student] = []
    seen: dict[tuple[str, str], int] = {}
    ids: dict[tuple[str, str], int] = {}  # (student or github, its value in lower case): its first line
    for number, row in enumerate(rows[1:], start=2):
        if not any(c.strip() for c in row):
            continue
        if len(row) != len(header):
            raise ConfigError(path, f"line {number}", f"{len(row)} cells for {len(header)} columns")
        values = {}
        for name, cell in zip(header, row):
            value = cell.strip()
            check_cell(path, f"line {number}, {name}", value)
            values[name] = value
        if not values["student"]:
            raise ConfigError(path, f"line {number}, student", "empty student id")
        for name in ("student", "github", "email", "sis_id"):
            key = values.get(name, "").lower() if name in ("github", "email") else values.get(name, "")
            if key:
                if (name, key) in seen:
                    raise ConfigError(path, f"line {number}, {name}",
                                      f"{values[name][:60]!r} is also on line {seen[(name, key)]}")
                seen[(name, key)] = number
        for name, other in (("student", "github"), ("github", "student")):  # match finds a submission by either
            key = values.get(name, "").lower()
            line = ids.get((other, key), number) if key else number
            if line != number:
                raise ConfigError(path, f"line {number}, {name}",
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
