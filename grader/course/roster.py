"""The course roster, ``roster.csv``: who the students are, under every name the course's systems know them by.

One row per student, UTF-8 (a byte-order mark is allowed), comma-separated, a header row first::

    student,github,email,sis_id,section,name
    alice,alice-gh,alice@example.edu,2026001,A,"Liddell, Alice"

``student`` (required) is the course's id: *the* student, in every output (the gradebook's row, each result's
folder, late work, exports, the per-student numbers of a concept check). The other columns are optional: ``github``
(a GitHub user name, matched without regard to case, as GitHub does), ``previous`` (the ids the student had before,
oldest first, separated by ``;``: an id that changed mid-term), ``email`` and ``sis_id`` (what an LMS imports by),
``section`` and ``name``. A submission is found by any of the names that identify a student (:class:`Identities`:
its id, its GitHub name, a previous id, each without regard to case) and is graded as the roster's id from intake
on. Each such name belongs to one row: no two rows share a student id, GitHub name, previous id, e-mail address or
SIS id, and no row's name is another row's name of another kind (without regard to case, as a submission is
matched). Each error names the file, the line and the column (:class:`~grader.errors.ConfigError`), and the file is
never changed. A file in UTF-16 (with or without a byte-order mark) or another encoding is refused, saying to save it
as CSV UTF-8.
"""

from __future__ import annotations

import difflib
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from grader.course.csv_file import read_csv
from grader.errors import ConfigError
from grader.inert import terminal

COLUMNS = ("student", "github", "email", "sis_id", "section", "name", "previous")
REQUIRED = {"student": "the course's id of each student"}
LABELS = {"student": "student id", "github": "GitHub name", "previous": "previous id"}
NAMES = ("student", "github", "previous")
"""The columns whose values name a student's submission (matched without regard to case)."""


MISSING_REMEDY = "no repository or submission: check they accepted the assignment and are still enrolled; nothing to grade"
"""What to do about a roster student with no submission (a re-run cannot help: there is nothing to grade)."""


@dataclass(frozen=True)
class Student:
    """One row of the roster (every value stripped; "" when the column is absent or empty)."""

    student: str
    github: str = ""
    email: str = ""
    sis_id: str = ""
    section: str = ""
    name: str = ""
    previous: str = ""
    line: int = 0

    @property
    def previous_ids(self) -> tuple[str, ...]:
        """The ids the student had before, oldest first (the ``previous`` column split at ``;``)."""
        return tuple(p.strip() for p in self.previous.split(";") if p.strip())

    @property
    def first_id(self) -> str:
        """The student's first id this term: the oldest previous id, else the id (a concept check's numbers are drawn
        from it, so they stay the student's when the id changes)."""
        return (self.previous_ids or (self.student,))[0]

    def names(self) -> list[tuple[str, str]]:
        """Every (kind, name) a submission of this student may have: ``student``, ``github``, each ``previous``."""
        found = [("student", self.student)] + ([("github", self.github)] if self.github else [])
        return found + [("previous", p) for p in self.previous_ids]


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
        lines += [f"on the roster with no grades (missing): {', '.join(s.student for s in self.missing)} "
                  f"({MISSING_REMEDY})"] if self.missing else []
        lines += [f"{sid} is claimed by several submissions ({', '.join(ids)})" for sid, ids in self.claimed_twice.items()]
        return lines


def read_roster(path: Path) -> list[Student]:
    """Read ``roster.csv`` (see the module docstring).

    Raises:
        ConfigError: Naming the file, the line and the column: no ``student`` column, an unknown or repeated column,
            an empty or repeated student id, a GitHub name or e-mail address or SIS id that two rows share, a name of
            one row (its id, GitHub name or a previous id) that is a name of another (without regard to case: a
            submission of that name would match both), a cell a spreadsheet would run as a formula, or a value over
            200 characters.
    """
    table = read_csv(path, "the roster", COLUMNS, REQUIRED)
    if not table.header:
        raise table.error("line 1", "empty: expected a header row with a student column")
    students: list[Student] = []
    seen: dict[tuple[str, str], int] = {}
    ids: dict[str, tuple[int, str]] = {}  # a name in lower case: its first line, and which kind of name it is
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
        row = Student(line=number, **values)
        for name, value in row.names():  # a submission is found by any of them: each names one row
            key = value.lower()
            line, other = ids.get(key, (number, name))
            if line != number:
                raise table.error(f"line {number}, {name}",
                                  f"{value[:60]!r} is also the {LABELS[other]} on line {line} (without regard to "
                                  "case): a submission of that name would match both rows; give each row its own")
        for name, value in row.names():
            ids.setdefault(value.lower(), (number, name))
        students.append(row)
    return students


class Identities:
    """Every name the roster knows a student by, to the student (:meth:`Student.names`): the course's id, the GitHub
    name, each previous id, all without regard to case (the roster refuses a name two rows share)."""

    def __init__(self, roster: Sequence[Student]) -> None:
        self.rows = list(roster)
        self._by_id = {row.student: row for row in self.rows}
        self._by_name: dict[str, tuple[Student, str]] = {}
        for row in roster:
            for kind, name in row.names():
                self._by_name.setdefault(name.lower(), (row, kind))

    def find(self, name: str) -> tuple[Student, str] | None:
        """The row ``name`` names and how (``"student"``, ``"github"`` or ``"previous"``), or None."""
        exact = self._by_id.get(name)  # an exact id first
        return (exact, "student") if exact is not None else self._by_name.get(name.lower())

    def __bool__(self) -> bool:
        return bool(self.rows)


