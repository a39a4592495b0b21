"""``grader export canvas|moodle|csv OUT``: a graded class's scores for an LMS (:mod:`grader.outputs.lms_export`),
matched through the roster (``--roster``, or ``roster`` in ``assignments/course.yaml``); every student who could not
be exported is listed."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

from grader.commands import CourseArgs, ExitCode, course_of
from grader.course.roster import read_roster, read_text
from grader.errors import GraderError
from grader.files import write_atomic
from grader.inert import terminal
from grader.outputs.lms_export import Export, fill_canvas, gradebook_of, moodle_csv, plain_csv

NAME = "export"
HELP = "write a graded class's scores for Canvas, Moodle or a plain CSV, matched through the roster"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("lms", choices=["canvas", "moodle", "csv"], help="the format to write")
    p.add_argument("out", metavar="OUT", help="the file to write (never the Canvas file given)")
    p.add_argument("--roster", metavar="CSV", help="the course roster (student, github, email, sis_id, section, "
                   "name; default: roster in assignments/course.yaml)")
    p.add_argument("--graded", default="grading-output", metavar="DIR",
                   help="the output folder of `grader grade` (default: %(default)s)")
    p.add_argument("--canvas", metavar="CSV", help="canvas: the gradebook exported from Canvas, to fill in")
    p.add_argument("--column", action="append", metavar="ID=TITLE",
                   help="canvas: the Canvas column an assignment fills (default: its title, then its id)")
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
    """``grader export canvas|moodle|csv OUT``."""
    roster = read_roster(_roster(args))
    book = gradebook_of(Path(args.graded))
    out = Path(args.out)
    prefix = ""
    if args.lms == "canvas":
        if not args.canvas:
            raise GraderError("grader export canvas needs --canvas FILE: the gradebook exported from Canvas")
        source = Path(args.canvas)
        if out.resolve() == source.resolve():
            raise GraderError("OUT is the Canvas file itself: write the filled gradebook to a new file")
        prefix = "\ufeff" if source.read_bytes()[:3] == b"\xef\xbb\xbf" else ""
        titles = _titles(args)
        columns: dict[str, list[str]] = {aid: [titles[aid], aid] if aid in titles else [aid] for aid in book.assignments}
        for item in args.column or []:
            aid, sep, title = item.partition("=")
            if not sep or aid not in book.assignments:
                raise GraderError(f"--column {item!r}: expected ID=TITLE with ID one of {', '.join(book.assignments)}")
            columns[aid] = [title]
        done: Export = fill_canvas(read_text(source, "the Canvas gradebook"), book, roster, columns)
    elif args.lms == "moodle":
        done = moodle_csv(book, roster, args.key)
    else:
        done = plain_csv(book, roster)
    write_atomic(out, prefix + done.text)
    print(f"wrote {out}: {done.filled} score(s) for {len(done.matching.matched)} matched student(s)")
    for line in done.problems():
        print(f"  not exported: {terminal(line, keep='')}", file=sys.stderr)
    return ExitCode.OK


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
