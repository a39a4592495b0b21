"""Grades for an LMS: a Canvas gradebook filled in, a Moodle grade import file, or a plain per-student CSV.

Each takes the gradebook ``grader grade`` wrote (``OUT/grades.csv``: one column per assignment, in points; an empty
cell is a score withheld, or never graded), narrowed to the assignments exported (:meth:`Gradebook.only`), and the
course roster (:mod:`grader.course.roster`), and lists every student it could not match, and every row it could not
fill, instead of dropping them. Files are written with the csv module; cells that come from a person (names) are
made inert for spreadsheets (:func:`grader.inert.csv_cell`), and scores are written as plain numbers only.

* **Canvas** (:func:`fill_canvas`): Canvas's gradebook export, read as Canvas writes it (:mod:`grader.outputs.canvas`
  names the source). Only the cells of the chosen assignment columns in matched student rows change; every other
  byte of the file stays as Canvas wrote it, so Canvas's import shows only those changes. A score goes in out of the
  column's *Points Possible*: scaled when the assignment is worth other points.
* **Moodle** (:func:`moodle_csv`): Moodle's "Import grades from CSV file" (https://docs.moodle.org/en/Grade_import):
  one column identifies the user (mapped on import to *Email address* or *ID number*), one column per grade item.
* **CSV** (:func:`plain_csv`): one row per roster student: the roster's columns, each assignment, the total.
"""

from __future__ import annotations

import csv
import io
import math
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

from grader.course.roster import Matching, Student, match
from grader.errors import GraderError
from grader.inert import csv_cell
from grader.outputs.canvas import ID_COLUMNS, TITLE_CHARS, CanvasFile, read_canvas
from grader.outputs.gradebook import points as shown
from grader.outputs.gradebook import read_gradebook, student_id
from grader.outputs.hand_edits import Cells, CellWrite, HandEdit, split_hand_edits
from grader.outputs.store import INSTRUCTOR, ResultStore

NAME_CHARS = 60
"""Characters of a name from a file (a Canvas row's *Student*, a roster id) shown in a message."""


@dataclass
class Gradebook:
    """``grades.csv`` as the exports read it: student id to assignment id to points ("" when withheld or never graded)."""

    assignments: list[str]
    scores: dict[str, dict[str, str]] = field(default_factory=dict)

    def only(self, assignment_ids: Sequence[str]) -> Gradebook:
        """This gradebook with the given assignments only, in that order (every student kept)."""
        ids = list(assignment_ids)
        return Gradebook(ids, {sid: {a: mine.get(a, "") for a in ids} for sid, mine in self.scores.items()})


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


def recorded_points(out: Path, assignment_ids: Iterable[str]) -> tuple[dict[str, float], list[str]]:
    """Each assignment's points as its ``OUT/<assignment>/*/results.json`` files record them (their ``max_score``,
    read through :class:`~grader.outputs.store.ResultStore`; withheld results left out).

    Returns:
        Assignment id to its points, for those whose results all record one number; and one line for each whose
        results record several.
    """
    store = ResultStore(out)
    found: dict[str, float] = {}
    notes: list[str] = []
    for aid in assignment_ids:
        folder = out / aid
        if aid in ("", ".", "..", INSTRUCTOR) or "/" in aid or "\\" in aid or not folder.is_dir():
            continue
        seen: Counter[float] = Counter()
        for student in sorted(p.name for p in folder.iterdir() if p.is_dir()):
            result = store.get(aid, student)
            if result is not None and not result.withheld and result.max_score > 0:
                seen[result.max_score] += 1
        if len(seen) == 1:
            found[aid] = next(iter(seen))
        elif seen:
            notes.append(f"{aid}: its results.json files record different maximums "
                         f"({', '.join(shown(m) for m in sorted(seen))})")
    return found, notes


