"""The roster (grader.course.roster) and the LMS exports (grader.outputs.lms_export, ``grader export``)."""

from __future__ import annotations

import csv
import io
import os
from pathlib import Path

import pytest
from checkout import ROOT

from grader.cli import main
from grader.course.roster import MISSING_REMEDY, match, read_roster
from grader.errors import ConfigError, GraderError
from grader.outputs.lms_export import Gradebook, fill_canvas, moodle_csv, plain_csv

ROSTER = ('student,github,email,sis_id,section,name\n'
          'alice,alice-gh,alice@example.edu,2026001,A,"Liddell, Alice"\n'
          'bob,Bob-GH,bob@example.edu,2026002,B,Bob Builder\n'
          'carol,,carol@example.edu,2026003,A,Carol\n'
          'dave,dave-gh,dave@example.edu,2026004,B,Dave\n')

GRADES = ("student,value_ops,backward,total,notes\n"
          "alice,40,50,90,\n"
          "bob-gh,37.05,,37.05,backward: grader error, score withheld: x\n"  # a GitHub name, a withheld score
          "mallory,10,10,20,\n")  # not on the roster

# Canvas's gradebook export, as its Instructor Guide describes it ("How do I export grades in the Gradebook?"):
# Student, ID, SIS User ID, SIS Login ID, Section, one column per assignment as "Title (id)", read-only totals;
# a "Points Possible" row; the Test Student; names with commas quoted; CRLF line ends.
CANVAS = ('\ufeffStudent,ID,SIS User ID,SIS Login ID,Section,Value operations (1201),Backward (1202),'
          'Quiz 1 (1300),Current Score,Final Score\r\n'
          '    Points Possible,,,,,40,50,10,(read only),(read only)\r\n'
          '"Liddell, Alice",101,2026001,alice@example.edu,A,,,7,88.5,88.5\r\n'
          'Bob Builder,102,2026002,bob@example.edu,B,12,,8,20,20\r\n'
          'Carol,103,2026003,carol@example.edu,A,,,9,90,90\r\n'
          'Eve Outsider,104,2026099,eve@example.edu,C,,,6,60,60\r\n'
          '"Student, Test",105,,,A,,,,,\r\n')


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8", newline="")
    return path


def book() -> Gradebook:
    rows = list(csv.DictReader(io.StringIO(GRADES)))
    return Gradebook(["value_ops", "backward"], {r["student"]: {a: r[a] for a in ("value_ops", "backward")}
                                                 for r in rows})


def test_the_roster_matches_by_id_then_github_name_and_lists_every_mismatch(tmp_path):
    roster = read_roster(write(tmp_path / "roster.csv", "\ufeff" + ROSTER))  # Excel's "CSV UTF-8" has a BOM
    assert roster[0].name == "Liddell, Alice" and roster[0].line == 2
    found = match(roster, ["alice", "BOB-gh", "mallory", "bob"])
    assert set(found.matched) == {"alice", "BOB-gh", "bob"}
    assert found.unknown == ["mallory"]
    assert [s.student for s in found.missing] == ["carol", "dave"]
    assert found.claimed_twice == {"bob": ["BOB-gh", "bob"]}  # two submissions, one student


@pytest.mark.parametrize(("text", "where", "words"), [
    ("name,email\nAlice,a@x\n", "line 1", "no student column"),
    ("student,emial\nalice,a@x\n", "line 1, column 2", "unknown column 'emial'"),
    ("student,email,email\nalice,a,b\n", "line 1, column 3", "appears twice"),
    ("student,email\nalice,a@x\nbob\n", "line 3", "1 cells for 2 columns"),
    ("student,email\nalice,a@x\nbob,A@X\n", "line 3, email", "also on line 2"),
    ("student,email\nalice,a@x\nalice,b@x\n", "line 3, student", "also on line 2"),
    ("student,name\nalice,=HYPERLINK(\"http://x\")\n", "line 2, name", "spreadsheet formula"),
    ("student,name\n,Alice\n", "line 2, student", "empty student id"),
])
def test_a_malformed_roster_is_one_error_naming_the_file_line_and_column(tmp_path, text, where, words):
    path = write(tmp_path / "roster.csv", text)
    with pytest.raises(ConfigError) as caught:
        read_roster(path)
    assert caught.value.path == str(path) and caught.value.key == where and words in caught.value.message
    assert path.read_text(encoding="utf-8") == text  # never changed


