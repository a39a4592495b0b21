"""The term's settings (assignments/course.yaml) and an assignment's due date: clear errors, and a student's copy
that still loads without the instructor's roster and extensions."""

from __future__ import annotations

import shutil
import zipfile
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from checkout import ROOT

from grader.course.course import Course, find_course
from grader.course.gradescope_zip import build_zip
from grader.course.student_release import build_release
from grader.errors import ConfigError
from grader.questions.sheet import answer_templates


@pytest.fixture
def course(course_copy: Path) -> Course:
    """A copy of the course: value_ops due in the course's time zone, with a roster."""
    root = course_copy
    (root / "assignments" / "course.yaml").write_text(
        "time_zone: Europe/Paris\nroster: private/roster.csv\nextensions: private/extensions.csv\n")
    yaml = root / "assignments" / "value_ops" / "assignment.yaml"
    yaml.write_text(yaml.read_text() + "due: 2026-11-30T23:59\nlate: {penalty: 10%, cutoff: 2d}\n")
    return Course(root)


def test_a_due_date_without_an_offset_is_in_the_courses_time_zone(course: Course) -> None:
    a = course.assignment("value_ops")
    assert a.due == datetime(2026, 11, 30, 23, 59, tzinfo=ZoneInfo("Europe/Paris"))
    assert a.late.penalty == pytest.approx(0.1) and a.late.cutoff == 2 * 86400
    assert course.term.roster == course.root / "private" / "roster.csv"
    assert course.assignment("mlp").due is None  # no due date: nothing is assessed


@pytest.mark.parametrize(("course_yaml", "extra", "where", "words"), [
    ("time_zone: Mars/Olympus\n", "", "course.yaml: time_zone", "unknown time zone"),
    ("timezone: Europe/Paris\n", "", "course.yaml: timezone", "unknown key"),
    ("roster: 12\n", "", "course.yaml: roster", "expected a path"),
    ("", "due: 2026-11-30T23:59\n", "assignment.yaml: due", "no UTC offset and the course sets no time zone"),
    ("", "late: {penalty: 10%}\n", "assignment.yaml: late", "without a due date"),
    ("", "due: 2026-11-30T23:59Z\nlate: {penalty: 10%, per: week}\n", "assignment.yaml: late.per", "day or hour"),
])
def test_a_wrong_term_setting_names_the_file_and_the_key(tmp_path: Path, course_yaml: str, extra: str, where: str,
                                                         words: str) -> None:
    root = tmp_path / "course"
    shutil.copytree(ROOT / "assignments", root / "assignments", ignore=shutil.ignore_patterns("__pycache__"))
    (root / "assignments" / "course.yaml").write_text(course_yaml)
    yaml = root / "assignments" / "value_ops" / "assignment.yaml"
    yaml.write_text(yaml.read_text() + extra)
    with pytest.raises(ConfigError) as caught:
        assert Course(root).term is not None  # what grader grade reads first
        Course(root).assignments()
    assert where in str(caught.value) and words in str(caught.value)


def test_a_students_copy_has_the_time_zone_but_not_where_the_roster_is(course: Course, tmp_path: Path) -> None:
    release = tmp_path / "release"
    build_release(course, release, answer_templates=answer_templates(course))
    assert (release / "assignments" / "course.yaml").read_text() == "time_zone: Europe/Paris\n"
    copy = find_course(release)
    assert copy.assignment("value_ops").due == course.assignment("value_ops").due  # the self-check loads it
    assert copy.term.roster is None and copy.term.extensions is None
    made = build_zip(course, "value_ops", tmp_path / "gradescope.zip")
    assert "assignments/course.yaml" in made.members
    with zipfile.ZipFile(tmp_path / "gradescope.zip") as zf:
        assert zf.read("assignments/course.yaml") == b"time_zone: Europe/Paris\n"


def test_the_command_lines_deadline_without_an_offset_is_in_the_courses_time_zone() -> None:
    from grader.course.late_policy import parse_deadline

    paris = ZoneInfo("Europe/Paris")
    assert parse_deadline("2026-11-30T23:59", paris) == datetime(2026, 11, 30, 23, 59, tzinfo=paris)
    assert parse_deadline("2026-11-30T23:59Z", paris) == datetime(2026, 11, 30, 23, 59, tzinfo=ZoneInfo("UTC"))