HOW = {"student": "the roster's id", "github": "the roster's GitHub name", "previous": "a previous id on the roster"}
"""How a submission's name found its student, in words."""


def match(roster: Sequence[Student], graded: Iterable[str]) -> Matching:
    """Match graded ids (the gradebook's ``student`` column) to roster rows: by ``student``, else by ``github`` or a
    ``previous`` id (without regard to case: :class:`Identities`). Every graded id and every row ends up in exactly
    one of the result's lists."""
    identities = Identities(roster)
    result = Matching()
    claims: dict[str, list[str]] = {}
    for gid in graded:
        found = identities.find(gid)
        row = found[0] if found is not None else None
        if row is None:
            result.unknown.append(gid)
            continue
        result.matched[gid] = row
        claims.setdefault(row.student, []).append(gid)
    result.claimed_twice = {sid: ids for sid, ids in claims.items() if len(ids) > 1}
    result.missing = [s for s in roster if s.student not in claims]
    return result


@dataclass(frozen=True)
class Known:
    """Who one submission is: the name it was found under, and the student it is graded as.

    Attributes:
        name: The submission's name (a folder, a zip, a repository: :func:`grader.intake.submission.student_id`).
        student: The id it is graded as, in every output: the roster's id of the row its name names, else its name.
        how: How the name found the row (:data:`HOW`'s keys), or "" when it found none (or there is no roster).
        numbers_from: The id a concept check's numbers are drawn from: the student's first id this term
            (:attr:`Student.first_id`), else the name.
    """

    name: str
    student: str
    how: str = ""
    numbers_from: str = ""

    @property
    def on_roster(self) -> bool:
        return bool(self.how)


def identify(names: Sequence[str], roster: Sequence[Student]) -> tuple[dict[str, Known], list[str]]:
    """Who each submission is (:class:`Known`), by its name, and a line for the terminal about each name the roster
    does not resolve cleanly.

    A name is resolved by :class:`Identities`. When two names resolve to one student (``kim`` and ``kim-gh``), the one
    that is the roster's id keeps it (else the first by GitHub name, else the first): the others are graded under
    their own names, not the student's, and the line says so. Without a roster every name is its own student.
    """
    if not roster:
        return {n: Known(n, n, "", n) for n in names}, []
    identities = Identities(roster)
    rank = {"student": 0, "github": 1, "previous": 2}
    order = {n: k for k, n in reversed(list(enumerate(names)))}  # each name's first place
    found: dict[str, tuple[Student, str]] = {}
    for n in names:
        hit = identities.find(n)
        if hit is not None:
            found[n] = hit
    claims: dict[str, list[str]] = {}
    for n in sorted(found, key=lambda n: (rank[found[n][1]], order[n])):
        claims.setdefault(found[n][0].student, []).append(n)
    known: dict[str, Known] = {}
    lines: list[str] = []
    for n in names:
        hit = found.get(n)
        if hit is None or claims[hit[0].student][0] != n:
            known[n] = Known(n, n, "", n)
            continue
        row, how = hit
        known[n] = Known(n, row.student, how, row.first_id)
    for student, claimants in claims.items():
        if len(claimants) > 1:
            lines.append(f"Roster: {len(claimants)} submissions name {student} ({', '.join(claimants)}): "
                         f"{claimants[0]} is graded as {student}; {', '.join(claimants[1:])} under its own name, "
                         "not exported: keep one, or give each its own row")
    by = {how: [k for k in known.values() if k.how == how and k.name != k.student] for how in ("github", "previous")}
    for how, ks in by.items():
        if ks:
            lines.append(f"Roster: {len(ks)} submission(s) found by {HOW[how]}, graded as the roster's id: "
                         + ", ".join(f"{k.name} as {k.student}" for k in ks[:8]) + (" ..." if len(ks) > 8 else ""))
    return known, lines


def nobody_named(kind: str, where: object, line: int, student: str, known: Collection[str], roster: bool) -> str:
    """For a row of a term file (``kind``: "extension", "adjustment") whose ``student`` is none of the ``known``
    names: the warning to print when there is no roster (the student may have no submission in this run), with the
    closest known name as a hint.

    Raises:
        ConfigError: With a roster: the row would apply to nobody (naming ``where``, the line and the column).
    """
    close = difflib.get_close_matches(student, sorted(known), n=1)
    hint = f"; did you mean {close[0][:60]!r}?" if close else ""
    if roster:
        raise ConfigError(where, f"line {line}, student",
                          f"{student[:60]!r} is neither on the roster nor the name of a submission: its {kind} would "
                          f"apply to nobody{hint}")
    return terminal(f"{kind.capitalize()}s: {where} line {line}: {student[:60]!r} names no submission (and there is no "
                    f"roster to find them on): it applies to nobody in this run{hint}", keep="")
