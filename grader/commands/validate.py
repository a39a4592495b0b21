"""``grader validate [-a ID]... [-j N]``: test the tests (:mod:`grader.grading.validation`); exit 1 on any miss."""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass

from grader.commands import CourseArgs, ExitCode, course_of, jobs_option
from grader.grading.validation import format_report, validate

NAME = "validate"
HELP = "test the tests: reference, template, correct variants, catalogued bugs"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("-a", "--assignment", action="append", metavar="ID",
                   help="assignment to validate (repeatable; default: all)")
    jobs_option(p, "parallel judges")


@dataclass(frozen=True)
class Args(CourseArgs):
    """``grader validate``'s arguments: the assignments (None: all) and the judges run in parallel."""

    assignment: list[str] | None
    jobs: int


def run(args: Args) -> ExitCode:
    """``grader validate [-a ID]... [-j N]``: exit 1 on any miss."""
    course = course_of(args)
    started = time.monotonic()
    report = validate(course, args.assignment or None, args.jobs)
    print(format_report(report))
    print(f"\n(validated in {time.monotonic() - started:.1f} s)")
    return ExitCode.CHECK_FAILED if report.misses else ExitCode.OK
