"""``grader export`` over a term: the assignments chosen (``-a``, else the released ones), Canvas columns the LMS does
not have yet, Canvas's *Points Possible*, and every row left unfilled named (grader.commands.export,
grader.outputs.lms_export, grader.outputs.canvas)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from checkout import ROOT
from doc_quotes import assert_quoted
from test_lms_export import ROSTER  # the same four students

from grader.cli import main
from grader.course.course import Course
from grader.course.roster import MISSING_REMEDY, read_roster
from grader.outputs.lms_export import Gradebook, fill_canvas

GRADES = ("student,value_ops,backward,total,notes\n"
          "alice,40,50,90,\n"
          "bob-gh,37.05,,37.05,backward: grader error, score withheld: x\n"  # a GitHub name, a withheld score
          "carol,,45,45,\n")  # value_ops never graded: an empty cell too

# Canvas's gradebook export (grader/outputs/canvas.py names the source): the Points Possible row, then students
CANVAS = ('\ufeffStudent,ID,SIS User ID,SIS Login ID,Section,Value operations (1201),Backward (1202),'
          'Quiz 1 (1300),Current Score,Final Score\r\n'
          '    Points Possible,,,,,40.00,50.00,10.00,(read only),(read only)\r\n'
          '"Liddell, Alice",101,2026001,alice@example.edu,A,,,7,88.5,88.5\r\n'
          'Bob Builder,102,2026002,bob@example.edu,B,12,,8,20,20\r\n'
          'Carol,103,2026003,carol@example.edu,A,,,9,90,90\r\n'
          'Eve Outsider,104,2026099,eve@example.edu,C,,,6,60,60\r\n'
          '"Student, Test",105,,,A,,,,,\r\n')
COLUMNS = ["--column", "value_ops=Value operations", "--column", "backward=1202"]


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8", newline="")
    return path


def fingerprint(path: Path) -> tuple[bytes, int]:
    return path.read_bytes(), path.stat().st_mtime_ns


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A graded folder, a roster and a Canvas export."""
    graded = tmp_path / "graded"
    write(graded / "grades.csv", GRADES)
    source = tmp_path / "canvas.csv"
    source.write_bytes(CANVAS.encode("utf-8"))
    return graded, write(tmp_path / "roster.csv", ROSTER), source


def export(files: tuple[Path, Path, Path], lms: str, out: Path, *more: str, course: Path = ROOT) -> int:
    graded, roster, source = files
    canvas = ["--canvas", str(source)] if lms == "canvas" else []
    return main(["--course", str(course), "export", lms, str(out), "--roster", str(roster), "--graded", str(graded),
                 *canvas, *more])


def rows(path: Path) -> list[list[str]]:
    return list(csv.reader(io.StringIO(path.read_text(encoding="utf-8-sig"), newline="")))


def a_course(tmp_path: Path, **released: str) -> Path:
    """A course of value_ops, backward and mlp (40, 50, 40 points), each ``released`` as given (default: out)."""
    root = tmp_path / "course"
    for aid, points in (("value_ops", 40), ("backward", 50), ("mlp", 40)):
        when = f"released: {released[aid]}\n" if aid in released else ""
        write(root / "assignments" / aid / "assignment.yaml",
              f"title: {aid.title()}\nfiles: [micrograd/engine.py]\npoints: {points}\n{when}")
    return root


# --- which assignments -------------------------------------------------------------------------------------------

