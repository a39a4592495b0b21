"""The ``grader`` command line.

``main(argv) -> int`` is what the console script and the tests call. Library
code raises :class:`~grader.errors.GraderError`; only this module turns it
into a message on stderr and exit status 2. Exit status 1 means the command
ran but found a problem it was asked to check (``template --check``, a
failing self-check). Exit status 3 means the grader's own machinery failed
for some submission (the sandbox could not be set up, an internal error):
those scores are withheld, never counted, and the message names the cause.

Subcommands:

* ``grader grade SUBMISSIONS [-a ID]... [-o OUT] [-j N] [--deadline TIME] [--sandbox B]``: grade a class
  (with ``--deadline``, each student git repository at its latest submission at or before TIME).
* ``grader new-assignment ID [--module NAME] [--title TEXT]``: scaffold a new
  assignment (``assignment.yaml``, handout, probes, public and hidden tests, an
  empty bug catalogue, a reference module): see :mod:`grader.course.scaffold`;
* ``grader template [--check]``: regenerate ``student_template/`` from the
  reference's solution markers (or check that it is up to date).
* ``grader validate [-a ID]...``: test the tests (exit 1 on any miss).
* ``grader release -o OUT [--classroom50 DIR]``: the student release (template,
  notebooks, handouts, public tests, the grader, a self-check workflow) and the
  Classroom 50 autograders for the teacher's config repository.
* ``grader merge OUT... -o MERGED``: combine shard outputs (``grade --shard K/N``).
* ``grader report GRADED``: the class report, ``GRADED/report.html``.
* ``grader similarity OUT [--corpus DIR]... [--submissions DIR] [-a ID]...``: similarity evidence (unusually alike
  pairs, side by side, for a person to review; never a score), in ``OUT/similarity.json`` and the report.
* ``grader gradescope -a ID -o autograder.zip``: a Gradescope autograder;
  ``grader autograde`` is what its ``run_autograder`` calls.
* ``grader check [PATH] [-a ID]... [--format text|json|junit|github|classroom50] [--sandbox B]``:
  a student's self-check on the public tests (exit 0 only when all pass; with ``classroom50``, which writes
  ``result.json`` and ``release-body.md`` for Classroom 50, whenever grading ran).

``--sandbox auto|linux|portable`` picks the sandbox backend (see :mod:`grader.judge.backends`).
Each subcommand is a module of :mod:`grader.commands`, imported only when it runs.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from grader import __version__
from grader.errors import GRADER_ERROR, GraderError, WithheldError
from grader.judge.backends import CHOICES
from grader.similarity.ranking import FLOOR, IDENTICAL, THRESHOLD


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def positive_float(text: str) -> float:
    """An argparse type: a number above 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError("must be a number above 0")
    return value


