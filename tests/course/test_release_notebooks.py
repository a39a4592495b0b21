"""A release notebook works wherever Jupyter runs it: from ``notebooks/`` (Jupyter's own choice), from the course
folder (VS Code's workspace folder), from Colab's ``/content`` with a downloaded copy; a file pasted whole into its
cell keeps its imports; and the grader skips the notebook's set-up and self-check cells."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbclient
import nbformat
import pytest
from checkout import ROOT

from grader.course.course import Course
from grader.course.handouts import check_cell, notebook_code_cells, setup_cell
from grader.intake.notebook import notebook_code
from grader.intake.notebook_imports import OwnCode

REFERENCE = ROOT / "reference" / "micrograd"
OWN = OwnCode("micrograd/engine.py", frozenset({"engine", "nn"}))
"""What a notebook of the course stands for: its code is staged as the engine, and nn imports it."""
IMPORTS = """\
from .engine import Value as relative
from micrograd.engine import Value as absolute
from engine import Value as flat
import micrograd.nn as package_nn
print("imports give the notebook's own code:", relative is absolute is flat is Value, package_nn.MLP is MLP,
      all(type(p) is Value for p in Neuron(2).parameters()))
"""
"""A probe run after ``nn.py``'s cell (never saved, so never graded)."""


def reference(name: str) -> str:
    return (REFERENCE / name).read_text(encoding="utf-8")


def code_cell(nb: nbformat.NotebookNode, word: str) -> nbformat.NotebookNode:
    """The first code cell of ``nb`` whose source holds ``word``."""
    return next(c for c in nb.cells if c.cell_type == "code" and word in c.source)


def fill(path: Path, engine: str, nn: str | None = None) -> nbformat.NotebookNode:
    """Write ``engine`` (and ``nn``) whole into their cells of the notebook at ``path``, as a student pastes them."""
    nb = nbformat.read(path, as_version=4)
    code_cell(nb, "class Value").source = engine
    if nn is not None:
        code_cell(nb, "class Neuron").source = nn
    nbformat.write(nb, path)
    return nb


def execute(nb: nbformat.NotebookNode, cwd: Path) -> list[str]:
    """Run ``nb`` in a ``python3`` kernel of this environment working in ``cwd``; each code cell's printed text."""
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(cwd)}}).execute()
    return ["".join(o.get("text", "") for o in c.outputs if o.output_type == "stream")
            for c in nb.cells if c.cell_type == "code"]


@pytest.fixture
def kernel(monkeypatch):
    """This environment's ``python3`` kernel (its Python has the grader), and no ``grader`` command on ``PATH``."""
    monkeypatch.setenv("JUPYTER_PATH", str(Path(sys.prefix) / "share" / "jupyter"))
    monkeypatch.setenv("PATH", os.defpath)


def test_nn_py_pasted_whole_runs_in_a_notebook_opened_from_notebooks_and_its_self_check_grades_it(
        release, tmp_path, kernel):
    """nn.py's own import (``from .engine import Value``, or ``from micrograd.engine``) stopped the notebook."""
    course = tmp_path / "course"
    shutil.copytree(release, course)
    notebook = course / "notebooks" / "mlp.ipynb"
    nb = fill(notebook, reference("engine.py"), reference("nn.py").replace("from .engine import", "from micrograd.engine import"))
    assert "from micrograd.engine import Value" in code_cell(nb, "class Neuron").source
    nn_cell = nb.cells.index(code_cell(nb, "class Neuron"))
    nb.cells.insert(nn_cell + 1, nbformat.v4.new_code_cell(IMPORTS))

    printed = execute(nb, notebook.parent)

    assert "imports give the notebook's own code: True True True" in printed[-2]
    assert "10 / 10 public points" in printed[-1] and "All public tests pass." in printed[-1], printed[-1]


