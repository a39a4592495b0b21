"""The hang experiment (issue 16): what a submission that loops forever costs, measured in one run.

    python bench/hang.py [--jobs 2] [--class-size 10] [--rounds 3]

A *hanging* submission is the whole reference solution (every assignment's
module) whose ``Value.__pow__`` loops forever, as a student's unfinished loop
would (``hostile_submissions.LOOP``); a correct one is the whole reference.
Every figure is measured in this run, against a baseline measured in the same
run, every assignment of the course graded:

* one correct submission graded alone at ``-j 1``, against one hanging
  submission graded alone: the ratio (issue 16's target: at most 3), the time
  its timed-out tests waited, and the bound of the design before probe limits
  (:mod:`grader.judge.deadlines`): the sum of those tests' own time limits;
* a class of ``--class-size`` correct submissions at ``-j N``, against the same
  class plus 2 hanging ones (target: at most 1.3), and against the same class
  plus 2 more correct ones (what two more students cost with no hang at all),
  the three graded in turn ``--rounds`` times (medians);
* what the probe limits' floors forbid: each call that reaches the loop is
  given ``probe_floor_seconds + probe_multiple * r`` (0.5 s and more; the
  later ones ``after_timeout_floor_seconds + ...``, 0.25 s and more), because
  correct code may take that long (``bench/probe_limits.py``), and the
  worker spins on a core all that while. So two hanging students add at least
  their ordinary work (as two more correct ones) plus the limits their
  timed-out calls reached, divided by the cores: the least ratio (and, when
  that is above 1.3, the class size from which 1.3 is within reach);
* a student's ``grader check`` (public tests) on the correct and the hanging
  submission, in a student's release (``grader release``) of the course: the
  ratio, with the reference's times the release ships
  (``assignments/probe_seconds.json``: each call's own limit, as in hidden
  grading) and without them (that file removed: the tests' own limits, as
  before issue 56).

Nothing here is asserted: it prints figures. Scores are printed for the
hanging submission, so a change that makes hangs cheaper can show that they
are unchanged.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import hostile_submissions as H  # noqa: E402


def run(args: list[str], cwd: Path | None = None, course: Path = ROOT) -> float:
    """Wall seconds of ``python -m grader --course COURSE ARGS`` (its exit status 0 or 1: 1 is a failing
    self-check)."""
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "grader", "--course", str(course), *args], cwd=cwd,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False)
    if done.returncode not in (0, 1):
        raise SystemExit(f"grader {' '.join(args)} failed with status {done.returncode}:\n{done.stderr[-2000:]}")
    return time.monotonic() - started


def grade(subs: Path, out: Path, jobs: int) -> float:
    return run(["grade", str(subs), "-o", str(out), "-j", str(jobs), "--force"])


LIMIT = re.compile(r"did not finish within (?:this test's time limit \()?(\d+(?:\.\d+)?) (ms|s)\b")
"""The limit a timed-out call reached, as its feedback names it (``within 516 ms``, ``within 1.2 s``)."""


def timed_out(out: Path, student: str) -> tuple[int, float, float, float]:
    """(tests of ``student`` that reached a time limit, the sum of their durations in seconds, the sum of their
    assignments' ``test_seconds``: what they waited before issue 16's probe limits, the old bound; and the least
    they could have waited: per test, the limit its feedback names, or its duration when that is shorter, a
    call identical to one that timed out failing at once)."""
    from grader.course.course import Course

    course = Course(ROOT)
    count, total, old, least = 0, 0.0, 0.0, 0.0
    for path in out.glob(f"*/{student}/results.json"):
        limit = course.assignment(path.parent.parent.name).limits.test_seconds
        for test in json.loads(path.read_text(encoding="utf-8")).get("tests", []):
            if "did not finish" in test.get("output", "") or "time limit" in test.get("output", ""):
                count += 1
                took = float(test.get("extra_data", {}).get("duration", 0.0))
                total += took
                old += limit
                found = LIMIT.search(test.get("output", ""))
                named = float(found.group(1)) / (1000 if found.group(2) == "ms" else 1) if found else took
                least += min(named, took)
    return count, total, old, least


def write_submission(folder: Path, engine: str) -> Path:
    """The whole reference (every assignment's module) with ``engine`` as its ``engine.py``."""
    shutil.copytree(ROOT / "reference" / "micrograd", folder / "micrograd",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "micrograd" / "engine.py").write_text(engine, encoding="utf-8")
    return folder


def scores(out: Path, student: str) -> dict[str, str]:
    with open(out / "grades.csv", encoding="utf-8") as f:
        row = next(r for r in csv.DictReader(f) if r["student"] == student)
    return {k: v for k, v in row.items() if k not in ("student", "notes")}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2, help="judges for the class runs (default: 2)")
    parser.add_argument("--class-size", type=int, default=10, help="correct submissions in the class (default: 10)")
    parser.add_argument("--rounds", type=int, default=3, help="gradings of each class, in turn; medians are shown "
                        "(default: 3)")
    opts = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-hang-") as tmp:
        work = Path(tmp)
        write_submission(work / "alone-correct" / "correct", H.CORRECT)
        write_submission(work / "alone-hang" / "hang", H.with_pow(H.LOOP))
        correct = grade(work / "alone-correct", work / "out-correct", 1)
        hang = grade(work / "alone-hang", work / "out-hang", 1)
        count, waited, old, least = timed_out(work / "out-hang", "hang")
        for i in range(opts.class_size):
            write_submission(work / "class" / f"c{i:02d}", H.CORRECT)
        shutil.copytree(work / "class", work / "class-hangs")
        shutil.copytree(work / "class", work / "class-more")
        for i in range(2):
            write_submission(work / "class-more" / f"m{i:02d}", H.CORRECT)
            write_submission(work / "class-hangs" / f"h{i:02d}", H.with_pow(H.LOOP))
        walls: dict[str, list[float]] = {"class": [], "class-hangs": [], "class-more": []}
        in_class: list[tuple[int, float, float, float]] = []
        for r in range(opts.rounds):  # the three classes in turn, each round in another order: the machine's speed
            names = list(walls)       # drifts between runs minutes apart
            for name in names[r % 3:] + names[:r % 3]:
                walls[name].append(grade(work / name, work / f"out-{name}", opts.jobs))
            in_class += [timed_out(work / "out-class-hangs", f"h{i:02d}") for i in range(2)]
        without, with_hangs, with_more = (statistics.median(walls[k]) for k in walls)
        release, bare = work / "release" / "micrograd-course", work / "bare" / "micrograd-course"
        run(["release", "-o", str(release)])
        shutil.copytree(release, bare)
        (bare / "assignments" / "probe_seconds.json").unlink()  # the tests' own limits only, as before issue 56
        check_correct = run(["check", str(work / "alone-correct" / "correct")], course=release)
        check_hang = run(["check", str(work / "alone-hang" / "hang")], course=release)
        bare_correct = run(["check", str(work / "alone-correct" / "correct")], course=bare)
        bare_hang = run(["check", str(work / "alone-hang" / "hang")], course=bare)
        hang_scores = scores(work / "out-hang", "hang")
        correct_scores = scores(work / "out-correct", "correct")
        shutil.rmtree(work, ignore_errors=True)
    from grader.course.course import Course

    limits = Course(ROOT).assignment("value_ops").limits
    n, jobs = opts.class_size, opts.jobs
    least_waits = sum(t[3] for t in in_class) / opts.rounds
    least_class = max(with_more, without) + least_waits / jobs  # the 2 more students' ordinary work, their waits
    marginal = (with_more - without) / 2  # wall seconds of one more correct student at -j N (noisy: may be <= 0)
    fixed = without - n * marginal
    print("The hang experiment (the whole reference, its __pow__ looping forever; every assignment graded)")
    print(f"  one submission, -j 1:  correct {correct:6.1f} s   hanging {hang:6.1f} s   "
          f"ratio {hang / correct:5.1f}  (target <= 3)")
    print(f"    the hanging one: {count} test(s) reached a time limit and waited {waited:.1f} s in all (the limits they "
          f"reached: {least:.1f} s; with only the tests' own limits, the old bound: {old:.0f} s)")
    print(f"    scores: hanging {hang_scores}; correct {correct_scores}")
    print(f"  class of {n} correct, -j {jobs}:  {without:6.1f} s   with 2 hanging more: {with_hangs:6.1f} s   "
          f"ratio {with_hangs / without:5.2f}  (target <= 1.3; medians of {opts.rounds} rounds, each: "
          + ", ".join(f"{a:.1f}/{b:.1f}/{c:.1f}" for a, b, c in zip(*walls.values())) + " s without/with hangs/"
          "with 2 more correct)")
    print(f"    with 2 correct more instead: {with_more:6.1f} s   ratio {with_more / without:5.2f}  (two more "
          f"students, no hang: {marginal:.2f} s each at -j {jobs}; the class's fixed cost {fixed:.1f} s)")
    print(f"    the 2 hanging ones' timed-out calls reached limits of {least_waits:.1f} s in all (each at least "
          f"{limits.probe_floor_seconds:g} s, the next ones in an assignment at least "
          f"{limits.after_timeout_floor_seconds:g} s: the floors), on a core their worker spins on")
    print(f"    the least the floors allow: {max(with_more, without):.1f} + {least_waits:.1f} / {jobs} = "
          f"{least_class:.1f} s, ratio {least_class / without:.2f} (measured {with_hangs / without:.2f})")
    if marginal > 0 and least_class / without > 1.3:
        needed = (2 * marginal + least_waits / jobs - 0.3 * fixed) / (0.3 * marginal)
        print(f"    1.3 is out of reach at this size; within reach from a class of about {max(needed, 0):.0f} correct "
              f"students (2 x {marginal:.2f} + {least_waits / jobs:.1f} <= 0.3 x ({fixed:.1f} + n x {marginal:.2f}))")
    print(f"  grader check (public tests, in a release):  correct {check_correct:6.1f} s   hanging {check_hang:6.1f} s"
          "   "
          f"ratio {check_hang / check_correct:5.1f}  (target <= 3)")
    print(f"    without the release's probe_seconds.json:  correct {bare_correct:6.1f} s   hanging {bare_hang:6.1f} s"
          "   "
          f"ratio {bare_hang / bare_correct:5.1f}  (the tests' own limits)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
