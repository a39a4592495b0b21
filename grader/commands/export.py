"""``grader export canvas|moodle|csv OUT``: a graded class's scores for an LMS (:mod:`grader.outputs.lms_export`),
matched through the roster (``--roster``, or ``roster`` in ``assignments/course.yaml``), for the assignments chosen
with ``-a`` (default: the gradebook's assignments the course has released, :meth:`Course.released_assignments`; every
one when there is no course). Every student who could not be exported and every Canvas row left as it was is listed,
on stderr. OUT is never a file the export reads (the roster, ``grades.csv``, the Canvas file) or one the course keeps
(``course.yaml``, its roster and extensions)."""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from grader.commands import CourseArgs, ExitCode, course_of
from grader.course.config import Assignment
from grader.course.course import Course
from grader.course.csv_file import CourseFile
from grader.course.roster import Student, read_roster
from grader.course.term import COURSE_FILE
from grader.errors import GraderError
from grader.files import write_atomic
from grader.inert import terminal
from grader.outputs.hand_edits import Cells, read_record, remedy, write_record
from grader.outputs.lms_export import (
    Export,
    Gradebook,
    fill_canvas,
    gradebook_of,
    moodle_csv,
    plain_csv,
    recorded_points,
)
from grader.outputs.score_changes import changes, moved_lines, write_changes

NAME = "export"
HELP = "write a graded class's scores for Canvas, Moodle or a plain CSV, matched through the roster"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("lms", choices=["canvas", "moodle", "csv"], help="the format to write")
    p.add_argument("out", metavar="OUT", help="the file to write (never a file it reads: the Canvas file, the roster, "
                   "grades.csv)")
    p.add_argument("--roster", metavar="CSV", help="the course roster (student, github, email, sis_id, section, "
                   "name; default: roster in assignments/course.yaml)")
    p.add_argument("--graded", default="grading-output", metavar="DIR",
                   help="the output folder of `grader grade` (default: %(default)s)")
    p.add_argument("-a", "--assignment", action="append", metavar="ID",
                   help="an assignment to export (repeatable; default: the gradebook's assignments that are released, "
                   "every one without a course; canvas: one without a Canvas column is then skipped, with a note)")
    p.add_argument("--canvas", metavar="CSV", help="canvas: the gradebook exported from Canvas, to fill in")
    p.add_argument("--column", action="append", metavar="ID=TITLE",
                   help="canvas: the Canvas column an assignment fills: a column's title, or its Canvas id when two share "
                   "a title (default: the assignment's title, then its id). Scores are scaled to the column's Points "
                   "Possible when the assignment is worth other points")
    p.add_argument("--overwrite-edits", action="store_true",
                   help="canvas: write the grader's score even into a cell a person changed in Canvas since the last "
                   "export (default: such a cell is left as it is, and named)")
    p.add_argument("--changes", metavar="FILE", help="write every score that moved since the last export to this LMS "
                   "(student, assignment, before, after, change) to FILE as CSV")
    p.add_argument("--key", choices=["email", "idnumber"], default="email",
                   help="moodle: the user field Moodle matches (idnumber: the roster's sis_id; default: %(default)s)")


@dataclass(frozen=True)
class Args(CourseArgs):
    """``grader export``'s arguments (see :func:`add_arguments`)."""

    lms: str
    out: str
    roster: str | None
    graded: str
    assignment: list[str] | None
    canvas: str | None
    column: list[str] | None
    overwrite_edits: bool
    changes: str | None
    key: str


