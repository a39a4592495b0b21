"""The term's inputs in one record (grader.grading.term_inputs), read once by load_term_inputs and checked together:
what grading is given is what the files said when the run began, and a file that contradicts another stops the run
before anything is graded."""

from __future__ import annotations

import dataclasses
import json
from datetime import datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from grader.course.course import Course
from grader.course.roster import MISSING_REMEDY
from grader.errors import ConfigError, GraderError
from grader.grading.term_check import load_term_inputs

PARIS = ZoneInfo("Europe/Paris")
DUE = datetime(2026, 11, 30, 23, 59, tzinfo=PARIS)
ROSTER = "student,github,email\nalice,alice-gh,alice@example.edu\nbob,,bob@example.edu\n"
EXTENSIONS = "student,assignment,due,extra,reason\nalice-gh,a1,,2d,medical\n"


def assignment(root: Path, aid: str, extra: str = "") -> None:
    (root / "assignments" / aid).mkdir(parents=True)
    (root / "assignments" / aid / "assignment.yaml").write_text(
        f"title: {aid}\nfiles: [micrograd/engine.py]\npoints: 10\n{extra}", encoding="utf-8")


@pytest.fixture
def course(tmp_path: Path) -> Course:
    """A course of three assignments (a2 not handed out), its term files in ``term/``, a class of alice and bob."""
    root = tmp_path / "course"
    assignment(root, "a1", "due: 2026-11-30T23:59\nlate: {penalty: 10%}\norder: 1\n")
    assignment(root, "a2", "released: false\norder: 2\n")
    assignment(root, "a3", "due: 2026-12-07T23:59Z\norder: 3\n")
    (tmp_path / "term").mkdir()
    (tmp_path / "term" / "roster.csv").write_text(ROSTER, encoding="utf-8")
    (tmp_path / "term" / "extensions.csv").write_text(EXTENSIONS, encoding="utf-8")
    (root / "assignments" / "course.yaml").write_text(
        "time_zone: Europe/Paris\nroster: ../term/roster.csv\nextensions: ../term/extensions.csv\n")
    for name in ("alice", "bob"):
        (tmp_path / "subs" / name).mkdir(parents=True)
    return Course(root)


def subs(course: Course) -> Path:
    return course.root.parent / "subs"


def test_the_record_holds_every_input_of_the_term_and_is_frozen(course):
    term = load_term_inputs(course, subs(course))
    assert [a.id for a in term.assignments] == ["a1", "a3"]  # the released ones, in course order
    assert [a.id for a in term.every] == ["a1", "a2", "a3"] and list(term.unreleased) == ["a2"]
    assert term.zone == PARIS and term.override is None
    assert [(s.student, s.github) for s in term.roster] == [("alice", "alice-gh"), ("bob", "")]
    assert [(e.student, e.assignment, e.extra, e.reason) for e in term.extensions] == [
        ("alice-gh", "a1", 2 * 86400, "medical")]
    assert [p.name for p in term.entries] == ["alice", "bob"] and term.pushes is None
    assert term.roster_file == course.root / "../term/roster.csv" and term.warnings == ()
    with pytest.raises(dataclasses.FrozenInstanceError):
        term.roster = ()  # type: ignore[misc]


def test_each_students_due_dates_come_from_the_record_not_the_files_read_again(course):
    term = load_term_inputs(course, subs(course))
    for name in ("roster.csv", "extensions.csv"):
        (course.root.parent / "term" / name).unlink()
    (course.root / "assignments" / "course.yaml").write_text("time_zone: Nowhere/Atlantis\n")
    dues = term.dues("alice")  # the submission's name finds the extension given to her GitHub name via the roster
    assert dues["a1"] is not None and dues["a1"].due == DUE + timedelta(days=2)
    assert dues["a1"].extension is not None and dues["a1"].extension.line == 2
    assert dues["a3"] is not None and dues["a3"].due == datetime(2026, 12, 7, 23, 59, tzinfo=timezone.utc)
    bob = term.dues("bob")["a1"]
    assert bob is not None and bob.due == DUE and bob.extension is None
    assert term.due_lines() == [
        "Due: a1 2026-11-30T23:59:00+01:00 (2026-11-30T22:59:00Z, assignment.yaml); late work loses 10% of the "
        "points per started day after the due date.",
        "Due: a3 2026-12-07T23:59:00+00:00 (2026-12-07T23:59:00Z, assignment.yaml); late work loses no points.",
        "Extensions: 1 row(s) of the extensions file apply to these assignments"]