def test_a_chooses_the_assignments_every_export_writes(tmp_path, files, capsys):
    out = tmp_path / "out.csv"
    assert export(files, "csv", out, "-a", "backward") == 0
    assert rows(out)[0] == ["student", "name", "email", "sis_id", "section", "github", "backward", "total"]
    assert rows(out)[1][-2:] == ["50", "50"]  # alice: the total of what is exported
    assert export(files, "moodle", out, "-a", "backward") == 0
    assert out.read_text(encoding="utf-8").splitlines()[:2] == ["email,backward", "alice@example.edu,50"]
    assert export(files, "canvas", out, "-a", "backward", "--column", "backward=1202") == 0
    assert rows(out)[2][5:7] == ["", "50"]  # alice: value_ops's column left as Canvas wrote it
    capsys.readouterr()
    assert export(files, "csv", out, "-a", "forward_mode") == 2
    assert "-a forward_mode: not in the gradebook" in capsys.readouterr().err
    assert export(files, "csv", out, "-a", "backward", "-a", "backward") == 2
    assert "-a backward is given more than once" in capsys.readouterr().err


def test_by_default_the_released_assignments_are_exported_and_those_left_out_are_named(tmp_path, files, capsys):
    graded, _, _ = files
    write(graded / "grades.csv", "student,value_ops,backward,mlp,old_quiz,total,notes\nalice,40,50,30,5,125,\n")
    course = a_course(tmp_path, backward="false", mlp="2099-01-01T00:00Z")  # not yet, and not until 2099
    out = tmp_path / "out.csv"
    for lms, header in (("csv", ["student", "name", "email", "sis_id", "section", "github", "value_ops", "total"]),
                        ("moodle", ["email", "value_ops"])):
        assert export(files, lms, out, course=course) == 0
        assert rows(out)[0] == header
        err = capsys.readouterr().err
        assert "note: not released yet, left out: backward, mlp (-a ID exports one)" in err
        assert "note: not an assignment of the course, left out: old_quiz" in err
    assert export(files, "csv", out, "-a", "mlp", course=course) == 0  # named: exported, released or not
    assert rows(out)[0][-2:] == ["mlp", "total"]
    assert export(files, "csv", out, course=tmp_path / "no-course") == 0  # no course: every assignment
    assert rows(out)[0][6:-1] == ["value_ops", "backward", "mlp", "old_quiz"]
    capsys.readouterr()
    course = a_course(tmp_path, value_ops="false", backward="false", mlp="false")
    assert export(files, "csv", out, course=course) == 2
    assert "no assignment is released yet" in capsys.readouterr().err


def test_a_column_for_an_assignment_not_exported_says_how_to_export_it(tmp_path, files, capsys):
    course = a_course(tmp_path, backward="false")
    assert export(files, "canvas", tmp_path / "o.csv", *COLUMNS, course=course) == 2
    assert "--column 'backward=1202': backward is not among the assignments exported (value_ops)" in \
        capsys.readouterr().err
    assert not (tmp_path / "o.csv").exists()


# --- Canvas: columns it does not have yet, Points Possible --------------------------------------------------------

def test_canvas_skips_a_released_assignment_it_has_no_column_for_and_names_it_and_the_columns(tmp_path, files,
                                                                                              capsys):
    graded, _, source = files
    write(graded / "grades.csv", "student,value_ops,backward,mlp,total,notes\nalice,40,50,30,120,\n")
    out = tmp_path / "filled.csv"
    assert export(files, "canvas", out, *COLUMNS) == 0  # mlp: in the gradebook and released, not in Canvas yet
    err = capsys.readouterr().err
    assert "note: skipped, no Canvas column yet: mlp ('Assignment 3: a neural network (Neuron, Layer, MLP) " in err
    assert "note: the Canvas file's assignment columns: Value operations (1201), Backward (1202), Quiz 1 (1300)" in err
    assert rows(out)[2][5:8] == ["40", "50", "7"]
    assert source.read_bytes() == CANVAS.encode("utf-8")


def test_canvas_scales_a_score_to_the_columns_points_possible_and_says_so(tmp_path, files, capsys):
    _, _, source = files
    source.write_bytes(CANVAS.replace(",40.00,", ",100.00,").encode("utf-8"))
    out = tmp_path / "filled.csv"
    assert export(files, "canvas", out, *COLUMNS) == 0
    assert "  value_ops: scaled from 40 points to the Canvas column's 100\n" in capsys.readouterr().out
    assert [r[5] for r in rows(out)[2:4]] == ["100", "92.63"]  # 37.05 of 40 is 92.625 of 100: half up
    assert [r[6] for r in rows(out)[2:4]] == ["50", ""]  # backward: 50 of 50, as it was


