"""``grader autograde SUBMISSION -a ID -o results.json``: what a Gradescope zip's ``run_autograder`` runs
(:func:`grader.grading.one.autograde`)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

from grader.commands import CourseArgs, ExitCode, course_of
from grader.grading.one import autograde

NAME = "autograde"
HELP = "(inside Gradescope) grade one submission folder into results.json"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("submission", metavar="SUBMISSION", help="the submission folder (/autograder/submission)")
    p.add_argument("-a", "--assignment", required=True, metavar="ID", help="the assignment")
    p.add_argument("-o", "--output", "--results", dest="output", required=True, metavar="FILE",
                   help="where to write results.json (also --results, the spelling in zips built by earlier versions)")


@dataclass(frozen=True)
class Args(CourseArgs):
    """``grader autograde``'s arguments: the submission folder, the assignment, where results.json goes."""

    submission: str
    assignment: str
    output: str


def run(args: Args) -> ExitCode:
    """``grader autograde SUBMISSION -a ID -o FILE``."""
    course = course_of(args)
    score = autograde(course, Path(args.submission), args.assignment, Path(args.output))
    print(f"score {score:g}; results written to {args.output}")
    return ExitCode.OK
