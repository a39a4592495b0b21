"""Are the scores unchanged? Every test's score for every submission the course knows, saved or compared.

    python bench/same_scores.py --save FILE      # grade and save every test's score
    python bench/same_scores.py --against FILE   # grade again and list every score that differs
    ... [--keep DIR]                              # and keep the graded results in DIR
    ... [-a ID]...                                # only these assignments (default: all)

The submissions: the reference, the template, every correct variant
(``reference/variants/``), every catalogued bug and every "method missing"
mutant of every assignment (the mutants ``grader validate`` grades), the
examples (``examples/submissions/``), and three hanging submissions (the
reference with ``__pow__``, ``backward`` or ``__add__`` looping forever,
``tests/hostile_submissions.py``). All three assignments are graded for each,
in one ``grader grade`` run at ``--jobs`` judges.

A change to how the grader spends its time (issue 16: cheaper hangs) must
leave every score as it was; this is how that is shown. Exits 1 when a score
differs, 0 otherwise.
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
sys.path.insert(0, str(ROOT / "tests"))

import hostile_submissions as H  # noqa: E402

from grader.course.catalogue import load_bugs, write_mutant  # noqa: E402
from grader.course.course import Course  # noqa: E402
from grader.course.stubs import missing_method_mutants  # noqa: E402

BACKWARD_LOOP = H.CORRECT.replace("    def backward(self) -> None:\n",
                                  "    def backward(self) -> None:\n        while True:\n            pass\n", 1)
ADD_LOOP = H.with_add(H.LOOP)


def build(subs: Path, ids: list[str] | None = None) -> None:
    """Write every submission of the comparison into ``subs`` (the mutants of the assignments ``ids``, default all)."""
    course = Course(ROOT)
    reference = course.reference_dir
    shutil.copytree(reference / "micrograd", subs / "reference" / "micrograd", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(course.template_dir / "micrograd", subs / "template" / "micrograd",
                    ignore=shutil.ignore_patterns("__pycache__"))
    graded = {f for a in course.code_assignments(ids) for f in a.files}
    for variant in sorted((reference / "variants").iterdir()):  # those holding a file of what is graded
        if (variant / "micrograd").is_dir() and any((variant / f).is_file() for f in graded):
            shutil.copytree(variant, subs / f"variant--{variant.name}", ignore=shutil.ignore_patterns("__pycache__"))
    for assignment in course.code_assignments(ids):
        for bug in load_bugs(assignment, reference):
            write_mutant(bug, reference, subs / f"bug--{assignment.id}--{bug.id}")
    files = sorted({f for a in course.code_assignments(ids) for f in a.files})
    for mutant in missing_method_mutants(reference, course.template_dir, files):
        dest = subs / f"missing--{mutant.id}"
        if dest.exists():  # two modules with a class of one name (nn.Neuron, classifier.Neuron): the file tells them apart
            dest = subs / f"missing--{Path(mutant.file).stem}--{mutant.id}"
        write_mutant(mutant, reference, dest)
    for example in sorted((ROOT / "examples" / "submissions").iterdir()):
        target = subs / f"example--{example.name}"
        (shutil.copytree(example, target) if example.is_dir() else shutil.copy(example, target))
    assert "while True" in BACKWARD_LOOP, "the reference's backward() signature changed: update BACKWARD_LOOP"
    H.write(subs / "hang--pow", H.with_pow(H.LOOP))
    H.write(subs / "hang--backward", BACKWARD_LOOP)
    H.write(subs / "hang--add", ADD_LOOP)


def scores(out: Path) -> dict[str, dict[str, float]]:
    """Submission id to ``assignment/test key`` to score, read from every results.json under ``out``."""
    found: dict[str, dict[str, float]] = {}
    for path in sorted(out.glob("*/*/results.json")):
        assignment, student = path.parent.parent.name, path.parent.name
        for test in json.loads(path.read_text(encoding="utf-8")).get("tests", []):
            key = f"{assignment}/{test['extra_data']['key']}"
            found.setdefault(student, {})[key] = float(test["score"])
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--save", type=Path, help="write every score to this JSON file")
    what.add_argument("--against", type=Path, help="compare every score with this JSON file (from --save)")
    parser.add_argument("--jobs", type=int, default=2, help="judges (default: 2)")
    parser.add_argument("-a", "--assignment", action="append", metavar="ID",
                        help="grade only this assignment (repeatable; default: all), e.g. the three of a baseline "
                        "saved before later assignments existed")
    parser.add_argument("--keep", type=Path, metavar="DIR",
                        help="grade into DIR and keep it (to compare the feedback too, e.g. with diff -r)")
    opts = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-scores-") as tmp:
        subs, out = Path(tmp) / "subs", opts.keep or Path(tmp) / "out"
        build(subs, opts.assignment)
        started = time.monotonic()
        only = [arg for a in opts.assignment or [] for arg in ("-a", a)]
        done = subprocess.run([sys.executable, "-m", "grader", "--course", str(ROOT), "grade", str(subs), "-o", str(out),
                               "-j", str(opts.jobs), "--force", *only], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True, check=False)
        seconds = time.monotonic() - started
        if done.returncode != 0:
            print(done.stderr[-3000:], file=sys.stderr)
            return 2
        now = scores(out)
    tests = sum(len(v) for v in now.values())
    print(f"graded {len(now)} submissions ({tests} test results) in {seconds:.1f} s at -j {opts.jobs}")
    if opts.save:
        opts.save.write_text(json.dumps(now, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print(f"saved to {opts.save}")
        return 0
    before = json.loads(opts.against.read_text(encoding="utf-8"))
    differ = [(s, k, before.get(s, {}).get(k), now.get(s, {}).get(k))
              for s in sorted(set(before) | set(now))
              for k in sorted(set(before.get(s, {})) | set(now.get(s, {})))
              if before.get(s, {}).get(k) != now.get(s, {}).get(k)]
    for student, key, was, is_now in differ:
        print(f"  DIFFERS {student} {key}: {was} -> {is_now}")
    print(f"{len(differ)} of {tests} scores differ from {opts.against}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
