"""Grades for an LMS: a Canvas gradebook filled in, a Moodle grade import file, or a plain per-student CSV.

Each takes the gradebook ``grader grade`` wrote (``OUT/grades.csv``: one column per assignment, in points; an empty
cell is a score withheld) and the course roster (:mod:`grader.course.roster`), and lists every student it could not
match instead of dropping them. Files are written with the csv module; cells that come from a person (names) are
made inert for spreadsheets (:func:`grader.inert.csv_cell`).

* **Canvas** (:func:`fill_canvas`): Canvas's gradebook export, read as Canvas writes it (Instructor Guide, "How do I
  export grades in the Gradebook?" and "How do I import grades in the Gradebook?",
  https://community.canvaslms.com/t5/Instructor-Guide/How-do-I-import-grades-in-the-Gradebook/ta-p/807): a header
  row of ``Student``, ``ID``, ``SIS User ID``, ``SIS Login ID``, ``Section`` and one column per assignment named
  ``Title (assignment id)``, then a ``Points Possible`` row (and, in newer exports, a posting-policy row), then one
  row per student. Only the cells of the chosen assignment columns in matched student rows change; every other byte
  of the file stays as Canvas wrote it, so Canvas's import shows only those changes.
* **Moodle** (:func:`moodle_csv`): Moodle's "Import grades from CSV file" (https://docs.moodle.org/en/Grade_import):
  one column identifies the user (mapped on import to *Email address* or *ID number*), one column per grade item.
* **CSV** (:func:`plain_csv`): one row per roster student: the roster's columns, each assignment, the total.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from grader.course.roster import Matching, Student, match
from grader.errors import GraderError
from grader.inert import csv_cell
from grader.outputs.gradebook import read_gradebook, student_id

CANVAS_ID_COLUMNS = ("SIS User ID", "SIS Login ID")
"""The Canvas columns a student row is matched by, in order: the roster's ``sis_id``, then its ``email``."""
CANVAS_COLUMN = re.compile(r"^(?P<title>.*\S)\s*\((?P<id>\d+)\)$")


@dataclass
class Gradebook:
    """``grades.csv`` as the exports read it: student id to assignment id to points ("" when withheld)."""

    assignments: list[str]
    scores: dict[str, dict[str, str]] = field(default_factory=dict)


def gradebook_of(out: Path) -> Gradebook:
    """``OUT/grades.csv`` (:func:`grader.outputs.gradebook.read_gradebook`), student ids as graded.

    Raises:
        GraderError: If it is missing or not a gradebook written by ``grader grade``.
    """
    header, rows = read_gradebook(out)
    book = Gradebook(header[1:header.index("total")])
    for row in rows:
        book.scores[student_id(row["student"], out, book.assignments)] = {a: row.get(a) or "" for a in book.assignments}
    return book


@dataclass
class Export:
    """What an export did.

    Attributes:
        text: The file's content.
        matching: How the gradebook met the roster.
        unmatched_rows: LMS rows (Canvas) whose student the roster does not know, by their first cell.
        filled: How many cells were written.
    """

    text: str
    matching: Matching
    unmatched_rows: list[str] = field(default_factory=list)
    filled: int = 0

    def problems(self) -> list[str]:
        """One line per student who did not make it into the file, and why."""
        lines = [line + (": none of them is exported" if "claimed by several" in line else "")
                 for line in self.matching.problems()]
        if self.unmatched_rows:
            lines.append(f"in the LMS file but not on the roster: {', '.join(self.unmatched_rows)}")
        return lines


def _by_student(book: Gradebook, roster: list[Student]) -> tuple[Matching, dict[str, dict[str, str]]]:
    """The matching, and roster student id to their scores (students claimed twice left out)."""
    found = match(roster, book.scores)
    scores = {row.student: book.scores[gid] for gid, row in found.matched.items() if row.student not in found.claimed_twice}
    return found, scores


def plain_csv(book: Gradebook, roster: list[Student]) -> Export:
    """One row per roster student: ``student, name, email, sis_id, section, github``, each assignment, ``total``."""
    found, scores = _by_student(book, roster)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["student", "name", "email", "sis_id", "section", "github", *book.assignments, "total"])
    for s in roster:
        mine = scores.get(s.student, {})
        cells = [mine.get(a, "") for a in book.assignments]
        total = "" if not mine or "" in cells else f"{round(sum(float(c) for c in cells), 2):g}"
        writer.writerow([csv_cell(v) for v in (s.student, s.name, s.email, s.sis_id, s.section, s.github)]
                        + cells + [total])
    return Export(buffer.getvalue(), found, filled=len(scores))


def moodle_csv(book: Gradebook, roster: list[Student], key: str = "email") -> Export:
    """Moodle's grade import file: ``key`` (``email`` or ``idnumber``: the roster's ``sis_id``) then one column per
    assignment; students without that key are listed as problems.

    Raises:
        GraderError: If ``key`` is neither.
    """
    if key not in ("email", "idnumber"):
        raise GraderError(f"Moodle matches users by email or idnumber, not {key!r}")
    found, scores = _by_student(book, roster)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([key, *book.assignments])
    written = 0
    for s in roster:
        ident = s.email if key == "email" else s.sis_id
        if s.student in scores and ident:
            writer.writerow([csv_cell(ident), *(scores[s.student].get(a, "") for a in book.assignments)])
            written += 1
    export = Export(buffer.getvalue(), found, filled=written)
    export.unmatched_rows = [s.student for s in roster if s.student in scores and not (s.email if key == "email"
                                                                                     else s.sis_id)]
    return export