def run(args: Args) -> ExitCode:
    """``grader export canvas|moodle|csv OUT``.

    Raises:
        GraderError: If OUT is a file the export reads (:func:`_refuse_overwriting`), an input is missing or invalid,
            an assignment named (``-a``, ``--column``) is not in the gradebook or has no Canvas column.
    """
    out = Path(args.out)
    roster_path = _roster(args)
    _refuse_overwriting(out, args, roster_path)
    roster = read_roster(roster_path)
    full = gradebook_of(Path(args.graded))
    chosen, known, left_out = _chosen(args, full, _course(args))
    prefix = ""
    if args.lms == "canvas":
        done, prefix = _canvas(args, full, chosen, known, roster)
        left_out += done.warnings
    elif args.lms == "moodle":
        done = moodle_csv(full.only(chosen), roster, args.key)
    else:
        done = plain_csv(full.only(chosen), roster)
    write_atomic(out, prefix + done.text)
    last = read_record(Path(args.graded), args.lms)
    write_record(Path(args.graded), args.lms, done.written)
    which = terminal(", ".join(done.assignments), keep="") or "no assignment"
    print(f"wrote {out}: {done.filled} score(s) of {which} for {len(done.matching.matched)} matched student(s)")
    for line in done.notes:
        print(f"  {terminal(line, keep='')}")
    for kind, lines in (("note", left_out), ("not exported", done.problems()),
                        ("not filled", done.not_filled)):
        for line in lines:
            print(f"  {kind}: {terminal(line, keep='')}", file=sys.stderr)
    for line in _moved(args, last, done):
        print(terminal(line, keep=""))
    return ExitCode.OK


def _moved(args: Args, last: Cells, done: Export) -> list[str]:
    """What the terminal says of the hand edits left or overwritten and of the scores that moved since the last
    export to this LMS (none said on the first; ``--changes`` written all the same)."""
    lines = []
    if done.hand_edits:
        lines.append(f"Left as a person changed them in the LMS since the last export ({len(done.hand_edits)}): "
                     + remedy("--overwrite-edits"))
        lines += [f"  hand edit: {e.describe()}" for e in done.hand_edits]
    lines += [f"  overwritten (--overwrite-edits): {e.describe()}" for e in done.overwritten]
    before = {s: {a: last.get(s, {}).get(a, "") for a in cells} for s, cells in done.written.items()}
    found = changes(before, done.written, done.assignments)
    if args.changes:
        write_changes(Path(args.changes), found)
    if last:
        lines += moved_lines(found, done.assignments, f"since the last {args.lms} export")
    return lines + ([f"Every change: {args.changes}"] if args.changes else [])


def _canvas(args: Args, book: Gradebook, chosen: list[str], known: dict[str, Assignment],
            roster: list[Student]) -> tuple[Export, str]:
    """The Canvas file of ``--canvas`` filled with the ``chosen`` assignments of ``book``, and its byte-order mark
    ("" when it has none). Each is found by ``--column``, else by its title (``known``), then its id; one the
    instructor did not name (``-a``, ``--column``) and Canvas has no column for is skipped, with a warning. Its points
    are the course's (``known``), else what its results record (:func:`recorded_points`).

    Raises:
        GraderError: If ``--canvas`` is missing, a ``--column`` is not ``ID=TITLE`` of an assignment exported, or
            :func:`fill_canvas` refuses the file (the message names it).
    """
    if not args.canvas:
        raise GraderError("grader export canvas needs --canvas FILE: the gradebook exported from Canvas")
    source = Path(args.canvas)
    canvas = CourseFile(source, "the Canvas gradebook")
    data = canvas.read_bytes()  # bounded, read once: its byte-order mark is kept
    columns: dict[str, list[str]] = {aid: [known[aid].title, aid] if aid in known else [aid] for aid in chosen}
    for item in args.column or []:
        aid, sep, title = item.partition("=")
        if not sep or aid not in book.assignments:
            raise GraderError(f"--column {item!r}: expected ID=TITLE with ID one of {', '.join(book.assignments)}")
        if aid not in chosen:
            raise GraderError(f"--column {item!r}: {aid} is not among the assignments exported "
                              f"({', '.join(chosen)}): name each one to export with -a ID")
        columns[aid] = [title]
    named = set(args.assignment or ()) | {item.partition("=")[0] for item in args.column or ()}
    points = {aid: a.points for aid, a in known.items()}
    recorded, disagreeing = recorded_points(Path(args.graded), [aid for aid in chosen if aid not in points])
    text = canvas.decode(data)
    try:
        done = fill_canvas(text, book.only(chosen), roster, columns, set(chosen) - named, {**recorded, **points},
                           read_record(Path(args.graded), "canvas"), args.overwrite_edits)
    except GraderError as exc:  # fill_canvas sees only the text: name the file
        raise GraderError(f"{source}: {exc}") from None
    done.warnings[:0] = disagreeing
    return done, "\ufeff" if data.startswith(b"\xef\xbb\xbf") else ""


