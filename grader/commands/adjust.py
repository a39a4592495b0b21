"""``grader adjust STUDENT ASSIGNMENT``: record a score a person changed, as one row of ``adjustments.csv``.

The row (:mod:`grader.course.adjustments`) gets today's date, is checked with the whole file against the class of
the graded folder, and the folder's outputs are made again with it (``grades.csv``, the student's ``results.json``
and ``feedback.md``: :mod:`grader.outputs.adjusted`); the student's score before and after is printed. A row refused
leaves the file as it was.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from grader.commands import CourseArgs, ExitCode, course_of
from grader.course.adjustments import STAGES, Adjustment
from grader.grading.adjusting import record
from grader.inert import terminal
from grader.outputs.adjusted import shown
from grader.outputs.store import ResultStore

NAME = "adjust"
HELP = "record a score a person changed (a regrade, a waived penalty, an integrity zero) in adjustments.csv"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("student", metavar="STUDENT", help="the student: the roster's id, GitHub name or a previous id")
    p.add_argument("assignment", metavar="ASSIGNMENT", help="the assignment id")
    change = p.add_mutually_exclusive_group(required=True)
    change.add_argument("--add", metavar="POINTS", type=float, help="points added (2) or taken (-5)")
    change.add_argument("--set", metavar="POINTS", type=float, help="the score set (0)")
    p.add_argument("--stage", choices=STAGES, required=True,
                   help="raw: the tests' points, the late penalty still applies (a regrade); final: the score after "
                   "the penalty (a waived penalty, an integrity zero)")
    p.add_argument("--reason", required=True, help="why (shown to the student in their feedback)")
    p.add_argument("--by", required=True, metavar="NAME", help="who made the change (shown to the student)")
    p.add_argument("--graded", default="grading-output", metavar="DIR",
                   help="the output folder of `grader grade`, made again with the row (default: %(default)s)")
    p.add_argument("--file", metavar="CSV", help="the adjustments file (default: adjustments in assignments/course.yaml)")


@dataclass(frozen=True)
class Args(CourseArgs):
    """``grader adjust``'s arguments (see :func:`add_arguments`)."""

    student: str
    assignment: str
    add: float | None
    set: float | None
    stage: str
    reason: str
    by: str
    graded: str
    file: str | None


def run(args: Args) -> ExitCode:
    """``grader adjust STUDENT ASSIGNMENT --add POINTS|--set POINTS --stage raw|final --reason TEXT --by NAME``."""
    course = course_of(args)
    sets = args.set is not None
    points = args.set if args.set is not None else args.add
    assert points is not None  # argparse requires one of them
    row = Adjustment(args.student, args.assignment, points, sets, args.stage, args.reason, args.by,
                     date.today().isoformat(), given=args.student)
    done = record(course, ResultStore(Path(args.graded)), row, Path(args.file) if args.file else None)
    added = done.row
    print(terminal(f"recorded {done.path} line {added.line}: {added.student} {added.assignment} adjusted: "
                   f"{added.describe()}", keep=""))
    if done.before is None or done.after is None:
        print(terminal(f"{added.student} has no score on {added.assignment} in {args.graded} yet (not graded, or "
                       "withheld): the row applies once it is graded", keep=""))
    else:
        print(terminal(f"{added.student} on {added.assignment}: {shown(done.before)} -> {shown(done.after)} / "
                       f"{shown(done.points)} points", keep=""))
    if done.refreshed:
        print(f"made again: {Path(args.graded) / 'grades.csv'} and every results.json and feedback.md it changes; "
              "the next export carries it")
    return ExitCode.OK