@pytest.mark.parametrize(("points_row", "said"), [
    pytest.param("    Points Possible,,,,,,50.00,10.00,(read only),(read only)\r\n",
                 "value_ops: the Canvas column 'Value operations (1201)' has Points Possible empty: raw points filled",
                 id="empty"),
    pytest.param("    Points Possible,,,,,(read only),50.00,10.00,(read only),(read only)\r\n",
                 "value_ops: the Canvas column 'Value operations (1201)' has Points Possible '(read only)', not a "
                 "number of points: raw points filled", id="not-a-number"),
    pytest.param("", "the Canvas file has no Points Possible row: raw points filled for value_ops, backward",
                 id="no-row"),
])
def test_canvas_fills_raw_points_and_says_so_when_the_columns_points_are_unknown(tmp_path, files, capsys,
                                                                                  points_row, said):
    _, _, source = files
    lines = CANVAS.split("\r\n")
    source.write_bytes((lines[0] + "\r\n" + points_row + "\r\n".join(lines[2:])).encode("utf-8"))
    out = tmp_path / "filled.csv"
    assert export(files, "canvas", out, *COLUMNS) == 0
    assert f"  note: {said}\n" in capsys.readouterr().err
    assert rows(out)[-5][5:7] == ["40", "50"]  # alice, raw


def results(graded: Path, aid: str, student: str, score: float, most: float) -> None:
    """A results.json (Gradescope's schema, as grader.outputs.store reads it) of one test."""
    write(graded / aid / student / "results.json",
          json.dumps({"score": score, "tests": [{"name": "t", "score": score, "max_score": most}]}))


def test_without_a_course_the_points_are_those_the_results_record(tmp_path, files, capsys):
    graded, _, source = files
    source.write_bytes(CANVAS.replace(",40.00,50.00,", ",100.00,100.00,").encode("utf-8"))
    results(graded, "value_ops", "alice", 40, 40)
    results(graded, "value_ops", "bob-gh", 37.05, 40)
    results(graded, "backward", "alice", 50, 50)
    results(graded, "backward", "carol", 45, 60)  # the results disagree: raw points, said
    out = tmp_path / "filled.csv"
    assert export(files, "canvas", out, *COLUMNS, course=tmp_path / "no-course") == 0
    said = capsys.readouterr()
    assert "  value_ops: scaled from 40 points to the Canvas column's 100\n" in said.out
    assert "note: backward: its results.json files record different maximums (50, 60)" in said.err
    assert "note: backward: its points are unknown" in said.err and "raw points filled" in said.err
    assert rows(out)[2][5:7] == ["100", "50"]


# --- every row not filled is named -------------------------------------------------------------------------------

def test_every_canvas_row_not_filled_is_named_with_its_line(tmp_path, files, capsys):
    _, _, source = files
    short = CANVAS.replace("Carol,103,2026003,carol@example.edu,A,,,9,90,90",
                           "Carol,103,2026003,carol@example.edu,A,,,9")  # cut short: its cells may be misplaced
    source.write_bytes(short.encode("utf-8"))
    out = tmp_path / "filled.csv"
    assert export(files, "canvas", out, *COLUMNS) == 0
    err = capsys.readouterr().err.splitlines()
    assert "  not filled: line 5 ('Carol', carol): 8 cells for the header's 10, left as Canvas wrote it" in err
    assert "  not filled: backward: no score in grades.csv (withheld, or never graded): bob (line 4)" in err
    assert "  not exported: on the roster but not in the Canvas file: dave" in err  # carol is, on a short row
    assert "  not exported: in the LMS file but not on the roster: Eve Outsider (line 6)" in err
    assert out.read_bytes() == short.replace(",A,,,7,", ",A,40,50,7,").replace(",B,12,,8,", ",B,37.05,,8,").encode()


