"""Notebooks graded like the files they stand for: whole files pasted into cells, errors located in
their cell, the notebook a student filled chosen over the untouched template, a release notebook
executed headlessly with its self-check cell."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import nbclient
import nbformat
import pytest
from checkout import ROOT

from grader.cli import main
from grader.course.course import Course
from grader.outputs.formats import github
from grader.outputs.self_check import CheckResult

REFERENCE = ROOT / "reference" / "micrograd"
BROKEN_TANH = "def _broken_tanh(self):\n    t = self.data\n    raise ArithmeticError('tanh is not done')\n\n\nValue.tanh = _broken_tanh"


def reference_text(name: str) -> str:
    return (REFERENCE / name).read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def notebook_class(tmp_path_factory, release):
    """One grading run of notebook submissions next to the .py files they stand for."""
    subs = tmp_path_factory.mktemp("notebooks") / "subs"
    shutil.copytree(REFERENCE, subs / "reference_files" / "micrograd", ignore=shutil.ignore_patterns("__pycache__"))
    new_md, new_code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    nbformat.write(nbformat.v4.new_notebook(cells=[  # the two files pasted whole, as they are
        new_md("# my micrograd"), new_code(reference_text("engine.py")), new_code(reference_text("nn.py"))]),
        subs / "reference_pasted.ipynb")
    nbformat.write(nbformat.v4.new_notebook(cells=[
        new_md("# engine"), new_code(reference_text("engine.py")), new_md("scratch"), new_code("x = 1"),
        new_md("more"), new_code("y = 2\nif y > 1\n    y = 3")]), subs / "syntax_in_code_cell_3.ipynb")
    nbformat.write(nbformat.v4.new_notebook(cells=[
        new_code(reference_text("engine.py")), new_md("my own tanh"), new_code(BROKEN_TANH)]),
        subs / "raising_in_a_later_cell.ipynb")
    layout = subs / "release_layout"  # the release as a student got it, backward done in its notebook
    for part in ("micrograd", "notebooks", "student_template"):
        shutil.copytree(release / part, layout / part)
    nb = nbformat.read(layout / "notebooks" / "backward.ipynb", as_version=4)
    next(c for c in nb.cells if c.cell_type == "code").source = reference_text("engine.py")
    nbformat.write(nb, layout / "notebooks" / "backward.ipynb")
    out = subs.parent / "out"  # the assignments of engine.py and nn.py, which the notebooks stand for
    assert main(["--course", str(ROOT), "grade", str(subs), "-o", str(out), "-j", "2", "-a", "value_ops",
                 "-a", "backward", "-a", "mlp"]) == 0
    return out


def graded(out: Path, aid: str, student: str) -> tuple[dict, str]:
    """results.json and feedback.md of one student on one assignment."""
    folder = out / aid / student
    return json.loads((folder / "results.json").read_text()), (folder / "feedback.md").read_text()


def test_the_reference_pasted_whole_into_cells_scores_exactly_like_the_reference_files(notebook_class):
    for aid in ("value_ops", "backward", "mlp"):
        files, _ = graded(notebook_class, aid, "reference_files")
        pasted, feedback = graded(notebook_class, aid, "reference_pasted")
        assert [(t["name"], t["score"], t["status"]) for t in pasted["tests"]] == [
            (t["name"], t["score"], t["status"]) for t in files["tests"]], aid
        assert pasted["score"] == files["score"] > 0 and "Could not grade" not in feedback, aid


def test_a_syntax_error_is_located_in_its_notebook_cell(notebook_class):
    doc, feedback = graded(notebook_class, "value_ops", "syntax_in_code_cell_3")
    problems = doc["extra_data"]["grader"]["problems"]

    assert doc["score"] == 0
    assert problems == ["syntax_in_code_cell_3.ipynb could not be run: raised SyntaxError: expected ':' "
                        "(notebook cell 6 (code cell 3), line 2)"]
    assert "at notebook cell 6 (code cell 3), line 2, in <module>: if y > 1" in feedback
    notes = (notebook_class / "grades.csv").read_text()
    for text in (feedback, doc["output"], json.dumps(doc), notes):
        assert "micrograd/engine.py line" not in text and "engine.py, line" not in text


def test_an_exception_in_a_method_defined_in_a_later_cell_is_located_there(notebook_class):
    doc, feedback = graded(notebook_class, "backward", "raising_in_a_later_cell")
    failed = [t for t in doc["tests"] if t["status"] != "passed"]

    assert failed and 0 < doc["score"] < 50
    tanh = [t["output"] for t in failed if "raised ArithmeticError: tanh is not done" in t["output"]]
    assert tanh and all("at notebook cell 3 (code cell 2), line 3, in _broken_tanh" in o for o in tanh)
    assert "micrograd/engine.py line" not in feedback and "micrograd/engine.py line" not in json.dumps(doc)
    check = CheckResult([Course(ROOT).assignment("backward")], {"backward": doc})
    annotations = github(check, env={})
    assert "::error title=" in annotations and "file=" not in annotations  # no location in a file it is not in


def test_a_filled_notebook_next_to_the_untouched_template_files_is_graded_and_noted(notebook_class):
    doc, feedback = graded(notebook_class, "backward", "release_layout")
    note = ("graded notebooks/backward.ipynb; ignored micrograd/engine.py, which is unchanged from the template")

    assert doc["score"] == 50
    assert f"Note: {note}" in doc["output"] and f"> Note: {note}" in feedback
    for aid in ("value_ops", "mlp"):  # their notebooks are untouched: the template files, no note
        doc, feedback = graded(notebook_class, aid, "release_layout")
        assert doc["score"] == 0 and "Note:" not in doc["output"] and "Note:" not in feedback


# the release notebook run headlessly, self-check cell included --------------------------


def run_notebook(path: Path) -> str:
    """Execute the notebook at ``path`` in a ``python3`` kernel of this environment; the check cell's output."""
    nb = nbformat.read(path, as_version=4)
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}}).execute()
    check = nb.cells[-1]
    assert "grader check" in check.source
    return "".join(o.get("text", "") for o in check.outputs if o.output_type == "stream")


