"""``grader grade SUBMISSIONS``: grade a class into an output folder."""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from grader.commands import CourseArgs, ExitCode, course_of, jobs_option, sandbox_option
from grader.grading.batch import grade
from grader.grading.progress import Progress
from grader.grading.shard import parse_shard
from grader.grading.term_check import load_term_inputs
from grader.inert import terminal
from grader.judge.backends import PORTABLE_WARNING, choose
from grader.outputs.class_outputs import run_summary
from grader.outputs.score_changes import gradebook_scores, what_moved

NAME = "grade"
HELP = "grade a folder of submissions"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("submissions", metavar="SUBMISSIONS",
                   help="folder with one entry per student (folder, .zip or .ipynb)")
    p.add_argument("-a", "--assignment", action="append", metavar="ID",
                   help="assignment to grade (repeatable; default: every released one). Each is graded into OUT's one "
                   "gradebook beside those graded into it before")
    p.add_argument("-o", "--output", default="grading-output", metavar="OUT", help="output folder (default: %(default)s)")
    jobs_option(p, "parallel judges")
    p.add_argument("--force", action="store_true", help="re-grade submissions that already have complete results in OUT")
    p.add_argument("--deadline", metavar="TIME",
                   help="the due date of every assignment graded, for this run (instead of each assignment.yaml's "
                   "due; extensions and the late policy still apply): ISO 8601, e.g. 2026-11-30T23:59 (in the "
                   "course's time_zone, else this machine's) or 2026-11-30T22:59Z. A student git repository is "
                   "graded at its latest submit/* tag (or, without tags, commit) at or before the student's due date; with nothing before it, at its latest "
                   "(before the policy's cut-off), marked late")
    p.add_argument("--roster", metavar="CSV", help="the course roster (default: roster in assignments/course.yaml): "
                   "extensions by the course's student id, and who is missing")
    p.add_argument("--extensions", metavar="CSV",
                   help="per-student extensions (default: extensions in assignments/course.yaml)")
    p.add_argument("--pushes", metavar="DIR",
                   help="the git server's push records, one <submission name>.json per repository (GitHub's "
                   "repository activity list: gh api --paginate repos/ORG/REPO/activity): a repository is then "
                   "graded as pushed at the due date and dated by the server's clock, not by its commit dates")
    p.add_argument("--format", choices=["csv", "junit"], default="csv",
                   help="gradebook: grades.csv (always) and, with junit, grades.junit.xml for other CI systems")
    p.add_argument("--changes", metavar="FILE", help="write every score that moved since OUT's last gradebook "
                   "(student, assignment, before, after, change) to FILE as CSV; each assignment's count is printed")
    p.add_argument("--shard", metavar="K/N", help="grade only shard K of N (by a hash of the student id); "
                   "combine the shards' outputs with `grader merge`")
    sandbox_option(p)


@dataclass(frozen=True)
class Args(CourseArgs):
    """``grader grade``'s arguments (see :func:`add_arguments`)."""

    submissions: str
    assignment: list[str] | None
    output: str
    jobs: int
    force: bool
    deadline: str | None
    roster: str | None
    extensions: str | None
    pushes: str | None
    format: str
    shard: str | None
    changes: str | None
    sandbox: str


def run(args: Args) -> ExitCode:
    """``grader grade``: grade a class, print the gradebook, the hardest tests and the sandbox's layers."""
    roster, extensions, pushes = (Path(given) if given else None for given in (args.roster, args.extensions, args.pushes))
    course = course_of(args)
    out = Path(args.output)
    started = time.monotonic()
    choice = choose(args.sandbox)
    if choice.kind == "portable":
        print(f"{PORTABLE_WARNING}\n({choice.describe()})", file=sys.stderr)

    # the term's inputs, read once and checked together: a wrong due date, late policy or term file, or an
    # extension row matching nothing, and nothing is graded
    term = load_term_inputs(course, Path(args.submissions), assignment_ids=args.assignment, deadline=args.deadline,
                            roster=roster, extensions=extensions, pushes=pushes)
    if not args.assignment and term.unreleased:
        print(f"Not released yet, so not graded: {', '.join(term.unreleased)} (released: in their assignment.yaml; "
              "-a ID grades one anyway)", file=sys.stderr)
    for line in [*term.due_lines(), *term.warnings]:
        print(line, file=sys.stderr)
    before = gradebook_scores(out)  # to say what moved
    with Progress(sys.stderr) as progress:
        run = grade(course, Path(args.submissions), None, out, args.jobs, progress, force=args.force,
                    shard=parse_shard(args.shard) if args.shard else None, sandbox=choice.kind, term=term,
                    junit=args.format == "junit")
    assert run.outputs is not None
    summary = run_summary(run.outputs, run.assignments, out, graded=len(run.graded), kept=len(run.skipped),
                          course_changed=run.course_changed, seconds=time.monotonic() - started, jobs=args.jobs,
                          book=run.book)
    print(summary.text)
    for line in what_moved(before, out, Path(args.changes) if args.changes else None):
        print(terminal(line, keep=""))
    for line in [run.copied.warning(), *summary.notes]:
        if line:
            print(line, file=sys.stderr)
    for line in run.roster:
        print(terminal(line, keep=""), file=sys.stderr)
    for line in term.roster_problems(g.student for g in run.grades):
        print(f"Roster: {terminal(line, keep='')}", file=sys.stderr)
    if summary.withheld:
        print(summary.withheld, file=sys.stderr)
        return ExitCode.GRADER_FAULT
    return ExitCode.OK
