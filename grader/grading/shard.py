"""Sharding a large class across machines, and merging the shards' outputs.

``grader grade --shard K/N`` grades the submissions whose student id hashes
to shard K of N (SHA-256 of the id, so membership is the same on every
machine and does not move when other students are added or removed).
``grader merge OUT... -o MERGED`` copies every shard's per-student results
into one output folder and rebuilds ``grades.csv``, ``item_analysis.csv``
and ``report.html`` from them, so a course can spread grading over a GitHub
Actions matrix, a Slurm array or a Kubernetes indexed Job with no
coordinator.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path

from grader.course.config import Assignment
from grader.course.course import Course
from grader.errors import GraderError
from grader.grading.adjusting import folder_adjustments
from grader.outputs.adjusted import undecorated
from grader.outputs.class_outputs import write_class_outputs
from grader.outputs.gradebook import StudentGrade
from grader.outputs.store import ResultStore

SHARD = re.compile(r"^(\d+)/(\d+)$")


def parse_shard(text: str) -> tuple[int, int]:
    """``"K/N"`` to ``(K, N)`` with 1 <= K <= N.

    Raises:
        GraderError: If the text is not of that form.
    """
    match = SHARD.match(text.strip())
    if not match or not 1 <= int(match.group(1)) <= int(match.group(2)):
        raise GraderError(f"--shard expects K/N with 1 <= K <= N (e.g. 2/8), got {text!r}")
    return int(match.group(1)), int(match.group(2))


def shard_of(student: str, count: int) -> int:
    """The shard (1..count) a student id belongs to."""
    return int.from_bytes(hashlib.sha256(student.encode("utf-8")).digest()[:8], "big") % count + 1


def _same_result(a: Path, b: Path) -> bool:
    """Whether two results.json files hold one result: the same bytes, or the same once the adjustments each run
    applied are taken out (:func:`grader.outputs.adjusted.undecorated`; the merged folder's are applied again)."""
    one, other = a.read_bytes(), b.read_bytes()
    if one == other:
        return True
    try:
        return bool(undecorated(json.loads(one)) == undecorated(json.loads(other)))
    except (ValueError, RecursionError, AttributeError):
        return False


def merge(course: Course, outs: list[Path], dest: Path) -> tuple[list[Assignment], list[StudentGrade], ResultStore]:
    """Merge shard output folders into ``dest``; return the assignments, the grades and ``dest``'s results store.

    Raises:
        GraderError: If an output folder is missing, holds no results, or two
            shards graded the same student differently.
        ConfigError: If the course's adjustments file refuses a row (naming its line).
    """
    found: dict[tuple[str, str], Path] = {}
    ids: set[str] = set()
    for out in outs:
        if not out.is_dir():
            raise GraderError(f"{out} is not a folder (expected the output folder of `grader grade`)")
        for aid, student, folder in ResultStore(out).stored():
            results = folder / "results.json"
            key = (aid, student)
            if key in found and not _same_result(found[key], results):
                raise GraderError(f"{student} was graded on {aid} in two shards with different results "
                                  f"({found[key].parent} and {results.parent})")
            found[key] = results
            ids.add(aid)
    if not found:
        raise GraderError(f"no results.json found in {', '.join(map(str, outs))}")
    assignments = [a for a in course.assignments() if a.id in ids]
    for (aid, student), results in found.items():
        target = dest / aid / student
        if target.resolve() != results.parent.resolve():
            shutil.copytree(results.parent, target, dirs_exist_ok=True)
    students = sorted({student for _, student in found})
    store = ResultStore(dest)  # the course's adjustments applied to the merged outputs, once (never in a shard's)
    made = write_class_outputs(store, assignments, students, adjustments=folder_adjustments(course, store))
    return assignments, made.grades, store
