"""``grader autograde SUBMISSION -a ID -o results.json``: what a Gradescope zip's ``run_autograder`` runs."""

from __future__ import annotations

import argparse
from pathlib import Path

from grader.commands import course_of
from grader.commands.gradescope import autograde


def run(args: argparse.Namespace) -> int:
    """``grader autograde SUBMISSION -a ID -o FILE``."""
    course = course_of(args)
    score = autograde(course, Path(args.submission), args.assignment, Path(args.output))
    print(f"score {score:g}; results written to {args.output}")
    return 0
