"""``grader check``: a student's self-check against the public tests.

Grades one submission (a folder holding ``micrograd/`` or flat files, a
``.zip`` or a notebook) on the public tests only, through the same judge and
sandbox as ``grader grade``. It needs neither the hidden tests nor the
reference solution, so it runs in a student's copy of the release, in
classroom CI, or in Colab.

By default it checks the released assignments (:meth:`grader.course.course.Course.released_assignments`) and the
text report shows the first one not passing yet in detail and one line for each other; ``-v`` (or naming assignments
with ``-a``) shows each in detail. While it runs, stderr gets a line per assignment with a mark per test as it ends
(with ``-v`` or ``-a``, a line per test): :class:`grader.grading.follow.CheckProgress`. An error that stops several
assignments (``micrograd/engine.py`` could not be imported) is reported once, with the assignments it stops.

No line of the report is a GitHub Actions workflow command, whatever a submission's code said
(:func:`grader.inert.actions_log`); with ``--format github`` and ``--format classroom50``, made for GitHub Actions, the
report is also fenced between ``::stop-commands::TOKEN`` and ``::TOKEN::`` (:func:`grader.inert.actions_fence`).

With ``--format classroom50`` it is what a Classroom 50 ``autograder.py`` runs: it writes ``result.json`` and
``release-body.md`` into the current folder (:mod:`grader.outputs.classroom50`) and exits 0 whenever grading ran,
the score being in the file; when the grader itself failed it writes no ``result.json`` and exits non-zero, which the
runner records as an error, never as a score.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from grader.commands import CourseArgs, ExitCode, course_of, sandbox_option
from grader.grading.follow import CheckProgress
from grader.grading.one import self_check
from grader.inert import actions_fence, actions_log, terminal
from grader.judge.backends import choose
from grader.outputs import classroom50, formats
from grader.outputs.self_check import CheckResult

NAME = "check"
HELP = "self-check: run the public tests on your code (exit 0 when all pass)"
FORMATS = ("text", "json", "junit", "github", "classroom50")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("path", nargs="?", default=".", metavar="PATH",
                   help="folder holding your package (or its files, flat), a .zip or a .ipynb (default: .)")
    p.add_argument("-a", "--assignment", action="append", metavar="ID",
                   help="assignment to check, shown in detail (repeatable; default: every released assignment, only "
                   "the first one not passing yet in detail)")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="show every assignment in detail, and each test as it ends (default without -a: the first "
                   "assignment not passing yet in detail, one line for each other)")
    p.add_argument("--format", choices=FORMATS, default="text",
                   help="output: text (default), json, junit XML, github (annotations and a job summary for GitHub "
                   "Actions), or classroom50 (result.json and release-body.md in the current folder, for a Classroom "
                   "50 autograder.py; exit 0 whenever grading ran)")
    sandbox_option(p)
    p.epilog = ("The text report shows the first assignment not passing yet in detail (its tasks and each failing "
                "test's feedback) and one line for each other (its score, and what stops it or how many of its tests "
                "fail); -v, or -a, shows each in detail. An error that stops several assignments (a file that cannot "
                "be imported) is shown once, naming the assignments it stops. While the tests run, stderr shows a "
                "line per assignment with a mark per test as it ends (with -v or -a, a line per test). Exit status: 0 "
                "when every public test passes, 1 when some fail, 3 when the grader itself failed (not your code).")


@dataclass(frozen=True)
class Args(CourseArgs):
    """``grader check``'s arguments: what to check, on which assignments (None: the released ones), how to show it
    (``verbose``: every assignment in detail)."""

    path: str
    assignment: list[str] | None
    verbose: bool
    format: str
    sandbox: str


def in_log(report: str, fenced: bool) -> str:
    """The text report for stdout, inert on a terminal (:func:`grader.inert.terminal`) and in a CI log: no line is a
    GitHub Actions workflow command (:func:`grader.inert.actions_log`), and with ``fenced`` (the formats made for
    GitHub Actions) it is also between ``::stop-commands::TOKEN`` and ``::TOKEN::``
    (:func:`grader.inert.actions_fence`)."""
    report = terminal(report)
    return "\n".join(actions_fence(report)) if fenced else actions_log(report)


def run(args: Args) -> ExitCode:
    """``grader check [PATH]``: a student's self-check on the public tests (exit 0 only when all pass; with
    ``--format classroom50``, whenever grading ran)."""
    course = course_of(args)
    choice = choose(args.sandbox)
    if choice.kind == "portable":
        print(choice.describe(), file=sys.stderr)
    if args.format == "classroom50":
        classroom50.clear(Path.cwd())  # no result.json from an earlier run (or a commit) outlives a failed one
    ids = [a.id for a in course.released_assignments(args.assignment or None)]
    every = args.verbose or bool(args.assignment)  # the assignments named, or all of them: each in detail
    with CheckProgress(sys.stderr, course, every_test=every) as progress:  # on stderr: stdout is the report's
        result = self_check(course, Path(args.path), ids, sandbox=choice.kind, follower=progress)
    if args.format == "classroom50":
        print(in_log(formats.text(result, every), fenced=True))
        if result.withheld:
            return ExitCode.GRADER_FAULT
        doc = classroom50.write(result, Path.cwd(), os.environ)
        print(f"Classroom 50: wrote {classroom50.RESULT_FILE} and {classroom50.BODY_FILE} "
              f"({doc['score']} / {doc['max-score']} points)")
        return ExitCode.OK
    render: dict[str, Callable[[CheckResult], str]] = {
        "text": lambda r: in_log(formats.text(r, every), fenced=False), "json": formats.as_json,
        "junit": formats.check_junit, "github": lambda r: formats.github(r, every=every)}
    print(render[args.format](result))
    if result.withheld:
        return ExitCode.GRADER_FAULT
    return ExitCode.OK if result.passed else ExitCode.CHECK_FAILED
