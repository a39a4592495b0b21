"""``grader release -o OUT``: what students receive.

The release is a folder (ready to become the template repository of a
Classroom 50 assignment, or of any GitHub organisation) holding, for the
assignments handed out (those released at the moment of the run and those
named with ``-a``: :mod:`grader.course.handed_out`; nothing of the others):

* ``micrograd/``: the student template (stubs, signatures, docstrings),
  without the modules that only assignments not handed out name;
* ``student_template/micrograd/``: an untouched copy of it, so ``grader
  check`` tells the files the student worked on from the notebooks (see
  :mod:`grader.intake.candidates`);
* ``notebooks/<id>.ipynb``: one notebook per assignment, its first cell the
  handout, its last cell the self-check;
* ``assignments/<id>/``: ``assignment.yaml``, the handout ``README.md``,
  the assignment's own modules (its probes) and the public tests (never the
  hidden ones, never ``bugs.yaml``), and ``assignments/shared`` without its
  ``parts`` (the course's probes and checks the public tests run on: see
  :mod:`grader.course.public`);
* ``assignments/probe_seconds.json``, written beside it by ``grader release`` (it runs the release's public tests on
  the reference: :func:`grader.grading.one.time_public_probes`): the reference's time for each call the public
  tests make, keyed by a hash of the call, from which ``grader check`` derives each call's time limit
  (:mod:`grader.judge.probe_seconds`). Timings only: no answer, nothing of the hidden tests;
* ``grader/`` and ``pyproject.toml``: the grader itself, so ``grader check``
  runs locally and in CI. The ``pyproject.toml`` is the release's own
  (:mod:`grader.course.release_pyproject`): it installs the grader and names
  nothing of the instructor's tests and tools. The grader holds no
  implementation of a graded method: the
  grader's own working engine and network (``assignments/shared/parts``) are
  never copied, so the self-check runs the network's tests on the student's
  own engine (``tests/course/test_release_leaks.py`` checks every release);
* ``README.md`` (:mod:`grader.course.release_readme`): how to set up (a
  virtual environment per OS, then ``python -m pip install -e .``), check
  (``grader check``), use notebooks (Jupyter, VS Code, Colab, Codespaces),
  bring in a new assignment and submit;
* ``.gitignore``: virtual environments, bytecode, ``*.egg-info``, notebook
  checkpoints, grader output and OS files stay out of a student's commits;
* ``.devcontainer/devcontainer.json``: GitHub Codespaces or a VS Code dev
  container with the grader installed and the Python and Jupyter extensions;
* ``requirements.lock``: the grader's dependencies pinned
  (:func:`grader.course.pins.resolve`), the same lock as the Classroom 50
  autograders';
* ``.github/workflows/self-check.yml``: installs the grader with those pins,
  on the Python they were made with, as a Classroom 50 autograder does, and
  runs ``grader check --format github``
  on every push to a branch (annotations and a job summary). Its name leaves
  ``autograde.yaml`` to Classroom 50, whose caller workflow has that reserved
  name; GitHub Classroom's autograding reporter is not used (GitHub Classroom
  was shut down on 28 August 2026).

The Classroom 50 autograders, for the teacher's config repository, are built
next to it (:mod:`grader.course.classroom50_autograders`).

Nothing of ``reference/``, of the hidden tests, of ``bugs.yaml`` or of
``assignments/shared/parts`` is copied. Built again, a release writes the same
bytes for the same course (notebook cells have fixed ids): next week's only
adds the new assignment's files and changes the README (and the times of
``probe_seconds.json``, measured again: a file students never edit).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path

import nbformat

from grader.course.config import Assignment
from grader.course.course import Course
from grader.course.handed_out import template_ignore, withheld_modules
from grader.course.handouts import build_answers_notebook, build_notebook
from grader.course.pins import LOCK_NAME, Lock, resolve, runtime_requirements
from grader.course.public import copy_assignment, copy_shared
from grader.course.release_pyproject import release_pyproject
from grader.course.release_readme import min_python, release_readme
from grader.errors import GraderError
from grader.files import require_new_folder

WORKFLOW_NAME = "self-check.yml"
"""The student repository's own workflow; ``autograde.yaml`` is Classroom 50's reserved name (its caller workflow)."""

WORKFLOW = """\
# The public self-check on every push to a branch (not on submit/* tags, which
# Classroom 50's own autograde.yaml grades): the same `grader check` students run
# on their laptops, with annotations at the failing lines and a job summary.
# It installs what Classroom 50's autograder installs: the versions pinned in
# requirements.lock, on the Python they were made with, so both score alike.
name: {package} self-check
on:
  push:
    branches: ["**"]
  pull_request:
  workflow_dispatch:
