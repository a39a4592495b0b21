"""`grader new-assignment ID` writes an assignment that template, validate, release, gradescope and grade take as it
is, with no change to the grader."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import pytest

from grader.cli import main


@pytest.fixture
def course(course_copy: Path) -> Path:
    return course_copy


def test_a_new_assignment_works_with_every_command_as_scaffolded(course, tmp_path, capsys):
    assert main(["--course", str(course), "new-assignment", "demo_ops", "--title", "Demo"]) == 0
    folder = course / "assignments" / "demo_ops"
    for name in ("assignment.yaml", "README.md", "probes.py", "bugs.yaml", "tests/public/test_demo_ops_public.py",
                 "tests/hidden/test_demo_ops_hidden.py"):
        assert (folder / name).is_file(), name
    assert (course / "reference" / "micrograd" / "demo_ops.py").is_file()
    assert main(["--course", str(course), "template"]) == 0
    assert "Task" in (course / "student_template" / "micrograd" / "demo_ops.py").read_text()
    capsys.readouterr()
    assert main(["--course", str(course), "validate", "-a", "demo_ops"]) == 0, capsys.readouterr().out
    assert main(["--course", str(course), "release", "-o", str(tmp_path / "release")]) == 0
    release = tmp_path / "release"
    assert (release / "assignments" / "demo_ops" / "probes.py").is_file()
    assert (release / "notebooks" / "demo_ops.ipynb").is_file()
    assert not (release / "assignments" / "demo_ops" / "tests" / "hidden").exists()
    assert main(["--course", str(course), "gradescope", "-a", "demo_ops", "-o", str(tmp_path / "gs.zip")]) == 0
    with zipfile.ZipFile(tmp_path / "gs.zip") as zf:
        names = set(zf.namelist())
    assert {"assignments/demo_ops/probes.py", "reference/micrograd/demo_ops.py",
            "assignments/shared/probes/engine_probes.py"} <= names
    subs = tmp_path / "subs"
    shutil.copytree(course / "reference" / "micrograd", subs / "alice" / "micrograd")
    (subs / "bob" / "micrograd").mkdir(parents=True)
    (subs / "bob" / "micrograd" / "demo_ops.py").write_text("def square(x):\n    return x + x\n")
    out = tmp_path / "out"
    assert main(["--course", str(course), "grade", str(subs), "-a", "demo_ops", "-o", str(out), "-j", "1"]) == 0
    scores = {s: json.loads((out / "demo_ops" / s / "results.json").read_text())["score"] for s in ("alice", "bob")}
    assert scores["alice"] == 2.0
    assert scores["bob"] == pytest.approx(0.5)  # right at 2.0, wrong at -3.0 and on every random input


def test_an_existing_folder_or_a_bad_id_is_refused_and_nothing_is_written(course, capsys):
    before = sorted(p.name for p in (course / "assignments").iterdir())
    assert main(["--course", str(course), "new-assignment", "mlp"]) == 2
    assert "exists already" in capsys.readouterr().err
    assert main(["--course", str(course), "new-assignment", "Bad-Name"]) == 2
    assert main(["--course", str(course), "new-assignment", "shared"]) == 2
    assert sorted(p.name for p in (course / "assignments").iterdir()) == before


def test_a_new_concept_check_works_with_every_command_as_scaffolded(course, tmp_path, capsys):
    assert main(["--course", str(course), "new-assignment", "quiz", "--kind", "questions", "--title", "Quiz"]) == 0
    folder = course / "assignments" / "quiz"
    for name in ("assignment.yaml", "README.md", "questions.yaml", "tests/public/test_answers_form.py",
                 "tests/hidden/test_answers.py"):
        assert (folder / name).is_file(), name
    assert (course / "reference" / "answers" / "quiz.yaml").is_file()
    assert main(["--course", str(course), "template", "--check"]) == 0  # nothing of a concept check is a template
    capsys.readouterr()
    assert main(["--course", str(course), "validate", "-a", "quiz"]) == 0, capsys.readouterr().out
    subs = tmp_path / "subs"
    (subs / "alice" / "answers").mkdir(parents=True)
    (subs / "alice" / "answers" / "quiz.yaml").write_text("add_local: a\nchain: 0\ndsquare: x + x\n", encoding="utf-8")
    out = tmp_path / "out"
    assert main(["--course", str(course), "grade", str(subs), "-a", "quiz", "-o", str(out)]) == 0
    tests = json.loads((out / "quiz" / "alice" / "results.json").read_text())["tests"]
    assert {t["name"]: t["score"] for t in tests if t["max_score"]} == {
        "Question add_local": 1, "Question chain": 0, "Question dsquare": 1}  # chain's answer is alice's own b, never 0
    assert main(["--course", str(course), "new-assignment", "quiz2", "--kind", "questions"]) == 0
    (course / "assignments" / "quiz2").rename(tmp_path / "moved")
    assert main(["--course", str(course), "new-assignment", "quiz2", "--kind", "questions"]) == 2  # its key is there
