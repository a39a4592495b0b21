"""``grader submit-zip [FOLDER]``: the clean zip a student hands in, built from their copy of the release and read
back (:mod:`grader.intake.hand_in`)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

from grader.commands import CourseArgs, ExitCode, course_of
from grader.errors import GraderError
from grader.inert import terminal
from grader.intake.hand_in import OUTPUT, check_output, course_files, left_out, read_back, write_hand_in

NAME = "submit-zip"
HELP = "build the zip to hand in: only your package's files and notebooks (outputs cleared), then check it reads"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("folder", nargs="?", default=".", metavar="FOLDER",
                   help="your copy of the release, holding your package and notebooks/ (default: .)")
    p.add_argument("-o", "--output", metavar="ZIP",
                   help=f"the zip to write (default: FOLDER/{OUTPUT}); an existing file is replaced only if an "
                   "earlier grader submit-zip wrote it")
    p.add_argument("-a", "--assignment", action="append", metavar="ID",
                   help="assignment whose files go in (repeatable; default: all)")


@dataclass(frozen=True)
class Args(CourseArgs):
    """``grader submit-zip``'s arguments: the student's folder, the zip to write (None: ``FOLDER/submission.zip``),
    the assignments whose files go in (None: all)."""

    folder: str
    output: str | None
    assignment: list[str] | None


def run(args: Args) -> ExitCode:
    """``grader submit-zip [FOLDER]``: write the zip (:mod:`grader.intake.hand_in`), then read it back (exit 0 when
    some assignment is gradable from it, 1 when none is, 2 when there is nothing to submit or the output cannot be
    written).

    Raises:
        GraderError: If ``FOLDER`` is not a folder, holds nothing the course names, or the output is not a
            ``.zip`` or is a file this command did not write.
    """
    course = course_of(args)
    assignments = course.assignments(args.assignment or None)
    folder = Path(args.folder)
    if not folder.is_dir():
        raise GraderError(f"{folder} is not a folder: give your copy of the release (holding your package and notebooks/)")
    output = Path(args.output) if args.output else folder / OUTPUT
    check_output(output)
    found = course_files(folder, assignments)
    shown = write_hand_in(folder, found, output, course.term.time_zone)
    print(terminal(f"Wrote {output}: {len(found)} file{'s' if len(found) != 1 else ''}"))
    for line in shown:
        print(terminal(f"  {line}"))
    print(terminal(left_out(folder, set(found), output)))
    lines, gradable = read_back(output, assignments, course.template_dir)
    for line in lines:
        print(terminal(line))
    if not gradable:
        if len(lines) > 1:
            print("No assignment can be graded from this zip.")
        return ExitCode.CHECK_FAILED
    print(f"Hand in {output} ({gradable} of {len(assignments)} assignments gradable).")
    return ExitCode.OK
