"""A class graded end to end on every assignment of the course, and each assignment's Gradescope zip run.

    python bench/course_end_to_end.py [--bugs 6] [--jobs 2] [--seed 7] [--no-gradescope]

The class: the reference (twice), the template, every correct variant of
``reference/variants/`` (over the reference's other files), and ``--bugs``
catalogued bugs per assignment drawn with ``--seed`` (each student holds the
whole reference with one bug). One ``grader grade`` run at ``--jobs`` judges
grades every assignment; the script prints the wall time and, per assignment,
whether the reference scores full marks, the template 0, every variant full
marks and every bug less than full marks.

Then, per assignment, ``grader gradescope`` builds the zip, which is unpacked
into a fake ``/autograder`` and set up with its own ``setup.sh`` (a virtual
environment from the zip's pinned requirements), and ``run_autograder`` grades
the reference and one bug: the reference must get full marks, the bug less.
Exits 1 on any difference from what is expected.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.course.catalogue import Bug, load_bugs, write_mutant  # noqa: E402
from grader.course.config import Assignment  # noqa: E402
from grader.course.course import Course  # noqa: E402


def build(subs: Path, course: Course, per: int, seed: int) -> dict[str, Bug]:
    """Write the class into ``subs``; return the bug each ``bug--`` student holds."""
    ignore = shutil.ignore_patterns("__pycache__")
    for name in ("reference_a", "reference_b"):
        shutil.copytree(course.reference_dir / "micrograd", subs / name / "micrograd", ignore=ignore)
    shutil.copytree(course.template_dir / "micrograd", subs / "template" / "micrograd", ignore=ignore)
    for variant in sorted((course.reference_dir / "variants").iterdir()):
        target = subs / f"variant--{variant.name}"
        shutil.copytree(course.reference_dir / "micrograd", target / "micrograd", ignore=ignore)
        shutil.copytree(variant, target, ignore=ignore, dirs_exist_ok=True)
    rng = random.Random(seed)
    held: dict[str, Bug] = {}
    for assignment in course.code_assignments():
        bugs = load_bugs(assignment, course.reference_dir)
        for bug in rng.sample(bugs, min(per, len(bugs))):
            student = f"bug--{assignment.id}--{bug.id}"
            write_mutant(bug, course.reference_dir, subs / student)
            held[student] = bug
    return held


def check_class(out: Path, course: Course, held: dict[str, Bug]) -> list[str]:
    """What differs from the expected scores, per assignment."""
    with open(out / "grades.csv", encoding="utf-8") as f:
        grades = {row["student"]: row for row in csv.DictReader(f)}
    problems = []
    for a in course.code_assignments():
        full = a.points
        for student in ("reference_a", "reference_b"):
            if float(grades[student][a.id]) != full:
                problems.append(f"{a.id}: {student} scores {grades[student][a.id]} of {full:g}")
        if float(grades["template"][a.id]) != 0:
            problems.append(f"{a.id}: the template scores {grades['template'][a.id]}")
        for student, row in grades.items():
            if student.startswith("variant--") and any((ROOT / "reference" / "variants" / student[9:] / f).is_file()
                                                       for f in a.files) and float(row[a.id]) != full:
                problems.append(f"{a.id}: {student} scores {row[a.id]} of {full:g}")
        for student, bug in held.items():
            if bug.assignment == a.id and float(grades[student][a.id]) >= full:
                problems.append(f"{a.id}: {student} scores full marks")
    return problems


def gradescope_run(course: Course, a: Assignment, bug: Bug | None, work: Path) -> tuple[float, float | None, float]:
    """Build, set up and run the zip of ``a``; return (reference score, bug score, seconds)."""
    started = time.monotonic()
    archive = work / f"{a.id}.zip"
    subprocess.run([sys.executable, "-m", "grader", "--course", str(ROOT), "gradescope", "-a", a.id, "-o",
                    str(archive)], check=True, capture_output=True, cwd=ROOT)
    root = work / a.id / "autograder"
    with zipfile.ZipFile(archive) as zf:
        zf.extractall(root / "source")
    for script in ("setup.sh", "run_autograder"):
        (root / "source" / script).chmod(0o755)
    bindir = work / a.id / "bin"
    bindir.mkdir(parents=True)
    (bindir / "python3").symlink_to(os.path.realpath(getattr(sys, "_base_executable", None) or sys.executable))
    env = {k: v for k, v in os.environ.items()  # Gradescope's scripts run with no virtual environment of ours
           if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PIP_REQUIRE_VIRTUALENV")}
    env.update(PATH=f"{bindir}:/usr/local/bin:/usr/bin:/bin", AUTOGRADER_ROOT=str(root))
    subprocess.run(["bash", str(root / "source" / "setup.sh")], env=env, check=True, capture_output=True, timeout=900)
    scores: list[float | None] = []
    for submission in ("reference", "bug"):
        if submission == "bug" and bug is None:
            scores.append(None)
            continue
        shutil.rmtree(root / "submission", ignore_errors=True)
        shutil.rmtree(root / "results", ignore_errors=True)
        if submission == "reference":
            shutil.copytree(course.reference_dir / "micrograd", root / "submission" / "micrograd")
        else:
            assert bug is not None
            write_mutant(bug, course.reference_dir, root / "submission")
        subprocess.run(["bash", str(root / "source" / "run_autograder")], env=env, check=True, capture_output=True,
                       timeout=600)
        scores.append(float(json.loads((root / "results" / "results.json").read_text())["score"]))
    assert scores[0] is not None
    return scores[0], scores[1], time.monotonic() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bugs", type=int, default=6, help="catalogued bugs per assignment (default: 6)")
    parser.add_argument("--jobs", type=int, default=2, help="judges (default: 2)")
    parser.add_argument("--seed", type=int, default=7, help="seed of the bugs drawn (default: 7)")
    parser.add_argument("--no-gradescope", action="store_true", help="skip the Gradescope zips")
    opts = parser.parse_args(argv)
    course = Course(ROOT)
    problems: list[str] = []
    with tempfile.TemporaryDirectory(prefix="bench-course-") as tmp:
        subs, out = Path(tmp) / "subs", Path(tmp) / "out"
        held = build(subs, course, opts.bugs, opts.seed)
        started = time.monotonic()
        done = subprocess.run([sys.executable, "-m", "grader", "--course", str(ROOT), "grade", str(subs), "-o",
                               str(out), "-j", str(opts.jobs)], capture_output=True, text=True, cwd=ROOT)
        seconds = time.monotonic() - started
        if done.returncode != 0:
            print(done.stderr[-3000:], file=sys.stderr)
            return 2
        students = len(list(subs.iterdir()))
        ids = [a.id for a in course.code_assignments()]
        print(f"graded {students} students on {len(ids)} assignments ({', '.join(ids)}) in {seconds:.1f} s at "
              f"-j {opts.jobs} ({seconds / students:.2f} s per student)")
        problems += check_class(out, course, held)
        if not opts.no_gradescope:
            for a in course.code_assignments():
                bug = next((b for b in held.values() if b.assignment == a.id), None)
                ref, got, took = gradescope_run(course, a, bug, Path(tmp) / "gradescope")
                print(f"gradescope {a.id}: zip built, set up and run in {took:.0f} s; reference {ref:g} / "
                      f"{a.points:g}" + (f", {bug.id} {got:g}" if bug is not None and got is not None else ""))
                if ref != a.points or (got is not None and got >= a.points):
                    problems.append(f"gradescope {a.id}: reference {ref}, bug {got}")
    for p in problems:
        print("  DIFFERS", p)
    print("as expected" if not problems else f"{len(problems)} difference(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
