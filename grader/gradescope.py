"""Gradescope: the autograder zip and what runs inside it.

``grader gradescope -a ID -o autograder.zip`` writes a zip in the layout
Gradescope expects: ``setup.sh`` (installs the grader), ``run_autograder``
(grades ``/autograder/submission`` and writes
``/autograder/results/results.json``), the grader package, the assignment
(with its hidden tests) and the reference solution. Inside Gradescope,
``run_autograder`` calls ``grader autograde``, which grades the one
submission with the same judge and sandbox as ``grader grade`` and copies its
results.json (Gradescope's schema, with per-test ``visibility`` and
``status``) into place. ``AUTOGRADER_ROOT`` replaces ``/autograder`` (for
testing the zip on a fake tree).
"""

from __future__ import annotations

import shutil
import tempfile
import zipfile
from pathlib import Path

from .batch import grade
from .config import Course
from .errors import GraderError

SETUP = """\
#!/usr/bin/env bash
# Gradescope runs this once, when the autograder image is built.
set -euo pipefail
cd "${AUTOGRADER_ROOT:-/autograder}/source"
python3 -m pip install --quiet .
"""

RUN = """\
#!/usr/bin/env bash
# Gradescope runs this for every submission.
set -euo pipefail
ROOT="${{AUTOGRADER_ROOT:-/autograder}}"
cd "$ROOT/source"
python3 -m grader --course "$ROOT/source" autograde "$ROOT/submission" -a {assignment} \\
    --results "$ROOT/results/results.json"
"""


def build_zip(course: Course, assignment_id: str, dest: Path) -> list[str]:
    """Write the Gradescope autograder zip for one assignment; return its member names.

    Raises:
        GraderError: If the assignment or the reference solution is missing.
    """
    assignment = course.assignment(assignment_id)
    if not (course.reference_dir / "micrograd" / "engine.py").is_file():
        raise GraderError("the Gradescope zip needs the reference solution (reference/micrograd/)")
    package = Path(__file__).parent
    skip = ("__pycache__", ".pyc")
    members: dict[str, Path | str] = {"setup.sh": SETUP, "run_autograder": RUN.format(assignment=assignment.id)}
    for path in sorted(package.rglob("*")):
        if path.is_file() and not any(s in str(path) for s in skip):
            members[f"grader/{path.relative_to(package).as_posix()}"] = path
    members["pyproject.toml"] = package.parent / "pyproject.toml"
    members["README.md"] = "Gradescope autograder built by `grader gradescope`.\n"
    for path in sorted(assignment.root.rglob("*")):
        if path.is_file() and not any(s in str(path) for s in skip) and path.name != "bugs.yaml":
            members[f"assignments/{assignment.id}/{path.relative_to(assignment.root).as_posix()}"] = path
    for path in sorted((course.reference_dir / "micrograd").glob("*.py")):
        members[f"reference/micrograd/{path.name}"] = path
    dest.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, content in members.items():
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            executable = name in ("setup.sh", "run_autograder")
            info.external_attr = (0o100755 if executable else 0o100644) << 16
            data = content.encode() if isinstance(content, str) else content.read_bytes()
            zf.writestr(info, data)
    return list(members)


def autograde(course: Course, submission: Path, assignment_id: str, results: Path) -> float:
    """Grade Gradescope's submission folder and write its results.json; return the score.

    Raises:
        GraderError: If the submission folder does not exist.
    """
    if not submission.is_dir():
        raise GraderError(f"no submission folder at {submission}")
    with tempfile.TemporaryDirectory(prefix="grader-gradescope-") as tmp_name:
        tmp = Path(tmp_name)
        student = tmp / "subs" / "submission"
        shutil.copytree(submission, student, symlinks=True)
        run = grade(course, tmp / "subs", [assignment_id], tmp / "out", jobs=1, force=True)
        results.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(tmp / "out" / assignment_id / "submission" / "results.json", results)
        return run.grades[0].total
