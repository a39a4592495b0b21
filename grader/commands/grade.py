"""``grader grade SUBMISSIONS``: grade a class into an output folder."""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from datetime import timezone
from pathlib import Path

from grader.commands import CourseArgs, ExitCode, course_of, jobs_option, sandbox_option
from grader.grading.batch import grade
from grader.grading.progress import Progress
from grader.grading.shard import parse_shard
from grader.inert import terminal
from grader.intake.git_history import parse_deadline
from grader.judge.backends import PORTABLE_WARNING, choose
from grader.outputs.gradebook import table
from grader.outputs.item_analysis import summary
from grader.sandbox.protocol import BACKEND
from grader.similarity.graded_class import record_class

NAME = "grade"
HELP = "grade a folder of submissions"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("submissions", metavar="SUBMISSIONS",
                   help="folder with one entry per student (folder, .zip or .ipynb)")
    p.add_argument("-a", "--assignment", action="append", metavar="ID",
                   help="assignment to grade (repeatable; default: all)")
    p.add_argument("-o", "--output", default="grading-output", metavar="OUT", help="output folder (default: %(default)s)")
    jobs_option(p, "parallel judges")
    p.add_argument("--force", action="store_true", help="re-grade submissions that already have complete results in OUT")
    p.add_argument("--deadline", metavar="TIME",
                   help="grade each student git repository in SUBMISSIONS at its latest submit/* tag (or, without "
                   "tags, commit) at or before TIME (ISO 8601, e.g. 2026-11-30T23:59 local time or "
                   "2026-11-30T22:59Z); a repository with nothing before TIME is graded at its latest and marked late")
    p.add_argument("--format", choices=["csv", "junit"], default="csv",
                   help="gradebook: grades.csv (always) and, with junit, grades.junit.xml for other CI systems")
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
    format: str
    shard: str | None
    sandbox: str


def withheld_message(withheld: list[tuple[str, str, str]]) -> str:
    """The error naming why scores were withheld (one line per distinct cause, at most five)."""
    causes: dict[str, list[str]] = {}
    for student, assignment, reason in withheld:
        causes.setdefault(terminal(reason, keep=""), []).append(terminal(f"{student}/{assignment}", keep=""))
    lines = [f"grader: error: {len(withheld)} score(s) withheld because the grader itself failed (not the students' "
             "code); they are empty in grades.csv and a re-run grades them again:"]
    for reason, where in list(causes.items())[:5]:
        lines.append(f"  {reason} ({', '.join(where[:3])}{' ...' if len(where) > 3 else ''})")
    return "\n".join(lines)


def course_changed_line(changed: dict[str, tuple[str, int]]) -> str:
    """One line naming the assignments graded again because the course changed since their kept results."""
    parts = [f"{aid} ({what}; {count} submission(s))" for aid, (what, count) in changed.items()]
    return f"Course content changed since the kept results, graded again: {'; '.join(parts)}."


def run(args: Args) -> ExitCode:
    """``grader grade``: grade a class, print the gradebook, the hardest tests and the sandbox's layers."""
    course = course_of(args)
    out = Path(args.output)
    started = time.monotonic()
    choice = choose(args.sandbox)
    if choice.kind == "portable":
        print(f"{PORTABLE_WARNING}\n({choice.describe()})", file=sys.stderr)

    deadline = parse_deadline(args.deadline) if args.deadline else None
    if deadline is not None:
        print(f"Deadline: {deadline.isoformat(timespec='seconds')} ({deadline.astimezone(timezone.utc):%Y-%m-%dT%H:%M:%SZ})",
              file=sys.stderr)
    with Progress(sys.stderr) as progress:
        run = grade(course, Path(args.submissions), args.assignment or None, out, args.jobs, progress,
                    force=args.force, shard=parse_shard(args.shard) if args.shard else None, sandbox=choice.kind,
                    deadline=deadline)
    record_class(out, Path(args.submissions), deadline)  # for `grader similarity OUT`; not in any result or gradebook

    elapsed = time.monotonic() - started
    print(table(run.assignments, run.grades))
    if run.course_changed:
        print("\n" + course_changed_line(run.course_changed))
    kept = f" (kept {len(run.skipped)} complete result(s) from an earlier run; --force re-grades them)" if run.skipped else ""
    print(
        f"\nGraded {len(run.graded)} submission(s) on {len(run.assignments)} assignment(s) in {elapsed:.1f} s "
        f"with {args.jobs} job(s){kept}.\nGradebook: {out / 'grades.csv'}; per-student results.json and "
        f"feedback.md in {out}/<assignment>/<student>/"
    )
    if args.format == "junit":
        from grader.outputs.formats import write_grade_junit

        assert run.store is not None
        write_grade_junit(out / "grades.junit.xml", run.assignments, run.store, [g.student for g in run.grades])
        print(f"JUnit gradebook: {out / 'grades.junit.xml'}")
    if len(run.grades) > 1:
        print(summary(run.items) + f"\n  (all tests: {out / 'item_analysis.csv'})")
    print(isolation_summary(run.isolation))
    if run.withheld:
        print(withheld_message(run.withheld), file=sys.stderr)
        return ExitCode.GRADER_FAULT
    return ExitCode.OK


def isolation_summary(layers: dict[str, set[tuple[bool, str]]]) -> str:
    """One line naming the sandbox backend, the layers that were on, and why any was off
    (``layers``: :attr:`grader.grading.batch.GradeRun.isolation`)."""
    layers = dict(layers)
    backends = sorted(shown for _, shown in layers.pop(BACKEND, set()))
    if not layers:
        return "Sandbox isolation: no sandbox was started in this run."
    on = [name for name, states in layers.items() if states and all(active for active, _ in states)]
    reasons: dict[str, list[str]] = {}  # layers that were off for the same reasons are named together
    for name, states in layers.items():
        if name not in on:
            reasons.setdefault("; ".join(sorted(s for active, s in states if not active)), []).append(name)
    off = [f"{', '.join(names)} ({why})" for why, names in reasons.items()]
    line = f"Sandbox ({', '.join(backends) or 'linux'}) isolation: {', '.join(on) or 'none'}."
    return line + (f" Not active: {'; '.join(off)}." if off else "")
