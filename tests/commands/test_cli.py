"""The command line: instructor errors exit 2 with a message saying what to fix."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from checkout import ROOT
from doc_quotes import assert_quoted

from grader.cli import main


@pytest.fixture
def course_copy(tmp_path) -> Path:
    """A private copy of the course (assignments and reference), safe to break."""
    course = tmp_path / "course"
    for part in ("assignments", "reference", "student_template"):
        shutil.copytree(ROOT / part, course / part, ignore=shutil.ignore_patterns("__pycache__"))
    return course


@pytest.fixture
def one_submission(tmp_path) -> Path:
    subs = tmp_path / "subs"
    shutil.copytree(ROOT / "reference", subs / "alice", ignore=shutil.ignore_patterns("__pycache__"))
    return subs


def test_missing_submissions_folder(capsys, tmp_path):
    assert main(["--course", str(ROOT), "grade", str(tmp_path / "nope"), "-o", str(tmp_path / "out")]) == 2
    assert "is not a folder of submissions" in capsys.readouterr().err


def test_empty_submissions_folder(capsys, tmp_path):
    (tmp_path / "subs").mkdir()
    assert main(["--course", str(ROOT), "grade", str(tmp_path / "subs"), "-o", str(tmp_path / "out")]) == 2
    assert "no submissions found" in capsys.readouterr().err


def test_unknown_assignment_lists_the_available_ones(capsys, one_submission, tmp_path):
    assert main(["--course", str(ROOT), "grade", str(one_submission), "-a", "nope", "-o", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "no assignment 'nope'" in err and "value_ops" in err and "mlp" in err


def test_folder_without_assignments_is_not_a_course(capsys, tmp_path, one_submission):
    assert main(["--course", str(tmp_path), "grade", str(one_submission)]) == 2
    assert "not a course folder" in capsys.readouterr().err


def test_broken_assignment_yaml_names_file_and_key(capsys, course_copy, one_submission, tmp_path):
    yaml_path = course_copy / "assignments" / "value_ops" / "assignment.yaml"
    yaml_path.write_text(yaml_path.read_text().replace("memory_mb: 1024", "memory_mb: lots"))
    assert main(["--course", str(course_copy), "grade", str(one_submission), "-o", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert str(yaml_path) in err and "limits.memory_mb" in err
    assert_quoted("reference/exit-statuses.md", 0, err, masks=[(f"{course_copy}/", "")])  # its path in the course


def test_points_that_do_not_add_up_are_an_instructor_error(capsys, course_copy, one_submission, tmp_path):
    yaml_path = course_copy / "assignments" / "value_ops" / "assignment.yaml"
    yaml_path.write_text(yaml_path.read_text().replace("points: 40", "points: 41"))
    status = main(["--course", str(course_copy), "grade", str(one_submission), "-a", "value_ops", "-o", str(tmp_path / "o")])
    assert status == 2
    assert "add up to 40" in capsys.readouterr().err


def test_stale_template_is_detected_and_regenerated(capsys, course_copy):
    engine = course_copy / "student_template" / "micrograd" / "engine.py"
    engine.write_text(engine.read_text() + "\n# edited by hand\n")
    assert main(["--course", str(course_copy), "template", "--check"]) == 1
    assert "micrograd/engine.py" in capsys.readouterr().err
    assert main(["--course", str(course_copy), "template"]) == 0
    assert main(["--course", str(course_copy), "template", "--check"]) == 0


def test_jobs_must_be_positive(capsys, one_submission):
    with pytest.raises(SystemExit) as exc:
        main(["grade", str(one_submission), "-j", "0"])
    assert exc.value.code == 2


def test_relative_paths_work_from_inside_the_course(tmp_path, monkeypatch, capsys):
    """The README's quick start: `grader grade examples/submissions` run from the course folder."""
    course = tmp_path / "course"
    for part in ("assignments", "reference"):
        shutil.copytree(ROOT / part, course / part, ignore=shutil.ignore_patterns("__pycache__", "variants"))
    shutil.copytree(ROOT / "examples" / "submissions" / "correct_recursive", course / "subs" / "alice")
    monkeypatch.chdir(course)
    assert main(["grade", "subs", "-a", "value_ops", "-o", "grading-output"]) == 0
    assert (course / "grading-output" / "grades.csv").read_text().splitlines()[1] == "alice,40,40,"
