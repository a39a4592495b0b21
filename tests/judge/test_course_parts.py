"""The judge's own copy of the grader's parts (``assignments/shared/parts``, never released)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from checkout import ROOT

from grader.course.course import Course
from grader.errors import GraderError
from grader.judge.state import use_course_parts
from grader.sandbox import own_parts


@pytest.fixture
def course_without_parts(tmp_path: Path):
    course = tmp_path / "course"
    for name in ("assignments", "reference", "student_template"):
        shutil.copytree(ROOT / name, course / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.rmtree(course / "assignments" / "shared" / "parts")
    return Course(course)  # (tests/conftest.py gives the next test the course's parts back)


def test_the_judge_loads_the_parts_its_assignments_name(tmp_path):
    course = Course(ROOT)
    assert use_course_parts(course, course.assignments(["mlp"]), required=True) == [
        "activations_judge", "graph_backward", "local_gradients", "network_judge", "recording", "stand_ins"]
    assert own_parts.get("stand_ins").Value(2.0).tanh().data == pytest.approx(0.9640275800758169)


def test_hidden_grading_without_a_part_is_an_instructor_error_naming_the_file(course_without_parts):
    with pytest.raises(GraderError, match=r"hidden grading needs the grader's part 'local_gradients'.*local_gradients\.py"):
        use_course_parts(course_without_parts, course_without_parts.assignments(["value_ops"]), required=True)


def test_a_self_check_without_parts_runs_on_the_students_own_code(course_without_parts):
    assert use_course_parts(course_without_parts, course_without_parts.assignments(["mlp"]), required=False) == []
    assert own_parts.get("stand_ins") is None and own_parts.get("local_gradients") is None


def test_a_part_is_a_module_name_of_the_parts_folder_never_a_path(tmp_path):
    own_parts.use(str(tmp_path))  # (tests/conftest.py gives the next test the course's parts back)
    for name in ("../engine", "stand_ins.py", "", "A" * 41):
        with pytest.raises(own_parts.PartsError):
            own_parts.load(name)
    (tmp_path / "broken.py").write_text("raise RuntimeError('no')\n")
    with pytest.raises(own_parts.PartsError, match="failed to import: RuntimeError: no"):
        own_parts.load("broken")
