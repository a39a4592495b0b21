"""What a newcomer's first submissions run into: a notebook made large by its plots, a zip of the whole repository
with its virtual environment, a zip of a million members. Each is read (or refused with what to do) the same way
as a notebook file, in a folder, in a zip and (for notebooks) in a git repository."""

from __future__ import annotations

import base64
import os
import shutil
import struct
import subprocess
import time
import zipfile
from datetime import datetime, timezone
from pathlib import Path

import nbformat
import pytest
from checkout import ROOT
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from grader.intake.entry import Submission
from grader.intake.git_history import read_at_deadline
from grader.intake.notebook import code_cells, parse
from grader.intake.submission import read_submission, resolve

ENGINE = (ROOT / "examples" / "submissions" / "correct_recursive" / "micrograd" / "engine.py").read_text()
ADVICE = ("clear all outputs (Kernel > Restart & Clear Output, or Edit > Clear all outputs in Colab), save, "
          "and check again")
"""What the student is told to do about a notebook too large to read."""
MIB = 1 << 20
PLACES = ["notebook", "folder", "zip", pytest.param("git", marks=pytest.mark.skipif(
    shutil.which("git") is None, reason="needs git"))]
"""Where a notebook can be: the submission itself, in a folder, in a zip, in a git repository."""


def plot(size: int, seed: int) -> dict:
    """A display_data output holding a PNG of about ``size`` bytes of base64 (incompressible, as plots are)."""
    data = base64.b64encode(os.urandom(size * 3 // 4) if seed else b"\0" * (size * 3 // 4)).decode()
    return new_output("display_data", data={"image/png": data, "text/plain": "<Figure size 640x480>"})


def notebook(code: list[str], outputs: list[dict]) -> bytes:
    """A v4 notebook: a Markdown cell, then one code cell per source, the outputs spread over the code cells."""
    cells = [new_markdown_cell("# My micrograd")]
    for i, source in enumerate(code):
        cell = new_code_cell(source, execution_count=i + 1)
        cell.outputs = outputs[i::len(code)]
        cells.append(cell)
    return nbformat.writes(new_notebook(cells=cells)).encode("utf-8")


def git(repo: Path, *args: str) -> None:
    env = {"PATH": os.environ["PATH"], "HOME": str(repo.parent), "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_CONFIG_GLOBAL": os.devnull, "LC_ALL": "C", "GIT_AUTHOR_DATE": "@1790000000 +0000",
           "GIT_COMMITTER_DATE": "@1790000000 +0000"}
    subprocess.run(["git", "-c", "user.name=S", "-c", "user.email=s@example.com", "-c", "commit.gpgSign=false",
                    "-c", "core.hooksPath=/nonexistent", "-C", str(repo), *args],
                   env=env, check=True, capture_output=True, stdin=subprocess.DEVNULL)


def submitted(tmp_path: Path, place: str, raw: bytes, name: str = "plots3.ipynb") -> Submission:
    """``raw`` handed in as ``name`` in ``place`` (see :data:`PLACES`), read as ``grader grade`` reads it."""
    if place == "notebook":
        (tmp_path / name).write_bytes(raw)
        return read_submission(tmp_path / name)
    folder = tmp_path / "alice"
    (folder / "notebooks").mkdir(parents=True)
    (folder / "notebooks" / name).write_bytes(raw)
    if place == "zip":
        with zipfile.ZipFile(tmp_path / "alice.zip", "w", zipfile.ZIP_DEFLATED) as zf:
            zf.write(folder / "notebooks" / name, f"alice/notebooks/{name}")
        return read_submission(tmp_path / "alice.zip")
    if place == "git":
        git(folder, "init", "-q")
        git(folder, "add", "-A")
        git(folder, "commit", "-q", "-m", "my work")
        return read_at_deadline(folder, datetime(2030, 1, 1, tzinfo=timezone.utc))
    return read_submission(folder)


def cells_of(raw: bytes) -> list[str]:
    return [source for _, _, source in code_cells(parse(raw, "nb.ipynb"))]


@pytest.mark.parametrize("place", PLACES)
def test_a_notebook_with_1_1_mb_of_plots_is_graded_on_its_code(tmp_path: Path, place: str) -> None:
    code = [ENGINE, "a = Value(2.0)\nb = a * a\nb.backward()\nprint(a.grad)\n"]
    raw = notebook(code, [plot(370_000, seed=i + 1) for i in range(3)])
    assert 1_050_000 < len(raw) < 1_200_000  # three plots: over the 1 MiB a source file may have

    sub = submitted(tmp_path, place, raw)

    assert sub.error == "" and sub.notes == []
    [key] = [k for k in sub.files if k.endswith(".ipynb")]
    assert cells_of(sub.files[key]) == code
    assert "class Value" in resolve(sub, ("micrograd/engine.py",), "plots3")["micrograd/engine.py"]


@pytest.mark.parametrize("place", PLACES)
def test_a_notebook_whose_code_is_over_1_mib_says_to_clear_outputs(tmp_path: Path, place: str) -> None:
    raw = notebook([ENGINE, "TABLE = [\n" + "    1.0,\n" * 130_000 + "]\n"], [plot(1000, seed=1)])

    error = submitted(tmp_path, place, raw).error

    assert "plots3.ipynb" in error and "code cells" in error and ADVICE in error


@pytest.mark.parametrize("place", ["notebook", "folder", "zip"])
def test_a_30_mb_notebook_is_refused_at_once_with_the_same_advice(tmp_path: Path, place: str) -> None:
    raw = notebook([ENGINE], [plot(30 * 1000 * 1000, seed=0)])

    started = time.monotonic()
    error = submitted(tmp_path, place, raw).error

    assert time.monotonic() - started < 2.0
    assert "plots3.ipynb" in error and ADVICE in error


# environment folders and member counts ------------------------------------------------


def repository(folder: Path, venv_files: int, package_files: int = 0) -> Path:
    """A student's whole repository: the engine, ``package_files`` more modules, a ``.venv`` and caches."""
    (folder / "micrograd" / "__pycache__").mkdir(parents=True)
    (folder / "micrograd" / "engine.py").write_text(ENGINE)
    (folder / "micrograd" / "__pycache__" / "engine.cpython-312.pyc").write_bytes(b"\0" * 100)
    for i in range(package_files):
        (folder / "micrograd" / f"helper_{i}.py").write_text(f"N = {i}\n")
    site = folder / ".venv" / "lib" / "python3.12" / "site-packages" / "numpy"
    site.mkdir(parents=True)
    (folder / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    for i in range(venv_files):
        (site / f"module_{i}.py").write_text("")
    return folder


def zipped(folder: Path) -> Path:
    """``folder`` zipped whole, as a file manager does: every file and folder, the hidden ones too."""
    dest = folder.with_suffix(".zip")
    with zipfile.ZipFile(dest, "w") as zf:
        for path in sorted(folder.rglob("*")):
            zf.write(path, f"{folder.name}/{path.relative_to(folder).as_posix()}")
    return dest


def test_a_zip_of_the_whole_repository_with_its_venv_reads_as_the_folder_does(tmp_path: Path) -> None:
    folder = repository(tmp_path / "alice", venv_files=6000)
    sub = read_submission(zipped(folder))

    assert sub.error == "" and sub.notes == []
    assert resolve(sub, ("micrograd/engine.py",), "value_ops") == {"micrograd/engine.py": ENGINE}
    assert read_submission(folder).files == {k.removeprefix("alice/"): v for k, v in sub.files.items()}


def test_6000_real_files_still_hit_the_cap_with_a_message_naming_what_was_counted(tmp_path: Path) -> None:
    folder = repository(tmp_path / "alice", venv_files=10, package_files=6000)

    from_zip, from_folder = read_submission(zipped(folder)).error, read_submission(folder).error

    assert "6001 files outside environment and cache folders" in from_zip  # engine.py and 6000 helpers
    assert "more than the 5000 allowed" in from_zip
    assert "more than 5000 files outside environment and cache folders" in from_folder
    for error in (from_zip, from_folder):
        assert ".venv" in error and "__pycache__" in error and "grader submit-zip" in error


def empty_members(path: Path, count: int) -> Path:
    """A valid zip (ZIP64 end records) of ``count`` empty stored members, written directly: zipfile takes seconds."""
    local, central = bytearray(), bytearray()
    for i in range(count):
        name = f"f{i}.txt".encode()
        central += struct.pack("<4s6H3L5HLL", b"PK\x01\x02", 20, 20, 0, 0, 0, 33, 0, 0, 0, len(name), 0, 0, 0, 0,
                               0, len(local)) + name
        local += struct.pack("<4s5H3L2H", b"PK\x03\x04", 20, 0, 0, 0, 33, 0, 0, 0, len(name), 0) + name
    zip64_end = len(local) + len(central)
    path.write_bytes(bytes(local) + bytes(central)
                     + struct.pack("<4sQ2H2L4Q", b"PK\x06\x06", 44, 45, 45, 0, 0, count, count, len(central),
                                   len(local))
                     + struct.pack("<4sLQL", b"PK\x06\x07", 0, zip64_end, 1)
                     + struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 0xFFFF, 0xFFFF, len(central), len(local), 0))
    return path


def test_a_zip_of_200000_members_is_refused_before_they_are_parsed(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    small = empty_members(tmp_path / "small.zip", 10)
    assert zipfile.ZipFile(small).namelist()[-1] == "f9.txt"  # the members are real
    assert read_submission(small).error == "the submission is empty (no .py, .ipynb or .yaml file found)"
    bomb = empty_members(tmp_path / "bomb.zip", 200_000)
    parsed: list[str] = []

    class Counted(zipfile.ZipInfo):
        __slots__ = ()

        def __init__(self, filename: str = "NoName", *args: object) -> None:
            parsed.append(filename)
            super().__init__(filename, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(zipfile, "ZipInfo", Counted)
    started = time.monotonic()
    error = read_submission(bomb).error

    assert time.monotonic() - started < 5.0
    assert len(parsed) < 1000  # the work does not grow with the members
    assert "200000 members, more than the 100000 looked at" in error and "grader submit-zip" in error