def test_a_never_graded_or_non_numeric_score_is_named_and_never_written(tmp_path, files, capsys):
    graded, roster, _ = files
    write(graded / "grades.csv", "student,value_ops,backward,total,notes\nalice,=1+1,50,50,\ncarol,,45,45,\n")
    out = tmp_path / "filled.csv"
    assert export(files, "canvas", out, *COLUMNS) == 0
    err = capsys.readouterr().err
    assert "not filled: value_ops: grades.csv's score '=1+1' is not a number: alice (line 3)" in err
    assert "not filled: value_ops: no score in grades.csv (withheld, or never graded): carol (line 5)" in err
    assert "=1+1" not in out.read_text(encoding="utf-8") and rows(out)[2][5:7] == ["", "50"]


def test_names_from_the_canvas_file_are_inert_and_capped_on_the_terminal(tmp_path, files, capsys):
    _, _, source = files
    name = "\x1b]0;owned\x07\u202e" + "x" * 500
    source.write_bytes(CANVAS.replace("Eve Outsider,104", f'"{name}",104').replace(
        "Carol,103,2026003,carol@example.edu,A,,,9,90,90", f'"{name}",103,2026003,carol@example.edu,A').encode())
    assert export(files, "canvas", tmp_path / "filled.csv", *COLUMNS) == 0
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\x07" not in err and "\u202e" not in err and "\\x1b]0;owned\\x07\\u202e" in err
    assert "x" * 49 in err and "x" * 50 not in err  # 60 characters of each name, escapes aside
    shown = "\\x1b]0;owned\\x07\\u202e" + "x" * 49
    assert f"  not filled: line 5 ('{shown}', carol): 5 cells for the header's 10" in err
    assert f"  not exported: in the LMS file but not on the roster: {shown} (line 6)" in err


def test_fill_canvas_skips_only_the_optional_assignments_and_scales_by_the_points_given(tmp_path):
    roster = read_roster(write(tmp_path / "roster.csv", ROSTER))
    book = Gradebook(["value_ops", "mlp"], {"alice": {"value_ops": "20", "mlp": "40"}})
    done = fill_canvas(CANVAS.lstrip("\ufeff"), book, roster, {"value_ops": ["1201"], "mlp": ["Assignment 3"]},
                       optional={"mlp"}, points={"value_ops": 80})
    assert done.filled == 1 and rows_of(done.text)[2][5] == "10"  # 20 of 80 is 10 of 40
    assert done.notes == ["value_ops: scaled from 80 points to the Canvas column's 40"]
    assert done.warnings[0] == "skipped, no Canvas column yet: mlp ('Assignment 3')"


def rows_of(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text, newline="")))


# --- the term as it runs: Canvas has Assignments 1-3, the gradebook all seven ------------------------------------

TERM_GRADES = ("student,value_ops,backward,mlp,forward_mode,graph,classifier,gradcheck,total,notes\n"
               "alice,40,50,36,40,30,45,38,279,\n"
               "bob-gh,37.05,,40,20,,50,40,,backward: grader error, score withheld: sandbox\n"  # graph: never graded
               "carol,,45,12.5,35,28,,,120.5,\n"  # value_ops: not graded yet
               "mallory,10,10,10,10,10,10,10,70,\n")


