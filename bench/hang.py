"""The hang experiment (issue 16): what a submission that loops forever costs, measured in one run.

    python bench/hang.py [--jobs 2] [--class-size 10]

A *hanging* submission is the reference solution whose ``Value.__pow__``
loops forever, as a student's unfinished loop would (``hostile_submissions.LOOP``).
Every figure is measured in this run, against a baseline measured in the same run:

* one correct submission (a copy of the reference) graded alone, all three
  assignments at ``-j 1``, against one hanging submission graded alone: the
  ratio (issue 16's target: at most 3), the time its timed-out tests waited,
  and the bound of the design before probe limits (:mod:`grader.judge.deadlines`):
  the sum of those tests' own time limits;
* a class of ``--class-size`` correct submissions at ``-j N``, against the same
  class plus 2 hanging ones: the ratio (target: at most 1.3);
* a student's ``grader check`` (public tests) on the correct and the hanging
  submission: the ratio.

Nothing here is asserted: it prints figures. Scores are printed for the
hanging submission, so a change that makes hangs cheaper can show that they
are unchanged.
"""

from __future__ import annotations

import argparse
import csv
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import hostile_submissions as H  # noqa: E402


def run(args: list[str], cwd: Path | None = None) -> float:
    """Wall seconds of ``python -m grader ARGS`` (its exit status 0 or 1: 1 is a failing self-check)."""
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "grader", "--course", str(ROOT), *args], cwd=cwd,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False)
    if done.returncode not in (0, 1):
        raise SystemExit(f"grader {' '.join(args)} failed with status {done.returncode}:\n{done.stderr[-2000:]}")
    return time.monotonic() - started


def grade(subs: Path, out: Path, jobs: int) -> float:
    return run(["grade", str(subs), "-o", str(out), "-j", str(jobs), "--force"])


def timed_out(out: Path, student: str) -> tuple[int, float, float]:
    """(tests of ``student`` that reached a time limit, the sum of their durations in seconds, the sum of their
    assignments' ``test_seconds``: what they waited before issue 16's probe limits, the old bound)."""
    from grader.course.course import Course

    course = Course(ROOT)
    count, total, old = 0, 0.0, 0.0
    for path in out.glob(f"*/{student}/results.json"):
        limit = course.assignment(path.parent.parent.name).limits.test_seconds
        for test in json.loads(path.read_text(encoding="utf-8")).get("tests", []):
            if "did not finish" in test.get("output", "") or "time limit" in test.get("output", ""):
                count += 1
                total += float(test.get("extra_data", {}).get("duration", 0.0))
                old += limit
    return count, total, old


def scores(out: Path, student: str) -> dict[str, str]:
    with open(out / "grades.csv", encoding="utf-8") as f:
        row = next(r for r in csv.DictReader(f) if r["student"] == student)
    return {k: v for k, v in row.items() if k not in ("student", "notes")}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2, help="judges for the class runs (default: 2)")
    parser.add_argument("--class-size", type=int, default=10, help="correct submissions in the class (default: 10)")
    opts = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-hang-") as tmp:
        work = Path(tmp)
        H.write(work / "alone-correct" / "correct", H.CORRECT)
        H.write(work / "alone-hang" / "hang", H.with_pow(H.LOOP))
        correct = grade(work / "alone-correct", work / "out-correct", 1)
        hang = grade(work / "alone-hang", work / "out-hang", 1)
        count, waited, old = timed_out(work / "out-hang", "hang")
        for i in range(opts.class_size):
            H.write(work / "class" / f"c{i:02d}", H.CORRECT)
        without = grade(work / "class", work / "out-class", opts.jobs)
        for i in range(2):
            H.write(work / "class" / f"h{i:02d}", H.with_pow(H.LOOP))
        with_hangs = grade(work / "class", work / "out-class-hangs", opts.jobs)
        check_correct = run(["check", str(work / "alone-correct" / "correct")])
        check_hang = run(["check", str(work / "alone-hang" / "hang")])
        hang_scores = scores(work / "out-hang", "hang")
        shutil.rmtree(work, ignore_errors=True)
    print("The hang experiment (a correct solution whose __pow__ loops forever)")
    print(f"  one submission, all assignments, -j 1:  correct {correct:6.1f} s   hanging {hang:6.1f} s   "
          f"ratio {hang / correct:5.1f}  (target <= 3)")
    print(f"    the hanging one: {count} test(s) reached a time limit and waited {waited:.1f} s in all (with only the "
          f"tests' own limits, the old bound: {old:.0f} s); scores {hang_scores}")
    print(f"  class of {opts.class_size} correct, -j {opts.jobs}:  {without:6.1f} s   with 2 hanging more: "
          f"{with_hangs:6.1f} s   ratio {with_hangs / without:5.2f}  (target <= 1.3)")
    print(f"  grader check (public tests):         correct {check_correct:6.1f} s   hanging {check_hang:6.1f} s   "
          f"ratio {check_hang / check_correct:5.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
