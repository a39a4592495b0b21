"""`grader submit-zip`: the zip a student hands in, built from their copy of the release."""

from __future__ import annotations

import base64
import os
import shutil
import time
import zipfile
from datetime import datetime
from pathlib import Path

import nbformat
import pytest
from checkout import ROOT
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from grader.cli import main
from grader.grading.due_work import submitted_at
from grader.intake.notebook import code_cells, parse
from grader.intake.submission import read_submission, resolve

SOLUTION = ROOT / "examples" / "submissions" / "correct_recursive" / "micrograd"
EXPECTED = ["micrograd/engine.py", "micrograd/nn.py", "notebooks/mlp.ipynb"]
"""What goes in from the folder below: the files the course names that it holds."""
MLP = ("micrograd/engine.py", "micrograd/nn.py")
WHEN = {"micrograd/engine.py": datetime(2026, 11, 20, 10, 0, 0), "micrograd/nn.py": datetime(2026, 11, 21, 18, 30, 4),
        "notebooks/mlp.ipynb": datetime(2026, 11, 22, 9, 15, 2)}
"""Each file's modification time, on this machine's clock (the course sets no time zone)."""
def zip_date(when: datetime) -> datetime:
    """``when`` as a zip records it: to 2 seconds, rounded down."""
    return when.replace(second=when.second // 2 * 2)


NOTEBOOK_CODE = ["from micrograd.engine import Value\n", "x = Value(3.0)\ny = x * x\ny.backward()\nprint(x.grad)\n"]


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(["--course", str(ROOT), "submit-zip", *args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.fixture
def student(tmp_path: Path) -> Path:
    """A student's copy of the release after some work: the package, a notebook run with a plot, a virtual
    environment, caches, checkpoints, a scratch notebook, the template copy."""
    folder = tmp_path / "micrograd-course"
    shutil.copytree(SOLUTION, folder / "micrograd")
    (folder / "micrograd" / "__pycache__").mkdir()
    (folder / "micrograd" / "__pycache__" / "engine.cpython-312.pyc").write_bytes(b"\0" * 64)
    shutil.copytree(ROOT / "student_template" / "micrograd", folder / "student_template" / "micrograd",
                    ignore=shutil.ignore_patterns("__pycache__"))
    site = folder / ".venv" / "lib" / "python3.12" / "site-packages" / "numpy"
    site.mkdir(parents=True)
    (folder / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    for i in range(50):
        (site / f"module_{i}.py").write_text("")
    cells = [new_markdown_cell("# mlp")]
    for i, source in enumerate(NOTEBOOK_CODE):
        cell = new_code_cell(source, execution_count=i + 1)
        cell.outputs = [new_output("stream", name="stdout", text="6.0\n"), new_output(
            "display_data", data={"image/png": base64.b64encode(os.urandom(30_000)).decode()})]
        cells.append(cell)
    (folder / "notebooks" / ".ipynb_checkpoints").mkdir(parents=True)
    nbformat.write(new_notebook(cells=cells), str(folder / "notebooks" / "mlp.ipynb"))
    nbformat.write(new_notebook(cells=cells), str(folder / "notebooks" / ".ipynb_checkpoints" / "mlp-checkpoint.ipynb"))
    nbformat.write(new_notebook(cells=cells[:2]), str(folder / "notebooks" / "scratch.ipynb"))
    (folder / "README.md").write_text("# micrograd\n")
    for name, when in WHEN.items():
        os.utime(folder / name, (when.timestamp(), when.timestamp()))
    return folder


def test_the_zip_holds_only_the_course_files_with_notebook_outputs_cleared(student: Path,
                                                                           capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, str(student))

    assert status == 0
    zip_path = student / "submission.zip"
    with zipfile.ZipFile(zip_path) as zf:
        assert zf.namelist() == EXPECTED
        for name in EXPECTED[:2]:
            assert zf.read(name) == (student / name).read_bytes()
        nb = nbformat.reads(zf.read("notebooks/mlp.ipynb").decode(), as_version=4)
        assert [c.source for c in nb.cells if c.cell_type == "code"] == NOTEBOOK_CODE
        assert all(c.outputs == [] and c.execution_count is None for c in nb.cells if c.cell_type == "code")
        assert [zf.getinfo(n).date_time for n in EXPECTED] == [zip_date(WHEN[n]).timetuple()[:6] for n in EXPECTED]
    assert "Wrote" in out and "3 files" in out and "outputs cleared" in out
    assert "Left out:" in out and ".venv" in out and "__pycache__" in out and ".ipynb_checkpoints" in out
    assert "mlp: gradable" in out


def test_the_zip_reads_as_the_same_code_and_the_same_submission_time(student: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, str(student))[0] == 0
    from_zip, from_folder = read_submission(student / "submission.zip"), read_submission(student)

    assert from_zip.error == "" and from_zip.notes == []
    assert resolve(from_zip, MLP, "mlp") == resolve(from_folder, MLP, "mlp")
    assert [s for _, _, s in code_cells(parse(from_zip.files["notebooks/mlp.ipynb"], "mlp.ipynb"))] == NOTEBOOK_CODE
    assert submitted_at(from_zip, None)[0] == zip_date(max(WHEN.values())).astimezone()  # as late as the files


def test_running_it_again_replaces_its_own_zip_with_the_same_bytes(student: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, str(student))[0] == 0
    first = (student / "submission.zip").read_bytes()
    time.sleep(1.1)

    assert run(capsys, str(student))[0] == 0
    assert (student / "submission.zip").read_bytes() == first


@pytest.mark.parametrize("output", ["notes.zip", "micrograd/engine.py", "README.md"])
def test_it_never_overwrites_a_file_it_did_not_write(student: Path, capsys: pytest.CaptureFixture[str],
                                                     output: str) -> None:
    if output == "notes.zip":
        with zipfile.ZipFile(student / output, "w") as zf:
            zf.writestr("notes.txt", "mine")
    before = (student / output).read_bytes()

    status, _, err = run(capsys, str(student), "-o", str(student / output))

    assert status == 2 and str(student / output) in err
    assert (student / output).read_bytes() == before


def test_a_folder_without_the_course_files_is_nothing_to_submit(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "empty" / ".venv" / "lib").mkdir(parents=True)
    (tmp_path / "empty" / ".venv" / "lib" / "engine.py").write_text("class Value: ...\n")

    status, out, err = run(capsys, str(tmp_path / "empty"))

    assert status != 0
    assert "nothing to submit" in err and "micrograd/engine.py" in err
    assert not (tmp_path / "empty" / "submission.zip").exists()
