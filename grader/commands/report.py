"""``grader report GRADED``: the class report, ``GRADED/report.html``.

Besides writing the page, it prints how many gradebook cells need attention (the count ``grader grade`` prints), the
start of their list (student text made inert for the terminal), what to do about each kind, and how many likely bugs
were found.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

from grader.commands import CourseArgs, ExitCode, course_of
from grader.course.roster import MISSING_REMEDY
from grader.inert import terminal
from grader.outputs.class_report import ClassReport, class_data, save_report

NAME = "report"
HELP = "write GRADED/report.html, the class report of a graded folder"
SHOWN = 10
"""Lines of the "needs attention" list printed (the page has them all)."""


def summary(report: ClassReport) -> list[str]:
    """What the terminal shows of ``report``: the cells that need attention (:meth:`~grader.outputs.attention.
    ClassAttention.headline`, as ``grader grade`` counts them), the first lines of their list, what to do about each
    kind, and the likely bugs' count."""
    lines = [report.needs.headline()]
    for x in report.attention[:SHOWN]:
        lines.append(f"  {x.kind}: {terminal(x.student, keep='')} ({', '.join(x.assignments)}): {x.reason}")
    if len(report.attention) > SHOWN:
        lines.append(f"  ... and {len(report.attention) - SHOWN} more line(s) (see the report)")
    if report.late is not None and report.late.missing:
        lines.append(f"On the roster with no submission in this folder: {terminal(', '.join(report.late.missing), keep='')}"
                     f" ({MISSING_REMEDY})")
    kinds = {x.kind: x.remedy for x in report.attention}
    if kinds:
        lines.append("What to do:")
        lines += [f"  {kind}: {remedy}" for kind, remedy in kinds.items()]
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
