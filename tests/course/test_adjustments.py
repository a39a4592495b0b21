"""``adjustments.csv``: each row a person wrote read as written, each bad row refused with the file and its line
(grader.course.adjustments), and a row's students resolved through the roster."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.course.adjustments import Adjustment, append_row, load_adjustments, read_adjustments
from grader.course.roster import Student
from grader.errors import ConfigError

POINTS = {"value_ops": 40.0, "mlp": 40.0}
HEADER = "student,assignment,add,set,stage,reason,by,date\n"
ROSTER = [Student("s01", github="s01-gh"), Student("s02", github="s02-gh", previous="s02-old")]


def write(tmp_path: Path, rows: str, header: str = HEADER) -> Path:
    path = tmp_path / "adjustments.csv"
    path.write_text(header + rows, encoding="utf-8")
    return path


def test_rows_are_read_in_file_order_and_students_found_by_any_roster_name(tmp_path):
    path = write(tmp_path, "s01-gh,mlp,2,,raw,test 3 was unfair,TA Lee,2026-10-03\n"
                           "s02-old,value_ops,,0,FINAL,integrity case,Prof. Ada,\n"
                           "s01,mlp,-1.5,,final,late penalty partly waived,Prof. Ada,2026-10-04\n")
    rows = load_adjustments(path, POINTS, ROSTER, []).rows
    assert [(r.student, r.given, r.change, r.stage, r.line) for r in rows] == [
        ("s01", "s01-gh", "+2", "raw", 2), ("s02", "s02-old", "=0", "final", 3), ("s01", "s01", "-1.5", "final", 4)]
    assert rows[0].describe() == "+2 before the late penalty by TA Lee on 2026-10-03: test 3 was unfair"
    assert rows[1].describe() == "=0 to the final score by Prof. Ada: integrity case"


@pytest.mark.parametrize("row, where, message", [
    ("s01x,mlp,2,,raw,r,TA,\n", "line 2, student", "'s01x' is neither on the roster nor the name of a submission: "
                                                   "its adjustment would apply to nobody; did you mean 's01'?"),
    ("s01,mlpp,2,,raw,r,TA,\n", "line 2, assignment", "'mlpp' is not an assignment; known: mlp, value_ops"),
    ("s01,mlp,2,,raw,r,TA\n", "line 2", "7 cells for 8 columns"),
    ('s01,mlp,"2,,raw,r,TA,\n', "line 2", "not a CSV file"),
    ("s01,mlp,two,,raw,r,TA,\n", "line 2, add", "'two' is not a number of points"),
    ("s01,mlp,+2,,raw,r,TA,\n", "line 2, add", "'+2' would run as a spreadsheet formula"),
    ("s01,mlp,2,3,raw,r,TA,\n", "line 2, set", "'3' as well as add '2': give one of add and set"),
    ("s01,mlp,,,raw,r,TA,\n", "line 2, add", "neither points added (add) nor a score set (set): give one of them"),
    ("s01,mlp,,41,final,r,TA,\n", "line 2, set", "41 is outside 0 to 40, the points mlp is worth"),
    ("s01,mlp,-41,,final,r,TA,\n", "line 2, add", "-41: give points added (2) or taken (-5), at most the 40 mlp is"),
    ("s01,mlp,2,,late,r,TA,\n", "line 2, stage", "'late': raw (a regrade: the late penalty still applies) or final"),
    ("s01,mlp,2,,raw,,TA,\n", "line 2, reason", "empty: why, shown to the student"),
    ("s01,mlp,2,,raw,r,,\n", "line 2, by", "empty: who made the change"),
    ("s01,mlp,2,,raw,r,TA,3 Oct\n", "line 2, date", "'3 Oct': a date as YYYY-MM-DD"),
    ("s01,mlp,,0,final,r,TA,\ns01-gh,mlp,,40,raw,r,TA,\n", "line 3, set",
     "a second score set for s01 on mlp (the first on line 2): keep one"),
])
def test_each_bad_row_is_refused_naming_the_file_its_line_and_column(tmp_path, row, where, message):
    path = write(tmp_path, row)
    with pytest.raises(ConfigError) as caught:
        load_adjustments(path, POINTS, ROSTER, [])
    assert caught.value.path == str(path) and caught.value.key == where
    assert message in caught.value.message


def test_an_unknown_or_missing_column_names_the_header(tmp_path):
    with pytest.raises(ConfigError, match="line 1, column 3: unknown column 'points'"):
        read_adjustments(write(tmp_path, "", "student,assignment,points,stage,reason,by\n"), POINTS)
    with pytest.raises(ConfigError, match="line 1: no stage column"):
        read_adjustments(write(tmp_path, "", "student,assignment,add,reason,by\n"), POINTS)
    assert read_adjustments(write(tmp_path, "", ""), POINTS) == []


def test_without_a_roster_a_row_naming_no_submission_is_a_warning_not_an_error(tmp_path):
    path = write(tmp_path, "alice,mlp,2,,raw,r,TA,\nbobb,mlp,2,,raw,r,TA,\n")
    done = load_adjustments(path, POINTS, [], ["alice", "bob"])
    assert [r.student for r in done.rows] == ["alice", "bobb"]
    assert done.warnings == (f"Adjustments: {path} line 3: 'bobb' names no submission (and there is no roster to "
                             "find them on): it applies to nobody in this run; did you mean 'bob'?",)


def test_append_row_adds_one_row_keeping_every_byte_before_it(tmp_path):
    path = tmp_path / "adjustments.csv"
    append_row(path, Adjustment("s01", "mlp", 2, False, "raw", "test 3, unfair", "TA Lee", "2026-10-03"))
    first = path.read_bytes()
    assert first == (HEADER + 's01,mlp,2,,raw,"test 3, unfair",TA Lee,2026-10-03\n').encode()
    path.write_bytes(b"\xef\xbb\xbf" + first.rstrip(b"\n"))  # a spreadsheet's save: a byte-order mark, no last newline
    append_row(path, Adjustment("s02", "mlp", 0, True, "final", "integrity", "Prof", ""))
    assert path.read_bytes() == first + b"s02,mlp,,0,final,integrity,Prof,\n"