def test_a_release_notebook_runs_headlessly_and_its_check_cell_grades_it(release, tmp_path, monkeypatch):
    """The notebook as a student runs it: the self-check cell runs the grader through the kernel's interpreter."""
    monkeypatch.setenv("JUPYTER_PATH", str(Path(sys.prefix) / "share" / "jupyter"))  # this environment's python3 first
    assert shutil.which("grader", path=os.defpath) is None
    monkeypatch.setenv("PATH", os.defpath)  # the system's shell, but no `grader` command to fall back on
    copy = tmp_path / "release"
    shutil.copytree(release, copy)
    notebook = copy / "notebooks" / "value_ops.ipynb"

    template_output = run_notebook(notebook)

    assert "0 / 10 public points" in template_output and "Some public tests fail" in template_output
    assert "NotImplementedError" in template_output
    nb = nbformat.read(notebook, as_version=4)
    next(c for c in nb.cells if c.cell_type == "code").source = reference_text("engine.py")
    nbformat.write(nb, notebook)

    filled_output = run_notebook(notebook)

    assert "10 / 10 public points" in filled_output and "All public tests pass." in filled_output


def test_the_self_check_of_the_release_grades_the_notebook_the_student_filled(release, tmp_path, capsys):
    copy = tmp_path / "release"
    shutil.copytree(release, copy)
    notebook = copy / "notebooks" / "value_ops.ipynb"
    nb = nbformat.read(notebook, as_version=4)
    next(c for c in nb.cells if c.cell_type == "code").source = reference_text("engine.py")
    nbformat.write(nb, notebook)

    assert main(["--course", str(copy), "check", str(copy), "-a", "value_ops"]) == 0
    out = capsys.readouterr().out
    assert "10 / 10 public points" in out
    assert "note: graded notebooks/value_ops.ipynb; ignored micrograd/engine.py, which is unchanged" in out
