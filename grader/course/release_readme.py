"""The student release's ``README.md``: setting up, checking, notebooks, Colab, Codespaces, a new assignment and
submitting, with the index of the assignments the release holds (:func:`release_readme`)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from grader.course.config import Assignment
from grader.course.course import Course
from grader.errors import GraderError

CONCEPT = """
A concept check (questions, no code) is answered in its file ({files}). Some of its
questions use numbers drawn from your id on the course roster: print your own with
`grader sheet {first} --student YOUR_ID`, and write `student: YOUR_ID` in the file.
"""
"""The release README's paragraph on the course's concept checks (none: left out)."""


RUN = """\
To run a file of `{package}/` yourself, run it as a module from this folder:
`python -m {package}.{last}`, not `python {package}/{last}.py` (which stops at its
`from .{first} import {name}`).
"""
"""The release README's paragraph on running a file of the package; :data:`RUN_ONE` when it holds one module."""

RUN_ONE = """\
To run a file of `{package}/` yourself, run it as a module from this folder:
`python -m {package}.{first}` (a file that imports another, `from .{first} import {name}`,
stops at that line when run as `python {package}/<file>.py`).
"""


README = """\
# {title}

Your work goes in the `{package}/` package, in the files each assignment names
below (or, if you prefer notebooks, in `notebooks/<assignment>.ipynb`). Every method that raises
`NotImplementedError("Task N.M: ...")` is yours to write; the handout of each
assignment is in `assignments/<id>/README.md`.

| assignment | handout | tasks |
| --- | --- | --- |
{rows}
{concept}
## Set up (once)

You need Python {python} or newer. Open a terminal in this folder (the one
holding this README) and type these three lines, one at a time.

macOS or Linux:

```bash
python3 -m venv .venv
source .venv/bin/activate
python -m pip install -e .
```

Windows (PowerShell or Command Prompt):

```bat
py -m venv .venv
.venv\\Scripts\\activate
python -m pip install -e .
```

The first line makes `.venv/`, a private Python for this course; the second
activates it, so your prompt starts with `(.venv)`; the third installs the
`grader` command into it. In every new terminal, run the second line again
before using `grader`. If something goes wrong:

- pip says `requires a different Python` (macOS's own `python3` is 3.9):
  install a newer Python from python.org, delete the `.venv`
  folder, and start again.
- Debian or Ubuntu says `ensurepip is not available`: run the `apt install`
  line it prints, with `sudo` in front, delete the `.venv` folder, and start
  again.
- Windows says `py` is not recognized: type `python` instead of `py`.
- PowerShell says running scripts is disabled: run
  `Set-ExecutionPolicy -Scope CurrentUser RemoteSigned` once, answer `Y`, and
  activate again.

## Check your work

From this folder, with `.venv` active:

```bash
grader check                                          # every assignment
grader check -v                                       # every assignment, each in detail
grader check -a {example}{pad}                             # one assignment
grader check notebooks/{example}.ipynb -a {example}{pad}{pad}   # a notebook instead of {package}/
```

`grader check` runs the public tests against your code in a sandbox. It
shows the first assignment you have not finished in detail: your score per
task and, for each failing test, the method at fault, the inputs, expected vs
got, and a hint; then one line for each other assignment (`-v` shows every
assignment in detail, `-a ID` the ones you name). An error that stops several
assignments, such as a syntax error in `{package}/{first}.py`, is shown once,
with the assignments it stops. It exits 0 only when every public test passes.
Hidden tests check the same things on other inputs. On the untouched template
it reports 0 points: that means your set-up works.

## Notebooks

A notebook must run on the Python of `.venv` (its *kernel*). With `.venv`
active, either:

- Jupyter in the browser: `python -m pip install jupyterlab`, then
  `jupyter lab` from this folder, and open `notebooks/`; or
- VS Code: `python -m pip install ipykernel`, open the notebook, click
  **Select Kernel** (top right), **Python Environments**, then `.venv`.

Write your code in the cells, save the notebook (Ctrl+S, or Cmd+S on a Mac),
then run its last cell, **Self-check**: it grades the saved file. It finds
this folder (the one holding `{package}/` and `assignments/`) from wherever
Jupyter, VS Code or Colab runs the notebook.

You may paste a whole file of `{package}/` into its cell, imports included.
In a notebook of several files, run its **Set-up** cell first (it comes
after the first file's cell): `from .{first} import {name}` or `from
{package}.{first} import {name}` then give the `{name}` of the notebook, as
they do when the notebook is graded.

{run}
## Google Colab

Colab keeps the notebook you edit in Google Drive, away from the grader, so
you check a downloaded copy of it:

1. On GitHub, download this repository (**Code > Download ZIP**) and unzip
   it. In Colab, **File > Upload notebook** and pick your notebook from its
   `notebooks/` folder.
2. Drag the zip into Colab's **Files** pane (the folder icon on the left),
   then run this in a new code cell (again after every runtime restart):

   ```
   !rm -rf /tmp/course && mkdir /tmp/course && unzip -q /content/*.zip -d /tmp/course && cp -r /tmp/course/*/. /content/
   %pip install -e /content
   ```

3. To check: **File > Download > Download .ipynb**, drag the downloaded file
   into the Files pane (it lands in `/content`, the notebook's folder), then
   run the notebook's last cell, **Self-check**.

## GitHub Codespaces and VS Code dev containers

This folder has a dev container (`.devcontainer/devcontainer.json`): on
GitHub, **Code > Codespaces > Create codespace**; or, in VS Code with Docker
and the Dev Containers extension, **Dev Containers: Reopen in Container**.
It installs Python, the grader and the Python and Jupyter extensions for
you: skip the set-up above. Once it has finished, open a terminal and run
`grader check`. For notebooks, choose the kernel `/usr/local/bin/python`.

Work either in `{package}/` or in the notebooks: the grader grades the one you
changed (`student_template/` keeps the untouched stubs it compares with).

## A new assignment

Each assignment comes out in a new version of this folder, holding every
assignment out so far. It adds the new assignment's files and changes this
README; your files are the same in it, so bringing it in keeps your work:

- you cloned your instructor's repository: commit your work, then `git pull`;
- each assignment has a repository of its own (Classroom 50): copy the files
  of earlier assignments it builds on (your `{package}/{first}.py`) into the new one;
- you downloaded it: download the new version, unzip it, and copy your own
  `{package}/` files, the notebooks you worked in and `answers/` into it.

## Submit

Commit and push to your course repository. On every push, the workflow in
`.github/workflows/self-check.yml` runs the same self-check on GitHub and
shows your points in the run's summary (the **Actions** tab). It installs the
versions pinned in `requirements.lock` on Python {lock_python}, as the
Classroom 50 autograder does, so both give the same points. If your course
uses Classroom 50, submit as your instructor says (`gh student submit`): its
autograder runs the public tests on the submitted commit and publishes your
points on the submission's Release. Your instructor grades the files of each
assignment (or your notebook) with the hidden tests after the deadline. The `.gitignore` keeps `.venv/` and other generated
files out of your commits.
"""


