"""``grader report GRADED``: the class report, ``GRADED/report.html``."""

from __future__ import annotations

import argparse
from pathlib import Path

from grader.commands import course_of
from grader.outputs.report import write_report


def run(args: argparse.Namespace) -> int:
    """``grader report GRADED``."""
    course = course_of(args)
    path = write_report(Path(args.graded), course)
    print(f"wrote {path}: one self-contained page (score distributions, tests by pass rate, likely bugs, students)")
    return 0