def percentage(text: str) -> float:
    """An argparse type: a number from 0 to 100."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 <= value <= 100:
        raise argparse.ArgumentTypeError("must be from 0 to 100")
    return value


def _sandbox_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--sandbox", choices=CHOICES, default="auto",
                   help="sandbox backend: linux (namespaces, Landlock, fork server), portable (a plain worker "
                   "process: macOS, Windows), or auto (default: linux when this host has what it needs)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="grader", description="Autograder for the micrograd course (sandboxed; see README)."
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("--course", metavar="DIR", help="course folder (default: the nearest folder with assignments/)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("grade", help="grade a folder of submissions")
    p.add_argument("submissions", metavar="SUBMISSIONS", help="folder with one entry per student (folder, .zip or .ipynb)")
    p.add_argument("-a", "--assignment", action="append", metavar="ID", help="assignment to grade (repeatable; default: all)")
    p.add_argument("-o", "--output", default="grading-output", metavar="OUT", help="output folder (default: %(default)s)")
    p.add_argument("-j", "--jobs", type=positive_int, default=os.cpu_count() or 1, metavar="N", help="parallel judges (default: cores)")
    p.add_argument("--force", action="store_true", help="re-grade submissions that already have complete results in OUT")
    p.add_argument("--deadline", metavar="TIME",
                   help="grade each student git repository in SUBMISSIONS at its latest submit/* tag (or, without "
                   "tags, commit) at or before TIME (ISO 8601, e.g. 2026-11-30T23:59 local time or "
                   "2026-11-30T22:59Z); a repository with nothing before TIME is graded at its latest and marked late")
    p.add_argument("--format", choices=["csv", "junit"], default="csv",
                   help="gradebook: grades.csv (always) and, with junit, grades.junit.xml for other CI systems")
    p.add_argument("--shard", metavar="K/N", help="grade only shard K of N (by a hash of the student id); "
                   "combine the shards' outputs with `grader merge`")
    _sandbox_option(p)
    p.set_defaults(command_module="grade")

    p = sub.add_parser("check", help="self-check: run the public tests on your micrograd (exit 0 when all pass)")
    p.add_argument("path", nargs="?", default=".", metavar="PATH",
                   help="folder holding micrograd/ (or engine.py/nn.py), a .zip or a .ipynb (default: .)")
    p.add_argument("-a", "--assignment", action="append", metavar="ID", help="assignment to check (repeatable; default: all)")
    p.add_argument("--format", choices=["text", "json", "junit", "github", "classroom50"], default="text",
                   help="output: text (default), json, junit XML, github (annotations and a job summary for GitHub "
                   "Actions), or classroom50 (result.json and release-body.md in the current folder, for a Classroom "
                   "50 autograder.py; exit 0 whenever grading ran)")
    _sandbox_option(p)
    p.set_defaults(command_module="check")

    p = sub.add_parser("release", help="build what students receive (template, notebooks, handouts, public tests)")
    p.add_argument("-o", "--output", required=True, metavar="OUT", help="new folder for the release")
    p.add_argument("--classroom50", metavar="DIR", help="new folder for the Classroom 50 autograders of the "
                   "teacher's config repository (default: OUT-classroom50)")
    p.set_defaults(command_module="release")

    p = sub.add_parser("merge", help="merge the output folders of sharded `grader grade --shard K/N` runs")
    p.add_argument("outs", nargs="+", metavar="OUT", help="output folders of the shards")
    p.add_argument("-o", "--output", required=True, metavar="MERGED", help="folder for the merged outputs")
    p.set_defaults(command_module="merge")

    p = sub.add_parser("report", help="write GRADED/report.html, the class report of a graded folder")
    p.add_argument("graded", metavar="GRADED", help="the output folder of `grader grade`")
    p.set_defaults(command_module="report")

    p = sub.add_parser("similarity", help="similarity evidence for a graded class: unusually alike pairs, for a "
                       "person to review (never changes a score)")
    p.add_argument("graded", metavar="OUT", help="the output folder of `grader grade`")
    p.add_argument("--corpus", action="append", metavar="DIR", help="also compare every submission with the code in "
                   "DIR: submissions in the class's layouts, or plain .py files (repeatable; e.g. last term's class)")
    p.add_argument("--submissions", metavar="DIR", help="the class's submissions (default: the folder `grader grade` "
                   "recorded in OUT/_instructor/class.json)")
    p.add_argument("-a", "--assignment", action="append", metavar="ID", help="assignment to compare (repeatable; default: those graded in OUT)")
    p.add_argument("--threshold", type=positive_float, default=THRESHOLD, metavar="SCORE",
                   help="flag pairs whose robust z-score against the class reaches SCORE (default: %(default)s)")
    p.add_argument("--floor", type=percentage, default=FLOOR * 100, metavar="PERCENT",
                   help="... and whose similarity reaches PERCENT (default: %(default)s)")
    p.add_argument("--identical", type=percentage, default=IDENTICAL * 100, metavar="PERCENT",
                   help="also flag every pair whose similarity reaches PERCENT, whatever its score (default: %(default)s)")
    p.add_argument("-j", "--jobs", type=positive_int, default=os.cpu_count() or 1, metavar="N",
                   help="processes that tokenise (default: cores)")
    p.set_defaults(command_module="similarity")

    p = sub.add_parser("gradescope", help="build a Gradescope autograder zip for one assignment")
    p.add_argument("-a", "--assignment", required=True, metavar="ID", help="the assignment")
    p.add_argument("-o", "--output", default="autograder.zip", metavar="ZIP", help="zip to write (default: %(default)s)")
    p.set_defaults(command_module="gradescope")

    p = sub.add_parser("autograde", help="(inside Gradescope) grade one submission folder into results.json")
    p.add_argument("submission", metavar="SUBMISSION", help="the submission folder (/autograder/submission)")
    p.add_argument("-a", "--assignment", required=True, metavar="ID", help="the assignment")
    p.add_argument("-o", "--output", "--results", dest="output", required=True, metavar="FILE",
                   help="where to write results.json (also --results, the spelling in zips built by earlier versions)")
    p.set_defaults(command_module="autograde")

    p = sub.add_parser("validate", help="test the tests: reference, template, correct variants, catalogued bugs")
    p.add_argument("-a", "--assignment", action="append", metavar="ID", help="assignment to validate (repeatable; default: all)")
    p.add_argument("-j", "--jobs", type=positive_int, default=os.cpu_count() or 1, metavar="N", help="parallel judges (default: cores)")
    p.set_defaults(command_module="validate")

    p = sub.add_parser("new-assignment", help="scaffold a new assignment: assignment.yaml, handout, probes, tests, "
                       "bug catalogue (and a reference module)")
    p.add_argument("id", metavar="ID", help="the assignment's id (its folder under assignments/), e.g. forward_mode")
    p.add_argument("--module", metavar="NAME", help="the student's module, micrograd/NAME.py (default: the id)")
    p.add_argument("--title", metavar="TEXT", help="the assignment's title")
    p.set_defaults(command_module="new_assignment")

    p = sub.add_parser("template", help="generate student_template/ from reference/ (solution markers)")
    p.add_argument("--check", action="store_true", help="only check that student_template/ is up to date (exit 1 if not)")
    p.set_defaults(command_module="template")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit status (0 ok, 1 check failed, 2 instructor error)."""
    for stream in (sys.stdout, sys.stderr):  # a legacy console encoding (cp1252...) must not crash on "✗"
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(errors="replace")
            except (ValueError, OSError):
                pass
    args = build_parser().parse_args(argv)
    command = importlib.import_module(f"grader.commands.{args.command_module}")
    try:
        return int(command.run(args))
    except GraderError as exc:
        print(f"grader: error: {exc}", file=sys.stderr)
        return GRADER_ERROR if isinstance(exc, WithheldError) else 2
    except KeyboardInterrupt:
        print("grader: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
