"""A late penalty in the outputs: taken once from the score the judge writes, stated in one sentence, never taken
from a withheld score, and read back with bounds."""

from __future__ import annotations

import csv
import json
from dataclasses import asdict
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest
from checkout import ROOT

from grader.course.course import Course
from grader.course.due_dates import DueDate
from grader.course.late_policy import LatePolicy
from grader.intake.entry import Origin
from grader.outputs.gradebook import grade_from_results, write_csv
from grader.outputs.gradescope_results import gradescope_results
from grader.outputs.lms_export import gradebook_of
from grader.outputs.records import GradedTest, JudgeRecord, Stamp, empty_record
from grader.outputs.store import ResultStore, parse

VALUE_OPS = Course(ROOT).assignment("value_ops")  # 40 points
BACKWARD = Course(ROOT).assignment("backward")
DUE = datetime(2026, 11, 30, 23, 59, tzinfo=ZoneInfo("Europe/Paris"))
POLICY = LatePolicy(grace=600, penalty=0.1, per="day", cap=0.3)


def graded(name: str, score: float, most: float, visibility: str = "visible") -> GradedTest:
    return GradedTest(key=f"t::{name}", name=name, task="1.1", max_score=most, score=score,
                      status="passed" if score == most else "failed", visibility=visibility, public=True, output="",
                      methods=[], about=[], hints=[], internal_error="", grader_error="", duration=0.1,
                      slowest_call=None)


def record(*tests: GradedTest, grader_error: str = "") -> JudgeRecord:
    r = empty_record(grader_error=grader_error)
    r["tests"] = list(tests)
    return r


def stamp(late_by: timedelta) -> Stamp:
    terms = DueDate(DUE, DUE, POLICY).terms(DUE + late_by, "the committer date of commit abc1234")
    return Stamp(fingerprint="f", course={}, origin={}, late=terms)


def from_git(commit: str, late_by: timedelta) -> Stamp:
    """A result graded at ``commit`` of a git repository, committed ``late_by`` after the due date, as
    :func:`grader.grading.batch.intake` stamps it (the commit's time dates the work)."""
    at = DUE + late_by
    time = at.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    origin = Origin(commit, time, "HEAD", late_by > timedelta(0), f"graded HEAD (commit {commit[:7]}, {time})")
    return Stamp(fingerprint="f", course={}, origin=asdict(origin),
                 late=DueDate(DUE, DUE, POLICY).terms(at, f"the committer date of commit {commit[:7]}"))


