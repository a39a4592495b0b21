"""Gradescope: the autograder zip, and what runs inside it.

``grader gradescope -a ID -o autograder.zip`` writes a zip in the layout
Gradescope expects:

* ``setup.sh``, run once as root when Gradescope builds the autograder image:
  it creates a virtual environment, ``/autograder/venv``, with the image's
  ``python3 -m venv`` (installing ``python3.X-venv`` with apt-get when the
  ``venv``/``ensurepip`` modules are missing), installs into it the exact
  versions of ``requirements.lock``, then the grader itself (``--no-deps``),
  and runs ``pip check``. The system Python is never modified, so an
  externally managed one (PEP 668: Debian 12, Ubuntu 24.04) is fine. It warns,
  without failing, when the image's Python minor version is not the one the
  pins were made with.
* ``requirements.lock`` (:mod:`grader.course.pins`): the grader's runtime
  dependencies and their whole dependency closure, pinned to the versions
  installed where the zip is built (the instructor's validated environment),
  so an image built months later runs the same pytest and hypothesis.
* ``run_autograder``, run for every submission: ``/autograder/venv/bin/python
  -m grader autograde``, which grades ``/autograder/submission`` with the same
  judge and sandbox as ``grader grade`` and copies its results.json
  (Gradescope's schema, with per-test ``visibility`` and ``status``) to
  ``/autograder/results/results.json``.
* the grader package and ``pyproject.toml``, the assignment (with its hidden
  tests, without its bug catalogue), what the course's assignments share
  (``assignments/shared``: probes, checks, and the grader's own parts), the reference solution and a README saying
  how to refresh the pins.

``AUTOGRADER_ROOT`` replaces ``/autograder`` in both scripts (for testing the
zip on a fake tree).
"""

from __future__ import annotations

import zipfile
from dataclasses import dataclass
from pathlib import Path

from grader.course.config import SHARED
from grader.course.course import Course
from grader.course.pins import LOCK_NAME, Lock, resolve, runtime_requirements
from grader.course.public import public_term
from grader.course.term import COURSE_FILE
from grader.errors import GraderError

SETUP = """\
#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image.
# It never installs into the system Python (which may be externally managed,
# PEP 668): it creates a virtual environment, $ROOT/venv, installs into it the
# exact versions of requirements.lock (those the course was validated with),
# then the grader itself without dependencies. run_autograder uses that venv.
set -euo pipefail
ROOT="${{AUTOGRADER_ROOT:-/autograder}}"
VENV="$ROOT/venv"
LOCK_PYTHON="{lock_python}"  # the Python minor version requirements.lock was made with
cd "$ROOT/source"

say() {{ echo "setup.sh: $*"; }}
die() {{ echo "setup.sh: error: $*" >&2; exit 1; }}

command -v python3 >/dev/null 2>&1 || die "no python3 on PATH: pick a Gradescope base image with Python >= 3.10"
# The interpreter itself, not a shim or a symlink elsewhere: the venv records its folder as home.
PY="$(python3 -c 'import os, sys; print(os.path.realpath(sys.executable))')"
PY_MINOR="$("$PY" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
"$PY" -c 'import sys; sys.exit(sys.version_info < (3, 10))' || die "python3 is $PY_MINOR; the grader needs Python >= 3.10"
if [ "$PY_MINOR" != "$LOCK_PYTHON" ]; then
    say "WARNING: requirements.lock was made with Python $LOCK_PYTHON, this image's python3 is $PY_MINOR." \
        "Installing the same versions anyway; if that fails, or to grade exactly as validated, pick a base" \
        "image with Python $LOCK_PYTHON or rebuild the zip (grader gradescope) from an environment on Python $PY_MINOR."
fi

has_venv() {{ "$PY" -c 'import venv, ensurepip' >/dev/null 2>&1; }}
if ! has_venv; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        say "python3 has no venv/ensurepip module: installing python$PY_MINOR-venv with apt-get"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq || true
        apt-get install -y -qq "python$PY_MINOR-venv" || apt-get install -y -qq python3-venv || true
    fi
    has_venv || die "python3 ($PY) lacks the venv and ensurepip modules: install them" \
        "(Debian/Ubuntu, as root: apt-get install python3-venv) and run setup.sh again"
fi

say "creating $VENV with $PY (Python $PY_MINOR)"
"$PY" -m venv --clear "$VENV"
PIP=("$VENV/bin/python" -m pip --require-virtualenv --no-input --disable-pip-version-check)
say "installing the pinned versions of requirements.lock"
HINT=""
[ "$PY_MINOR" = "$LOCK_PYTHON" ] || HINT=" (they were pinned on Python $LOCK_PYTHON, this is $PY_MINOR: see the warning above)"
"${{PIP[@]}}" install --quiet -r requirements.lock || die "cannot install the pinned versions$HINT"
say "installing the grader"
"${{PIP[@]}}" install --quiet --no-deps .
"${{PIP[@]}}" check
say "done: run_autograder grades with $VENV/bin/python"
"""

