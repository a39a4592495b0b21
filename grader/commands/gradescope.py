"""``grader gradescope -a ID -o ZIP``: a Gradescope autograder zip for one assignment
(:mod:`grader.course.gradescope_zip`)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

from grader.commands import CourseArgs, ExitCode, course_of
from grader.course.gradescope_zip import build_zip

NAME = "gradescope"
HELP = "build a Gradescope autograder zip for one assignment"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("-a", "--assignment", required=True, metavar="ID", help="the assignment")
    p.add_argument("-o", "--output", default="autograder.zip", metavar="ZIP", help="zip to write (default: %(default)s)")


@dataclass(frozen=True)
class Args(CourseArgs):
    """``grader gradescope``'s arguments: the assignment and the zip to write."""

    assignment: str
    output: str


def run(args: Args) -> ExitCode:
    """``grader gradescope -a ID -o ZIP``."""
    course = course_of(args)
    built = build_zip(course, args.assignment, Path(args.output))
    files = " and ".join(course.assignment(args.assignment).files)
    print(f"wrote {args.output} ({len(built.members)} files): upload it as the autograder of a Gradescope "
          f"programming assignment; students submit {files}, flat files or a notebook")
    print(f"pinned {len(built.lock.pins)} dependencies to the versions installed in {built.lock.environment} "
          f"(Python {built.lock.python}) in the zip's requirements.lock; setup.sh installs exactly these "
          f"into /autograder/venv. To refresh them, rebuild the zip from an updated, validated environment")
    return ExitCode.OK