def test_each_assignment_graded_from_git_has_its_own_commit_time_and_lateness_in_the_gradebook(tmp_path):
    # one repository per student and assignment: alice's value_ops commit is on time, her backward one 30 h late
    store, on_time, late = ResultStore(tmp_path), "a" * 40, "b" * 40
    store.write(VALUE_OPS, "alice", record(graded("a", 40, 40)), from_git(on_time, -timedelta(hours=2)))
    store.write(BACKWARD, "alice", record(graded("a", 50, 50)), from_git(late, timedelta(hours=30)))
    store.write(VALUE_OPS, "bob", record(graded("a", 40, 40)), stamp(timedelta(0)))  # a folder: no commit
    grades = [grade_from_results(store, [VALUE_OPS, BACKWARD], s) for s in ("alice", "bob")]
    write_csv(tmp_path / "grades.csv", [VALUE_OPS, BACKWARD], grades)
    with open(tmp_path / "grades.csv", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        rows = {row["student"]: row for row in reader}
    assert reader.fieldnames == ["student", "value_ops", "backward", "total",
                                 "value_ops.commit", "value_ops.commit_time", "value_ops.raw",
                                 "value_ops.late_seconds", "value_ops.late", "value_ops.penalty",
                                 "backward.commit", "backward.commit_time", "backward.raw", "backward.late_seconds",
                                 "backward.late", "backward.penalty", "notes"]
    alice = rows["alice"]
    assert (alice["value_ops.commit"], alice["value_ops.commit_time"], alice["value_ops.late"]) == (
        on_time, "2026-11-30T20:59:00Z", "on time")
    assert (alice["backward.commit"], alice["backward.commit_time"], alice["backward.late"]) == (
        late, "2026-12-02T04:59:00Z", "2 started days")
    assert (alice["backward"], alice["backward.raw"], alice["backward.penalty"]) == ("40", "50", "10")
    assert alice["notes"].split("; ")[0] == "backward: late: graded commit bbbbbbb of 2026-12-02T04:59:00Z"
    assert "aaaaaaa" not in alice["notes"] and "value_ops" not in alice["notes"]
    assert (rows["bob"]["value_ops.commit"], rows["bob"]["backward.commit"]) == ("", "")
    # the exports read the scores alone, never a commit column as an assignment
    assert gradebook_of(tmp_path).assignments == ["value_ops", "backward"]


def test_the_penalty_is_taken_once_from_the_final_score_and_the_tests_keep_their_points():
    doc = gradescope_results(VALUE_OPS, record(graded("a", 30, 30), graded("b", 5, 10)), stamp(timedelta(hours=30)))
    assert doc["score"] == 27.0  # 35 less 2 started days of 10% of 40 points
    assert [t["score"] for t in doc["tests"]] == [30, 5]
    late = doc["extra_data"]["grader"]["late"]
    assert (late["raw_score"], late["penalty_points"], late["final_score"], late["applied"]) == (35, 8, 27, True)
    assert late["seconds"] == 30 * 3600 and late["counted"] == "2 started days"
    summary = doc["output"].split("\n\n")[0]
    assert "2 started day(s), 20% of the points taken" in summary and "Score after the penalty: 27 / 40" in summary
    result = parse(json.loads(json.dumps(doc)), "value_ops", "alice")
    assert result is not None and result.raw_score == 35 and result.score == 27


def test_a_withheld_score_is_never_penalised_and_says_so(tmp_path):
    store = ResultStore(tmp_path)
    store.write(VALUE_OPS, "alice", record(graded("a", 0, 40), grader_error="the sandbox could not start"),
                stamp(timedelta(days=2)))
    doc = json.loads((tmp_path / "value_ops" / "alice" / "results.json").read_text())
    assert "score" not in doc and doc["extra_data"]["grader"]["late"]["applied"] is False
    assert "No penalty is applied to a withheld score." in (tmp_path / "value_ops" / "alice" / "feedback.md").read_text()
    grade = grade_from_results(store, [VALUE_OPS], "alice")
    write_csv(tmp_path / "grades.csv", [VALUE_OPS], [grade])
    header, row = (tmp_path / "grades.csv").read_text().splitlines()
    cells = dict(zip(header.split(","), row.split(",")))
    assert cells["value_ops"] == "" and cells["total"] == "" and cells["value_ops.penalty"] == ""
    assert cells["value_ops.late_seconds"] == str(2 * 86400)


def test_with_tests_not_visible_yet_the_summary_does_not_reveal_their_points_through_the_final_score():
    doc = gradescope_results(VALUE_OPS, record(graded("a", 10, 10), graded("h", 20, 30, visibility="after_due_date")),
                             stamp(timedelta(hours=5)))
    summary = doc["output"].split("\n\n")[0]
    assert "1 started day(s), 10% of the points taken" in summary and "Score after the penalty" not in summary


def test_within_grace_and_on_time_cost_nothing_and_say_so():
    grace = gradescope_results(VALUE_OPS, record(graded("a", 40, 40)), stamp(timedelta(minutes=10)))
    assert grace["score"] == 40 and "within the grace period: no penalty" in grace["output"]
    assert grace["extra_data"]["grader"]["late"]["counted"] == "within the grace period"
    on_time = gradescope_results(VALUE_OPS, record(graded("a", 40, 40)), stamp(timedelta(0)))
    assert on_time["extra_data"]["grader"]["late"]["counted"] == "on time"


@pytest.mark.parametrize("broken", [
    {"seconds": "3600"}, {"final_score": float("nan")}, {"final_score": True}, {"applied": "yes"},
    {"seconds": -1}, {"sentence": ["x"]},
])
def test_a_malformed_late_block_reads_as_none_and_the_score_as_the_tests_points(broken):
    doc = gradescope_results(VALUE_OPS, record(graded("a", 40, 40)), stamp(timedelta(days=1, seconds=1)))
    doc["extra_data"]["grader"]["late"].update(broken)
    result = parse(doc, "value_ops", "alice")
    assert result is not None and result.late is None and result.score == 40