@dataclass
class Export:
    """What an export did.

    Attributes:
        text: The file's content.
        matching: How the gradebook met the roster.
        filled: How many scores were written (cells: a student with two assignments counts two).
        assignments: The assignments whose scores the file holds.
        not_exported: Students not in the file, beyond what the matching lists (one line each kind).
        not_filled: Rows of the LMS file left as they were, or cells of them, and why (one line each).
        notes: What was written otherwise than copied (a score scaled to the column's points).
        warnings: What the instructor should check (an assignment skipped, raw points where the column's are
            unknown).
        written: Roster student id to assignment id to the cell written (what the next export compares with).
        hand_edits: The LMS's cells a person changed since the last export, left as they are.
        overwritten: The LMS's cells a person changed, overwritten all the same (as asked).
    """

    text: str
    matching: Matching
    filled: int = 0
    assignments: list[str] = field(default_factory=list)
    not_exported: list[str] = field(default_factory=list)
    not_filled: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    written: Cells = field(default_factory=dict)
    hand_edits: list[HandEdit] = field(default_factory=list)
    overwritten: list[HandEdit] = field(default_factory=list)

    def problems(self) -> list[str]:
        """One line per kind of student who did not make it into the file, and why."""
        lines = [line + (": none of them is exported" if "claimed by several" in line else "")
                 for line in self.matching.problems()]
        return lines + self.not_exported


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
    filled = sum(1 for s in roster for a in book.assignments if scores.get(s.student, {}).get(a, "") != "")
    return Export(buffer.getvalue(), found, filled=filled, assignments=list(book.assignments),
                  written=_written(scores, book.assignments))


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
            cells = [scores[s.student].get(a, "") for a in book.assignments]
            writer.writerow([csv_cell(ident), *cells])
            written += sum(1 for c in cells if c != "")  # scores, as Canvas's count is of cells
    export = Export(buffer.getvalue(), found, filled=written, assignments=list(book.assignments),
                    written=_written({s.student: scores[s.student] for s in roster if s.student in scores
                                      and (s.email if key == "email" else s.sis_id)}, book.assignments))
    keyless = [s.student[:NAME_CHARS] for s in roster if s.student in scores and not (s.email if key == "email"
                                                                                      else s.sis_id)]
    if keyless:
        column = "email" if key == "email" else "sis_id"
        export.not_exported.append(f"on the roster without the {column} Moodle matches by: {', '.join(keyless)}")
    return export


def _written(scores: Mapping[str, Mapping[str, str]], assignments: Sequence[str]) -> Cells:
    """Each score cell a file written from scratch holds: student id to assignment id to its text."""
    return {sid: {a: mine[a] for a in assignments if mine.get(a, "") != ""} for sid, mine in scores.items()}


