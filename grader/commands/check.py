"""``grader check``: a student's self-check against the public tests.

Grades one submission (a folder holding ``micrograd/`` or flat files, a
``.zip`` or a notebook) on the public tests only, through the same judge and
sandbox as ``grader grade``. It needs neither the hidden tests nor the
reference solution, so it runs in a student's copy of the release, in
classroom CI, or in Colab.

With ``--format classroom50`` it is what a Classroom 50 ``autograder.py`` runs: it writes ``result.json`` and
``release-body.md`` into the current folder (:mod:`grader.outputs.classroom50`) and exits 0 whenever grading ran,
the score being in the file; when the grader itself failed it writes no ``result.json`` and exits non-zero, which the
runner records as an error, never as a score.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from grader.commands import CourseArgs, ExitCode, course_of, sandbox_option
from grader.grading.follow import CheckProgress
from grader.grading.one import self_check
from grader.inert import terminal
from grader.judge.backends import choose
from grader.outputs import classroom50, formats

NAME = "check"
HELP = "self-check: run the public tests on your micrograd (exit 0 when all pass)"
FORMATS = ("text", "json", "junit", "github", "classroom50")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("path", nargs="?", default=".", metavar="PATH",
                   help="folder holding micrograd/ (or engine.py/nn.py), a .zip or a .ipynb (default: .)")
    p.add_argument("-a", "--assignment", action="append", metavar="ID",
                   help="assignment to check (repeatable; default: all)")
    p.add_argument("--format", choices=FORMATS, default="text",
                   help="output: text (default), json, junit XML, github (annotations and a job summary for GitHub "
                   "Actions), or classroom50 (result.json and release-body.md in the current folder, for a Classroom "
                   "50 autograder.py; exit 0 whenever grading ran)")
    sandbox_option(p)


@dataclass(frozen=True)
class Args(CourseArgs):
    """``grader check``'s arguments: what to check, on which assignments (None: all), how to show it."""

    path: str
    assignment: list[str] | None
    format: str
    sandbox: str


def run(args: Args) -> ExitCode:
    """``grader check [PATH]``: a student's self-check on the public tests (exit 0 only when all pass; with
    ``--format classroom50``, whenever grading ran)."""
    course = course_of(args)
    choice = choose(args.sandbox)
    if choice.kind == "portable":
        print(choice.describe(), file=sys.stderr)
    if args.format == "classroom50":
        classroom50.clear(Path.cwd())  # no result.json from an earlier run (or a commit) outlives a failed one
    with CheckProgress(sys.stderr, course) as progress:  # each test as it ends, on stderr: stdout is the report's
        result = self_check(course, Path(args.path), args.assignment or None, sandbox=choice.kind, follower=progress)
    if args.format == "classroom50":
        print(terminal(formats.text(result)))
        if result.withheld:
            return ExitCode.GRADER_FAULT
        doc = classroom50.write(result, Path.cwd(), os.environ)
        print(f"Classroom 50: wrote {classroom50.RESULT_FILE} and {classroom50.BODY_FILE} "
              f"({doc['score']} / {doc['max-score']} points)")
        return ExitCode.OK
    render = {"text": formats.text, "json": formats.as_json, "junit": formats.check_junit, "github": formats.github}
    shown = render[args.format](result)
    print(terminal(shown) if args.format in ("text", "github") else shown)
    if result.withheld:
        return ExitCode.GRADER_FAULT
    return ExitCode.OK if result.passed else ExitCode.CHECK_FAILED