permissions:
  contents: read
jobs:
  self-check:
    runs-on: ubuntu-latest
    timeout-minutes: 15
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: "{python}"  # the Python requirements.lock was made with
      # ubuntu-latest (Ubuntu 24.04) restricts unprivileged user namespaces with
      # AppArmor. This runner is a virtual machine discarded after the job, so the
      # grader's sandbox may use them: your code then runs in its own user, PID,
      # mount and network namespaces. Without this step the sandbox runs with
      # Landlock and resource limits only, and the points are the same.
      - name: Allow the sandbox's user namespaces
        run: sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0 || true
      - name: Install the grader (the pinned versions of requirements.lock)
        run: |
          python -m pip install --quiet --disable-pip-version-check -r requirements.lock
          python -m pip install --quiet --disable-pip-version-check --no-deps .
      - name: {package} self-check
        run: grader check --format github
"""
"""The release's ``.github/workflows/self-check.yml``; ``{python}`` is the lock's Python minor and ``{package}`` the
student's package (:func:`workflow`)."""


def workflow(lock: Lock, package: str) -> str:
    """The self-check workflow of a release pinned to ``lock`` (its ``requirements.lock``) of a course whose
    student's package is ``package``."""
    return WORKFLOW.replace("{python}", lock.python_minor).replace("{package}", package)


GITIGNORE = """\
# Virtual environments (README: python3 -m venv .venv)
.venv/
venv/
env/

# Python bytecode, `pip install -e .` metadata and builds
__pycache__/
*.py[cod]
*.egg-info/
/build/
/dist/

# Jupyter
.ipynb_checkpoints/

# Output of grader and test runs (`grader check --format classroom50` writes the last two)
grading-output/
/result.json
/release-body.md
.pytest_cache/
.hypothesis/

# Operating systems
.DS_Store
._*
Thumbs.db
desktop.ini
"""

DEVCONTAINER = {
    "name": "",  # the student's package (build_release)
    "image": "mcr.microsoft.com/devcontainers/python:1-3.12-bookworm",
    # The image's Python (/usr/local, from the official python image) is not externally managed;
    # the container user (vscode) installs into its user site, whose bin/ is on the PATH.
    "postCreateCommand": "python -m pip install --user -e . ipykernel",
    "customizations": {
        "vscode": {
            "extensions": ["ms-python.python", "ms-toolsai.jupyter"],
            "settings": {"python.defaultInterpreterPath": "/usr/local/bin/python"},
        }
    },
}