def fill_canvas(text: str, book: Gradebook, roster: list[Student], columns: Mapping[str, Sequence[str]],
                optional: Collection[str] = (), points: Mapping[str, float] | None = None, last: Cells | None = None,
                overwrite: bool = False) -> Export:
    """Fill Canvas's gradebook export ``text`` with the gradebook's scores.

    Args:
        text: The Canvas export, as read (byte-order mark removed; :mod:`grader.outputs.canvas`).
        book: The grader's gradebook.
        roster: The roster (its ``sis_id`` meets Canvas's *SIS User ID*, its ``email`` *SIS Login ID*).
        columns: Assignment id to the names of the Canvas column it fills, tried in order: a header cell, its
            title, or its Canvas id.
        optional: The assignments of ``columns`` skipped, with a warning naming them and the file's columns, when
            the file has no column for them (Canvas does not have them yet); any other is an error.
        points: Assignment id to its points. A score goes in out of the column's *Points Possible*: scaled (to two
            decimals, half up) when the assignment's points differ; raw, with a warning, when either is unknown.
        last: What the last export wrote into each cell (:mod:`grader.outputs.hand_edits`): a cell a person has
            changed since is left as it is, and named in ``hand_edits``.
        overwrite: Write a cell a person changed all the same (each named in ``overwritten``).

    Returns:
        The filled text and what was done: every row not filled is named (a student row of another length than the
        header, a score empty in the gradebook, one that is not a number), and every student not exported (Canvas
        rows not on the roster, roster students not in the file, besides the matching's).

    Raises:
        GraderError: If the file is not a Canvas gradebook, a column cannot be found (naming those there are), a name
            matches several columns (naming them and the ``--column ID=<Canvas id>`` that picks each), or two
            assignments would fill one column. Blank lines stay as they are, and count for no student.
    """
    canvas = read_canvas(text)
    where, skipped = _canvas_columns(canvas, columns, optional)
    found, scores = _by_student(book, roster)
    export = Export("", found, assignments=list(where))
    if skipped:
        export.warnings += [f"skipped, no Canvas column yet: {', '.join(skipped)}",
                            f"the Canvas file's assignment columns: {canvas.assignment_columns()} (--column ID=TITLE "
                            "fills one of another title)"]
    scale = _scales(canvas, where, points or {}, export)
    cells, keys, seen, unmatched, empty = _canvas_cells(canvas, roster, where, scores, scale, export)
    export.not_filled += [f"{aid}: {reason}: {', '.join(who)}" for (aid, reason), who in empty.items()]
    if unmatched:
        export.not_exported.append(f"in the LMS file but not on the roster: {', '.join(unmatched)}")
    absent = [s.student[:NAME_CHARS] for s in roster if s.student not in seen]
    if absent:
        export.not_exported.append(f"on the roster but not in the Canvas file: {', '.join(absent)}")
    chosen, export.hand_edits, export.overwritten = split_hand_edits(
        [CellWrite(student, aid, value, canvas.rows[r][c], canvas.lines[r]) for (r, c, value), (student, aid)
         in zip(cells, keys)], last or {}, overwrite)
    kept = {(w.student, w.assignment) for w in chosen}
    cells = [cell for cell, key in zip(cells, keys) if key in kept]
    for w in chosen:
        export.written.setdefault(w.student, {})[w.assignment] = w.text
    export.text = canvas.with_cells(cells)
    export.filled = len(cells)
    return export


def _canvas_columns(canvas: CanvasFile, columns: Mapping[str, Sequence[str]], optional: Collection[str]
                    ) -> tuple[dict[str, int], list[str]]:
    """Each assignment's column in ``canvas`` (see :func:`fill_canvas`), and the optional ones it has none for.

    Raises:
        GraderError: If a column cannot be found, or two assignments would fill one.
    """
    where: dict[str, int] = {}
    skipped: list[str] = []
    for aid, names in columns.items():
        column = canvas.column(aid, names)
        if column is not None:
            where[aid] = column
        elif aid in optional:
            skipped.append(f"{aid} ({names[0][:TITLE_CHARS]!r})" if names and names[0] != aid else aid)
        else:
            tried = " or ".join(repr(n[:TITLE_CHARS]) for n in names)
            raise GraderError(f"no Canvas column {tried} for {aid}; the file's assignment columns: "
                              f"{canvas.assignment_columns()} (choose one with --column {aid}=TITLE)")
    filled_by: dict[int, str] = {}
    for aid, c in where.items():
        if filled_by.setdefault(c, aid) != aid:
            raise GraderError(f"{filled_by[c]} and {aid} would both fill the Canvas column "
                              f"{canvas.header[c][:TITLE_CHARS]!r}: give each its own with --column ID=<Canvas id>")
    return where, skipped


