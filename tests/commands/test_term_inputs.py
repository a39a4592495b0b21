"""Where a term's features meet: each input a term can get wrong, checked before it changes a grade.

Grading one assignment a week into one folder keeps the earlier weeks; an assignment not handed out is not graded
by default; a class copied without its file times is never zeroed; an extension row that matches nobody, moves a
due date earlier or runs past the year 9999 is named before anything is graded; a repository without a push record
is named; a pushed commit force-pushed away is its student's error, never the class's.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from checkout import ROOT
from doc_quotes import assert_quoted
from test_term import commit_at

from grader.cli import main
from grader.course.course import Course
from grader.errors import ConfigError
from grader.grading.term_check import load_term_inputs
from grader.grading.term_inputs import TermInputs

EXAMPLES = ROOT / "examples" / "submissions"
LATER = ("mlp", "forward_mode", "graph", "classifier", "gradcheck", "checkpoint", "modules", "checkpointing")
"""The assignments not handed out yet in these tests' course (value_ops and backward are)."""


def rows_of(out: Path) -> dict[str, dict[str, str]]:
    with open(out / "grades.csv", encoding="utf-8") as f:
        return {r["student"]: r for r in csv.DictReader(f)}


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The course with value_ops and backward handed out, the other five not yet (``released: false``)."""
    root = tmp_path_factory.mktemp("term-inputs") / "course"
    for name in ("assignments", "reference", "student_template"):
        shutil.copytree(ROOT / name, root / name, ignore=shutil.ignore_patterns("__pycache__"))
    for aid in LATER:
        yaml = root / "assignments" / aid / "assignment.yaml"
        yaml.write_text(yaml.read_text() + "released: false\n")
    return root


def with_policy(course: Path, tmp: Path, policy: str, term: str = "") -> Path:
    """A copy of ``course`` whose value_ops has ``policy`` (YAML lines) and whose course.yaml is ``term``."""
    copy = tmp / "course"
    shutil.copytree(course, copy)
    yaml = copy / "assignments" / "value_ops" / "assignment.yaml"
    yaml.write_text(yaml.read_text() + policy)
    if term:
        (copy / "assignments" / "course.yaml").write_text(term)
    return copy


def test_each_week_graded_into_one_folder_keeps_the_earlier_weeks_and_the_unreleased_stay_out(course, tmp_path,
                                                                                                capsys):
    subs = tmp_path / "subs"
    for name in ("correct_recursive", "template_unchanged"):
        shutil.copytree(EXAMPLES / name, subs / name)
    out = tmp_path / "out"
    assert main(["--course", str(course), "grade", str(subs), "-a", "value_ops", "-o", str(out)]) == 0
    assert main(["--course", str(course), "grade", str(subs), "-a", "backward", "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "(also value_ops, graded into it by earlier runs)" in printed
    rows = rows_of(out)
    assert rows["correct_recursive"]["value_ops"] == "40" and rows["correct_recursive"]["backward"] == "50"
    assert float(rows["correct_recursive"]["total"]) == 90

    # the default grades what is released, and only the work not graded yet: nothing is re-graded, nothing added
    capsys.readouterr()
    assert main(["--course", str(course), "grade", str(subs), "-o", str(out)]) == 0
    printed = capsys.readouterr()
    assert "Not released yet, so not graded: " + ", ".join(LATER) in printed.err
    assert_quoted("how-to/term.md", "Not released yet, so not graded", printed.err)
    assert "Graded 0 submission(s) on 2 assignment(s)" in printed.out
    assert not any((out / aid).exists() for aid in LATER)

    # a student who joins later, graded on backward only: value_ops is empty, not 0, and says why
    shutil.copytree(EXAMPLES / "correct_recursive", subs / "late_joiner")
    assert main(["--course", str(course), "grade", str(subs), "-a", "backward", "-o", str(out)]) == 0
    joiner = rows_of(out)["late_joiner"]
    assert joiner["value_ops"] == "" and joiner["backward"] == "50"
    assert "value_ops: not graded in this folder" in joiner["notes"]

    # the report shows both weeks, nothing of what is not out; -a narrows it
    capsys.readouterr()
    assert main(["--course", str(course), "report", str(out)]) == 0
    html = (out / "report.html").read_text(encoding="utf-8")
    assert 'id="dist-value_ops"' in html or "value_ops" in html
    assert "backward" in html and "forward.py" not in html
    assert "missing micrograd/forward.py" not in capsys.readouterr().out
    assert main(["--course", str(course), "report", str(out), "-a", "backward"]) == 0


def test_a_class_copied_without_its_file_times_is_graded_without_the_due_date_and_says_so(course, tmp_path, capsys):
    """`cp -r` after the due date: every file time is the copy's. Zeroed before ("after the cut-off"); now graded
    without the due date, named on the terminal with the remedy, and each feedback says why."""
    graded = with_policy(course, tmp_path, "due: 2026-11-01T23:59Z\nlate: {penalty: 10%, cutoff: 3d}\n")
    subs = tmp_path / "subs"
    for name in ("alice", "bob"):
        shutil.copytree(EXAMPLES / "correct_recursive", subs / name, copy_function=shutil.copy)  # cp -r: new times
    out = tmp_path / "out"
    assert main(["--course", str(graded), "grade", str(subs), "-a", "value_ops", "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "Due dates not applied to the late work of 2 submission(s)" in err and "alice, bob" in err
    assert "cp -p" in err
    rows = rows_of(out)
    assert rows["alice"]["value_ops"] == "40" and rows["alice"]["value_ops.late"] == "no time recorded"
    feedback = (out / "value_ops" / "alice" / "feedback.md").read_text(encoding="utf-8")
    assert "when they were copied, not handed in" in feedback and "was not applied" in feedback

    # copied together an hour ago (three or more, all within minutes of one another): the same
    hour_ago = time.time() - 3600
    together = tmp_path / "together"
    for i, name in enumerate(("alice", "bob", "carol")):
        shutil.copytree(EXAMPLES / "correct_recursive", together / name, copy_function=shutil.copy)
        for path in (together / name).rglob("*"):
            if path.is_file():
                os.utime(path, (hour_ago + i * 30, hour_ago + i * 30))
    assert main(["--course", str(graded), "grade", str(together), "-a", "value_ops", "-o", str(tmp_path / "o2")]) == 0
    err = capsys.readouterr().err
    assert "3 submission(s) dated by file modification times that lie within 1 min of one another (3 of the 3" in err
    assert [rows_of(tmp_path / "o2")[s]["value_ops"] for s in ("alice", "bob", "carol")] == ["40"] * 3
    assert_quoted("how-to/term.md", "Due dates not applied", err)

    # one more, copied with its true times (12 h 1 min late): it pays the policy; the three copies still do not
    shutil.copytree(EXAMPLES / "correct_recursive", together / "dave")
    for path in (together / "dave").rglob("*.py"):
        os.utime(path, (datetime(2026, 11, 2, 12, tzinfo=timezone.utc).timestamp(),) * 2)
    assert main(["--course", str(graded), "grade", str(together), "-a", "value_ops", "-o", str(tmp_path / "o2")]) == 0
    err = capsys.readouterr().err
    assert "late work of 3 submission(s) dated by file modification times that lie within 1 min of one another (3 " \
           "of the 4 dated so)" in err
    rows = rows_of(tmp_path / "o2")
    assert rows["dave"]["value_ops"] == "36" and rows["dave"]["value_ops.late"] == "1 started day"
    assert [rows[s]["value_ops"] for s in ("alice", "bob", "carol")] == ["40"] * 3
    assert "Late work: value_ops: 1 late (1 by file modification times)" in err


def term_inputs(course_root: Path, tmp: Path, extensions: str, roster: str | None, names: tuple[str, ...]) -> TermInputs:
    """The term's inputs as ``grader grade -a value_ops --deadline DUE`` reads them: these extensions and roster, a
    class of ``names``."""
    path = tmp / "extensions.csv"
    path.write_text(extensions, encoding="utf-8")
    if roster is not None:
        (tmp / "roster.csv").write_text(roster, encoding="utf-8")
    for n in names:
        (tmp / "subs" / n).mkdir(parents=True, exist_ok=True)
    return load_term_inputs(Course(course_root), tmp / "subs", assignment_ids=["value_ops"],
                            deadline="2026-11-30T23:59Z", extensions=path,
                            roster=tmp / "roster.csv" if roster is not None else None)


ROSTER = "student,github,email\nalice,alice-gh,alice@example.edu\nbob,,bob@example.edu\n"
DUE = datetime(2026, 11, 30, 23, 59, tzinfo=timezone.utc)


def test_an_extension_for_a_student_nobody_knows_is_an_error_with_a_roster_and_a_warning_without(course, tmp_path):
    with pytest.raises(ConfigError, match=r"extensions.csv: line 2, student: 'alcie' is neither on the roster nor the "
                                          r"name of a submission.*did you mean 'alice'\?"):
        term_inputs(course, tmp_path, "student,assignment,due,extra,reason\nalcie,value_ops,,2d,\n", ROSTER,
                    ("alice", "bob"))
    warnings = term_inputs(course, tmp_path, "student,assignment,due,extra,reason\nalcie,value_ops,,2d,\n", None,
                           ("alice", "bob")).warnings
    assert len(warnings) == 1 and "line 2: 'alcie' names no submission" in warnings[0]
    # by the roster's id, its GitHub name or the submission's name: every one is known, and applies
    good = term_inputs(course, tmp_path, "student,assignment,due,extra,reason\nalice-gh,value_ops,,2d,\nbob,*,,1h,\n",
                       ROSTER, ("alice", "bob"))
    assert good.warnings == ()
    assert good.dues("alice")["value_ops"].due == DUE + timedelta(days=2)


def test_an_extension_that_moves_a_due_date_earlier_is_an_error_naming_the_line_and_the_assignment(course, tmp_path):
    with pytest.raises(ConfigError, match=r"line 2, due: 2026-11-20T23:59:00\+00:00 is before value_ops's due date "
                                          r"2026-11-30T23:59:00\+00:00"):
        term_inputs(course, tmp_path, "student,assignment,due,extra,reason\nbob,*,2026-11-20T23:59Z,,\n", ROSTER,
                    ("alice", "bob"))


def test_two_extensions_for_one_student_under_two_of_their_names_is_an_error_before_grading(course, tmp_path):
    with pytest.raises(ConfigError, match="line 3, student.*are one student, given two extensions"):
        term_inputs(course, tmp_path, "student,assignment,due,extra,reason\nalice,value_ops,,1d,\n"
                                      "alice-gh,value_ops,,2d,\n", ROSTER, ("alice",))


def test_a_placeholder_due_date_with_an_extension_stays_at_the_end_of_9999_and_says_so(course, tmp_path, capsys):
    """Before: OverflowError, a traceback. A due date that far is a placeholder: graded on time, with a warning."""
    graded = with_policy(course, tmp_path, "due: 9999-12-31\nlate: {penalty: 10%, cutoff: 3d}\n",
                         "time_zone: America/New_York\n")
    subs = tmp_path / "subs"
    shutil.copytree(EXAMPLES / "correct_recursive", subs / "alice")
    extensions = tmp_path / "extensions.csv"
    extensions.write_text("student,assignment,due,extra,reason\nalice,value_ops,,2d,\n")
    out = tmp_path / "out"
    assert main(["--course", str(graded), "grade", str(subs), "-a", "value_ops", "-o", str(out),
                 "--extensions", str(extensions)]) == 0
    err = capsys.readouterr().err
    assert "line 2: 'alice' on value_ops: 9999-12-31T23:59:59+00:00 moved by the extension is past the year 9999" in err
    assert rows_of(out)["alice"]["value_ops"] == "40"


def test_an_extension_row_for_nobody_stops_the_run_before_anything_is_graded(course, tmp_path, capsys):
    graded = with_policy(course, tmp_path, "due: 2026-11-01T23:59Z\n",
                         "roster: term/roster.csv\nextensions: term/extensions.csv\n")
    (graded / "term").mkdir()
    (graded / "term" / "roster.csv").write_text(ROSTER)
    (graded / "term" / "extensions.csv").write_text("student,assignment,due,extra,reason\nbbo,value_ops,,2d,\n")
    subs = tmp_path / "subs"
    shutil.copytree(EXAMPLES / "correct_recursive", subs / "bob")
    out = tmp_path / "out"
    assert main(["--course", str(graded), "grade", str(subs), "-a", "value_ops", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "extensions.csv: line 2, student: 'bbo' is neither on the roster" in err and "did you mean 'bob'?" in err
    assert not out.exists()


def push(ref: str, after: str, when: datetime) -> dict[str, object]:
    """A record of GitHub's repository activity list (the fields the grader reads)."""
    return {"id": 1, "before": "0" * 40, "after": after, "ref": ref, "activity_type": "push",
            "timestamp": when.strftime("%Y-%m-%dT%H:%M:%SZ"), "actor": {"login": "student"}}


