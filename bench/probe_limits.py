"""False timeouts under load: how close correct submissions come to their probe limits (issue 16).

    python bench/probe_limits.py [--rounds 3] [--busy 2] [--jobs 2]

Each probe of a student's code has its own limit, ``floor + multiple * r``
(``r``: what the same probe took the reference solution in the same judge;
:mod:`grader.judge.deadlines`). This grades every correct submission the
course has (the reference, every variant in ``reference/variants/``, the
correct examples) ``--rounds`` times, all three assignments, at ``--jobs``
judges, while ``--busy`` processes spin on the cores (both cores busy, as on
an instructor's laptop doing other work), and prints:

* false failures: tests a correct submission failed, and among them false
  timeouts (the target is zero);
* the headroom: the largest share of its limit any call of a correct
  submission used (results.json's ``slowest_call``), and where;
* what justifies each default: the most of the floor a call used
  (``seconds - multiple * r``) and the largest ``seconds / r`` among calls the
  reference needs at least 10 ms for (how much of the multiple was used).

Run it with the interpreter to measure (``python3.10 bench/probe_limits.py``
from a virtual environment of that version). Nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.course.course import Course  # noqa: E402

CORRECT_EXAMPLES = ("correct_recursive", "flat_layout", "notebook.ipynb")


def build(subs: Path, rounds: int) -> list[str]:
    """Write ``rounds`` copies of every correct submission into ``subs``; returns their ids."""
    course = Course(ROOT)
    sources = {"reference": course.reference_dir}
    sources |= {f"variant-{v.name}": v for v in sorted((course.reference_dir / "variants").iterdir())
                if (v / "micrograd").is_dir()}
    sources |= {f"example-{name.split('.')[0]}": ROOT / "examples" / "submissions" / name for name in CORRECT_EXAMPLES}
    ids = []
    for i in range(rounds):
        for name, source in sources.items():
            sid = f"{name}-{i}"
            if source.is_file():
                subs.mkdir(parents=True, exist_ok=True)
                shutil.copy(source, subs / f"{sid}.ipynb")
            else:  # a folder as students hand it in: micrograd/ or the files at its top
                shutil.copytree(source, subs / sid, ignore=shutil.ignore_patterns("__pycache__", "variants"))
            ids.append(sid)
    return ids


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="copies of each correct submission (default: 3)")
    parser.add_argument("--busy", type=int, default=2, help="busy-looping processes during grading (default: 2)")
    parser.add_argument("--jobs", type=int, default=2, help="judges (default: 2)")
    opts = parser.parse_args(argv)
    course = Course(ROOT)
    multiple = {a.id: a.limits.probe_multiple for a in course.assignments()}
    with tempfile.TemporaryDirectory(prefix="bench-limits-") as tmp:
        subs, out = Path(tmp) / "subs", Path(tmp) / "out"
        ids = build(subs, opts.rounds)
        spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(opts.busy)]
        try:
            started = time.monotonic()
            done = subprocess.run([sys.executable, "-m", "grader", "--course", str(ROOT), "grade", str(subs), "-o",
                                   str(out), "-j", str(opts.jobs), "--force"], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, text=True, check=False)
            seconds = time.monotonic() - started
        finally:
            for spinner in spinners:
                spinner.kill()
                spinner.wait()
        if done.returncode != 0:
            print(done.stderr[-3000:], file=sys.stderr)
            return 2
        failures, timeouts, calls = [], [], []
        for path in sorted(out.glob("*/*/results.json")):
            assignment, student = path.parent.parent.name, path.parent.name
            for test in json.loads(path.read_text(encoding="utf-8"))["tests"]:
                where = f"{assignment}/{student}: {test['name'][:60]}"
                if test["status"] != "passed":
                    failures.append(where)
                    if "did not finish" in test["output"]:
                        timeouts.append(where)
                timing = test["extra_data"].get("slowest_call")
                if timing and timing.get("reference_seconds") is not None:
                    calls.append((assignment, where, timing))
    print(f"{len(ids)} correct submissions x 3 assignments graded in {seconds:.1f} s at -j {opts.jobs} with "
          f"{opts.busy} busy process(es), Python {sys.version.split()[0]}")
    print(f"  false failures: {len(failures)}, of them false timeouts: {len(timeouts)}")
    for where in failures[:10]:
        print(f"    {where}")
    if not calls:
        print("  no timed calls (no slowest_call in results.json)")
        return 0
    share = max(calls, key=lambda c: c[2]["seconds"] / c[2]["limit"])
    print(f"  headroom: the closest call used {share[2]['seconds'] / share[2]['limit']:.1%} of its limit "
          f"({share[2]['seconds']:.3f} s of {share[2]['limit']:.2f} s; reference {share[2]['reference_seconds']:.4f} s) "
          f"in {share[1]}")
    floor = max(calls, key=lambda c: c[2]["seconds"] - multiple[c[0]] * c[2]["reference_seconds"])
    used = floor[2]["seconds"] - multiple[floor[0]] * floor[2]["reference_seconds"]
    print(f"  floor: at most {used:.3f} s of it used ({floor[2]['seconds']:.3f} s, reference "
          f"{floor[2]['reference_seconds']:.4f} s) in {floor[1]}")
    heavy = [c for c in calls if c[2]["reference_seconds"] >= 0.01]
    if heavy:
        ratio = max(heavy, key=lambda c: c[2]["seconds"] / c[2]["reference_seconds"])
        print(f"  multiple: calls the reference needs >= 10 ms for took at most "
              f"{ratio[2]['seconds'] / ratio[2]['reference_seconds']:.1f} x its time ({ratio[2]['seconds']:.3f} s "
              f"against {ratio[2]['reference_seconds']:.4f} s) in {ratio[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