def _canvas_cells(canvas: CanvasFile, roster: list[Student], where: Mapping[str, int],
                  scores: Mapping[str, Mapping[str, str]], scale: Mapping[str, tuple[Decimal, Decimal]],
                  export: Export) -> tuple[list[tuple[int, int, str]], list[tuple[str, str]], set[str], list[str],
                                           dict[tuple[str, str], list[str]]]:
    """The cells to write (row, column, text), each one's (student, assignment), the roster students seen in the
    file, the file's rows on no roster row, and the cells left empty by (assignment, why); rows not filled are noted
    in ``export``."""
    points_row, header = canvas.points_row(), canvas.header
    by_sis = {s.sis_id: s for s in roster if s.sis_id}
    by_login = {s.email.lower(): s for s in roster if s.email}
    sis, login = (header.index(c) for c in ID_COLUMNS)
    cells: list[tuple[int, int, str]] = []
    keys: list[tuple[str, str]] = []
    seen: set[str] = set()
    unmatched: list[str] = []
    empty: dict[tuple[str, str], list[str]] = {}  # (assignment, why) to the students whose cell stays
    for r, row in enumerate(canvas.rows[1:], start=1):
        if r == points_row:
            continue
        person = None
        if len(row) > max(sis, login):
            person = by_sis.get(row[sis].strip()) or by_login.get(row[login].strip().lower())
        line = canvas.lines[r]
        if len(row) != len(header):  # its cells may not be under their columns: none is written
            who = f"{row[0][:NAME_CHARS]!r}" + (f", {person.student[:NAME_CHARS]}" if person is not None else "")
            export.not_filled.append(f"line {line} ({who}): {len(row)} cells for the header's {len(header)}, "
                                     "left as Canvas wrote it")
            seen.update([person.student] if person is not None else [])
            continue
        if not row[sis].strip() and not row[login].strip():
            continue  # a posting-policy row, the Test Student
        if person is None:
            unmatched.append(f"{row[0][:NAME_CHARS]} (line {line})")
            continue
        seen.add(person.student)
        mine = scores.get(person.student)
        if mine is None:
            continue  # on the roster, but not graded (missing) or claimed twice: listed by the matching
        for aid, c in where.items():
            given = mine.get(aid, "")
            score = _number(given)
            if score is None:
                reason = (f"grades.csv's score {given[:20]!r} is not a number" if given else
                          "no score in grades.csv (withheld, or never graded)")
                empty.setdefault((aid, reason), []).append(f"{person.student[:NAME_CHARS]} (line {line})")
                continue
            if aid in scale:
                own, columns_points = scale[aid]
                score = score * columns_points / own
            cells.append((r, c, _plain(score)))
            keys.append((person.student, aid))
    return cells, keys, seen, unmatched, empty


def _scales(canvas: CanvasFile, where: Mapping[str, int], points: Mapping[str, float],
            export: Export) -> dict[str, tuple[Decimal, Decimal]]:
    """The assignments whose scores are scaled, to (their points, their column's *Points Possible*); each assignment
    filled raw for want of either number is a warning of ``export``, each scaled one a note."""
    scale: dict[str, tuple[Decimal, Decimal]] = {}
    row = canvas.points_row()
    if row is None:
        if where:
            export.warnings.append(f"the Canvas file has no Points Possible row: raw points filled for "
                                   f"{', '.join(where)}")
        return scale
    for aid, c in where.items():
        possible, cell = canvas.points_possible(row, c)
        own = points.get(aid)
        column = canvas.header[c][:TITLE_CHARS]
        if possible is None:
            what = f"{cell[:20]!r}, not a number of points" if cell else "empty"
            export.warnings.append(f"{aid}: the Canvas column {column!r} has Points Possible {what}: raw points "
                                   "filled")
        elif own is None or not own > 0:
            export.warnings.append(f"{aid}: its points are unknown (no course gives them, nor one maximum in its "
                                   f"results.json files): raw points filled into the Canvas column of "
                                   f"{shown(possible)} points")
        elif not math.isclose(possible, own, rel_tol=0, abs_tol=1e-9):
            scale[aid] = (Decimal(repr(own)), Decimal(repr(possible)))
            export.notes.append(f"{aid}: scaled from {shown(own)} points to the Canvas column's {shown(possible)}")
    return scale


def _number(cell: str) -> Decimal | None:
    """A gradebook score as a number, or None when the cell is empty or not a finite number."""
    try:
        value = float(cell)
    except ValueError:
        return None
    return Decimal(repr(value)) if math.isfinite(value) else None


def _plain(value: Decimal) -> str:
    """A score as Canvas reads it: at most two decimals (half up), no trailing zeros, never a formula."""
    text = f"{value.quantize(Decimal('0.01'), rounding=ROUND_HALF_UP):f}"
    text = text.rstrip("0").rstrip(".") if "." in text else text
    return "0" if text in ("", "-0") else text