def _course(args: Args) -> Course | None:
    """The course, when there is one with assignments (exporting needs only the graded folder)."""
    try:
        course = course_of(args)
    except GraderError:
        return None
    return course if course.assignment_ids() else None


def _chosen(args: Args, book: Gradebook, course: Course | None) -> tuple[list[str], dict[str, Assignment], list[str]]:
    """The assignments exported: ``-a`` (each in the gradebook), else the gradebook's that the course has released
    (every one without a course); the course's record of each it has; and a note on those left out.

    Raises:
        GraderError: If an ``-a`` is repeated or not in the gradebook, or no assignment of the gradebook is released.
        ConfigError: If an ``assignment.yaml`` the choice reads is invalid.
    """
    ids = set(course.assignment_ids()) if course is not None else set()
    if args.assignment:
        repeated = sorted({a for a in args.assignment if args.assignment.count(a) > 1})
        if repeated:
            raise GraderError(f"-a {repeated[0]} is given more than once")
        for aid in args.assignment:
            if aid not in book.assignments:
                raise GraderError(f"-a {aid}: not in the gradebook {Path(args.graded) / 'grades.csv'} (its "
                                  f"assignments: {', '.join(book.assignments) or 'none'})")
        mine = [aid for aid in args.assignment if aid in ids]
        return list(args.assignment), {a.id: a for a in course.assignments(mine)} if course and mine else {}, []
    if course is None:
        return list(book.assignments), {}, []
    released = {a.id: a for a in course.released_assignments()}
    chosen = [aid for aid in book.assignments if aid in released]
    later = [aid for aid in book.assignments if aid in ids and aid not in released]
    foreign = [aid for aid in book.assignments if aid not in ids]
    notes = [f"not released yet, left out: {', '.join(later)} (-a ID exports one)"] if later else []
    notes += [f"not an assignment of the course, left out: {', '.join(foreign)} (-a ID exports one)"] if foreign else []
    if not chosen:
        raise GraderError(f"none of the gradebook's assignments ({', '.join(book.assignments) or 'none'}) is released "
                          "in the course: name the ones to export with -a ID")
    return chosen, {aid: released[aid] for aid in chosen}, notes


def _refuse_overwriting(out: Path, args: Args, roster: Path) -> None:
    """Refuse an OUT that is a file the export reads or the course keeps: the Canvas file, the roster, the
    gradebook, ``assignments/course.yaml`` and the roster, extensions and adjustments it names (compared by resolved path, and as
    the same file when OUT exists: a hard link included).

    Raises:
        GraderError: Naming OUT and the file it would replace.
    """
    inputs: list[tuple[str, Path]] = []
    if args.canvas:
        inputs.append(("the Canvas file itself", Path(args.canvas)))
    inputs += [("the roster", roster), ("the gradebook", Path(args.graded) / "grades.csv")]
    try:
        course = course_of(args)
        inputs.append(("the course's course.yaml", course.assignments_dir / COURSE_FILE))
        term = course.term
    except GraderError:  # no course, or a broken course.yaml: the files above are still guarded
        term = None
    if term is not None:
        inputs += [(f"the course's {what}", path) for what, path in (("roster", term.roster),
                                                                      ("extensions", term.extensions),
                                                                      ("adjustments", term.adjustments)) if path]
    for what, path in inputs:
        if _same_file(out, path):
            raise GraderError(f"OUT is {what} ({path}): write the export to a new file, never over an input")


def _same_file(a: Path, b: Path) -> bool:
    """Whether ``a`` and ``b`` resolve to one path, or are one existing file."""
    try:
        if a.resolve() == b.resolve():
            return True
    except (OSError, RuntimeError):  # a loop of links
        pass
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist
        return False


def _roster(args: Args) -> Path:
    """The roster: ``--roster``, else the course's (``assignments/course.yaml``).

    Raises:
        GraderError: If neither names one.
    """
    if args.roster:
        return Path(args.roster)
    try:
        course = course_of(args)
    except GraderError:  # no course here: exporting needs only the graded folder and a roster
        course = None
    roster = course.term.roster if course is not None else None  # a broken course.yaml is its own error
    if roster is None:
        raise GraderError("grader export needs a roster: --roster FILE, or roster in assignments/course.yaml")
    return roster