def test_the_self_check_finds_the_course_and_the_notebook_wherever_the_notebook_runs(release, tmp_path, kernel):
    course = tmp_path / "course"
    shutil.copytree(release, course)
    untouched = nbformat.read(course / "notebooks" / "value_ops.ipynb", as_version=4)
    filled = fill(course / "notebooks" / "value_ops.ipynb", reference("engine.py"))

    from_the_course_folder = execute(filled, course)[-1]  # VS Code may run a notebook in the workspace folder
    assert "10 / 10 public points" in from_the_course_folder, from_the_course_folder

    nbformat.write(untouched, course / "notebooks" / "value_ops.ipynb")  # Colab: the course unzipped in /content,
    nbformat.write(filled, course / "value_ops.ipynb")  # the downloaded notebook next to it
    from_colabs_content = execute(untouched, course)[-1]
    assert "10 / 10 public points" in from_colabs_content, from_colabs_content

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    outside = execute(untouched, elsewhere)[-1]
    assert outside.startswith(f"No course folder (one holding micrograd/ and assignments/) in {elsewhere} or above")
    assert "public points" not in outside


def test_the_grader_skips_the_set_up_and_self_check_cells(release):
    raw = (release / "notebooks" / "mlp.ipynb").read_bytes()
    code = notebook_code(raw, "mlp.ipynb", OWN)
    before = {name: sys.modules.get(name) for name in ("micrograd", "micrograd.engine", "micrograd.nn", "engine", "nn")}

    namespace = {"__name__": "micrograd.engine"}  # how the grader's sandbox imports the notebook's module
    exec(compile(code, "engine.py", "exec"), namespace)

    assert {name: sys.modules.get(name) for name in before} == before
    assert "course_folder" not in namespace and "this_notebook" not in namespace
    assert namespace.get("__package__") is None
    lines = code.splitlines()
    check = [line for line in lines if "-m grader" in line]
    assert check and all(line.lstrip().startswith("pass  # removed by the grader: !") for line in check)
    assert not any(line.lstrip().startswith("!") for line in lines)


def test_the_cells_name_the_assignment_only_on_the_shell_line():
    """The template's notebook code, which a student's notebook is compared with, is built without an id."""
    mlp = Course(ROOT).assignment("mlp")
    sources = {f: (ROOT / "student_template" / f).read_text(encoding="utf-8") for f in mlp.files}
    cells = notebook_code_cells(mlp.files, sources, "mlp", mlp.own_modules)
    anonymous = notebook_code_cells(mlp.files, sources, "", mlp.own_modules)

    assert cells[1] == setup_cell(mlp.files, mlp.own_modules) and '("engine", "nn")' in cells[1]
    assert cells[-1] == check_cell("mlp", "micrograd") and '(p / "micrograd").is_dir()' in cells[-1]
    differ = [(a, b) for a, b in zip(cells[-1].splitlines(), anonymous[-1].splitlines()) if a != b]
    assert len(differ) == 1 and differ[0][0].lstrip().startswith("!") and differ[0][0].endswith("-a mlp")
    single = [a for a in Course(ROOT).assignments() if len(a.files) == 1]
    assert single and all(len(notebook_code_cells(a.files, {f: "" for f in a.files}, a.id)) == 2
                          for a in single)  # one file: nothing to import from the notebook, no set-up cell


def test_a_file_of_the_package_runs_as_a_module_from_the_course_folder(release):
    """The release README says ``python -m micrograd.nn``: ``python micrograd/nn.py`` stops at its relative import."""
    as_module = subprocess.run([sys.executable, "-m", "micrograd.nn"], cwd=release, capture_output=True, text=True,
                               timeout=60)
    as_script = subprocess.run([sys.executable, "micrograd/nn.py"], cwd=release, capture_output=True, text=True,
                               timeout=60)

    assert as_module.returncode == 0, as_module.stderr
    assert as_script.returncode != 0 and "relative import" in as_script.stderr
    readme = (release / "README.md").read_text(encoding="utf-8")
    assert "`python -m micrograd.nn`" in readme and "Set-up" in readme