def test_the_command_line_names_other_files_a_deadline_and_unreleased_work(course, tmp_path):
    other = tmp_path / "other.csv"
    other.write_text("student,github\nalice,alice-gh\nbob,\ncarol,\n", encoding="utf-8")
    term = load_term_inputs(course, subs(course), assignment_ids=["a2"], deadline="2026-12-01T12:00", roster=other)
    assert [a.id for a in term.assignments] == ["a2"]  # named: graded though not handed out
    assert term.override == datetime(2026, 12, 1, 12, 0, tzinfo=PARIS)  # in the course's time zone
    assert [s.student for s in term.roster] == ["alice", "bob", "carol"] and term.roster_file == other
    assert term.roster_problems(["alice", "mallory"]) == [
        "graded but not on the roster: mallory", f"on the roster with no grades (missing): bob, carol ({MISSING_REMEDY})"]
    assert term.due_lines()[0].startswith("Due: a2 2026-12-01T12:00:00+01:00 (2026-12-01T11:00:00Z, --deadline)")


@pytest.mark.parametrize(("rows", "where", "words"), [
    ("alice,a9,,1d,\n", "line 2, assignment", "'a9' is not an assignment; known: a1, a2, a3 (or * for all)"),
    ("alcie,a1,,1d,\n", "line 2, student", "'alcie' is neither on the roster nor the name of a submission"),
    ("bob,*,2026-11-01,,\n", "line 2, due", "is before a1's due date"),
    ("alice,a1,,1d,\nalice-gh,a1,,2d,\n", "line 3, student", "are one student, given two extensions for 'a1'"),
])
def test_an_extension_that_contradicts_the_course_the_roster_or_the_class_stops_the_load(course, rows, where, words):
    path = course.root / "../term/extensions.csv"  # as course.yaml names it
    path.write_text("student,assignment,due,extra,reason\n" + rows, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_term_inputs(course, subs(course))
    assert caught.value.path == str(path) and caught.value.key == where and words in caught.value.message


def test_without_a_roster_an_extension_for_nobody_is_a_warning_in_the_record(course):
    (course.root / "assignments" / "course.yaml").write_text("time_zone: Europe/Paris\nextensions: "
                                                             "../term/extensions.csv\n")
    (course.root.parent / "term" / "extensions.csv").write_text("student,assignment,due,extra,reason\n"
                                                                "dave,a1,,1d,\n", encoding="utf-8")
    term = load_term_inputs(course, subs(course))
    assert term.roster == () and len(term.warnings) == 1
    assert "line 2: 'dave' names no submission (and there is no roster to find them on)" in term.warnings[0]


def test_push_records_are_read_once_by_submission_name_and_checked_against_the_class(course, tmp_path):
    pushes = tmp_path / "pushes"
    pushes.mkdir()
    record = {"ref": "refs/heads/main", "after": "a" * 40, "timestamp": "2026-11-30T20:00:00Z",
              "activity_type": "push"}
    (pushes / "alice.json").write_text(json.dumps([record]))
    (pushes / "zed.json").write_text("[]")
    term = load_term_inputs(course, subs(course), pushes=pushes)
    alice = term.pushes_of("alice")
    assert alice is not None and [(p.ref, p.time) for p in alice] == [
        ("refs/heads/main", datetime(2026, 11, 30, 20, 0, tzinfo=timezone.utc))]
    assert term.pushes_of("bob") == ()  # records given, none of bob's: dated by commit dates, with a note
    assert any("1 record(s) in" in w and "zed" in w for w in term.warnings)
    (pushes / "alice.json").write_text("{not json")
    with pytest.raises(ConfigError) as caught:
        load_term_inputs(course, subs(course), pushes=pushes)
    assert caught.value.path == str(pushes / "alice.json")


@pytest.mark.parametrize(("change", "error", "words"), [
    (lambda c: (c.root / "assignments" / "course.yaml").write_text("time_zone: Nowhere/Atlantis\n"), ConfigError,
     "unknown time zone 'Nowhere/Atlantis'"),
    (lambda c: (c.root.parent / "term" / "roster.csv").write_bytes(b"student\n\xff\n"), ConfigError,
     "the roster is not UTF-8"),
    (lambda c: (c.root / "assignments" / "a3" / "assignment.yaml").write_text("title: a3\n"), ConfigError,
     "files"),
])
def test_a_broken_term_file_stops_the_load_naming_it(course, change, error, words):
    change(course)
    with pytest.raises(error, match=words):
        load_term_inputs(course, subs(course))


def test_a_wrong_choice_of_assignments_or_deadline_or_class_folder_is_an_error(course):
    with pytest.raises(GraderError, match="no assignment 'a9' in .*available: a1, a2, a3"):
        load_term_inputs(course, subs(course), assignment_ids=["a9"])
    with pytest.raises(GraderError, match="assignment 'a1' given more than once"):
        load_term_inputs(course, subs(course), assignment_ids=["a1", "a1"])
    with pytest.raises(GraderError, match="cannot read the deadline 'friday'"):
        load_term_inputs(course, subs(course), deadline="friday")
    with pytest.raises(GraderError, match="is not a folder of submissions"):
        load_term_inputs(course, course.root / "nowhere")
