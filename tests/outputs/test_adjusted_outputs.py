"""Adjustments in a graded folder's outputs: applied from ``adjustments.csv`` each time the outputs are made, so a
re-grade, a resumed run, ``grader adjust`` and a merge of shards each show every row once (grader.outputs.adjusted,
grader.grading.adjusting, grader.commands.adjust), and a row that takes a score out of range is refused by line."""

from __future__ import annotations

import csv
import json
from datetime import timedelta
from pathlib import Path

import pytest
from test_late_results import VALUE_OPS, graded, record, stamp
from test_lms_export_term import a_course, write

from grader.cli import main
from grader.course.adjustments import load_adjustments
from grader.course.course import Course
from grader.errors import ConfigError
from grader.grading.shard import merge
from grader.outputs.class_outputs import write_class_outputs
from grader.outputs.class_report import class_data
from grader.outputs.store import ResultStore

HEADER = "student,assignment,add,set,stage,reason,by,date\n"
REGRADE = "alice,value_ops,2,,raw,test 3 was unfair to your recursive sort,TA Lee,2026-10-03\n"
WAIVED = "alice,value_ops,4,,final,late penalty waived: illness,Prof. Ada,2026-10-05\n"
ZERO = "bob,value_ops,,0,final,academic integrity case 14,Prof. Ada,2026-10-06\n"


def graded_folder(out: Path) -> ResultStore:
    """alice: 30 of 40, 30 hours late (2 started days, 10% a day: 8 points taken, 22); bob: 40 of 40, on time."""
    store = ResultStore(out)
    store.write(VALUE_OPS, "alice", record(graded("a", 30, 40)), stamp(timedelta(hours=30)))
    store.write(VALUE_OPS, "bob", record(graded("a", 40, 40)), stamp(timedelta(0)))
    return store


def outputs(store: ResultStore, rows: str, tmp_path: Path) -> None:
    path = write(tmp_path / "adjustments.csv", HEADER + rows)
    write_class_outputs(store, [VALUE_OPS], ["alice", "bob"],
                        adjustments=load_adjustments(path, {"value_ops": 40}, [], ["alice", "bob"]))


def gradebook(out: Path) -> dict[str, dict[str, str]]:
    with open(out / "grades.csv", encoding="utf-8") as f:
        return {r["student"]: r for r in csv.DictReader(f)}


def results(out: Path, student: str) -> dict:
    return json.loads((out / "value_ops" / student / "results.json").read_text(encoding="utf-8"))


def test_each_row_is_applied_once_however_often_the_outputs_are_made_and_after_a_re_grade(tmp_path):
    out = tmp_path / "out"
    store = graded_folder(out)
    for _ in range(3):  # a resumed run makes the outputs again from the kept results
        outputs(store, REGRADE + WAIVED + ZERO, tmp_path)
    # a re-grade: the judge writes the result again, as it grades it (without any adjustment)
    store.write(VALUE_OPS, "alice", record(graded("a", 30, 40)), stamp(timedelta(hours=30)))
    outputs(store, REGRADE + WAIVED + ZERO, tmp_path)
    book = gradebook(out)
    # alice: raw 30 + 2 = 32, less the penalty's 8 = 24, + 4 waived = 28; bob: set to 0
    assert (book["alice"]["value_ops"], book["alice"]["value_ops.unadjusted"], book["alice"]["total"]) == ("28", "22", "28")
    assert (book["bob"]["value_ops"], book["bob"]["value_ops.unadjusted"]) == ("0", "40")
    assert "value_ops: adjusted: +2 raw by TA Lee (line 2), +4 final by Prof. Ada (line 3)" in book["alice"]["notes"]
    doc = results(out, "alice")
    assert doc["score"] == 28
    lines = [t for t in doc["tests"] if "adjustment" in t.get("extra_data", {})]
    assert [(t["score"], t["max_score"]) for t in lines] == [(2, 0), (4, 0)]
    assert lines[0]["name"] == ("Adjustment: +2 before the late penalty by TA Lee on 2026-10-03: test 3 was unfair to "
                                "your recursive sort")
    assert doc["output"].count("Adjusted score: 28 / 40 points (before the adjustments: 22)") == 1
    feedback = (out / "value_ops" / "alice" / "feedback.md").read_text(encoding="utf-8")
    assert feedback.count("## Adjustments") == 1
    assert feedback.count("adjusted: +2 before the late penalty by TA Lee on 2026-10-03") == 1
    assert "**Your score: 28 / 40 points** (before the adjustments: 22)." in feedback
    stored = store.get("value_ops", "alice")  # what a later run reads back: the judge's, never adjusted
    assert stored is not None and (stored.raw_score, stored.score) == (30, 22)


