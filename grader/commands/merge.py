"""``grader merge OUT... -o MERGED``: combine the output folders of sharded runs."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

from grader.commands import CourseArgs, ExitCode, course_of
from grader.errors import GraderError
from grader.grading.shard import merge
from grader.outputs.class_report import write_report
from grader.outputs.gradebook import table
from grader.similarity.graded_class import record_class, recorded_class

NAME = "merge"
HELP = "merge the output folders of sharded `grader grade --shard K/N` runs"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("outs", nargs="+", metavar="OUT", help="output folders of the shards")
    p.add_argument("-o", "--output", required=True, metavar="MERGED", help="folder for the merged outputs")


@dataclass(frozen=True)
class Args(CourseArgs):
    """``grader merge``'s arguments: the shards' output folders and the merged folder."""

    outs: list[str]
    output: str


def run(args: Args) -> ExitCode:
    """``grader merge OUT... -o MERGED``."""
    course = course_of(args)
    dest = Path(args.output)
    outs = [Path(o) for o in args.outs]
    assignments, grades, store = merge(course, outs, dest)
    carried = carry_class(outs, dest)
    print(table(assignments, grades))
    write_report(dest, course, store)
    print(f"\nMerged {len(args.outs)} output folder(s): {len(grades)} student(s) in {dest / 'grades.csv'}, "
          f"{dest / 'item_analysis.csv'} and {dest / 'report.html'}")
    if not carried:
        print("Note: the shards did not all record the same submissions folder, so `grader similarity` on the merged "
              "folder needs --submissions DIR", file=sys.stderr)
    return ExitCode.OK


def carry_class(outs: list[Path], dest: Path) -> bool:
    """Record in ``dest`` the class the shards graded (for ``grader similarity``), when they all recorded the
    same one; return whether it was recorded."""
    try:
        graded = {recorded_class(out) for out in outs}
    except GraderError:
        return False
    if len(graded) != 1:
        return False
    one = graded.pop()
    record_class(dest, one.submissions, one.deadline)
    return True
