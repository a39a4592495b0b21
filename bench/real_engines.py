"""Does the grader blame the right method on code nobody here wrote? Public engines, graded raw, fixed and one fault at a time.

    python bench/real_engines.py                 # grade and print the tables and the summary
    python bench/real_engines.py --keep DIR      # and keep the submissions and graded results in DIR
    python bench/real_engines.py --jobs N        # judges in parallel (default: cores)

The engines are ``bench/engines/<slug>/`` (their ``SOURCE`` and ``LICENSE``
files say where each comes from): ``raw/`` is the author's code in the
course's layout, ``fixed/`` the same code with the fewest changes that make it
a correct engine of the handout's API. A method is *faulty* when its code
differs between the two (compared as syntax trees, so formatting and comments
do not count), or when ``fixed/`` adds it.

For each engine, and each of its faulty methods of the handout, a
*single-fault* engine is built: ``fixed/`` with only that method put back as
``raw/`` has it (removed, where ``raw/`` has no such method). Every engine is
graded on every assignment its files cover (``mlp`` needs ``nn.py``), in one
``grader grade`` run. The script prints:

* each engine's raw and fixed scores (every fixed engine must score full marks);
* for each single-fault engine: the points it lost, how many of them are in
  tests about the faulty method (a test's ``about``, as ``grader validate``
  counts it) and how many in tests blocked by a broken contract (a blocked
  test costs its points, see :mod:`grader.testing.contracts`), the method
  "Start here" names first, and the methods the failing tests' hints are
  about (a hint about another method than the faulty one is counted as not
  true for its failure);
* the summary the issue asks for: fixed engines at full marks, the share of
  single-fault engines (that lose points or fail a contract) whose "Start
  here" names the faulty method, and the points lost outside the faulty
  method's tests.

Exits 1 when a fixed engine loses a point.
"""

from __future__ import annotations

import argparse
import ast
import json
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
ENGINES = ROOT / "bench" / "engines"
sys.path.insert(0, str(ROOT))

from grader.course.course import Course  # noqa: E402
from grader.grading.batch import grade  # noqa: E402
from grader.outputs.failures import not_run  # noqa: E402
from grader.outputs.feedback import likely_causes  # noqa: E402

FILES = ("engine.py", "nn.py")
ASSIGNMENTS = ("value_ops", "backward", "mlp")
CONTRACT_METHODS = {"Value.__init__", "Value.__eq__", "Neuron.__init__"}


def methods(source: str) -> dict[str, tuple[int, int, str]]:
    """``Class.method`` to (first line, last line, ``ast.dump``) of each method of each top-level class (decorators
    included), or {} when the file does not parse."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    found = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    first = min([item.lineno, *(d.lineno for d in item.decorator_list)])
                    found[f"{node.name}.{item.name}"] = (first, item.end_lineno or item.lineno, ast.dump(item))
    return found


HANDOUT = Course(ROOT).handout
"""The course's handout tables (``assignments/shared/handout.yaml``)."""


def handout_method(name: str) -> bool:
    return HANDOUT.has(name) or name == "Value.__eq__"


def faulty(raw: Path, fixed: Path) -> dict[str, str]:
    """Faulty method (``Class.method``) to the file it is in: differs between ``raw`` and ``fixed``, or only
    ``fixed`` has it."""
    found = {}
    for file in FILES:
        if not (fixed / "micrograd" / file).is_file():
            continue
        mine = methods((fixed / "micrograd" / file).read_text(encoding="utf-8"))
        theirs = methods((raw / "micrograd" / file).read_text(encoding="utf-8")) if (raw / "micrograd" / file).is_file() else {}
        for name, (_, _, dump) in mine.items():
            if name not in theirs or theirs[name][2] != dump:
                found[name] = file
    return found


def single_fault(raw: Path, fixed: Path, method: str, file: str, dest: Path) -> bool:
    """Write ``fixed`` with ``method`` as ``raw`` has it (or without it) to ``dest``; False if that does not parse."""
    shutil.copytree(fixed, dest, ignore=shutil.ignore_patterns("__pycache__"))
    target = dest / "micrograd" / file
    lines = target.read_text(encoding="utf-8").splitlines(keepends=True)
    first, last, _ = methods("".join(lines))[method]
    theirs_file = raw / "micrograd" / file
    theirs = methods(theirs_file.read_text(encoding="utf-8")) if theirs_file.is_file() else {}
    if method in theirs:
        raw_lines = theirs_file.read_text(encoding="utf-8").splitlines(keepends=True)
        a, b, _ = theirs[method]
        replacement = raw_lines[a - 1:b]
    else:
        replacement = []
    lines[first - 1:last] = replacement
    text = "".join(lines)
    try:
        ast.parse(text)
    except SyntaxError:
        shutil.rmtree(dest)
        return False
    target.write_text(text, encoding="utf-8")
    return True


@dataclass
class Outcome:
    """What one submission got on one assignment."""

    score: float
    max_score: float
    tests: list[dict[str, Any]] = field(default_factory=list)
    first: str = ""

    @property
    def lost(self) -> float:
        return round(self.max_score - self.score, 4)