def test_a_row_taken_out_of_the_file_leaves_every_output(tmp_path):
    out = tmp_path / "out"
    store = graded_folder(out)
    before = (out / "value_ops" / "bob" / "results.json").read_bytes()
    outputs(store, ZERO, tmp_path)
    assert results(out, "bob")["score"] == 0
    outputs(store, "", tmp_path)
    assert (out / "value_ops" / "bob" / "results.json").read_bytes() == before.rstrip(b"\n") or \
        results(out, "bob") == json.loads(before)
    assert "Adjustments" not in (out / "value_ops" / "bob" / "feedback.md").read_text(encoding="utf-8")
    assert "value_ops.unadjusted" not in gradebook(out)["bob"]


def test_a_row_that_takes_a_score_out_of_range_is_refused_by_line_and_nothing_is_written(tmp_path):
    out = tmp_path / "out"
    store = graded_folder(out)
    outputs(store, "", tmp_path)
    written = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    with pytest.raises(ConfigError) as caught:
        outputs(store, REGRADE + "alice,value_ops,10,,raw,bonus,TA Lee,\n", tmp_path)
    assert caught.value.key == "line 3, add"
    assert caught.value.message == "+10 makes the tests' points of alice on value_ops 42, outside 0 to 40 (it was 32)"
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == written


def a_term(tmp_path: Path, rows: str) -> Path:
    course = a_course(tmp_path, value_ops="true")
    write(course / "assignments" / "course.yaml", "adjustments: term/adjustments.csv\n")
    write(course / "term" / "adjustments.csv", HEADER + rows)
    return course


def test_merged_shards_and_the_report_carry_each_adjustment_once(tmp_path):
    course = a_term(tmp_path, REGRADE + ZERO)
    one, two = ResultStore(tmp_path / "one"), ResultStore(tmp_path / "two")
    one.write(VALUE_OPS, "alice", record(graded("a", 30, 40)), stamp(timedelta(hours=30)))
    two.write(VALUE_OPS, "bob", record(graded("a", 40, 40)), stamp(timedelta(0)))
    dest = tmp_path / "merged"
    _, grades, store = merge(Course(course), [one.out, two.out], dest)
    assert {g.student: g.cell("value_ops") for g in grades} == {"alice": "24", "bob": "0"}
    _, grades, store = merge(Course(course), [one.out, two.out, dest], dest)  # merged again, over itself
    assert {g.student: g.cell("value_ops") for g in grades} == {"alice": "24", "bob": "0"}
    assert len([t for t in results(dest, "alice")["tests"] if "adjustment" in t.get("extra_data", {})]) == 1
    report = class_data(dest, Course(course), store)
    assert [(r.line, r.student, r.change, r.stage, r.by, r.reason) for r in report.adjustments] == [
        (2, "alice", "+2", "raw", "TA Lee", "test 3 was unfair to your recursive sort"),
        (3, "bob", "=0", "final", "Prof. Ada", "academic integrity case 14")]


def test_grader_adjust_records_a_row_prints_the_score_before_and_after_and_refuses_a_bad_one(tmp_path, capsys):
    course = a_term(tmp_path, REGRADE)
    out = tmp_path / "out"
    graded_folder(out)
    base = ["--course", str(course), "adjust"]
    assert main([*base, "bob", "value_ops", "--set", "0", "--stage", "final", "--reason", "integrity case 14",
                 "--by", "Prof. Ada", "--graded", str(out)]) == 0
    printed = capsys.readouterr().out
    path = course / "term" / "adjustments.csv"
    assert f"recorded {path} line 3: bob value_ops adjusted: =0 to the final score by Prof. Ada on " in printed
    assert "bob on value_ops: 40 -> 0 / 40 points" in printed
    assert gradebook(out)["bob"]["value_ops"] == "0" and gradebook(out)["alice"]["value_ops"] == "24"
    kept = path.read_bytes()
    assert kept.endswith(b",integrity case 14,Prof. Ada," + kept.split(b",")[-1])
    # a second score set for bob, then a change that takes alice over 40: refused, the file as it was
    assert main([*base, "bob", "value_ops", "--set", "40", "--stage", "final", "--reason", "x", "--by", "TA",
                 "--graded", str(out)]) == 2
    assert "line 4, set: a second score set for bob on value_ops (the first on line 3)" in capsys.readouterr().err
    assert main([*base, "alice", "value_ops", "--add", "20", "--stage", "final", "--reason", "x", "--by", "TA",
                 "--graded", str(out)]) == 2
    assert "line 4, add: +20 makes the score of alice on value_ops 44, outside 0 to 40" in capsys.readouterr().err
    assert path.read_bytes() == kept
