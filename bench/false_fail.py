"""Measure the false-fail rate of the randomized checks on correct solutions.

For each correct solution (the reference's variants in ``reference/variants/``
and the correct examples), runs the two hypothesis tests of the ``backward``
assignment, gradient check against central finite differences and
comparison with the reference, under ``--seeds`` different hypothesis seeds
(instead of the single derandomized one used for grading), with the same
strategy, tolerances and example count. Solutions are imported in this
process: this measures the checks, not the sandbox.

    python bench/false_fail.py --seeds 200

Prints, per solution, how many seeds found a failing example (a false
failure) and the overall rate.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
import types
from pathlib import Path

from hypothesis import HealthCheck, given, seed, settings

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.sandbox import course_code  # noqa: E402

course_code.use(ROOT / "assignments")  # the probes import the sandbox's kit as `probekit`, as in a worker
course_code.load_probes()

from assignments.shared.checks import graphs  # noqa: E402
from assignments.shared.checks.graph_checks import compare_graph  # noqa: E402
from assignments.shared.checks.strategies import expression_graphs  # noqa: E402
from grader.judge.reference import load_reference, run_probe  # noqa: E402
from grader.testing import Failure  # noqa: E402

EXAMPLES = 40  # as in assignments/backward/tests/hidden/test_backward_hidden.py


def load_solution(folder: Path) -> types.SimpleNamespace:
    """Import ``folder/micrograd`` (absolute, relative or flat imports in nn.py all work)."""
    for name in [n for n in sys.modules if n == "micrograd" or n.startswith("micrograd.") or n in ("engine", "nn")]:
        del sys.modules[name]
    sys.path.insert(0, str(folder))
    try:
        engine = importlib.import_module("micrograd.engine")
        sys.modules["engine"] = engine
        return types.SimpleNamespace(engine=engine, nn=importlib.import_module("micrograd.nn"))
    finally:
        sys.path.remove(str(folder))


def fd_check(result: dict, spec: dict) -> None:
    for i in range(len(spec["leaves"])):
        fd = graphs.central_difference(spec, i)
        got = result["grad"][i]
        if abs(got - fd) > 1e-5 * max(1.0, abs(fd)):
            raise Failure(f"x{i}.grad {got!r} vs finite difference {fd!r} on {spec}")


def failing_seeds(mg, ref, seeds: int) -> list[tuple[int, str]]:
    failures = []
    for k in range(seeds):
        @seed(k)
        @settings(max_examples=EXAMPLES, derandomize=False, database=None, deadline=None,
                  suppress_health_check=list(HealthCheck), print_blob=False)
        @given(spec=expression_graphs())
        def check(spec):
            got = run_probe(mg, "graph", [spec])
            fd_check(got, spec)
            compare_graph(got, run_probe(ref, "graph", [spec]), spec)

        try:
            check()
        except Exception as exc:  # noqa: BLE001 - any failure of a correct solution is a false failure
            failures.append((k, str(exc).splitlines()[0][:200]))
    return failures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=200)
    args = parser.parse_args(argv)
    ref = load_reference(ROOT / "reference")
    solutions = sorted((ROOT / "reference" / "variants").glob("*/")) + [
        ROOT / "examples" / "submissions" / "correct_recursive", ROOT / "reference"]
    total = failed = 0
    started = time.monotonic()
    for folder in solutions:
        if not (folder / "micrograd" / "engine.py").is_file():  # variants of the later assignments: no engine
            continue
        bad = failing_seeds(load_solution(folder), ref, args.seeds)
        total += args.seeds
        failed += len(bad)
        print(f"{folder.name:24s} {len(bad):3d} / {args.seeds} seeds failed" + (f"  first: {bad[0]}" if bad else ""))
    print(f"false-fail rate: {failed} / {total} seed-runs ({failed / max(1, total):.2%}), "
          f"{EXAMPLES} examples each, {time.monotonic() - started:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
