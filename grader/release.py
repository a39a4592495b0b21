"""``grader release OUT``: what students receive.

The release is a folder (ready to become a GitHub Classroom template
repository) holding:

* ``micrograd/``: the student template (stubs, signatures, docstrings);
* ``student_template/micrograd/``: an untouched copy of it, so ``grader
  check`` tells the files the student worked on from the notebooks (see
  :mod:`grader.candidates`);
* ``notebooks/<id>.ipynb``: one notebook per assignment;
* ``assignments/<id>/``: ``assignment.yaml``, the handout ``README.md`` and
  the public tests (never the hidden ones, never ``bugs.yaml``);
* ``grader/`` and ``pyproject.toml``: the grader itself, so ``grader check``
  runs locally and in CI;
* ``README.md``: how to install, check and submit;
* ``.github/workflows/classroom.yml``: runs ``grader check --format github``
  on every push and hands its result to the classroom autograding reporter.

Nothing of ``reference/`` is copied.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat

from .config import Course
from .errors import GraderError
from .notebooks import build_notebook

WORKFLOW = """\
name: Autograding Tests
on: [push, workflow_dispatch, repository_dispatch]
permissions:
  checks: write
  actions: read
  contents: read
jobs:
  run-autograding-tests:
    runs-on: ubuntu-latest
    if: github.actor != 'github-classroom[bot]'
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: "3.11"
      - name: Install the grader
        run: python -m pip install --quiet .
      - name: micrograd self-check
        id: micrograd
        run: grader check --format github
      - name: Autograding Reporter
        if: always()
        uses: classroom-resources/autograding-grading-reporter@v1
        env:
          MICROGRAD_RESULTS: "${{ steps.micrograd.outputs.result }}"
        with:
          runners: micrograd
"""

README = """\
# micrograd: build an autograd engine and a neural network

Your work goes in `micrograd/engine.py` and `micrograd/nn.py` (or, if you
prefer notebooks, in `notebooks/<assignment>.ipynb`). Every method that raises
`NotImplementedError("Task N.M: ...")` is yours to write; the handout of each
assignment is in `assignments/<id>/README.md`.

| assignment | handout | tasks |
| --- | --- | --- |
{rows}

## Check your work

```bash
python -m pip install -e .      # once: installs the `grader` command
grader check                     # all assignments, public tests
grader check -a value_ops        # one assignment
```

`grader check` runs the public tests against your code in a sandbox and
prints your score per task and, for each failing test, the method at fault,
the inputs, expected vs got, and a hint. It exits 0 only when every public
test passes. Hidden tests check the same things on other inputs. In a
notebook, run its last cell (`!"{{sys.executable}}" -m grader check <id>.ipynb -a <id>`).
Work either in `micrograd/` or in the notebooks: the grader grades the one you
changed (`student_template/` keeps the untouched stubs it compares with).

## Submit

Push to your classroom repository: the workflow in `.github/workflows/`
runs the same self-check and reports your points. Your instructor grades
`micrograd/engine.py` and `micrograd/nn.py` (or your notebook) with the hidden
tests after the deadline.
"""


def build_release(course: Course, dest: Path) -> list[Path]:
    """Write the student release into ``dest`` (which must be empty or missing).

    Returns:
        The files written, relative to ``dest``.

    Raises:
        GraderError: If ``dest`` is not empty, or the template is missing.
    """
    if dest.exists() and any(dest.iterdir()):
        raise GraderError(f"{dest} is not empty; give a new folder for the release")
    template = course.template_dir / "micrograd"
    if not (template / "engine.py").is_file():
        raise GraderError(f"no student template at {template} (run `grader template` first)")
    dest.mkdir(parents=True, exist_ok=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(template, dest / "micrograd", ignore=ignore)
    shutil.copytree(template, dest / "student_template" / "micrograd", ignore=ignore)  # untouched files: see candidates
    sources = {f"micrograd/{p.name}": p.read_text(encoding="utf-8") for p in template.glob("*.py")}
    rows = []
    for a in course.assignments():
        target = dest / "assignments" / a.id
        target.mkdir(parents=True)
        shutil.copy(a.root / "assignment.yaml", target / "assignment.yaml")
        handout = (a.root / "README.md").read_text(encoding="utf-8") if (a.root / "README.md").is_file() else f"# {a.title}\n"
        (target / "README.md").write_text(handout, encoding="utf-8")
        if a.public_tests.is_dir():
            shutil.copytree(a.public_tests, target / "tests" / "public", ignore=ignore)
        (dest / "notebooks").mkdir(exist_ok=True)
        nbformat.write(build_notebook(a, sources, handout), dest / "notebooks" / f"{a.id}.ipynb")
        rows.append(f"| `{a.id}` | [{a.title}](assignments/{a.id}/README.md) | {', '.join(a.files)} |")
    package = Path(__file__).parent
    shutil.copytree(package, dest / "grader", ignore=ignore)
    pyproject = package.parent / "pyproject.toml"
    if pyproject.is_file():
        shutil.copy(pyproject, dest / "pyproject.toml")
    (dest / "README.md").write_text(README.format(rows="\n".join(rows)), encoding="utf-8")
    workflow = dest / ".github" / "workflows" / "classroom.yml"
    workflow.parent.mkdir(parents=True)
    workflow.write_text(WORKFLOW, encoding="utf-8")
    return sorted(p.relative_to(dest) for p in dest.rglob("*") if p.is_file())