def read(out: Path, assignment: str, student: str) -> Outcome | None:
    path = out / assignment / student / "results.json"
    if not path.is_file():
        return None
    doc = json.loads(path.read_text(encoding="utf-8"))
    tests = doc.get("tests", [])
    score = float(doc.get("score", sum(t["score"] for t in tests)))
    failed = [{**t, "methods": t["extra_data"].get("methods", [])} for t in tests
              if t["status"] != "passed" and not not_run({**t, **t["extra_data"]})]
    causes = likely_causes(failed)
    return Outcome(score, float(sum(t["max_score"] for t in tests)), tests, causes[0][0] if causes else "")


def assignments_of(package: Path) -> list[str]:
    return [a for a in ASSIGNMENTS if a != "mlp" or (package / "micrograd" / "nn.py").is_file()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, help="keep the submissions and the graded results in this folder")
    parser.add_argument("--jobs", type=int, default=0, help="judges in parallel (default: cores)")
    args = parser.parse_args(argv)
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="real-engines-"))
    subs, out = work / "subs", work / "out"
    shutil.rmtree(subs, ignore_errors=True)
    engines = sorted(p for p in ENGINES.iterdir() if (p / "fixed" / "micrograd").is_dir())
    singles: dict[str, tuple[str, str, str]] = {}  # submission id: (engine, faulty method, its file)
    for engine in engines:
        shutil.copytree(engine / "raw", subs / f"{engine.name}--raw", ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copytree(engine / "fixed", subs / f"{engine.name}--fixed", ignore=shutil.ignore_patterns("__pycache__"))
        for method, file in sorted(faulty(engine / "raw", engine / "fixed").items()):
            if not handout_method(method):
                continue
            sid = f"{engine.name}--{method.replace('.', '-').strip('_')}"
            if single_fault(engine / "raw", engine / "fixed", method, file, subs / sid):
                singles[sid] = (engine.name, method, file)
    started = time.monotonic()
    jobs = args.jobs or None
    grade(Course(ROOT), subs, list(ASSIGNMENTS), out, jobs or __import__("os").cpu_count() or 1, force=True)
    seconds = time.monotonic() - started

    print(f"{len(engines)} engines from bench/engines, {len(singles)} single-fault engines, graded in {seconds:.0f} s\n")
    print(f"{'engine':30} {'raw value_ops/backward/mlp':28} fixed")
    full = True
    for engine in engines:
        raw = [read(out, a, f"{engine.name}--raw") for a in assignments_of(engine / "raw")]
        fixed = [read(out, a, f"{engine.name}--fixed") for a in assignments_of(engine / "fixed")]
        ok = all(o is not None and o.lost == 0 for o in fixed)
        full &= ok
        shown = " / ".join(f"{o.score:g}" if o else "-" for o in raw)
        print(f"{engine.name:30} {shown:28} {'full marks' if ok else 'LOSES POINTS: ' + str([o.lost if o else None for o in fixed])}")

    print(f"\n{'single-fault engine':58} {'lost':>6} {'in its':>6} {'blocked':>7} {'other':>6}  start here  hints about")
    named = counted = 0
    lost_in = lost_blocked = lost_other = 0.0
    wrong_hints: list[str] = []
    for sid, (_engine, method, _file) in sorted(singles.items()):
        outcomes = {a: read(out, a, sid) for a in assignments_of(subs / sid)}
        lost = own = blocked = other = 0.0
        firsts, hinted = [], set()
        failed_contract = False
        for o in outcomes.values():
            if o is None:
                continue
            for t in o.tests:
                extra = t["extra_data"]
                points = float(t["max_score"]) - float(t["score"])
                if t["status"] != "passed" and not float(t["max_score"]) and method in extra.get("methods", []):
                    failed_contract = True
                if points <= 0:
                    continue
                lost += points
                if method in extra.get("about", []) or method in extra.get("methods", []) and "blocked by" not in t["output"]:
                    own += points
                elif "blocked by" in t["output"]:
                    blocked += points
                else:
                    other += points
                if t["status"] != "passed":
                    hinted.update(extra.get("methods", []))
            if o.first:
                firsts.append(o.first)
        lost_in, lost_blocked, lost_other = lost_in + own, lost_blocked + blocked, lost_other + other
        if lost > 0 or failed_contract:
            counted += 1
            good = bool(firsts) and all(f == method for f in firsts)
            named += good
        else:
            good = True
        stray = sorted(hinted - {method})
        if stray:
            wrong_hints.append(f"{sid}: {', '.join(stray)}")
        print(f"{sid[:58]:58} {lost:6.2f} {own:6.2f} {blocked:7.2f} {other:6.2f}  "
              f"{'ok ' if good else 'NO '}{', '.join(dict.fromkeys(firsts)) or '-':28} {', '.join(sorted(hinted)) or '-'}")

    share = named / counted if counted else 1.0
    print(f"\nFixed engines at full marks: {'all' if full else 'NOT all'} ({len(engines)}).")
    print(f"Start here names the faulty method in {named} of {counted} single-fault engines that lose points or fail "
          f"a contract ({share:.0%}).")
    print(f"Points lost by single-fault engines: {lost_in:.2f} in tests about the faulty method, {lost_blocked:.2f} in "
          f"tests blocked by its broken contract, {lost_other:.2f} elsewhere.")
    print(f"Failing tests whose feedback names (and hints at) another method than the faulty one: {len(wrong_hints)}")
    for line in wrong_hints:
        print(f"  {line}")
    print(f"\n(graded in {work})" if args.keep else "")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if full else 1


if __name__ == "__main__":
    sys.exit(main())
