"""The batch survives every submission's names and shapes (issue 12, E): each becomes a noted result
for that submission alone, and the class is graded with exit status 0."""

from __future__ import annotations

import csv
import os
import shutil
import sys
from pathlib import Path

import pytest
from conftest import zip_folder

from grader.cli import main
from grader.files import remove_tree
from grader.intake.submission import discover, read_submission, student_id

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "submissions"
CORRECT = EXAMPLES / "correct_recursive"


def grades(out: Path) -> dict[str, dict[str, str]]:
    with open(out / "grades.csv", encoding="utf-8") as f:
        return {row["student"]: row for row in csv.DictReader(f)}


def test_a_folder_and_a_zip_with_one_name_are_both_graded_under_their_own_names(tmp_path, capsys):
    subs = tmp_path / "subs"
    shutil.copytree(CORRECT, subs / "dup")
    zip_folder(EXAMPLES / "template_unchanged", subs / "dup.zip")
    shutil.copy(EXAMPLES / "notebook.ipynb", subs / "dup.ipynb")
    assert sorted(student_id(e) for e in discover(subs)) == ["dup", "dup.ipynb", "dup.zip"]
    assert main(["--course", str(ROOT), "grade", str(subs), "-o", str(tmp_path / "out"), "-a", "value_ops"]) == 0
    got = grades(tmp_path / "out")
    assert got["dup"]["value_ops"] == "40" and got["dup.zip"]["value_ops"] == "0"
    assert got["dup.ipynb"]["value_ops"] == "40"


@pytest.mark.skipif(sys.platform in ("win32", "darwin"), reason="needs file names that are arbitrary bytes")
def test_names_that_are_not_utf8_are_graded_and_shown_escaped(tmp_path, capsys):
    subs = tmp_path / "subs"
    subs.mkdir()
    student = os.fsdecode(b"caf\xe9")  # Latin-1 bytes: not UTF-8
    shutil.copytree(CORRECT, subs / student)
    (subs / student / os.fsdecode(b"notes-\xff.py")).write_text("x = 1\n")
    assert main(["--course", str(ROOT), "grade", str(subs), "-o", str(tmp_path / "out"), "-a", "value_ops"]) == 0
    assert grades(tmp_path / "out")["caf\\xe9"]["value_ops"] == "40"
    feedback = (tmp_path / "out" / "value_ops" / "caf\\xe9" / "feedback.md").read_text(encoding="utf-8")
    assert "> Note: ignored a file whose name is not UTF-8: notes-\\\\xff.py" in feedback  # Markdown-escaped
    capsys.readouterr()


@pytest.mark.skipif(os.open not in os.supports_dir_fd, reason="builds the chain relative to each folder")
def test_a_submission_1100_folders_deep_is_read_with_a_note(tmp_path):
    entry = tmp_path / "subs" / "deep"
    shutil.copytree(CORRECT, entry)
    fd = os.open(entry, os.O_RDONLY)
    for _ in range(1100):
        os.mkdir("d", dir_fd=fd)
        child = os.open("d", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = child
    os.close(fd)
    try:
        sub = read_submission(entry)
    finally:
        # pytest's own clean-up of old temporary folders recurses and fails on 1100 levels, which
        # leaves an unclosed scandir iterator that -W error turns into a failed session later
        assert remove_tree(entry) == []
    assert sub.error == "" and "micrograd/engine.py" in sub.files
    assert any("levels deep" in note for note in sub.notes)


@pytest.mark.timeout(60)  # linear: well under a second; the quadratic scan took minutes
@pytest.mark.parametrize("cell, removed", [
    ("%matplotlib inline\n" * 20_000, 20_000),       # 20,000 magic lines
    ("x = (\n" + "%  2\n" * 20_000 + ")\n", 0),       # one bracket left open for 20,000 lines: kept as Python
    ("import os\n" * 20_000, 0),                      # 20,000 imports, each looked at by the import rewriter
])
def test_a_cell_of_twenty_thousand_lines_is_read_in_linear_time(cell, removed):
    from grader.intake.notebook import strip_ipython
    from grader.intake.notebook_imports import rewrite_imports

    stripped = strip_ipython(cell)
    assert stripped.count("removed by the grader") == removed
    assert len(rewrite_imports(stripped.split("\n")).lines) == len(stripped.split("\n"))


def test_magics_inside_and_after_an_open_statement_are_told_apart():
    from grader.intake.notebook import strip_ipython

    assert strip_ipython("y = [1,\n% 3]\n%time x\n").splitlines()[1:] == [
        "% 3]", "pass  # removed by the grader: %time x"]
