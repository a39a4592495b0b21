"""The grading benchmark: one command, every figure measured in the same run.

    python bench/run.py [--size 200] [--jobs N]

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
  raises at once, so their cost is the grader's own);
* the baseline: a fresh ``python -m pytest`` process per submission running
  a small test file that imports the submission directly (what an
  instructor writes without this tool, with no isolation);
* the ratios total / floor and overhead / baseline.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from grader.catalogue import load_bugs, write_mutant  # noqa: E402
from grader.config import Course  # noqa: E402

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


def build_class(dest: Path, size: int) -> dict[str, int]:
    """Write ``size`` submissions; return how many of each kind."""
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


def grade(subs: Path, out: Path, jobs: int) -> float:
    started = time.monotonic()
    subprocess.run([sys.executable, "-m", "grader", "--course", str(ROOT), "grade", str(subs), "-o", str(out),
                    "-j", str(jobs), "--force"], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.monotonic() - started


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
    from hypothesis import HealthCheck, given, settings

    from grader.reference import load_reference, run_probe
    from grader.strategies import expression_graphs
    from grader.testing import model_spec

    import test_mlp_hidden as T

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
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=200, help="submissions in the class (default: 200)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="parallel jobs (default: cores)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="grader-bench-") as tmp_name:
        tmp = Path(tmp_name)
        counts = build_class(tmp / "class", args.size)
        templates = tmp / "templates"
        for i in range(10):
            shutil.copytree(ROOT / "student_template", templates / f"t{i}")
        t_serial = grade(tmp / "class", tmp / "out1", 1)
        t_parallel = grade(tmp / "class", tmp / "outN", args.jobs)
        t_templates = grade(templates, tmp / "outT", 1) / 10
        base = baseline(sorted((tmp / "class").iterdir())[:20], tmp)
        t_floor = floor(args.size, args.jobs)
    n = args.size
    speedup = t_serial / t_parallel
    print(f"class: {n} submissions {counts}, all three assignments, {args.jobs} cores")
    print(f"{'':34s}{'-j 1':>12s}{f'-j {args.jobs}':>12s}")
    print(f"{'total wall (s)':34s}{t_serial:12.1f}{t_parallel:12.1f}")
    print(f"{'per submission (s)':34s}{t_serial / n:12.3f}{t_parallel / n:12.3f}")
    print(f"parallel efficiency: {speedup / args.jobs:.0%} (speed-up {speedup:.2f} on {args.jobs} cores)")
    print(f"compute floor (reference, in-process, / cores): {t_floor:.1f} s; total / floor = {t_parallel / t_floor:.2f}")
    print(f"overhead per submission (template copies, -j 1): {t_templates:.3f} s")
    print(f"baseline (fresh `python -m pytest` per submission): {base:.3f} s; overhead / baseline = {t_templates / base:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
