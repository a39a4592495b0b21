"""Whether a result kept from an earlier run still stands: fingerprints of a submission and of the course.

A result is what the grader made of one submission with one version of the
course. ``grader grade`` keeps a result from an earlier run only when both are
unchanged: the submission's files (:func:`submission_fingerprint`) and every
part of the course that can change a result (:func:`course_fingerprints`):

* ``grader``: the grader's version and its own source (probes, scoring, feedback);
* ``assignment``: the assignment's folder (``assignment.yaml``, public and hidden
  tests, the bug catalogue ``bugs.yaml``), without its handout ``README.md``;
* ``reference``: the reference solution's package (``reference/micrograd``);
* ``template``: the student template, which intake compares submissions with.

Both are stored in ``results.json`` (``extra_data.grader.fingerprint`` and
``extra_data.grader.course``); :func:`stale` says why a stored result no longer
stands, in words an instructor reads in one line.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from grader import __version__
from grader.course.config import Assignment
from grader.course.course import Course
from grader.intake.entry import Submission
from grader.outputs.store import Result

COMPONENTS = {
    "assignment": "its tests or assignment.yaml",
    "reference": "the reference solution",
    "template": "the student template",
    "parts": "the grader's parts",
    "grader": "the grader",
}
"""Each part of the course a result depends on, and how a changed one is named (most specific first)."""
SKIPPED = {"__pycache__", ".pytest_cache", ".hypothesis", ".ipynb_checkpoints"}
"""Folders that hold caches, never course content."""
MAX_FILES = 10_000
"""Most files hashed in one part of the course (a course folder is small; this bounds a mistake such as a .venv)."""


def submission_fingerprint(sub: Submission) -> str:
    """SHA-256 over what was read from a submission (paths, contents, read error) and, for a submission read
    from git, the commit it was read at and any evidence of work on another branch (a result made before that evidence
    appeared does not stand: it would not say so)."""
    digest = hashlib.sha256(sub.error.encode())
    for path in sorted(sub.files):
        digest.update(b"\0" + path.encode() + b"\0" + hashlib.sha256(sub.files[path]).digest())
    if sub.origin is not None:
        digest.update(b"\0origin\0" + f"{sub.origin.commit}\0{sub.origin.ref}\0{sub.origin.late}".encode())
        if sub.origin.other_branch:
            digest.update(b"\0other branch\0" + sub.origin.other_branch.encode())
    return digest.hexdigest()


def part_fingerprint(sub: Submission, late: Mapping[str, Any] | None) -> str:
    """:func:`submission_fingerprint` with the late terms the result is made under
    (:class:`grader.course.due_dates.LateTerms`): a changed due date, extension or policy makes a result stale."""
    print_ = submission_fingerprint(sub)
    if late is None:
        return print_
    return hashlib.sha256(f"{print_}\0late\0{json.dumps(late, sort_keys=True)}".encode()).hexdigest()


def tree_digest(root: Path, leave_out: frozenset[str] = frozenset()) -> str:
    """SHA-256 over the relative paths and contents of the files under ``root`` (sorted; caches, hidden entries
    and the top-level names in ``leave_out`` skipped; "" for a missing folder)."""
    if not root.is_dir():
        return ""
    digest = hashlib.sha256()
    files = sorted(
        p for p in root.rglob("*")
        if p.is_file() and not p.is_symlink()
        and not any(part in SKIPPED or part.startswith(".") for part in p.relative_to(root).parts)
        and p.relative_to(root).parts[0] not in leave_out
        and p.suffix != ".pyc"
    )
    for path in files[:MAX_FILES]:
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def grader_fingerprint() -> str:
    """SHA-256 over the grader's version and the source of its package."""
    package = Path(__file__).resolve().parent.parent
    return hashlib.sha256(f"{__version__}\0{tree_digest(package)}".encode()).hexdigest()


def course_fingerprints(course: Course, assignments: list[Assignment]) -> dict[str, dict[str, str]]:
    """Each assignment's fingerprints, one per part of :data:`COMPONENTS` (assignment id to part to SHA-256)."""
    shared = {
        "grader": grader_fingerprint(),
        "reference": tree_digest(course.reference_package),
        "template": tree_digest(course.template_dir),
        "parts": tree_digest(course.parts_dir),
    }
    return {a.id: {"assignment": tree_digest(a.root, frozenset({"README.md"})), **shared} for a in assignments}


def stale(stored: Result, submission: str, course: Mapping[str, str]) -> str:
    """Why a stored result no longer stands ("" when it does).

    Args:
        stored: The stored result (:class:`grader.outputs.store.Result`).
        submission: The submission's fingerprint now.
        course: The assignment's course fingerprints now (one entry of :func:`course_fingerprints`).

    Returns:
        ``"submission"`` when the submission changed; otherwise, when the course changed, the changed parts
        named as in :data:`COMPONENTS` (``"its tests or assignment.yaml, the grader"``); otherwise "".
    """
    if stored.fingerprint != submission:
        return "submission"
    then = stored.course
    if then is None:
        return "the grader"  # written by a grader that did not record the course
    return ", ".join(words for part, words in COMPONENTS.items() if then.get(part) != course.get(part))
