"""``grader export canvas`` never overwrites a hand edit: a Canvas cell a person changed since the last export
(different both from what the grader wrote then and from what it would write now) is left, named with its three
values and what to do, unless ``--overwrite-edits``; and every export says what moved since the last one
(grader.outputs.hand_edits, grader.outputs.score_changes)."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from test_lms_export import ROSTER
from test_lms_export_term import CANVAS, COLUMNS, GRADES, export, rows, write

from grader.outputs.hand_edits import is_hand_edit, read_record


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A graded folder, a roster and a Canvas export (test_lms_export_term's)."""
    graded = write(tmp_path / "graded" / "grades.csv", GRADES).parent
    source = tmp_path / "canvas.csv"
    source.write_bytes(CANVAS.encode("utf-8"))
    return graded, write(tmp_path / "roster.csv", ROSTER), source


def cell(path: Path, who: str, column: str) -> str:
    table = rows(path)
    return next(r for r in table if r[0] == who)[table[0].index(column)]


def edited(filled: Path, dest: Path, who: str, column: str, value: str) -> Path:
    """Canvas's next export after the filled file was imported, with one cell a TA changed in Canvas."""
    table = rows(filled)
    next(r for r in table if r[0] == who)[table[0].index(column)] = value
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\r\n").writerows(table)
    return write(dest, "\ufeff" + buffer.getvalue())


def test_a_hand_edit_in_canvas_is_left_and_named_until_an_adjustment_or_the_flag_replaces_it(files, tmp_path, capsys):
    graded, roster, source = files
    first = tmp_path / "filled-1.csv"
    assert export(files, "canvas", first, *COLUMNS) == 0
    assert read_record(graded, "canvas")["alice"] == {"value_ops": "40", "backward": "50"}
    capsys.readouterr()
    # a TA lowers alice's value_ops in Canvas; a fixed test raises carol's backward in the gradebook
    canvas = edited(first, tmp_path / "canvas-2.csv", "Liddell, Alice", "Value operations (1201)", "38")
    write(graded / "grades.csv", GRADES.replace("carol,,45,45,", "carol,,47,47,"))
    second = tmp_path / "filled-2.csv"
    assert export((graded, roster, canvas), "canvas", second, *COLUMNS) == 0
    printed = capsys.readouterr().out
    assert cell(second, "Liddell, Alice", "Value operations (1201)") == "38"  # left as the TA made it
    assert cell(second, "Carol", "Backward (1202)") == "47"
    assert "Left as a person changed them in the LMS since the last export (1): to keep one, record it as an " \
           "adjustment (grader adjust STUDENT ASSIGNMENT --set POINTS --stage final --reason ... --by ...) and " \
           "export again; to replace them with the grader's scores, export with --overwrite-edits" in printed
    assert "  hand edit: alice value_ops (line 3): '38' in the LMS, '40' exported last time, '40' now" in printed
    assert "backward: 1 score(s) changed since the last canvas export: 1 raised (+2: 1), 0 lowered" in printed
    assert "value_ops" not in printed.split("hand edit:")[1].split("\n", 1)[1]  # nothing else of value_ops moved

    # exported again: still left (the record keeps what the grader wrote), and the changes written with --changes
    changes = tmp_path / "changes.csv"
    third = tmp_path / "filled-3.csv"
    assert export((graded, roster, second), "canvas", third, *COLUMNS, "--changes", str(changes)) == 0
    assert cell(third, "Liddell, Alice", "Value operations (1201)") == "38"
    assert "No score changed since the last canvas export." in capsys.readouterr().out
    assert changes.read_text(encoding="utf-8") == "student,assignment,before,after,change\n"

    # the grader's score now equals the TA's (an adjustment recorded it): written, no hand edit
    write(graded / "grades.csv", GRADES.replace("alice,40,50,90,", "alice,38,50,88,").replace("carol,,45,", "carol,,47,"))
    assert export((graded, roster, second), "canvas", third, *COLUMNS) == 0
    assert "hand edit" not in capsys.readouterr().out
    assert read_record(graded, "canvas")["alice"]["value_ops"] == "38"

    # another TA edit, replaced on purpose
    write(graded / "grades.csv", GRADES)
    canvas = edited(third, tmp_path / "canvas-4.csv", "Liddell, Alice", "Value operations (1201)", "35")
    fourth = tmp_path / "filled-4.csv"
    assert export((graded, roster, canvas), "canvas", fourth, *COLUMNS, "--overwrite-edits") == 0
    printed = capsys.readouterr().out
    assert cell(fourth, "Liddell, Alice", "Value operations (1201)") == "40"
    assert "  overwritten (--overwrite-edits): alice value_ops (line 3): '35' in the LMS, '38' exported last time, " \
           "'40' now" in printed


def test_a_cell_is_a_hand_edit_only_when_it_differs_from_both_and_is_not_empty():
    assert is_hand_edit("38", "40", "42")
    assert not is_hand_edit("40.00", "40", "42")  # what was imported, as Canvas writes it
    assert not is_hand_edit("42", "40", "42")  # what the grader writes now
    assert not is_hand_edit("", "40", "42")  # Canvas shows no grade: nothing of a person's to keep
    assert not is_hand_edit("38", None, "42")  # never exported: the grader's first fill


def test_moodle_and_csv_exports_record_what_they_wrote_and_say_what_moved(files, tmp_path, capsys):
    graded, _, _ = files
    assert export(files, "moodle", tmp_path / "moodle.csv") == 0
    assert read_record(graded, "moodle")["carol"] == {"backward": "45"}
    write(graded / "grades.csv", GRADES.replace("carol,,45,45,", "carol,,40,40,"))
    capsys.readouterr()
    assert export(files, "moodle", tmp_path / "moodle.csv") == 0
    assert "backward: 1 score(s) changed since the last moodle export: 0 raised, 1 lowered (-5: 1)" in \
        capsys.readouterr().out
