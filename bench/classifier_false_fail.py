"""Measure the margin of the classifier's training target: correct solutions against every catalogued bug.

The hidden test ``test_training_learns_the_spiral`` (assignments/classifier)
trains the student's MLP from the grader's weights on 15 spiral points and
requires ``LEARN["needed"]`` of them right, decided by the judge from the final
weights. This runs the same probe and the same verdict (on the grader's own
``Value``, as in hidden grading) for:

* the reference and every correct variant holding ``classifier.py``, from the
  test's weights and from those weights perturbed by one part in 1e9 (rounding
  in another correct solution: summation order, ``/ n`` against ``* (1 / n)``);
* every catalogued bug of ``assignments/classifier/bugs.yaml``;
* the reference from other weight seeds (how unusual the test's seed is).

    python bench/classifier_false_fail.py [--perturb 20] [--seeds 200]

Prints one row per solution: points right (of 15), the margin over the
threshold, and the verdict; then the spread over other seeds.
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "assignments" / "classifier" / "tests" / "hidden"))

from grader.errors import GraderError  # noqa: E402
from grader.judge.answers import parse  # noqa: E402
from grader.judge.reference import load_reference, run_probe  # noqa: E402
from grader.sandbox import course_code, own_parts  # noqa: E402

course_code.use(ROOT / "assignments")
course_code.load_probes()
own_parts.use(str(ROOT / "assignments" / "shared" / "parts"))
own_parts.load("stand_ins")

import test_classifier_hidden as T  # noqa: E402

from assignments.classifier.checks import count_of, model_spec  # noqa: E402
from grader.testing import Failure  # noqa: E402


def target(weight_seed: int) -> tuple[dict, list, list]:
    """The hidden test's request for the weights of ``weight_seed``."""
    xs, ys = T.spiral(T.LEARN["points"], T.LEARN["data_seed"])
    spec = model_spec("MLP", 2, T.LEARN["sizes"])
    rng = random.Random(weight_seed)
    spec["weights"] = [rng.uniform(-1, 1) for _ in range(count_of(spec))]
    return spec, xs, ys


def right_of(mg, spec: dict, xs: list, ys: list) -> tuple[int | None, str]:
    """Points right after training (the judge's count) and the hidden test's verdict."""
    args = [spec, xs, ys, T.LEARN["steps"], T.LEARN["lr"]]
    try:
        got = parse("classifier_learn", args, run_probe(mg, "classifier_learn", args))
    except GraderError as exc:
        return None, f"raised: {str(exc).split(': ', 2)[-1][:70]}"
    right = None
    logits = [o.get("list") for o in got["logits"]]
    if all(isinstance(ls, list) and len(ls) == 3 for ls in logits):
        right = round(T.float_accuracy(logits, ys) * len(ys))
    try:
        T.learn_verdict(got, spec, xs, ys, T.LEARN["steps"])
    except Failure as failure:
        return right, "FAIL " + failure.message[:70]
    return right, "pass"


def mutant(bug: dict, work: Path) -> Path:
    folder = work / bug["id"]
    shutil.copytree(ROOT / "reference" / "micrograd", folder / "micrograd", ignore=shutil.ignore_patterns("__pycache__"))
    path = folder / bug["file"]
    path.write_text(path.read_text(encoding="utf-8").replace(bug["find"], bug["replace"]), encoding="utf-8")
    return folder


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--perturb", type=int, default=20, help="perturbed starts per correct solution")
    parser.add_argument("--seeds", type=int, default=200, help="other weight seeds for the reference's spread")
    args = parser.parse_args(argv)
    started = time.monotonic()
    needed, n = T.LEARN["needed"], 15
    spec, xs, ys = target(T.LEARN["weight_seed"])
    print(f"target: MLP(2, {T.LEARN['sizes']}) from weight seed {T.LEARN['weight_seed']}, {len(xs)} points, "
          f"{T.LEARN['steps']} steps at lr {T.LEARN['lr']}; needs {needed} of {len(xs)} right\n")
    print(f"{'solution':38s} {'right':>5s} {'margin':>6s}  verdict")
    correct = [("reference", ROOT / "reference")] + [
        (f"variant {p.name}", p) for p in sorted((ROOT / "reference" / "variants").glob("*"))
        if (p / "micrograd" / "classifier.py").is_file()]
    worst = n
    rng = random.Random("perturb")
    work = Path(tempfile.mkdtemp(prefix="classifier-bench-"))
    for name, folder in correct:
        mg = load_reference(folder if folder.name == "reference" else _over_reference(folder, work))
        right, verdict = right_of(mg, spec, xs, ys)
        print(f"{name:38s} {right!s:>5s} {(right or 0) - needed:>+6d}  {verdict}")
        shaken = []
        for _ in range(args.perturb):
            moved = {**spec, "weights": [w * (1 + rng.uniform(-1e-9, 1e-9)) for w in spec["weights"]]}
            shaken.append(right_of(mg, moved, xs, ys))
        fails = sum(v != "pass" for _, v in shaken)
        low = min((r for r, _ in shaken if r is not None), default=None)
        print(f"{'  perturbed by 1e-9 (x' + str(args.perturb) + ')':38s} {low!s:>5s} {(low or 0) - needed:>+6d}  "
              f"{fails} of {args.perturb} fail")
        worst = min(worst, right or 0, low if low is not None else n)
    bugs = yaml.safe_load((ROOT / "assignments" / "classifier" / "bugs.yaml").read_text(encoding="utf-8"))
    bugs = bugs["bugs"] if isinstance(bugs, dict) else bugs
    best_bug = 0
    try:
        for bug in bugs:
            right, verdict = right_of(load_reference(mutant(bug, work)), spec, xs, ys)
            named = "test_training_learns_the_spiral" in bug.get("caught_by", [])
            if named and verdict.startswith("FAIL after"):  # judged on its points right (others raise, or their
                best_bug = max(best_bug, right or 0)           # logits are no network's of this shape)
            print(f"{'bug ' + bug['id']:38s} {right!s:>5s} {(right or 0) - needed:>+6d}  {verdict}"
                  f"{'' if named else '  (not named for this test)'}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    ref = load_reference(ROOT / "reference")
    spread = sorted((right_of(ref, *target(s))[0] or 0) for s in range(1000, 1000 + args.seeds))
    print(f"\nreference from {args.seeds} other weight seeds: points right min {spread[0]}, 10% {spread[len(spread) // 10]}, "
          f"median {spread[len(spread) // 2]}, max {spread[-1]}; {sum(r >= needed for r in spread)} of {args.seeds} "
          "meet the target (the test's seed was chosen for a stable plateau)")
    print(f"margin: correct solutions get at least {worst} (threshold {needed}); the bugs named for this test that "
          f"train get at most {best_bug} (the others raise, or give logits that their final weights do not); "
          f"{time.monotonic() - started:.0f} s")
    return 0 if worst >= needed > best_bug else 1


def _over_reference(variant: Path, work: Path) -> Path:
    """A folder holding the reference's package with the variant's files over it (as ``grader validate`` grades it)."""
    folder = work / f"variant-{variant.name}"
    shutil.copytree(ROOT / "reference" / "micrograd", folder / "micrograd", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(variant, folder, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))
    return folder


if __name__ == "__main__":
    sys.exit(main())
