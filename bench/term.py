"""A whole term, end to end, as an instructor runs it: what each weekly cycle costs, and whether the final gradebook
and Canvas file hold the scores the policy gives.

    python bench/term.py [--students 40] [--jobs 2] [--keep DIR]

The term is :mod:`tests.term_simulation`'s (seven assignments a week apart, one repository per student and
assignment with the server's push records, a roster, extensions, late, backdated and copied work, a student who never
hands in). Each week, after the due date: hand the next assignment out (``released``), fetch (the repositories
grow), ``grader grade repos/<id> -a <id> --pushes pushes/<id> -o out`` for the assignment just due and the one
before it (its late work), ``grader report out``, and ``grader export canvas`` into a Canvas export that holds only
the assignments created there so far (each the week after it is handed out; the first worth 100 points there). A
last cycle after the final cut-off.

Prints, per week, the seconds of each command and of the cycle, and at the end compares every gradebook cell and
every Canvas cell with :meth:`~tests.term_simulation.Term.expected` (exit 1 on any difference).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from term_simulation import (  # noqa: E402
    ORDER,
    Term,
    canvas_differences,
    canvas_week,
    gradebook_differences,
    missing_evidence,
)

from grader.cli import main as grader  # noqa: E402


def run(*argv: str) -> tuple[float, str, str]:
    """Run ``grader argv`` in this process; (seconds, stdout, stderr). Raises SystemExit on a failing status."""
    out, err = io.StringIO(), io.StringIO()
    started = time.perf_counter()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = grader(list(argv))
    if status != 0:
        raise SystemExit(f"grader {' '.join(argv)} exited {status}:\n{err.getvalue()[-2000:]}")
    return time.perf_counter() - started, out.getvalue(), err.getvalue()


def week(term: Term, k: int, jobs: int) -> dict[str, float]:
    """One weekly cycle; the seconds of each step."""
    seconds: dict[str, float] = {}
    started = time.perf_counter()
    term.release(min(k, len(ORDER)))
    term.advance(term.run_time(k))
    seconds["fetch"] = time.perf_counter() - started
    course = ["--course", str(term.course)]
    for aid in term.runs(k):
        spent, _, _ = run(*course, "grade", str(term.repos / aid), "-a", aid, "-o", str(term.out), "-j", str(jobs),
                          "--pushes", str(term.records / aid))
        seconds[f"grade {aid}"] = spent
    seconds["report"], _, _ = run(*course, "report", str(term.out))
    canvas = term.root / f"canvas-week{k}.csv"
    canvas.write_text(term.canvas_export(canvas_week(k)), encoding="utf-8")
    seconds["export"], _, _ = run(*course, "export", "canvas", str(term.root / f"filled-week{k}.csv"), "--canvas",
                                  str(canvas), "--graded", str(term.out))
    seconds["cycle"] = time.perf_counter() - started
    return seconds


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--students", type=int, default=40)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--keep", metavar="DIR", help="build the term in DIR (kept) instead of a temporary folder")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(args.keep) if args.keep else Path(tmp)
        term = Term(root, ROOT, students=args.students).set_up()
        wrong: list[str] = []
        total = 0.0
        print(f"{args.students} students, {len(ORDER)} assignments, -j {args.jobs}")
        for k in range(1, term.weeks + 1):
            seconds = week(term, k, args.jobs)
            total += seconds["cycle"]
            print(f"week {k}: " + ", ".join(f"{step} {s:.1f} s" for step, s in seconds.items()))
            wrong += gradebook_differences(term, k) + missing_evidence(term, k)
            wrong += canvas_differences(term, k, (root / f"filled-week{k}.csv").read_text(encoding="utf-8"))
        print(f"the term's {term.weeks} cycles: {total:.1f} s; {len(wrong)} gradebook or Canvas cell(s) differ from the "
              "policy or lack their evidence")
        for line in wrong[:20]:
            print("  " + line)
    return 1 if wrong else 0


if __name__ == "__main__":
    raise SystemExit(main())
