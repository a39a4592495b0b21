"""The ``grader`` command line.

``main(argv) -> int`` is what the console script and the tests call. Library
code raises :class:`~grader.errors.GraderError`; only this module turns it
into a message on stderr and exit status 2. Exit status 1 means the command
ran but found a problem it was asked to check (``template --check``, a
failing self-check). Exit status 3 means the grader's own machinery failed
for some submission (the sandbox could not be set up, an internal error):
those scores are withheld, never counted, and the message names the cause.

Subcommands:

* ``grader grade SUBMISSIONS [-a ID]... [-o OUT] [-j N] [--sandbox B]``: grade a class.
* ``grader template [--check]``: regenerate ``student_template/`` from the
  reference's solution markers (or check that it is up to date).
* ``grader validate [-a ID]...``: test the tests (exit 1 on any miss).
* ``grader release OUT``: the student release (template, notebooks,
  handouts, public tests, the grader, a classroom workflow).
* ``grader merge OUT... -o MERGED``: combine shard outputs (``grade --shard K/N``).
* ``grader report OUT``: the class report, ``OUT/report.html``.
* ``grader gradescope -a ID -o autograder.zip``: a Gradescope autograder;
  ``grader autograde`` is what its ``run_autograder`` calls.
* ``grader check [PATH] [-a ID]... [--format text|json|junit|github] [--sandbox B]``:
  a student's self-check on the public tests (exit 0 only when all pass).

``--sandbox auto|linux|portable`` picks the sandbox backend (see :mod:`grader.backends`).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from . import __version__, template
from .backends import CHOICES, PORTABLE_WARNING, choose
from .batch import grade
from .config import Course, find_course
from .errors import GraderError, WithheldError
from .gradebook import table
from .inert import terminal
from .item_analysis import summary
from .progress import Progress
from .shard import parse_shard


def _course(args: argparse.Namespace) -> Course:
    if args.course:
        root = Path(args.course)
        if not (root / "assignments").is_dir():
            raise GraderError(f"{root} is not a course folder (it has no assignments/ folder)")
        return Course(root.resolve())
    return find_course()


GRADER_ERROR = 3
"""Exit status when some score was withheld because the grader itself failed."""


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


def cmd_grade(args: argparse.Namespace) -> int:
    course = _course(args)
    out = Path(args.output)
    started = time.monotonic()
    choice = choose(args.sandbox)
    if choice.kind == "portable":
        print(f"{PORTABLE_WARNING}\n({choice.describe()})", file=sys.stderr)

    with Progress(sys.stderr) as progress:
        run = grade(course, Path(args.submissions), args.assignment or None, out, args.jobs, progress,
                    force=args.force, shard=parse_shard(args.shard) if args.shard else None, sandbox=choice.kind)
    elapsed = time.monotonic() - started
    print(table(run.assignments, run.grades))
    kept = f" (kept {len(run.skipped)} complete result(s) from an earlier run; --force re-grades them)" if run.skipped else ""
    print(
        f"\nGraded {len(run.graded)} submission(s) on {len(run.assignments)} assignment(s) in {elapsed:.1f} s "
        f"with {args.jobs} job(s){kept}.\nGradebook: {out / 'grades.csv'}; per-student results.json and "
        f"feedback.md in {out}/<assignment>/<student>/"
    )
    if args.format == "junit":
        from .formats import write_grade_junit

        write_grade_junit(out / "grades.junit.xml", run.assignments, out, [g.student for g in run.grades])
        print(f"JUnit gradebook: {out / 'grades.junit.xml'}")
    if len(run.grades) > 1:
        print(summary(run.items) + f"\n  (all tests: {out / 'item_analysis.csv'})")
    print(isolation_summary(run.isolation))
    if run.withheld:
        print(withheld_message(run.withheld), file=sys.stderr)
        return GRADER_ERROR
    return 0


def isolation_summary(layers: dict[str, set[str]]) -> str:
    """One line naming the sandbox backend, the layers that were on, and why any was off."""
    layers = dict(layers)
    backends = sorted(layers.pop("sandbox", set()))
    if not layers:
        return "Sandbox isolation: no sandbox was started in this run."
    on = [name for name, states in layers.items() if states and all(s.startswith(("on", "dropped")) for s in states)]
    reasons: dict[str, list[str]] = {}  # layers that were off for the same reasons are named together
    for name, states in layers.items():
        if name not in on:
            reasons.setdefault("; ".join(sorted(s for s in states if not s.startswith(("on", "dropped")))), []).append(name)
    off = [f"{', '.join(names)} ({why})" for why, names in reasons.items()]
    line = f"Sandbox ({', '.join(backends) or 'linux'}) isolation: {', '.join(on) or 'none'}."
    return line + (f" Not active: {'; '.join(off)}." if off else "")


def cmd_template(args: argparse.Namespace) -> int:
    course = _course(args)
    generated = template.generate(course.reference_dir)
    if args.check:
        stale = template.differences(generated, course.template_dir)
        if stale:
            print(
                f"student_template/ is out of date with reference/ ({', '.join(stale)}); "
                "run `grader template` to regenerate it",
                file=sys.stderr,
            )
            return 1
        print("student_template/ matches the reference's solution markers")
        return 0
    template.write(generated, course.template_dir)
    print(f"wrote {len(generated)} file(s) to {course.template_dir / 'micrograd'}")
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    from . import formats
    from .check import check

    course = _course(args)
    choice = choose(args.sandbox)
    if choice.kind == "portable":
        print(choice.describe(), file=sys.stderr)
    result = check(course, Path(args.path), args.assignment or None, sandbox=choice.kind)
    render = {"text": formats.text, "json": formats.as_json, "junit": formats.check_junit, "github": formats.github}
    shown = render[args.format](result)
    print(terminal(shown) if args.format in ("text", "github") else shown)
    if result.withheld:
        return GRADER_ERROR
    return 0 if result.passed else 1


def cmd_release(args: argparse.Namespace) -> int:
    from .release import build_release

    course = _course(args)
    files = build_release(course, Path(args.out))
    print(f"wrote the student release to {args.out} ({len(files)} files): micrograd/ template, notebooks/, "
          "assignments/<id>/ (handout, public tests), grader/, README.md, .github/workflows/classroom.yml")
    return 0


def cmd_gradescope(args: argparse.Namespace) -> int:
    from .gradescope import build_zip

    course = _course(args)
    built = build_zip(course, args.assignment, Path(args.output))
    print(f"wrote {args.output} ({len(built.members)} files): upload it as the autograder of a Gradescope "
          f"programming assignment; students submit micrograd/engine.py (and nn.py), flat files or a notebook")
    print(f"pinned {len(built.lock.pins)} dependencies to the versions installed in {built.lock.environment} "
          f"(Python {built.lock.python}) in the zip's requirements.lock; setup.sh installs exactly these "
          f"into /autograder/venv. To refresh them, rebuild the zip from an updated, validated environment")
    return 0


def cmd_autograde(args: argparse.Namespace) -> int:
    from .gradescope import autograde

    course = _course(args)
    score = autograde(course, Path(args.submission), args.assignment, Path(args.results))
    print(f"score {score:g}; results written to {args.results}")
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from .report import write_report

    course = _course(args)
    path = write_report(Path(args.out), course)
    print(f"wrote {path}: one self-contained page (score distributions, tests by pass rate, likely bugs, students)")
    return 0


def cmd_merge(args: argparse.Namespace) -> int:
    from .report import write_report
    from .shard import merge

    course = _course(args)
    dest = Path(args.output)
    assignments, grades = merge(course, [Path(o) for o in args.outs], dest)
    print(table(assignments, grades))
    write_report(dest, course)
    print(f"\nMerged {len(args.outs)} output folder(s): {len(grades)} student(s) in {dest / 'grades.csv'}, "
          f"{dest / 'item_analysis.csv'} and {dest / 'report.html'}")
    return 0


def cmd_validate(args: argparse.Namespace) -> int:
    from .validate import render, validate

    course = _course(args)
    started = time.monotonic()
    report = validate(course, args.assignment or None, args.jobs)
    print(render(report))
    print(f"\n(validated in {time.monotonic() - started:.1f} s)")
    return 1 if report.misses else 0


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
    p.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1, metavar="N", help="parallel judges (default: cores)")
    p.add_argument("--force", action="store_true", help="re-grade submissions that already have complete results in OUT")
    p.add_argument("--format", choices=["csv", "junit"], default="csv",
                   help="gradebook: grades.csv (always) and, with junit, grades.junit.xml for other CI systems")
    p.add_argument("--shard", metavar="K/N", help="grade only shard K of N (by a hash of the student id); "
                   "combine the shards' outputs with `grader merge`")
    _sandbox_option(p)
    p.set_defaults(func=cmd_grade)

    p = sub.add_parser("check", help="self-check: run the public tests on your micrograd (exit 0 when all pass)")
    p.add_argument("path", nargs="?", default=".", metavar="PATH",
                   help="folder holding micrograd/ (or engine.py/nn.py), a .zip or a .ipynb (default: .)")
    p.add_argument("-a", "--assignment", action="append", metavar="ID", help="assignment to check (repeatable; default: all)")
    p.add_argument("--format", choices=["text", "json", "junit", "github"], default="text",
                   help="output: text (default), json, junit XML, or github (annotations, job summary, classroom result)")
    _sandbox_option(p)
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("release", help="build what students receive (template, notebooks, handouts, public tests)")
    p.add_argument("out", metavar="OUT", help="new folder for the release")
    p.set_defaults(func=cmd_release)

    p = sub.add_parser("merge", help="merge the output folders of sharded `grader grade --shard K/N` runs")
    p.add_argument("outs", nargs="+", metavar="OUT", help="output folders of the shards")
    p.add_argument("-o", "--output", required=True, metavar="MERGED", help="folder for the merged outputs")
    p.set_defaults(func=cmd_merge)

    p = sub.add_parser("report", help="write OUT/report.html, the class report of a graded folder")
    p.add_argument("out", metavar="OUT", help="the output folder of `grader grade`")
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("gradescope", help="build a Gradescope autograder zip for one assignment")
    p.add_argument("-a", "--assignment", required=True, metavar="ID", help="the assignment")
    p.add_argument("-o", "--output", default="autograder.zip", metavar="ZIP", help="zip to write (default: %(default)s)")
    p.set_defaults(func=cmd_gradescope)

    p = sub.add_parser("autograde", help="(inside Gradescope) grade one submission folder into results.json")
    p.add_argument("submission", metavar="SUBMISSION", help="the submission folder (/autograder/submission)")
    p.add_argument("-a", "--assignment", required=True, metavar="ID", help="the assignment")
    p.add_argument("--results", required=True, metavar="FILE", help="where to write results.json")
    p.set_defaults(func=cmd_autograde)

    p = sub.add_parser("validate", help="test the tests: reference, template, correct variants, catalogued bugs")
    p.add_argument("-a", "--assignment", action="append", metavar="ID", help="assignment to validate (repeatable; default: all)")
    p.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1, metavar="N", help="parallel judges (default: cores)")
    p.set_defaults(func=cmd_validate)

    p = sub.add_parser("template", help="generate student_template/ from reference/ (solution markers)")
    p.add_argument("--check", action="store_true", help="only check that student_template/ is up to date (exit 1 if not)")
    p.set_defaults(func=cmd_template)
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
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "jobs", 1) is not None and getattr(args, "jobs", 1) < 1:
        parser.error("--jobs must be at least 1")
    try:
        return int(args.func(args))
    except GraderError as exc:
        print(f"grader: error: {exc}", file=sys.stderr)
        return GRADER_ERROR if isinstance(exc, WithheldError) else 2
    except KeyboardInterrupt:
        print("grader: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
