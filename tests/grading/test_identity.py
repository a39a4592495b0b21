"""One student, one id (issue 54): a submission is graded as the roster's id of the student its name names, from
intake on; a concept check's numbers are drawn from that id (or the student's first id, when it changed), never
from the folder's name or the answers file's ``student:`` line; results kept under an old name become the student's;
and every name the roster does not resolve cleanly is said where the instructor looks.

Every expected answer is computed without the grader (``concept_answers.right_answers``).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from checkout import ROOT
from concept_answers import right_answers, write

from grader.cli import main
from grader.course.roster import identify, read_roster

ROSTER = ("student,github,email,sis_id,name\n"
          "agarcia,ana-garcia,ana@example.edu,1001,\"García, Ana\"\n"
          "kim,kim-gh,kim@example.edu,1002,Kim\n"
          "iconceicao,,ines@example.edu,1003,Inês Conceição\n"
          "bob,bob-gh,bob@example.edu,1004,Bob\n")
CHANGED = ROSTER.replace("student,github,email,sis_id,name\n", "student,github,email,sis_id,name,previous\n").replace(
    "iconceicao,,ines@example.edu,1003,Inês Conceição", "iconceicao-silva,,ines@example.edu,1003,Inês Conceição,iconceicao"
).replace("\"García, Ana\"\n", "\"García, Ana\",\n").replace("Kim\n", "Kim,\n").replace("Bob\n", "Bob,\n")


def grades(out: Path) -> dict[str, dict[str, str]]:
    with open(out / "grades.csv", encoding="utf-8") as f:
        return {row["student"]: row for row in csv.DictReader(f)}


def grade(subs: Path, out: Path, roster: Path, capsys) -> str:
    assert main(["--course", str(ROOT), "grade", str(subs), "-a", "checkpoint", "-o", str(out), "--roster",
                 str(roster)]) == 0
    return capsys.readouterr().err


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    return tmp_path_factory.mktemp("identity")


def test_a_term_of_names_is_graded_as_one_id_per_student(folders, capsys):
    roster, subs, out = folders / "roster.csv", folders / "week1", folders / "out"
    roster.write_text(ROSTER, encoding="utf-8")
    write(subs / "ana-garcia", right_answers("agarcia"))  # by GitHub name, answered at the roster id's numbers
    write(subs / "Kim-GH", {**right_answers("kim"), "student": "bob"})  # another case; a classmate's file?
    write(subs / "iconceicao", right_answers("iconceicao"))
    write(subs / "stranger", right_answers("stranger"))  # on no roster row
    err = grade(subs, out, roster, capsys)
    rows = grades(out)
    assert set(rows) == {"agarcia", "kim", "iconceicao", "stranger"}  # never ana-garcia, nor Kim-GH
    assert {s: rows[s]["checkpoint"] for s in rows} == dict.fromkeys(rows, "12")  # every number at the right id's
    assert (out / "checkpoint" / "agarcia" / "results.json").is_file() and not (out / "checkpoint" / "ana-garcia").exists()
    assert ("Roster: 2 submission(s) found by the roster's GitHub name, graded as the roster's id: Kim-GH as kim, "
            "ana-garcia as agarcia") in err
    assert "graded but not on the roster: stranger" in err and "on the roster with no grades (missing): bob" in err
    assert "says student: 'bob', which is bob on the roster, another student (a copied file?)" in rows["kim"]["notes"]
    assert "stranger is not on the roster: marked at the numbers drawn for its own name, stranger" in \
        rows["stranger"]["notes"]
    feedback = (out / "checkpoint" / "kim" / "feedback.md").read_text(encoding="utf-8")
    assert "Student: `kim`" in feedback and "another student (a copied file?)" in feedback


def test_an_id_that_changes_keeps_the_student_her_results_and_her_numbers(folders, capsys):
    roster, subs, out = folders / "roster.csv", folders / "week2", folders / "out"
    roster.write_text(CHANGED, encoding="utf-8")  # iconceicao is iconceicao-silva now
    write(subs / "ana-garcia", right_answers("agarcia"))
    write(subs / "iconceicao-silva", right_answers("iconceicao"))  # her answers, written for the id she had
    err = grade(subs, out, roster, capsys)
    rows = grades(out)
    assert "iconceicao" not in rows and rows["iconceicao-silva"]["checkpoint"] == "12", rows  # one row, her numbers
    assert "Roster: iconceicao's results (checkpoint) are iconceicao-silva's now: iconceicao is a previous id on the " \
           "roster" in err
    moved = (out / "checkpoint" / "iconceicao-silva" / "feedback.md").read_text(encoding="utf-8")
    assert "Student: `iconceicao-silva`" in moved
    exported = folders / "scores.csv"
    assert main(["--course", str(ROOT), "export", "csv", str(exported), "--graded", str(out), "--roster",
                 str(roster), "-a", "checkpoint"]) == 0
    with open(exported, encoding="utf-8") as f:
        scores = {r["student"]: r["checkpoint"] for r in csv.DictReader(f)}
    assert scores["iconceicao-silva"] == "12" and scores["agarcia"] == "12"
    said = capsys.readouterr()
    assert "iconceicao" not in said.err  # nothing left over under the old id
    assert f"wrote {exported}: 3 score(s) of checkpoint for 3 matched student(s)" in said.out  # not the stranger's


def test_two_submissions_that_name_one_student_are_said_and_only_one_is_graded_as_them(tmp_path):
    roster = tmp_path / "roster.csv"
    roster.write_text(ROSTER, encoding="utf-8")
    known, lines = identify(["kim-gh", "kim", "nobody"], read_roster(roster))
    assert (known["kim"].student, known["kim-gh"].student, known["nobody"].student) == ("kim", "kim-gh", "nobody")
    assert lines == ["Roster: 2 submissions name kim (kim, kim-gh): kim is graded as kim; kim-gh under its own name, "
                     "not exported: keep one, or give each its own row"]
    changed = tmp_path / "changed.csv"
    changed.write_text(CHANGED, encoding="utf-8")
    known, _ = identify(["iconceicao"], read_roster(changed))
    assert (known["iconceicao"].student, known["iconceicao"].numbers_from, known["iconceicao"].how) == (
        "iconceicao-silva", "iconceicao", "previous")
    results = json.dumps([k.__dict__ for k in known.values()])
    assert "iconceicao-silva" in results


def test_similarity_names_the_student_the_roster_says_a_folder_is(tmp_path):
    from grader.course.course import Course
    from grader.similarity.sources import CLASS, read_folder

    engine = tmp_path / "class" / "ana-garcia" / "micrograd" / "engine.py"
    engine.parent.mkdir(parents=True)
    engine.write_text((ROOT / "reference" / "micrograd" / "engine.py").read_text(encoding="utf-8"), encoding="utf-8")
    value_ops = Course(ROOT).assignments(["value_ops"])
    source = read_folder(tmp_path / "class", CLASS, value_ops, None, students={"ana-garcia": "agarcia"})
    assert [d.owner for d in source.documents["value_ops"]] == ["agarcia"]


def test_an_instructors_sheet_has_the_numbers_grading_marks_at(tmp_path, capsys):
    """``grader sheet --student NAME`` in a course with a roster: the numbers of the id the student is marked at."""
    from types import SimpleNamespace

    from grader.commands.student_sheet import _numbers_from

    roster = tmp_path / "roster.csv"
    roster.write_text(CHANGED, encoding="utf-8")
    course = SimpleNamespace(term=SimpleNamespace(roster=roster))
    assert _numbers_from(course, "ana-garcia") == "agarcia"
    assert "ana-garcia is agarcia on the roster: the sheet has the numbers of agarcia" in capsys.readouterr().err
    assert _numbers_from(course, "iconceicao-silva") == "iconceicao"  # her first id's, as her answers are marked
    assert _numbers_from(course, "stranger") == "stranger" and _numbers_from(course, "bob") == "bob"
    assert _numbers_from(SimpleNamespace(term=SimpleNamespace(roster=None)), "ana-garcia") == "ana-garcia"
