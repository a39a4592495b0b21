"""Broken input gets a one-line reason in the gradebook and the feedback, and the
batch still exits 0; only instructor errors exit non-zero."""

from __future__ import annotations

import csv
import shutil
import zipfile

import hostile_submissions as H
import pytest
from checkout import ROOT

from grader.cli import main

ENGINE = (ROOT / "reference" / "micrograd" / "engine.py").read_text()


@pytest.fixture(scope="module", params=["auto", "portable"])
def broken_class(tmp_path_factory, request):
    """The broken class graded on this host's backend, and on the portable one (macOS, Windows)."""
    subs = tmp_path_factory.mktemp("broken") / "subs"
    (subs / "missing_engine").mkdir(parents=True)
    (subs / "missing_engine" / "notes.py").write_text("print('hello')\n")
    (subs / "empty").mkdir()
    (subs / "not_utf8").mkdir()
    (subs / "not_utf8" / "engine.py").write_bytes("# caf\xe9\n".encode("latin-1") + ENGINE.encode())
    (subs / "invalid_python").mkdir()
    (subs / "invalid_python" / "engine.py").write_text("class Value(:\n    pass\n")
    (subs / "invalid_notebook.ipynb").write_text('{"cells": [], "nbformat": 4}')
    (subs / "corrupt.zip").write_bytes(b"PK\x05\x06" + b"\0" * 10)
    with zipfile.ZipFile(subs / "zip_bomb.zip", "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("micrograd/engine.py", b"#" * (50 << 20))
    (subs / "crash_at_import").mkdir()
    (subs / "crash_at_import" / "engine.py").write_text(ENGINE + "\nraise RuntimeError('boom at import')\n")
    out = subs.parent / "out"
    status = main(["--course", str(ROOT), "grade", str(subs), "-a", "value_ops", "-o", str(out),
                   "--sandbox", request.param])
    with open(out / "grades.csv", encoding="utf-8") as f:
        rows = {row["student"]: row for row in csv.DictReader(f)}
    return status, rows, out


@pytest.mark.parametrize(
    "student,reason",
    [
        ("missing_engine", "missing micrograd/engine.py"),
        ("empty", "the submission is empty"),
        ("not_utf8", "not UTF-8"),
        ("invalid_python", "SyntaxError"),
        ("invalid_notebook", "not a valid Jupyter notebook"),
        ("corrupt", "not a readable zip"),
        ("zip_bomb", "larger than"),
        ("crash_at_import", "RuntimeError: boom at import"),
    ],
)
def test_bad_input_gets_zero_and_a_one_line_reason(broken_class, student, reason):
    status, rows, out = broken_class
    assert status == 0
    assert rows[student]["value_ops"] == "0"
    note = rows[student]["notes"]
    assert reason in note and "\n" not in note
    assert reason in (out / "value_ops" / student / "feedback.md").read_text()


def test_broken_assignment_yaml_is_an_instructor_error(tmp_path, capsys):
    course = tmp_path / "course"
    for part in ("assignments", "reference"):
        shutil.copytree(ROOT / part, course / part, ignore=shutil.ignore_patterns("__pycache__"))
    (course / "assignments" / "mlp" / "assignment.yaml").write_text("title: [unclosed\n")
    subs = tmp_path / "subs"
    shutil.copytree(ROOT / "examples" / "submissions" / "correct_recursive", subs / "alice")
    assert main(["--course", str(course), "grade", str(subs), "-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "assignments/mlp/assignment.yaml" in err and "not valid YAML" in err
    assert not (tmp_path / "out" / "grades.csv").exists()


def test_an_import_of_a_package_outside_the_standard_library_says_why_it_fails(tmp_path):
    """7 of 23 real engines import numpy or matplotlib: the feedback says the grader has the standard library only."""
    H.write(tmp_path / "subs" / "numpy_user", H.with_import_code("import numpy as np", H.CORRECT))
    assert main(["--course", str(ROOT), "grade", str(tmp_path / "subs"), "-o", str(tmp_path / "out"),
                 "-a", "value_ops"]) == 0
    feedback = (tmp_path / "out" / "value_ops" / "numpy_user" / "feedback.md").read_text(encoding="utf-8")
    assert "No module named 'numpy'" in feedback
    assert "the standard library only (numpy, matplotlib and other packages are not installed)" in feedback