def min_python(pyproject: str) -> str:
    """The oldest Python a ``pyproject.toml`` accepts (``requires-python = ">=3.10"`` gives ``3.10``).

    Raises:
        GraderError: If it states no ``>=`` lower bound, so the README could not say which Python to use.
    """
    found = re.search(r'^requires-python\s*=\s*"\s*>=\s*([0-9]+(?:\.[0-9]+)*)', pyproject, re.M)
    if not found:
        raise GraderError('pyproject.toml has no requires-python = ">=X.Y": the release README names the oldest Python')
    return found.group(1)


def readme_words(course: Course, shipped: Sequence[str] | None = None) -> dict[str, str]:
    """What the release README names of the course: its title, the student's package, the first and last of the
    handout's modules and the first class of the first (``micrograd``, ``engine``, ``nn``, ``Value``), among the
    template's modules ``shipped`` (``engine``, ``nn``: those the release holds; None: all of them)."""
    handout, package = course.handout, course.package
    held = sorted(p.stem for p in course.template_package.glob("*.py") if p.stem != "__init__")
    held = held if shipped is None else [m for m in held if m in shipped]
    modules = tuple(m for m in handout.modules if m in held) or tuple(held) or ("module",)
    first_classes = next(iter(handout.files.values()), ())
    words = {"title": handout.title or package, "package": package, "first": modules[0], "last": modules[-1],
             "name": first_classes[0] if first_classes else "*"}
    return {**words, "run": (RUN if len(modules) > 1 else RUN_ONE).format(**words)}


def release_readme(course: Course, handed: Sequence[Assignment], shipped: Sequence[str], python: str,
                   lock_python: str) -> str:
    """The README of a release of ``course`` holding the ``handed`` assignments and the template's modules ``shipped``
    (``engine``, ``nn``), for Python ``python`` or newer, its self-check pinned on ``lock_python``."""
    rows = [f"| `{a.id}` | [{a.title}](assignments/{a.id}/README.md) | {', '.join(a.files)} |" for a in handed]
    checks = [a for a in handed if a.is_concept_check]
    concept = CONCEPT.format(files=", ".join(f"`{a.files[0]}`" for a in checks), first=checks[0].id) if checks else ""
    example = next((a.id for a in handed if not a.is_concept_check), handed[0].id if handed else "ID")
    return README.format(rows="\n".join(rows), python=python, lock_python=lock_python, concept=concept,
                         example=example, pad=" " * max(0, 9 - len(example)), **readme_words(course, shipped))
