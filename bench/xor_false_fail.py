"""Measure how often a correct engine would fail the XOR convergence test.

For a correct solution and seeds ``0..N-1``, runs the ``nn_train`` probe as
the hidden test does (``random.seed(s)`` before ``MLP(2, [4, 4, 1])``, MSE,
lr 0.1, at most 300 steps, margin 0.5), then applies the hidden test's
per-seed verdict (convergence, or the same non-convergence as the reference
replayed from the same initial weights). The test fails a submission when at
least 2 of its 5 seeds fail, so its false-fail rate is about 10 p**2 for a
per-seed rate p.

    python bench/xor_false_fail.py [SOLUTION_DIR] --seeds 1000
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "assignments" / "mlp" / "tests" / "hidden"))
sys.path.insert(0, str(Path(__file__).parent))

from grader.sandbox import course_code, own_parts  # noqa: E402

course_code.use(ROOT / "assignments")  # the probes import the sandbox's kit as `probekit`, as in a worker
course_code.load_probes()
own_parts.use(str(ROOT / "assignments" / "shared" / "parts"))
own_parts.load("stand_ins")

import test_mlp_hidden as T  # noqa: E402
from false_fail import load_solution  # noqa: E402

from assignments.shared.checks.models import model_spec  # noqa: E402
from grader.judge.reference import load_reference, run_probe  # noqa: E402
from grader.testing import Failure  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("solution", nargs="?", default=str(ROOT / "examples" / "submissions" / "correct_recursive"))
    parser.add_argument("--seeds", type=int, default=1000)
    args = parser.parse_args(argv)
    mg = load_solution(Path(args.solution))
    ref = load_reference(ROOT / "reference")
    reference = lambda probe, *a: run_probe(ref, probe, list(a))  # noqa: E731
    converged = excused = 0
    failed: list[tuple[int, str]] = []
    started = time.monotonic()
    for s in range(args.seeds):
        got = run_probe(mg, "nn_train", [model_spec("MLP", 2, [4, 4, 1], seed=s), T.XOR_X, T.XOR_Y, T.LR,
                                          T.MAX_STEPS, T.MARGIN])
        try:
            T.xor_verdict(got, reference)
        except Failure as exc:
            failed.append((s, str(exc)[:120]))
            continue
        if all(p * y > T.MARGIN for p, y in zip(got["preds"], T.XOR_Y)):
            converged += 1
        else:
            excused += 1
    p = len(failed) / args.seeds
    print(f"{Path(args.solution).name}: {args.seeds} seeds, converged {converged}, excused {excused}, "
          f"failed {len(failed)} {failed[:3]}; per-seed rate {p:.4f}, test false-fail ~ {10 * p * p:.2e}; "
          f"plain convergence rule would fail {args.seeds - converged} seeds "
          f"({(args.seeds - converged) / args.seeds:.2%}); {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
