"""`grader validate`: the suite's strength, measured on the real course and on broken catalogues."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from grader.cli import main
from grader.course.catalogue import load_bugs
from grader.course.config import Course
from grader.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2]


def test_the_real_course_validates_with_no_miss(capsys):
    """Reference full marks, template 0, every correct variant full marks, every catalogued bug caught."""
    status = main(["--course", str(ROOT), "validate"])
    out = capsys.readouterr().out
    assert status == 0, out[-4000:]
    assert "No misses" in out


def test_the_catalogue_is_large_and_covers_every_assignment():
    course = Course(ROOT)
    bugs = {a.id: load_bugs(a, course.reference_dir) for a in course.assignments()}
    assert sum(len(b) for b in bugs.values()) >= 45
    assert all(len(b) >= 8 for b in bugs.values())
    assert len(list((ROOT / "reference" / "variants").glob("*/micrograd/engine.py"))) >= 6


@pytest.fixture
def small_course(tmp_path):
    course = tmp_path / "course"
    for part in ("assignments", "reference", "student_template"):
        shutil.copytree(ROOT / part, course / part, ignore=shutil.ignore_patterns("__pycache__", "variants"))
    for bugs in (course / "assignments").glob("*/bugs.yaml"):
        bugs.unlink()
    return course


def write_bugs(course: Path, entries: list[dict]) -> None:
    (course / "assignments" / "value_ops" / "bugs.yaml").write_text(yaml.safe_dump(entries, sort_keys=False))


MUL_FIND = "            self.grad += other.data * out.grad\n"


def test_an_uncaught_or_misattributed_bug_is_a_miss(small_course, capsys):
    write_bugs(small_course, [
        {"id": "harmless", "method": "Value.__mul__", "description": "a comment only",
         "file": "micrograd/engine.py", "find": MUL_FIND, "replace": MUL_FIND.rstrip("\n") + "  # note\n",
         "caught_by": ["test_reuse"]},
        {"id": "mul_overwrites", "method": "Value.__mul__", "description": "= instead of +=",
         "file": "micrograd/engine.py", "find": MUL_FIND, "replace": MUL_FIND.replace("+=", "="),
         "caught_by": ["test_plain_numbers_both_sides"]},
    ])
    assert main(["--course", str(small_course), "validate", "-a", "value_ops"]) == 1
    out = capsys.readouterr().out
    assert "harmless: not caught" in out
    assert "mul_overwrites: expected test_plain_numbers_both_sides to catch it; caught by" in out
    assert "test_reuse" in out.split("mul_overwrites: expected")[1]


def test_a_find_text_that_is_not_in_the_reference_names_the_entry(small_course):
    write_bugs(small_course, [{"id": "ghost", "method": "Value.__mul__", "description": "x", "file": "micrograd/engine.py",
                               "find": "not in the file", "replace": "y", "caught_by": ["test_reuse"]}])
    course = Course(small_course)
    with pytest.raises(ConfigError, match=r"bugs.yaml: \[0\] \(ghost\).find: occurs 0 times"):
        load_bugs(course.assignment("value_ops"), course.reference_dir)