def head(repo: Path) -> str:
    ref = (repo / ".git" / "HEAD").read_text().split()[-1]
    return (repo / ".git" / ref).read_text().strip()


def test_with_push_records_a_repository_without_one_is_named_and_a_force_pushed_commit_is_its_students_error(
        course, tmp_path, capsys):
    graded = with_policy(course, tmp_path, "due: 2026-11-01T23:59Z\nlate: {penalty: 10%, cutoff: 3d}\n")
    due = datetime(2026, 11, 1, 23, 59, tzinfo=timezone.utc)
    repos, records = tmp_path / "repos", tmp_path / "pushes"
    records.mkdir()
    for name in ("alice", "bob", "carol"):
        commit_at(repos / name, due - timedelta(days=2))
    (records / "alice.json").write_text(json.dumps([push("refs/heads/main", "ab" * 20, due - timedelta(hours=1))]))
    (records / "carol.json").write_text(json.dumps([push("refs/heads/main", head(repos / "carol"),
                                                         due + timedelta(hours=5))]))
    (records / "dave.json").write_text("[]")
    out = tmp_path / "out"
    assert main(["--course", str(graded), "grade", str(repos), "-a", "value_ops", "-o", str(out), "--pushes",
                 str(records)]) == 0  # the class is graded: alice's missing commit is alice's own error
    err = capsys.readouterr().err
    assert "Push records: no record in" in err and "for 1 repository(ies) (bob)" in err
    assert_quoted("how-to/git-repositories.md", 1, err, masks=[(f"no record in {records} ", "no record in pushes ")])
    assert "1 record(s) in" in err and "name no submission (dave)" in err
    assert "Late work: value_ops: 1 late (1 by the server's push times)" in err
    rows = rows_of(out)
    assert rows["alice"]["value_ops"] == "0" and "force-pushed away" in rows["alice"]["notes"]
    assert rows["bob"]["value_ops"] == "40" and rows["carol"]["value_ops"] == "36"