@pytest.mark.parametrize(("data", "words"), [
    ("student\nalice\n".encode("utf-16"), "UTF-16"),
    ("student,name\nzoë,Zoë\n".encode("latin-1"), "not UTF-8"),
])
def test_a_roster_in_another_encoding_says_how_to_save_it(tmp_path, data, words):
    path = tmp_path / "roster.csv"
    path.write_bytes(data)
    with pytest.raises(ConfigError, match=words):
        read_roster(path)


def fingerprint(path: Path) -> tuple[bytes, int]:
    return path.read_bytes(), path.stat().st_mtime_ns


@pytest.mark.parametrize(("text", "where", "other"), [
    pytest.param("student,github\nalice,alice-gh\nbob,Alice\n", "line 3, github", "student id on line 2",
                 id="github-after-id"),
    pytest.param("student,github\nbob,ALICE\nalice,alice-gh\n", "line 3, student", "GitHub name on line 2",
                 id="id-after-github"),
    pytest.param("student,github\nalice,Alice\nALICE,a-gh\n", "line 3, student", "student id on line 2",
                 id="id-in-another-case"),
    pytest.param("student,github,previous\nalice,alice-gh,\nbob,bob-gh,Alice-GH\n", "line 3, previous",
                 "GitHub name on line 2", id="previous-id-is-another-students-github"),
    pytest.param("student,github,previous\nalice,alice-gh,old-a\nbob,bob-gh,x;OLD-A\n", "line 3, previous",
                 "previous id on line 2", id="two-students-one-previous-id"),
])
def test_a_github_name_that_is_another_students_id_is_refused_so_no_submission_gets_two_students(
        tmp_path, text, where, other):
    # bob's GitHub name is alice's id: a submission named so would take alice's grades and extensions, or bob's
    path = write(tmp_path / "roster.csv", text)
    before = fingerprint(path)
    with pytest.raises(ConfigError) as caught:
        read_roster(path)
    assert caught.value.path == str(path) and caught.value.key == where
    assert other in caught.value.message and "would match both rows" in caught.value.message
    assert fingerprint(path) == before


def test_a_students_own_github_name_may_be_their_id_in_another_case(tmp_path):
    roster = read_roster(write(tmp_path / "roster.csv", "student,github\nalice,Alice\nbob,bob\n"))
    assert [s.student for s in roster] == ["alice", "bob"]


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_a_roster_in_utf16_without_a_byte_order_mark_says_how_to_save_it_not_unknown_column(tmp_path, codec):
    path = tmp_path / "roster.csv"
    path.write_bytes("student,name\nalice,Alice\n".encode(codec))
    before = fingerprint(path)
    with pytest.raises(ConfigError) as caught:
        read_roster(path)
    assert caught.value.path == str(path) and caught.value.key == ("byte 1" if codec == "utf-16-le" else "byte 0")
    assert caught.value.message == "the roster holds NUL bytes, as UTF-16 does: save it as CSV UTF-8"
    assert fingerprint(path) == before


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
@pytest.mark.timeout(20)
def test_a_roster_that_is_a_fifo_or_a_folder_is_refused_without_being_read(tmp_path):
    fifo = tmp_path / "roster.csv"
    os.mkfifo(fifo)  # opened, it would wait for a writer for ever
    with pytest.raises(ConfigError) as caught:
        read_roster(fifo)
    assert caught.value.path == str(fifo) and "not a regular file" in caught.value.message
    with pytest.raises(ConfigError, match="is a folder"):
        read_roster(tmp_path)


def test_moodle_and_plain_csv_write_every_roster_student_and_list_the_rest(tmp_path):
    roster = read_roster(write(tmp_path / "roster.csv", ROSTER))
    moodle = moodle_csv(book(), roster)
    assert moodle.text == "email,value_ops,backward\nalice@example.edu,40,50\nbob@example.edu,37.05,\n"
    assert moodle_csv(book(), roster, "idnumber").text.splitlines()[1] == "2026001,40,50"
    problems = moodle.problems()
    assert "graded but not on the roster: mallory" in problems
    assert f"on the roster with no grades (missing): carol, dave ({MISSING_REMEDY})" in problems
    plain = list(csv.reader(io.StringIO(plain_csv(book(), roster).text)))
    assert plain[0] == ["student", "name", "email", "sis_id", "section", "github", "value_ops", "backward", "total"]
    assert plain[1][:2] == ["alice", "Liddell, Alice"] and plain[1][-1] == "90"
    assert plain[2][-3:] == ["37.05", "", ""]  # a withheld score has no total
    assert [r[0] for r in plain[1:]] == ["alice", "bob", "carol", "dave"]