RUN = """\
#!/usr/bin/env bash
# Gradescope runs this for every submission, with the virtual environment setup.sh made.
set -euo pipefail
ROOT="${{AUTOGRADER_ROOT:-/autograder}}"
PYTHON="$ROOT/venv/bin/python"
if [ ! -x "$PYTHON" ]; then
    echo "run_autograder: no $PYTHON: setup.sh did not complete (see the autograder's build log)" >&2
    exit 1
fi
cd "$ROOT"
# exec: bash reads a script as it runs it, so nothing appended to this file while grading ever runs
exec "$PYTHON" -m grader --course "$ROOT/source" autograde "$ROOT/submission" -a {assignment} \
    -o "$ROOT/results/results.json"
"""

README = """\
# Gradescope autograder: {assignment}

Built by `grader gradescope -a {assignment}`. Upload this zip as the autograder
of a Gradescope programming assignment (any Ubuntu or Debian base image with
Python >= 3.10; the pins were made with Python {python}).

- `setup.sh` (run once, as root, when Gradescope builds the image) creates the
  virtual environment `/autograder/venv` with the image's `python3 -m venv`
  (installing `python3.X-venv` with apt-get if needed), installs the exact
  versions of `requirements.lock` into it, then the grader (`--no-deps`), and
  runs `pip check`. The system Python is never modified, so an externally
  managed Python (PEP 668) is fine.
- `run_autograder` (run per submission) grades `/autograder/submission` with
  `/autograder/venv/bin/python -m grader autograde` into
  `/autograder/results/results.json`.

## The pins

`requirements.lock` holds {count} distributions: the grader's runtime
dependencies and everything they depend on, pinned to the versions installed
where the zip was built ({environment}), i.e. the versions the course was
validated with. An image built later installs the same versions.

To refresh the pins, do not edit the lock: update the instructor environment
(`pip install -U -e .`), run `grader validate` there, and rebuild the zip with
`grader gradescope -a {assignment} -o autograder.zip` from that environment,
ideally on the base image's Python minor version ({python_minor} now; setup.sh
warns when they differ).
"""


@dataclass(frozen=True)
class GradescopeZip:
    """What :func:`build_zip` wrote.

    Args:
        members: The zip's member names, in order.
        lock: The pinned dependencies written to its ``requirements.lock``.
    """

    members: list[str]
    lock: Lock


def build_zip(course: Course, assignment_id: str, dest: Path) -> GradescopeZip:
    """Write the Gradescope autograder zip for one assignment, pinning this environment's versions.

    Args:
        course: The course holding the assignment and the reference solution.
        assignment_id: The assignment to grade (``backward``).
        dest: The zip to write; its folder is created.

    Returns:
        The member names and the pins written to ``requirements.lock``.

    Raises:
        GraderError: If the assignment or the reference solution is missing, or a
            runtime dependency of the grader is not installed here (or not in a
            version it accepts), see :func:`grader.course.pins.resolve`.
    """
    assignment = course.assignment(assignment_id)
    if not all((course.reference_dir / f).is_file() for f in assignment.files):
        raise GraderError(f"the Gradescope zip needs the reference solution of {', '.join(assignment.files)} "
                          f"(reference/{assignment.files[0].rsplit('/', 1)[0]}/)")
    package = Path(__file__).resolve().parent.parent  # the grader package
    skip = ("__pycache__", ".pyc")
    lock = resolve(runtime_requirements(package.parent / "pyproject.toml"))
    members: dict[str, Path | str] = {
        "setup.sh": SETUP.format(lock_python=lock.python_minor),
        "run_autograder": RUN.format(assignment=assignment.id),
        LOCK_NAME: lock.text(),
    }
    for path in sorted(package.rglob("*")):
        if path.is_file() and not any(s in str(path) for s in skip):
            members[f"grader/{path.relative_to(package).as_posix()}"] = path
    members["pyproject.toml"] = package.parent / "pyproject.toml"
    members["README.md"] = README.format(assignment=assignment.id, python=lock.python, count=len(lock.pins),
                                         environment=lock.environment, python_minor=lock.python_minor)
    for path in sorted(assignment.root.rglob("*")):
        if path.is_file() and not any(s in str(path) for s in skip) and path.name != "bugs.yaml":
            members[f"assignments/{assignment.id}/{path.relative_to(assignment.root).as_posix()}"] = path
    for path in sorted((course.reference_dir / course.package).glob("*.py")):  # a concept check's key may call it
        members[f"reference/{course.package}/{path.name}"] = path
    if assignment.is_concept_check:  # its answer key, and the reference module the key may call
        for path in (course.reference_dir / assignment.files[0], (course.reference_dir / assignment.files[0]).with_suffix(".py")):
            if path.is_file():
                members[f"reference/{path.relative_to(course.reference_dir).as_posix()}"] = path
    shared = course.assignments_dir / SHARED  # the course's probes, checks, handout tables and parts (hidden grading)
    for path in sorted(shared.rglob("*")):
        if path.is_file() and not any(s in str(path) for s in skip):
            members[f"{path.relative_to(course.root).as_posix()}"] = path
    if (term := public_term(course)) is not None:  # the time zone of a due date without an offset
        members[f"assignments/{COURSE_FILE}"] = term
    dest.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, content in members.items():
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            executable = name in ("setup.sh", "run_autograder")
            info.external_attr = (0o100755 if executable else 0o100644) << 16
            data = content.encode() if isinstance(content, str) else content.read_bytes()
            zf.writestr(info, data)
    return GradescopeZip(list(members), lock)