def term_canvas() -> str:
    """Canvas's export of a course that has created Assignments 1-3 only, Assignment 3 worth 100 points and posted
    manually: the header, the posting-policy row, Points Possible (two decimals, as Canvas writes them), students."""
    titles = [Course(ROOT).assignment(aid).title for aid in ("value_ops", "backward", "mlp")]
    header = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section",
              *(f"{t} ({5001 + i})" for i, t in enumerate(titles)),
              "Current Score", "Unposted Current Score", "Final Score", "Unposted Final Score"]
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\r\n").writerows([
        header,
        ["", "", "", "", "", "", "", "Manual Posting", "", "", "", ""],
        ["    Points Possible", "", "", "", "", "40.00", "50.00", "100.00", *["(read only)"] * 4],
        ["Liddell, Alice", "101", "2026001", "alice@example.edu", "A", "", "", "", "88.5", "88.5", "88.5", "88.5"],
        ["Bob Builder", "102", "2026002", "bob@example.edu", "B", "12", "", "", "20", "20", "20", "20"],
        ["Carol", "103", "2026003", "carol@example.edu", "A", "", "", "", "90", "90", "90", "90"],
        ["Eve Outsider", "104", "2026099", "eve@example.edu", "C", "", "", "", "60", "60", "60", "60"],
        ["Student, Test", "105", "", "", "A", "", "", "", "", "", "", ""]])
    return "\ufeff" + buffer.getvalue()


def test_a_weekly_canvas_export_holding_assignments_1_to_3_is_filled_from_a_gradebook_holding_all_seven(
        tmp_path, files, capsys):
    graded, roster, source = files
    write(graded / "grades.csv", TERM_GRADES)
    canvas = term_canvas()
    source.write_bytes(canvas.encode("utf-8"))
    before = fingerprint(source)
    out = tmp_path / "filled.csv"
    assert main(["--course", str(ROOT), "export", "canvas", str(out), "--roster", str(roster), "--graded",
                 str(graded), "--canvas", str(source)]) == 0
    said = capsys.readouterr()
    later = {aid: Course(ROOT).assignment(aid).title for aid in ("forward_mode", "graph", "classifier", "gradcheck")}
    columns = ", ".join(c for c in next(csv.reader(io.StringIO(canvas.lstrip("\ufeff"))))[5:8])
    assert said.out == (f"wrote {out}: 7 score(s) of value_ops, backward, mlp for 3 matched student(s)\n"
                        "  mlp: scaled from 40 points to the Canvas column's 100\n")
    assert said.err == (
        f"  note: skipped, no Canvas column yet: {', '.join(f'{aid} ({t!r})' for aid, t in later.items())}\n"
        f"  note: the Canvas file's assignment columns: {columns} (--column ID=TITLE fills one of another title)\n"
        "  not exported: graded but not on the roster: mallory\n"
        f"  not exported: on the roster with no grades (missing): dave ({MISSING_REMEDY})\n"
        "  not exported: in the LMS file but not on the roster: Eve Outsider (line 7)\n"
        "  not exported: on the roster but not in the Canvas file: dave\n"
        "  not filled: backward: no score in grades.csv (withheld, or never graded): bob (line 5)\n"
        "  not filled: value_ops: no score in grades.csv (withheld, or never graded): carol (line 6)\n")
    expected = (canvas.replace("alice@example.edu,A,,,,", "alice@example.edu,A,40,50,90,")  # 36 of 40: 90 of 100
                .replace("bob@example.edu,B,12,,,", "bob@example.edu,B,37.05,,100,")  # backward withheld: as it was
                .replace("carol@example.edu,A,,,,", "carol@example.edu,A,,45,31.25,"))  # value_ops not graded yet
    assert out.read_bytes() == expected.encode("utf-8")  # every other byte as Canvas wrote it, the BOM included
    assert fingerprint(source) == before
    assert_quoted("how-to/term.md", "wrote filled.csv", said.out, said.err, masks=[(r"^wrote \S+: ", "wrote filled.csv: ")])


def test_moodle_names_a_graded_student_without_the_key_it_matches_by(tmp_path, files, capsys):
    _, roster, _ = files
    write(roster, ROSTER.replace("bob@example.edu", ""))
    out = tmp_path / "moodle.csv"
    assert export(files, "moodle", out) == 0
    assert "  not exported: on the roster without the email Moodle matches by: bob\n" in capsys.readouterr().err
    assert [r[0] for r in rows(out)] == ["email", "alice@example.edu", "carol@example.edu"]
