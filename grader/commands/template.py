"""``grader template [--check]``: generate ``student_template/`` from the reference's solution markers."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass

from grader.commands import CourseArgs, ExitCode, course_of
from grader.course import student_template as template

NAME = "template"
HELP = "generate student_template/ from reference/ (solution markers)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--check", action="store_true",
                   help="only check that student_template/ is up to date (exit 1 if not)")


@dataclass(frozen=True)
class Args(CourseArgs):
    """``grader template``'s argument: only check (True) or write."""

    check: bool


def run(args: Args) -> ExitCode:
    """``grader template [--check]``."""
    course = course_of(args)
    generated = template.generate(course.reference_dir, course.package)
    if args.check:
        stale = template.differences(generated, course.template_dir)
        if stale:
            print(
                f"student_template/ is out of date with reference/ ({', '.join(stale)}); "
                "run `grader template` to regenerate it",
                file=sys.stderr,
            )
            return ExitCode.CHECK_FAILED
        print("student_template/ matches the reference's solution markers")
        return ExitCode.OK
    template.write(generated, course.template_dir)
    print(f"wrote {len(generated)} file(s) to {course.template_package}")
    return ExitCode.OK
