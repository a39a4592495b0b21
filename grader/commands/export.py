"""``grader export canvas|moodle|csv OUT``: a graded class's scores for an LMS (:mod:`grader.outputs.lms_export`),
matched through the roster (``--roster``, or ``roster`` in ``assignments/course.yaml``); every student who could not
be exported is listed. OUT is never a file the export reads (the roster, ``grades.csv``, the Canvas file) or one the
course keeps (``course.yaml``, its roster and extensions)."""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from grader.commands import CourseArgs, ExitCode, course_of
from grader.course.roster import decode_text, read_bytes, read_roster
from grader.course.term import COURSE_FILE
from grader.errors import GraderError
from grader.files import write_atomic
from grader.inert import terminal
from grader.outputs.lms_export import Export, fill_canvas, gradebook_of, moodle_csv, plain_csv

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
    p.add_argument("--canvas", metavar="CSV", help="canvas: the gradebook exported from Canvas, to fill in")
    p.add_argument("--column", action="append", metavar="ID=TITLE",
                   help="canvas: the Canvas column an assignment fills: a column's title, or its Canvas id when two share "
                   "a title (default: the assignment's title, then its id)")
    p.add_argument("--key", choices=["email", "idnumber"], default="email",
                   help="moodle: the user field Moodle matches (idnumber: the roster's sis_id; default: %(default)s)")


@dataclass(frozen=True)
class Args(CourseArgs):
    """``grader export``'s arguments (see :func:`add_arguments`)."""

    lms: str
    out: str
    roster: str | None
    graded: str
    canvas: str | None
    column: list[str] | None
    key: str


def run(args: Args) -> ExitCode:
    """``grader export canvas|moodle|csv OUT``.

    Raises:
        GraderError: If OUT is a file the export reads (:func:`_refuse_overwriting`), or an input is missing or invalid.
    """
    out = Path(args.out)
    roster_path = _roster(args)
    _refuse_overwriting(out, args, roster_path)
    roster = read_roster(roster_path)
    book = gradebook_of(Path(args.graded))
    prefix = ""
    if args.lms == "canvas":
        if not args.canvas:
            raise GraderError("grader export canvas needs --canvas FILE: the gradebook exported from Canvas")
        source = Path(args.canvas)
        data = read_bytes(source, "the Canvas gradebook")  # bounded, read once: its byte-order mark is kept
        prefix = "\ufeff" if data.startswith(b"\xef\xbb\xbf") else ""
        titles = _titles(args)
        columns: dict[str, list[str]] = {aid: [titles[aid], aid] if aid in titles else [aid] for aid in book.assignments}
        for item in args.column or []:
            aid, sep, title = item.partition("=")
            if not sep or aid not in book.assignments:
                raise GraderError(f"--column {item!r}: expected ID=TITLE with ID one of {', '.join(book.assignments)}")
            columns[aid] = [title]
        text = decode_text(source, "the Canvas gradebook", data)
        try:
            done: Export = fill_canvas(text, book, roster, columns)
        except GraderError as exc:  # fill_canvas sees only the text: name the file
            raise GraderError(f"{source}: {exc}") from None
    elif args.lms == "moodle":
        done = moodle_csv(book, roster, args.key)
    else:
        done = plain_csv(book, roster)
    write_atomic(out, prefix + done.text)
    print(f"wrote {out}: {done.filled} score(s) for {len(done.matching.matched)} matched student(s)")
    for line in done.problems():
        print(f"  not exported: {terminal(line, keep='')}", file=sys.stderr)
    return ExitCode.OK


def _refuse_overwriting(out: Path, args: Args, roster: Path) -> None:
    """Refuse an OUT that is a file the export reads or the course keeps: the Canvas file, the roster, the
    gradebook, ``assignments/course.yaml`` and the roster and extensions it names (compared by resolved path, and as
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
                                                                      ("extensions", term.extensions)) if path]
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


def _titles(args: Args) -> dict[str, str]:
    """Assignment id to title, from the course when there is one (exporting needs only the graded folder)."""
    try:
        return {a.id: a.title for a in course_of(args).assignments()}
    except GraderError:
        return {}
