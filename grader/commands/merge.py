"""``grader merge OUT... -o MERGED``: combine the output folders of sharded runs."""

from __future__ import annotations

import argparse
from pathlib import Path

from grader.commands import course_of
from grader.grading.shard import merge
from grader.outputs.gradebook import table
from grader.outputs.report import write_report


def run(args: argparse.Namespace) -> int:
    """``grader merge OUT... -o MERGED``."""
    course = course_of(args)
    dest = Path(args.output)
    assignments, grades = merge(course, [Path(o) for o in args.outs], dest)
    print(table(assignments, grades))
    write_report(dest, course)
    print(f"\nMerged {len(args.outs)} output folder(s): {len(grades)} student(s) in {dest / 'grades.csv'}, "
          f"{dest / 'item_analysis.csv'} and {dest / 'report.html'}")
    return 0
