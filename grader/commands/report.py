"""``grader report GRADED``: the class report, ``GRADED/report.html``.

Besides writing the page, it prints the "needs attention" list (student text
made inert for the terminal) and how many likely bugs were found.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

from grader.commands import CourseArgs, ExitCode, course_of
from grader.inert import terminal
from grader.outputs.class_report import ClassReport, class_data, save_report

NAME = "report"
HELP = "write GRADED/report.html, the class report of a graded folder"
SHOWN = 10
"""Lines of the "needs attention" list printed (the page has them all)."""


def summary(report: ClassReport) -> list[str]:
    """What the terminal shows of ``report``: the submissions that need attention, and the likely bugs' count."""
    lines = []
    if report.attention:
        lines.append(f"{len(report.attention)} submission issue(s) need attention:")
        for x in report.attention[:SHOWN]:
            lines.append(f"  {x.kind}: {terminal(x.student, keep='')} ({', '.join(x.assignments)}): {x.reason}")
        if len(report.attention) > SHOWN:
            lines.append(f"  ... and {len(report.attention) - SHOWN} more (see the report)")
    else:
        lines.append("Nothing needs attention: every submission was graded.")
    found = sum(len(lb.attributions) for lb in report.bugs)
    lines.append(f"Likely bugs: {found} student-assignment pair(s) match a catalogued bug "
                 f"({len(report.bugs)} distinct bug(s)).")
    return lines


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("graded", metavar="GRADED", help="the output folder of `grader grade`")
    p.add_argument("-a", "--assignment", action="append", metavar="ID",
                   help="assignment to report on (repeatable; default: every released one the gradebook holds)")


@dataclass(frozen=True)
class Args(CourseArgs):
    """``grader report``'s arguments: the graded folder, and the assignments (None: the released ones)."""

    graded: str
    assignment: list[str] | None


def run(args: Args) -> ExitCode:
    """``grader report GRADED``."""
    course = course_of(args)
    report = class_data(Path(args.graded), course, ids=args.assignment or None)
    path = save_report(Path(args.graded), report)
    print("\n".join(summary(report)))
    print(f"wrote {path}: one self-contained page (needs attention, score distributions, scores per task, "
          "tests by pass rate, likely bugs, students)")
    return ExitCode.OK