def build_release(course: Course, dest: Path, lock: Lock | None = None,
                  answer_templates: Mapping[str, str] | None = None,
                  assignments: Sequence[Assignment] | None = None) -> list[Path]:
    """Write the student release of ``assignments`` into ``dest`` (which must be empty or missing).

    Args:
        course: The course.
        dest: The release folder.
        lock: The pins to ship as ``requirements.lock`` (what the self-check workflow installs); None: resolved
            here (:func:`grader.course.pins.resolve`), as the Classroom 50 autograders resolve theirs.
        answer_templates: Each concept check's answers file (``answers/<id>.yaml``, its path in the release) to the
            template students fill in (:func:`grader.questions.sheet.answer_templates`, made a layer above).
        assignments: The assignments handed out (:func:`grader.course.handed_out.hand_out`); None: every one. The
            others, and the template's modules only they name (:func:`grader.course.handed_out.withheld_modules`),
            are left out.

    Returns:
        The files written, relative to ``dest``.

    Raises:
        GraderError: If ``dest`` is not empty, the template or ``pyproject.toml`` is missing or incomplete, a
            runtime dependency of the grader is not installed here, or a concept check's answers template is not
            given.
    """
    templates = dict(answer_templates or {})
    handed = list(course.assignments() if assignments is None else assignments)
    for a in handed:
        if a.is_concept_check and a.files[0] not in templates:
            raise GraderError(f"no answers template for {a.id} ({a.files[0]}): build the release with "
                              "grader.questions.sheet.answer_templates(course)")
    require_new_folder(dest, "the release")
    template = course.template_package
    if not any(template.glob("*.py")):
        raise GraderError(f"no student template at {template} (run `grader template` first)")
    package = Path(__file__).resolve().parent.parent  # the grader package
    pyproject = next((p for p in (package.parent / "pyproject.toml", course.root / "pyproject.toml") if p.is_file()),
                     None)
    if pyproject is None:
        raise GraderError(f"no pyproject.toml next to {package} or in {course.root}: students need it "
                          "to install the grader (`pip install -e .`)")
    own_pyproject, _ = release_pyproject(pyproject, package)
    lock = lock if lock is not None else resolve(runtime_requirements(pyproject))  # as the Classroom 50 bundle's
    dest.mkdir(parents=True, exist_ok=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    stubs = template_ignore(template, withheld := withheld_modules(course, handed))
    shutil.copytree(template, dest / course.package, ignore=stubs)
    shutil.copytree(template, dest / "student_template" / course.package, ignore=stubs)  # untouched: see candidates
    sources = {f"{course.package}/{p.name}": p.read_text(encoding="utf-8") for p in template.glob("*.py")
               if p.name not in withheld}
    copy_shared(course, dest / "assignments")
    for a in handed:
        handout = (a.root / "README.md").read_text(encoding="utf-8") if (a.root / "README.md").is_file() else f"# {a.title}\n"
        copy_assignment(a, dest / "assignments", handout)
        (dest / "notebooks").mkdir(exist_ok=True)
        if a.is_concept_check:  # answered in a file of its own, or in its notebook's answers cell
            (dest / a.files[0]).parent.mkdir(parents=True, exist_ok=True)
            (dest / a.files[0]).write_text(templates[a.files[0]], encoding="utf-8")
            nbformat.write(build_answers_notebook(a, handout, templates[a.files[0]], course.package),
                           dest / "notebooks" / f"{a.id}.ipynb")
        else:
            nbformat.write(build_notebook(a, sources, handout), dest / "notebooks" / f"{a.id}.ipynb")
    shutil.copytree(package, dest / "grader", ignore=ignore)
    (dest / "pyproject.toml").write_text(own_pyproject, encoding="utf-8")
    (dest / LOCK_NAME).write_text(lock.text(), encoding="utf-8")
    shipped = [p.stem for p in (dest / course.package).glob("*.py")]
    (dest / "README.md").write_text(release_readme(course, handed, shipped, min_python(own_pyproject), lock.python_minor),
                                    encoding="utf-8")
    (dest / ".gitignore").write_text(GITIGNORE, encoding="utf-8")
    (dest / ".devcontainer").mkdir()
    (dest / ".devcontainer" / "devcontainer.json").write_text(json.dumps({**DEVCONTAINER, "name": course.package}, indent=2) + "\n",
                                                               encoding="utf-8")
    (dest / ".github" / "workflows").mkdir(parents=True)
    (dest / ".github" / "workflows" / WORKFLOW_NAME).write_text(workflow(lock, course.package), encoding="utf-8")
    return sorted(p.relative_to(dest) for p in dest.rglob("*") if p.is_file())