def fill_canvas(text: str, book: Gradebook, roster: list[Student], columns: Mapping[str, Sequence[str]]) -> Export:
    """Fill Canvas's gradebook export ``text`` with the gradebook's scores.

    Args:
        text: The Canvas export, as read (byte-order mark removed).
        book: The grader's gradebook.
        roster: The roster (its ``sis_id`` meets Canvas's *SIS User ID*, its ``email`` *SIS Login ID*).
        columns: Assignment id to the names of the Canvas column it fills, tried in order: a header cell, its
            title, or its Canvas id.

    Raises:
        GraderError: If the file is not a Canvas gradebook, a column cannot be found (naming those there are), a name
            matches several columns (naming them and the ``--column ID=<Canvas id>`` that picks each), or two
            assignments would fill one column. Blank lines stay as they are, and count for no student.
    """
    spans = _cell_spans(text)
    rows = [[text[a:b] for a, b in row] for row in spans]
    try:
        parsed = list(csv.reader(io.StringIO(text, newline=""), strict=True))
    except csv.Error as exc:
        raise GraderError(f"the Canvas file is not CSV ({exc})") from None
    parsed = [r for r in parsed if r]  # blank lines: _cell_spans leaves them out too, so row r is spans[r]
    if [[_unquote(c) for c in row] for row in rows] != parsed:
        raise GraderError("the Canvas file could not be read cell by cell (an unusual quoting): export it again")
    if not parsed or parsed[0][:1] != ["Student"] or not all(c in parsed[0] for c in CANVAS_ID_COLUMNS):
        raise GraderError("not a Canvas gradebook export: its first row should start with Student and hold "
                          f"{' and '.join(CANVAS_ID_COLUMNS)}")
    header = parsed[0]
    where = {aid: _canvas_column(header, aid, names) for aid, names in columns.items()}
    filled_by: dict[int, str] = {}
    for aid, c in where.items():
        if filled_by.setdefault(c, aid) != aid:
            raise GraderError(f"{filled_by[c]} and {aid} would both fill the Canvas column {header[c][:80]!r}: give "
                              f"each its own with --column ID=<Canvas id>")
    found, scores = _by_student(book, roster)
    by_sis = {s.sis_id: s for s in roster if s.sis_id}
    by_login = {s.email.lower(): s for s in roster if s.email}
    sis, login = header.index("SIS User ID"), header.index("SIS Login ID")
    edits: list[tuple[int, int, str]] = []
    unmatched = []
    for r, row in enumerate(parsed[1:], start=1):
        if len(row) <= max(sis, login) or not row[sis] and not row[login]:
            continue  # Points Possible, a posting-policy row, the Test Student
        person = by_sis.get(row[sis].strip()) or by_login.get(row[login].strip().lower())
        if person is None:
            unmatched.append(row[0][:60])
            continue
        mine = scores.get(person.student)
        if mine is None:
            continue  # on the roster, but not graded (missing) or claimed twice: listed by the matching
        for aid, c in where.items():
            if c < len(spans[r]) and mine.get(aid, "") != "":
                a, b = spans[r][c]
                edits.append((a, b, _quote(mine[aid])))
    out = text
    for a, b, cell in sorted(edits, reverse=True):
        out = out[:a] + cell + out[b:]
    return Export(out, found, unmatched_rows=unmatched, filled=len(edits))


def _canvas_column(header: Sequence[str], aid: str, names: Sequence[str]) -> int:
    """The index of the Canvas column ``aid`` fills: the first of ``names`` that is a header cell, a column's title or
    its Canvas id.

    Raises:
        GraderError: If none is, or one names several columns (two Canvas assignments of one title).
    """
    for name in names:
        found = [i for i, cell in enumerate(header)
                 if cell == name or (m := CANVAS_COLUMN.match(cell)) is not None and name in (m.group("title"),
                                                                                              m.group("id"))]
        if len(found) > 1:
            shown = [header[i][:80] for i in found[:5]]
            ids = [m.group("id") for i in found[:5] if (m := CANVAS_COLUMN.match(header[i])) is not None]
            pick = " or ".join(f"--column {aid}={i}" for i in ids) or f"--column {aid}=<Canvas id>"
            raise GraderError(f"{len(found)} Canvas columns match {name!r} for {aid}: {', '.join(shown)}; choose one "
                              f"with {pick}")
        if found:
            return found[0]
    shown = [c for c in header if CANVAS_COLUMN.match(c)]
    tried = " or ".join(repr(n) for n in names)
    raise GraderError(f"no Canvas column {tried} for {aid}; the file's assignment columns: {', '.join(shown[:20])}"
                      f" (choose one with --column {aid}=TITLE)")


def _cell_spans(text: str) -> list[list[tuple[int, int]]]:
    """Where each cell of each record lies in ``text`` (quotes included), for RFC 4180 CSV."""
    records: list[list[tuple[int, int]]] = []
    row: list[tuple[int, int]] = []
    i, n = 0, len(text)
    while i < n:
        start = i
        if text[i] == '"':
            i += 1
            while i < n:
                if text[i] == '"' and i + 1 < n and text[i + 1] == '"':
                    i += 2
                elif text[i] == '"':
                    i += 1
                    break
                else:
                    i += 1
        while i < n and text[i] not in ",\r\n":
            i += 1
        row.append((start, i))
        if i < n and text[i] == ",":
            i += 1
            if i == n:
                row.append((i, i))
            continue
        if i < n and text[i] == "\r":
            i += 1
        if i < n and text[i] == "\n":
            i += 1
        if any(b > a for a, b in row) or len(row) > 1:
            records.append(row)
        row = []
    if row:
        records.append(row)
    return records


def _unquote(cell: str) -> str:
    return cell[1:-1].replace('""', '"') if len(cell) >= 2 and cell[0] == cell[-1] == '"' else cell


def _quote(value: str) -> str:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="").writerow([value])
    return buffer.getvalue()
