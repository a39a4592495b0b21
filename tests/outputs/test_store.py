"""The results store: the one reader and writer of an output folder's results (each version of a file parsed once)."""

from __future__ import annotations

import json
import os
import shutil

from checkout import ROOT

from grader.course.course import Course
from grader.grading.batch import grade
from grader.outputs import store as store_module
from grader.outputs.records import empty_record
from grader.outputs.store import ResultStore, parse


def test_a_class_run_parses_each_results_file_once_and_a_resumed_run_once_more(tmp_path):
    subs = tmp_path / "subs"
    for name in ("alice", "bob"):
        shutil.copytree(ROOT / "examples" / "submissions" / "correct_recursive", subs / name)
    course, out = Course(ROOT), tmp_path / "out"
    first = grade(course, subs, ["value_ops"], out, jobs=1)
    assert first.store is not None and first.store.parses == 2  # the gradebook, isolation and items share them
    again = grade(course, subs, ["value_ops"], out, jobs=1)  # all kept: read to decide, not read again to collect
    assert again.skipped == ["alice", "bob"] and again.store is not None and again.store.parses == 2
    assert [g.scores for g in again.grades] == [g.scores for g in first.grades]


def test_a_file_written_again_is_read_again_and_a_broken_one_is_no_result(tmp_path):
    course = Course(ROOT)
    value_ops = course.assignment("value_ops")
    store = ResultStore(tmp_path)
    store.write(value_ops, "alice", empty_record(error="no micrograd/engine.py"))
    assert store.get("value_ops", "alice").problems == ("no micrograd/engine.py",)
    assert store.get("value_ops", "alice") is store.get("value_ops", "alice") and store.parses == 1
    store.write(value_ops, "alice", empty_record(grader_error="the judge process ended with status 9"))
    assert store.get("value_ops", "alice").withheld == "the judge process ended with status 9" and store.parses == 2
    path = tmp_path / "value_ops" / "alice" / "results.json"
    for broken in ("{", "[]", json.dumps({"tests": "x"}), json.dumps({"tests": [], "extra_data": 5})[:-1]):
        path.write_text(broken, encoding="utf-8")
        os.utime(path, ns=(1, len(broken)))  # a new version even within the clock's resolution
        assert store.get("value_ops", "alice") is None
    assert store.get("value_ops", "nobody") is None


def test_an_oversized_results_file_is_not_read(tmp_path, monkeypatch):
    monkeypatch.setattr(store_module, "MAX_RESULTS_BYTES", 100)
    path = tmp_path / "value_ops" / "alice" / "results.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"tests": [], "pad": "x" * 200}), encoding="utf-8")
    store = ResultStore(tmp_path)
    assert store.get("value_ops", "alice") is None and store.parses == 0


def test_mistyped_values_read_as_empty_and_withheld_comes_from_any_level():
    doc = {"tests": [{"name": "t", "score": "9", "max_score": 2, "status": "failed",
                      "extra_data": {"key": "k", "grader_error": "internal error"}}],
           "extra_data": {"grader": {"problems": "not a list", "course": ["x"], "isolation": {"pid namespace": "on"}}}}
    result = parse(doc, "value_ops", "alice")
    assert result is not None and result.score == 0 and result.max_score == 2
    assert result.withheld == "internal error" and result.problems == () and result.course is None
    assert result.isolation == {"pid namespace": {"layer": "pid namespace", "active": True, "reason": ""}}
