"""The grading benchmark: one command, every figure measured in the same run.

    python bench/run.py [--size 200] [--jobs N]
    python bench/run.py --course [--size 300] [--jobs 2] ...   # every assignment against its floor:
                                                               # bench/course_class.py

Builds a class of ``--size`` submissions (correct variants, catalogued bugs,
template copies, a few hangs and crashes), grades all three assignments at
``-j 1`` and at ``-j N`` (default: all cores), and prints side by side:

* total and per-submission wall time at both job counts, and the parallel
  efficiency (speed-up / N);
* the compute floor: the dominant probes of one submission's grading (the
  two hypothesis tests' graphs, on both sides, and XOR training with its
  replay) run in one process on the reference solution, with no isolation
  and no pytest start-up, times the class size, divided by the cores (see
  ``floor()``: the many small fixed-input tests are left out, so it is a
  lower bound);
* the overhead per submission, measured on template copies (every stub
  raises at once, so their cost is the grader's own): classes of 10 and 40
  copies at ``-j 1`` give the marginal cost of one more submission (the
  slope) and the fixed cost of a run (grader and judge start-up);
* the baseline: a fresh ``python -m pytest`` process per submission running
  a small test file that imports the submission directly (what an
  instructor writes without this tool, with no isolation);
* the ratios total / floor and overhead / baseline;
* memory: the peak resident memory of the whole process tree (grader,
  judges, sandboxes; sampled every 0.1 s) grading 100 and 1,000 template
  copies at ``-j N``;
* hangs: a class of 18 cheap submissions graded with and without 2 more
  (10%) whose ``__truediv__`` loops forever; the growth is compared with the
  bound ``sum of the timed-out tests' time limits / cores``.

Needs ``pip install -e '.[bench]'`` (psutil, for the memory figures).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from grader.course.catalogue import Bug, load_bugs, write_mutant  # noqa: E402
from grader.course.course import Course  # noqa: E402

BASELINE_TEST = textwrap.dedent(
    """
    import math, sys
    sys.path.insert(0, SUBMISSION)
    from micrograd.engine import Value

    def test_add():
        a, b = Value(2.0), Value(-3.0); c = a + b; c.backward(); assert a.grad == 1.0

    def test_mul():
        a, b = Value(2.0), Value(-3.0); c = a * b; c.backward(); assert a.grad == -3.0

    def test_tanh():
        a = Value(0.5); t = a.tanh(); t.backward(); assert abs(a.grad - (1 - math.tanh(0.5) ** 2)) < 1e-9

    def test_reuse():
        a = Value(3.0); c = a + a; c.backward(); assert a.grad == 2.0

    def test_chain():
        a = Value(2.0); c = (a * a + a).tanh(); c.backward(); assert a.grad != 0
    """
)


def build_class(dest: Path, size: int, kinds: tuple[str, ...] = ("correct", "bug", "template", "hang", "crash")
                ) -> dict[str, int]:
    """Write ``size`` submissions of the given kinds, in a fixed rotation; return how many of each kind."""
    import hostile_submissions as H

    course = Course(ROOT)
    sources: list[tuple[str, object]] = []
    for variant in sorted((ROOT / "reference" / "variants").glob("*/micrograd")):
        sources.append(("correct", variant.parent))
    for extra in ("correct_recursive", "flat_layout"):
        sources.append(("correct", ROOT / "examples" / "submissions" / extra))
    bugs = [b for a in course.assignments() for b in load_bugs(a, course.reference_dir)]
    sources += [("bug", b) for b in bugs]
    sources += [("template", ROOT / "student_template")] * 20
    sources += [("hang", H.with_pow(H.LOOP)), ("crash", H.with_pow(H.SEGFAULT))]
    sources = [(kind, src) for kind, src in sources if kind in kinds]
    counts: dict[str, int] = {}
    for i in range(size):
        kind, src = sources[i % len(sources)]
        target = dest / f"s{i:04d}_{kind}"
        if kind == "bug":
            write_mutant(src, course.reference_dir, target)
        elif kind in ("hang", "crash"):
            H.write(target, src)
        else:
            shutil.copytree(src, target, ignore=shutil.ignore_patterns("__pycache__", "*.ipynb"))
        counts[kind] = counts.get(kind, 0) + 1
    return counts


HANG = Bug("hang_truediv", "value_ops", "Value.__truediv__", "loops forever", "micrograd/engine.py",
           "        return self * other**-1\n", "        while True:\n            pass\n", [])
"""A submission whose division never returns: seven tests reach their time limit."""


def grade(subs: Path, out: Path, jobs: int) -> float:
    """Wall seconds of `grader grade` on ``subs`` (all assignments, ``--force``)."""
    return grade_measured(subs, out, jobs)[0]


def grade_measured(subs: Path, out: Path, jobs: int) -> tuple[float, int, int]:
    """Grade; return (wall seconds, peak bytes of the whole process tree, peak bytes of its largest process)."""
    started = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "grader", "--course", str(ROOT), "grade", str(subs), "-o", str(out),
                             "-j", str(jobs), "--force"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peak_total = peak_one = 0
    root = psutil.Process(proc.pid)
    while proc.poll() is None:
        total = 0
        try:
            tree = [root, *root.children(recursive=True)]
        except psutil.Error:
            tree = []
        for p in tree:
            try:
                rss = p.memory_info().rss
            except psutil.Error:
                continue
            total += rss
            peak_one = max(peak_one, rss)
        peak_total = max(peak_total, total)
        time.sleep(0.1)
    if proc.returncode != 0:
        raise SystemExit(f"grader grade {subs} failed with status {proc.returncode}")
    return time.monotonic() - started, peak_total, peak_one


def copies(src: Path, dest: Path, count: int) -> Path:
    """``count`` copies of the submission ``src`` in ``dest``."""
    for i in range(count):
        shutil.copytree(src, dest / f"t{i:04d}", ignore=shutil.ignore_patterns("__pycache__", "*.ipynb"))
    return dest


def timed_out_seconds(out: Path) -> float:
    """Sum of the time limits of the tests that reached them (their durations), over the whole output."""
    total = 0.0
    for path in out.glob("*/*/results.json"):
        for test in json.loads(path.read_text(encoding="utf-8")).get("tests", []):
            if "time limit" in test.get("output", "") or "took longer" in test.get("output", ""):
                total += float(test.get("extra_data", {}).get("duration", 0.0))
    return total


def baseline(subs: list[Path], work: Path) -> float:
    """Seconds per submission of a fresh `python -m pytest` process importing the submission."""
    started = time.monotonic()
    for sub in subs:
        test = work / f"test_{sub.name}.py"
        test.write_text(f"SUBMISSION = {str(sub)!r}\n" + BASELINE_TEST)
        subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test)],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=work)
    return (time.monotonic() - started) / len(subs)


def floor(subs_correct: int, cores: int) -> float:
    """Seconds for the reference to run, in this process, what grading one correct submission asks of it,
    times the number of graded submissions, divided by the cores: the compute a perfect grader still pays."""
    sys.path.insert(0, str(ROOT / "assignments" / "mlp" / "tests" / "hidden"))
    import test_mlp_hidden as T
    from hypothesis import HealthCheck, given, settings

    from assignments.shared.checks.models import model_spec
    from assignments.shared.checks.strategies import expression_graphs
    from grader.judge.reference import load_reference, run_probe

    mg = load_reference(ROOT / "reference")
    started = time.monotonic()
    for _ in range(2):  # the two hypothesis tests of `backward`: student side + reference side
        @settings(max_examples=40, derandomize=True, database=None, deadline=None,
                  suppress_health_check=list(HealthCheck))
        @given(spec=expression_graphs())
        def both(spec):
            run_probe(mg, "graph", [spec])
            run_probe(mg, "graph", [spec])
        both()
    for seed in T.XOR_SEEDS[:4]:  # XOR: training in the sandbox and the judge's replay
        spec = model_spec("MLP", 2, [4, 4, 1], seed=seed)
        got = run_probe(mg, "nn_train", [spec, T.XOR_X, T.XOR_Y, T.LR, T.MAX_STEPS, T.MARGIN])
        run_probe(mg, "nn_train", [model_spec("MLP", 2, [4, 4, 1], weights=got["initial"]), T.XOR_X, T.XOR_Y,
                                   T.LR, T.MAX_STEPS, T.MARGIN])
    per_submission = time.monotonic() - started
    return per_submission * subs_correct / cores


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if "--course" in args:  # every assignment, against its floor: bench/course_class.py
        import course_class

        parser = argparse.ArgumentParser(description=course_class.__doc__.splitlines()[0])
        parser.add_argument("--course", action="store_true", help="a class on every assignment against its floor")
        course_class.add_arguments(parser)
        return course_class.run(parser.parse_args(args))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--course", action="store_true", help="instead: a class of --size (default 300) on every "
                        "assignment, each against its compute floor (bench/course_class.py; its options)")
    parser.add_argument("--size", type=int, default=200, help="submissions in the class (default: 200)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="parallel jobs (default: cores)")
    parser.add_argument("--memory-sizes", default="100,1000",
                        help="template-copy class sizes for the memory figures (default: 100,1000)")
    args = parser.parse_args(args)
    sizes = [int(x) for x in args.memory_sizes.split(",") if x]
    with tempfile.TemporaryDirectory(prefix="grader-bench-") as tmp_name:
        tmp = Path(tmp_name)
        template = ROOT / "student_template"
        counts = build_class(tmp / "class", args.size)
        t_serial = grade(tmp / "class", tmp / "out1", 1)
        t_parallel = grade(tmp / "class", tmp / "outN", args.jobs)
        t10 = grade(copies(template, tmp / "t10", 10), tmp / "o10", 1)
        t40 = grade(copies(template, tmp / "t40", 40), tmp / "o40", 1)
        marginal = (t40 - t10) / 30
        fixed = t10 - 10 * marginal
        base = baseline(sorted((tmp / "class").iterdir())[:20], tmp)
        t_floor = floor(args.size, args.jobs)
        memory = {}
        for n_mem in sizes:
            memory[n_mem] = grade_measured(copies(template, tmp / f"m{n_mem}", n_mem), tmp / f"om{n_mem}", args.jobs)
            shutil.rmtree(tmp / f"m{n_mem}")
            shutil.rmtree(tmp / f"om{n_mem}")
        cheap = build_class(tmp / "h0", 18, kinds=("correct", "template"))
        t_h0 = grade(tmp / "h0", tmp / "oh0", args.jobs)
        shutil.copytree(tmp / "h0", tmp / "h1")
        for i in range(2):
            write_mutant(HANG, ROOT / "reference", tmp / "h1" / f"hang{i}")
        t_h1 = grade(tmp / "h1", tmp / "oh1", args.jobs)
        hang_bound = timed_out_seconds(tmp / "oh1") / args.jobs
    n = args.size
    speedup = t_serial / t_parallel
    mib = 1 << 20
    print(f"class: {n} submissions {counts}, all three assignments, {args.jobs} cores")
    print(f"{'':34s}{'-j 1':>12s}{f'-j {args.jobs}':>12s}")
    print(f"{'total wall (s)':34s}{t_serial:12.1f}{t_parallel:12.1f}")
    print(f"{'per submission (s)':34s}{t_serial / n:12.3f}{t_parallel / n:12.3f}")
    print(f"parallel efficiency: {speedup / args.jobs:.0%} (speed-up {speedup:.2f} on {args.jobs} cores)")
    print(f"compute floor (reference, in-process, / cores): {t_floor:.1f} s; total / floor = {t_parallel / t_floor:.2f}")
    print(f"overhead per submission (template copies, -j 1): {marginal:.3f} s marginal "
          f"(10 copies {t10:.1f} s, 40 copies {t40:.1f} s; fixed cost of a run {fixed:.2f} s)")
    print(f"baseline (fresh `python -m pytest` per submission): {base:.3f} s; overhead / baseline = {marginal / base:.2f}"
          f" (all-in, 10 copies: {t10 / 10 / base:.2f})")
    for n_mem, (wall, total, one) in memory.items():
        print(f"memory, {n_mem} template copies at -j {args.jobs}: peak {total / mib:.0f} MiB for the whole process tree,"
              f" largest process {one / mib:.0f} MiB ({wall:.1f} s)")
    print(f"hangs: {sum(cheap.values())} submissions {t_h0:.1f} s; with 2 more whose division loops forever"
          f" {t_h1:.1f} s: +{t_h1 - t_h0:.1f} s against a bound of {hang_bound:.1f} s"
          f" (time limits of the timed-out tests / cores)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