@pytest.fixture
def term(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A graded folder, a roster and a Canvas export."""
    graded = tmp_path / "graded"
    graded.mkdir()
    write(graded / "grades.csv", GRADES)
    source = tmp_path / "canvas.csv"
    source.write_bytes(CANVAS.encode("utf-8"))
    return graded, write(tmp_path / "roster.csv", ROSTER), source


def export_filled(term_files, out: Path) -> int:
    """``grader export canvas`` of the ``term`` fixture's files into ``out``, with both assignments' columns."""
    graded, roster, source = term_files
    return main(["--course", str(ROOT), "export", "canvas", str(out), "--roster", str(roster), "--graded",
                 str(graded), "--canvas", str(source), "--column", "value_ops=Value operations",
                 "--column", "backward=1202"])


def filled(canvas: str) -> str:
    """``canvas`` as the export fills it: alice's two scores, bob's final score (his withheld one left as it was)."""
    canvas = canvas.replace('"Liddell, Alice",101,2026001,alice@example.edu,A,,,7',
                            '"Liddell, Alice",101,2026001,alice@example.edu,A,40,50,7')
    return canvas.replace("Bob Builder,102,2026002,bob@example.edu,B,12,,8",
                          "Bob Builder,102,2026002,bob@example.edu,B,37.05,,8")  # withheld: left as it was


def test_canvas_export_changes_only_the_assignment_cells_of_matched_students_byte_for_byte(tmp_path, term, capsys):
    source = term[2]
    out = tmp_path / "filled.csv"
    assert export_filled(term, out) == 0
    assert out.read_bytes() == filled(CANVAS).encode("utf-8")
    assert source.read_bytes() == CANVAS.encode("utf-8")  # the instructor's file is never changed
    err = capsys.readouterr().err
    assert "graded but not on the roster: mallory" in err and "missing): carol, dave" in err
    assert "in the LMS file but not on the roster: Eve Outsider" in err


@pytest.mark.parametrize("named", [["-a", "value_ops", "-a", "backward"], ["--column", "backward=Backward, part 2"]])
def test_canvas_export_refuses_to_overwrite_its_input_and_names_the_columns_it_found(tmp_path, term, capsys, named):
    graded, roster, source = term
    base = ["--course", str(ROOT), "export", "canvas"]
    assert main([*base, str(source), "--roster", str(roster), "--graded", str(graded), "--canvas", str(source)]) == 2
    assert "OUT is the Canvas file itself" in capsys.readouterr().err
    # an assignment the instructor named (-a, --column) without a Canvas column is an error, not a skip
    assert main([*base, str(tmp_path / "o.csv"), "--roster", str(roster), "--graded", str(graded),
                 "--canvas", str(source), "--column", "value_ops=Value operations", *named]) == 2
    err = capsys.readouterr().err
    assert "no Canvas column" in err and "Backward (1202)" in err and "--column backward=TITLE" in err
    assert not (tmp_path / "o.csv").exists()


def test_blank_lines_in_the_canvas_file_do_not_move_a_score_to_the_next_student(tmp_path, term, capsys):
    source = term[2]
    lines = CANVAS.split("\r\n")  # blank after Points Possible, between two students, and after the last row
    blank = "\r\n".join(lines[:2] + [""] + lines[2:4] + [""] + lines[4:]) + "\r\n"
    source.write_bytes(blank.encode("utf-8"))
    before = fingerprint(source)
    out = tmp_path / "filled.csv"
    assert export_filled(term, out) == 0
    assert out.read_bytes() == filled(blank).encode("utf-8")  # each on their own row; the blank lines kept
    assert fingerprint(source) == before


@pytest.mark.parametrize("what", ["missing", "folder", "fifo"])
@pytest.mark.timeout(20)
def test_a_canvas_file_that_is_missing_a_folder_or_a_fifo_is_one_error_naming_it_not_a_traceback_or_a_hang(
        tmp_path, term, what, capsys):
    graded, roster, _ = term
    source = tmp_path / "canvas-export.csv"
    if what == "folder":
        source.mkdir()
    elif what == "fifo":
        if not hasattr(os, "mkfifo"):
            pytest.skip("needs FIFOs")
        os.mkfifo(source)  # read whole, it would wait for a writer for ever
    out = tmp_path / "o.csv"
    assert main(["--course", str(ROOT), "export", "canvas", str(out), "--roster", str(roster), "--graded",
                 str(graded), "--canvas", str(source)]) == 2
    err = capsys.readouterr().err
    assert f"{source}: " in err and "the Canvas gradebook" in err and "Traceback" not in err
    assert not out.exists()


def test_two_canvas_columns_with_the_assignments_title_are_refused_naming_both_and_how_to_choose(tmp_path, term,
                                                                                                  capsys):
    graded, roster, source = term
    text = CANVAS.replace("Quiz 1 (1300)", "Value operations (1299)")  # an assignment duplicated in Canvas
    with pytest.raises(GraderError) as caught:
        fill_canvas(text.lstrip("\ufeff"), book(), read_roster(roster),
                    {"value_ops": ["Value operations"], "backward": ["1202"]})
    message = str(caught.value)
    assert "Value operations (1201)" in message and "Value operations (1299)" in message
    assert "--column value_ops=1201 or --column value_ops=1299" in message
    source.write_bytes(text.encode("utf-8"))
    before = fingerprint(source)
    out = tmp_path / "filled.csv"
    base = ["--course", str(ROOT), "export", "canvas", str(out), "--roster", str(roster), "--graded", str(graded),
            "--canvas", str(source), "--column", "backward=1202"]
    assert main([*base, "--column", "value_ops=Value operations"]) == 2
    assert f"{source}: 2 Canvas columns match 'Value operations'" in capsys.readouterr().err and not out.exists()
    assert main([*base, "--column", "value_ops=1299"]) == 0  # the option the message names picks one
    rows = list(csv.reader(io.StringIO(out.read_text(encoding="utf-8-sig"), newline="")))
    assert rows[2][5:8] == ["", "50", "10"]  # alice: 1201 left as it was, 1299 filled out of its 10 points
    assert "value_ops: scaled from 40 points to the Canvas column's 10" in capsys.readouterr().out
    assert fingerprint(source) == before


def test_two_assignments_filling_one_canvas_column_are_refused_not_written_over_each_other(term):
    _, roster, _ = term
    with pytest.raises(GraderError, match="value_ops and backward would both fill the Canvas column 'Backward"):
        fill_canvas(CANVAS.lstrip("\ufeff"), book(), read_roster(roster), {"value_ops": ["1202"], "backward": ["1202"]})


@pytest.mark.parametrize("target", ["roster", "gradebook", "roster link", "roster hard link", "course roster",
                                    "course extensions", "course.yaml"])
def test_grader_export_never_overwrites_a_file_it_reads_or_the_course_keeps(tmp_path, term, target, capsys):
    graded, roster, _ = term
    course = tmp_path / "course"
    (course / "assignments").mkdir(parents=True)
    write(course / "assignments" / "course.yaml", "roster: term/roster.csv\nextensions: term/extensions.csv\n")
    (course / "term").mkdir()
    write(course / "term" / "roster.csv", ROSTER)
    write(course / "term" / "extensions.csv", "student,assignment,extra\nalice,*,1d\n")
    victim = {"roster": roster, "gradebook": graded / "grades.csv", "course roster": course / "term" / "roster.csv",
              "course extensions": course / "term" / "extensions.csv",
              "course.yaml": course / "assignments" / "course.yaml"}.get(target, roster)
    out = victim
    if target == "roster link":
        out = tmp_path / "link.csv"
        out.symlink_to(roster)
    elif target == "roster hard link":
        out = tmp_path / "hard.csv"
        os.link(roster, out)
    before = fingerprint(victim)
    given = [] if target.startswith("course") else ["--roster", str(roster)]
    status = main(["--course", str(course), "export", "csv", str(out), *given, "--graded", str(graded)])
    assert fingerprint(victim) == before, f"grader export csv replaced the {target}"
    assert status == 2 and "OUT is the" in capsys.readouterr().err
