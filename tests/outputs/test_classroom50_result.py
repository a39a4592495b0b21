"""Classroom 50's result.json and release-body.md, fast: from records written here, no grading."""

from __future__ import annotations

import copy
import json
import os
import re
from pathlib import Path

import pytest
from checkout import ROOT

from grader.course.course import Course
from grader.errors import WithheldError
from grader.outputs import classroom50
from grader.outputs.classroom50 import MAX_BODY, Scale, integer_points, release_body, result_document, validate
from grader.outputs.failures import NOT_RUN
from grader.outputs.gradescope_results import gradescope_results
from grader.outputs.records import GradedTest, JudgeRecord, empty_record
from grader.outputs.self_check import CheckResult

ASSIGNMENT = Course(ROOT).assignments(["value_ops"])[0]
ENV = {"CLASSROOM": "ml-2026", "ASSIGNMENT": "micrograd", "SUBMISSION_TAG": "submit/2026-06-01T14-32-05Z-a1b2c3d",
       "USERNAME": "alice", "OWNER": "alice", "ASSIGNMENT_TYPE": "individual",
       "COMMIT_URL": "https://github.com/ml-2026/micrograd-alice/commit/a1b2c3d4",
       "RELEASE_URL": "https://github.com/ml-2026/micrograd-alice/releases/tag/submit%2F2026",
       "REVIEW_URL": "https://github.com/ml-2026/micrograd-alice/compare/0000...a1b2c3d4",
       "GITHUB_SHA": "a1b2c3d4e5f6", "GITHUB_ACTOR": "alice"}
HOSTILE = ("\x1b[2J\x1b]0;owned\x07 </details> [click](http://evil.example) <img src=x onerror=alert(1)> "
           "```\n# heading\n" + "A" * 100_000)


def graded(name: str, score: float, most: float, output: str = "", task: str = "1.2",
           methods: list[str] | None = None) -> GradedTest:
    return GradedTest(key=f"t::{name}", name=name, task=task, max_score=most, score=score,
                      status="passed" if score == most else "failed", visibility="visible", public=True,
                      output=output, methods=methods or [], about=methods or [], hints=[], internal_error="",
                      grader_error="", duration=0.1, slowest_call=None)


def check_of(*tests: GradedTest, record: JudgeRecord | None = None) -> CheckResult:
    doc = record if record is not None else empty_record()
    doc["tests"] = list(tests)
    result = CheckResult([ASSIGNMENT], path=Path("."))
    result.results[ASSIGNMENT.id] = gradescope_results(ASSIGNMENT, doc)
    return result


VALID = {
    "schema": "classroom50/result/v1", "classroom": "ml-2026", "assignment": "micrograd",
    "assignment_type": "individual", "owner": "alice", "submission": "submit/2026-06-01T14-32-05Z-a1b2c3d",
    "commit": "https://x/commit/a1", "release": "https://x/releases/tag/submit", "review": "https://x/commit/a1",
    "datetime": "2026-06-01T14:32:05Z", "graded_at": "2026-06-01T14:40:00Z", "score": 3, "max-score": 4,
    "submitted_by": {"username": "alice", "id": 12345},
    "tests": [{"test-name": "value_ops: add", "passed": True, "score": 2, "max-score": 2, "message": ""},
              {"test-name": "value_ops: mul", "passed": False, "score": 1, "max-score": 2, "extra": [1, 2]}],
}


def broken(change) -> dict:
    doc = copy.deepcopy(VALID)
    change(doc)
    return doc


def test_the_validator_accepts_a_hand_written_valid_document():
    assert validate(VALID) == []
    assert validate(broken(lambda d: d.pop("submitted_by"))) == []
    assert validate(broken(lambda d: d.update(tests=[], score=0, **{"max-score": 0}))) == []


@pytest.mark.parametrize("change, words", [
    (lambda d: d.update(usernames=["alice"]), "unknown top-level key 'usernames'"),
    (lambda d: d.update(score=2.5), "'score' must be a non-negative integer"),
    (lambda d: d.update(score=3.0), "'score' must be a non-negative integer"),
    (lambda d: d["tests"][0].update(score=True), "tests[0]: 'score' must be a non-negative integer"),
    (lambda d: d.update(score=True), "'score' must be a non-negative integer"),
    (lambda d: d.update(score=5), "'score' (5) is above 'max-score' (4)"),
    (lambda d: d["tests"][1].update(score=3), "tests[1]: 'score' (3) is above 'max-score' (2)"),
    (lambda d: d.update(score=-1), "'score' must be a non-negative integer"),
    (lambda d: d.pop("owner"), "missing required key 'owner'"),
    (lambda d: d["tests"][0].pop("passed"), "tests[0]: missing required key 'passed'"),
    (lambda d: d["tests"][0].update(passed=1), "tests[0]: 'passed' must be a boolean"),
    (lambda d: d["tests"][0].update(**{"test-name": ""}), "tests[0]: 'test-name' must be a non-empty string"),
    (lambda d: d.update(datetime="2026-06-01T25:00:00Z"), "'datetime' must be"),
    (lambda d: d.update(datetime="2026-06-01T14:32:05Z\n"), "'datetime' must be"),
    (lambda d: d.update(datetime="2026-06-01 14:32:05"), "'datetime' must be"),
    (lambda d: d.update(graded_at="2026-06-01T14:60:00Z"), "'graded_at' must be"),
    (lambda d: d.update(submission="tags/submit/x"), "'submission' must be a string starting with 'submit/'"),
    (lambda d: d.update(assignment_type="team"), "'assignment_type' must be"),
    (lambda d: d.update(schema="classroom50/result/v2"), "'schema' must be"),
    (lambda d: d.update(commit=""), "'commit' must be a non-empty string"),
    (lambda d: d.update(tests={}), "'tests' must be an array"),
    (lambda d: d["tests"].append("x"), "tests[2]: not an object"),
    (lambda d: d["submitted_by"].update(login="alice"), "submitted_by: unknown key 'login'"),
    (lambda d: d["submitted_by"].update(id=True), "submitted_by: 'id' must be an integer or null"),
    (lambda d: d.update(submitted_by={"id": None}), "submitted_by: 'username' must be a non-empty string"),
])
def test_the_validator_names_each_violation(change, words):
    errors = validate(broken(change))
    assert any(words in e for e in errors), errors


def test_the_pattern_checks_the_clock_not_the_calendar():
    assert validate(broken(lambda d: d.update(datetime="2026-13-01T23:00:00Z"))) == []  # as the schema does
    assert validate(broken(lambda d: d.update(datetime="2026-13-01T25:00:00Z")))
    assert validate([]) == ["the document is not a JSON object"]


def test_points_of_2_1_5_and_0_25_are_scaled_by_4():
    tests = [graded("a", 2.0, 2.0), graded("b", 0.75, 1.5), graded("c", 0.25, 0.25)]
    scale = integer_points({"max_score": t["max_score"]} for t in tests)
    assert scale == Scale(4) and [scale.most(t["max_score"]) for t in tests] == [8, 6, 1]
    doc = result_document(check_of(*tests), ENV, None)
    assert [(t["score"], t["max-score"], t["passed"]) for t in doc["tests"]] == [(8, 8, True), (3, 6, False),
                                                                               (1, 1, True)]
    assert (doc["score"], doc["max-score"]) == (12, 15) and validate(doc) == []


def test_whole_points_stay_as_they_are_and_partial_credit_never_reaches_the_maximum():
    assert integer_points([{"max_score": 2.0}, {"max_score": 3}]) == Scale(1)
    scale = Scale(1)
    assert scale.score(1.9999999, 2.0, passed=False) == 1  # a failed test is never full marks
    assert scale.score(1.0, 2.0, passed=False) == 1 and scale.score(0.5, 2.0, passed=False) == 0
    assert scale.score(2.0, 2.0, passed=True) == 2
    assert scale.score(0.5, 1.0, passed=False) == 0 and scale.score(0.0, 0.0, passed=False) == 0
    odd = integer_points([{"max_score": 0.3333}, {"max_score": 1.0}])  # no factor up to 100 makes 0.3333 whole
    assert odd == Scale(100) and odd.most(0.3333) == 33 and odd.score(0.3332, 0.3333, passed=False) == 32
    doc = result_document(check_of(graded("x", 1.99999, 2.0, "✗ almost"), graded("y", 2.0, 2.0)), ENV, None)
    assert [t["score"] for t in doc["tests"]] == [1, 2] and doc["tests"][0]["passed"] is False


def test_the_document_takes_the_runner_s_environment():
    result = check_of(graded("add", 2.0, 2.0), graded("mul", 1.0, 2.0, "✗ x0 * x1\n  wrong grad"))
    doc = result_document(result, ENV, "2026-06-01T14:32:05Z")
    assert validate(doc) == [] and list(doc)[:3] == ["schema", "classroom", "assignment"]
    assert (doc["classroom"], doc["assignment"], doc["owner"]) == ("ml-2026", "micrograd", "alice")
    assert doc["submission"] == ENV["SUBMISSION_TAG"] and doc["datetime"] == "2026-06-01T14:32:05Z"
    assert (doc["commit"], doc["release"], doc["review"]) == (ENV["COMMIT_URL"], ENV["RELEASE_URL"], ENV["REVIEW_URL"])
    add, mul = doc["tests"]
    assert add == {"test-name": "value_ops: add", "passed": True, "score": 2, "max-score": 2, "message": "",
                   "task": "1.2", "assignment": "value_ops"}
    assert mul["passed"] is False and mul["score"] == 1 and "wrong grad" in mul["message"]
    assert (doc["score"], doc["max-score"]) == (3, 4)


def test_missing_environment_falls_back_to_a_valid_local_document():
    result = check_of(graded("add", 2.0, 2.0))
    doc = result_document(result, {}, None)
    assert validate(doc) == []
    assert (doc["classroom"], doc["assignment"], doc["owner"]) == ("local", "value_ops", "unknown")
    assert doc["submission"] == "submit/local-unknown" and doc["commit"] == doc["release"] == doc["review"] == "unknown"
    assert doc["assignment_type"] == "individual" and re.fullmatch(classroom50.TIME, doc["datetime"])
    env = {"GITHUB_SHA": "0123456789abcdef", "GITHUB_ACTOR": "bob", "SUBMISSION_TAG": "v1.0",
           "ASSIGNMENT_TYPE": "team", "COMMIT_URL": "https://x/commit/0123", "CLASSROOM": " \t "}
    doc = result_document(result, env, "not a time")
    assert doc["submission"] == "submit/local-0123456" and doc["owner"] == "bob" and doc["classroom"] == "local"
    assert doc["assignment_type"] == "group" and doc["release"] == doc["review"] == "https://x/commit/0123"
    assert doc["datetime"] != "not a time" and validate(doc) == []
    assert result_document(result, {"USERNAME": "carol", "GITHUB_ACTOR": "bob"}, None)["owner"] == "carol"
    assert result_document(result, {"ASSIGNMENT_TYPE": "pairs"}, None)["assignment_type"] == "individual"
    two = CheckResult([ASSIGNMENT, *Course(ROOT).assignments(["backward"])], path=Path("."))
    two.results = {a.id: gradescope_results(a, empty_record()) for a in two.assignments}
    assert result_document(two, {}, None)["assignment"] == "value_ops+backward"


def test_environment_values_are_capped_and_have_no_control_characters():
    env = {**ENV, "OWNER": "ali\x1b[31mce\n::error::x", "CLASSROOM": "c" * 5000}
    doc = result_document(check_of(graded("add", 2.0, 2.0)), env, None)
    assert doc["owner"] == "ali[31mce::error::x" and doc["classroom"] == "c" * 200


def test_hostile_test_output_stays_inert_and_capped(tmp_path):
    result = check_of(graded("mul", 1.0, 2.0, "✗ x0 * x1\n  " + HOSTILE), graded("add", 2.0, 2.0))
    doc = result_document(result, ENV, None)
    message = doc["tests"][0]["message"]
    assert len(message) <= classroom50.MAX_MESSAGE and "\x1b" not in message and "\x07" not in message
    assert "\n" in message and validate(doc) == []
    body = release_body(result)
    assert len(body) <= MAX_BODY and "\x1b" not in body and "\x07" not in body and "\\x1b" in body
    # the hostile text is only ever inside a fenced code block: no tag, link or heading of its own
    lines = body.splitlines()
    assert lines.count("</details>") == 1 and sum(line.startswith("<details>") for line in lines) == 1
    fenced = re.findall(r"^(`{3,})text\n(.*?)\n\1$", body, flags=re.S | re.M)
    assert len(fenced) == 1 and "</details>" in fenced[0][1] and "[click](http://evil.example)" in fenced[0][1]
    outside = re.sub(r"^(`{3,})text\n.*?\n\1$", "", body, flags=re.S | re.M)
    assert "evil.example" not in outside and "<img" not in outside and "# heading" not in outside


def test_a_hostile_test_name_cannot_close_its_summary():
    result = check_of(graded("</summary></details><script>x</script>\n\n# owned", 0.0, 2.0, "✗ x"))
    body = release_body(result)
    summary = next(line for line in body.splitlines() if line.startswith("<details>"))
    assert "&lt;/summary&gt;&lt;/details&gt;&lt;script&gt;" in summary and "\n# owned" not in body
    name = result_document(result, ENV, None)["tests"][0]["test-name"]
    assert "\n" not in name and len(name) <= 200


def test_a_long_release_body_is_shortened_with_a_closing_line():
    tests = [graded(f"test {i}", 0.0, 1.0, f"✗ case {i}\n  " + f"error {i} " * 600) for i in range(40)]
    body = release_body(check_of(*tests))
    assert len(body) <= MAX_BODY and body.rstrip().endswith(classroom50.SHORTENED)
    assert body.count("<details>") == body.count("</details>") >= 5
    assert body.count("\n```") % 2 == 0  # no fence left open


def test_the_release_body_has_the_total_the_tasks_and_start_here():
    result = check_of(graded("mul", 0.75, 1.5, "✗ x0 * x1\n  Value.__mul__: wrong", task="1.3",
                             methods=["Value.__mul__"]),
                      graded("add", 0.25, 0.25, task="1.1"), graded("pow", 2.0, 2.0, task="1.3"))
    body = release_body(result)
    assert body.splitlines()[0] == "# micrograd self-check: 12 / 15 points (course points: 3 / 3.75)"
    assert "multiplied by 4" in body and "## Start here" in body and "`Value.__mul__`" in body
    assert "| 1.1 | 0.25 / 0.25 | ✅ |" in body and "| 1.3 | 2.75 / 3.5 | ❌ |" in body
    assert "<details><summary>✗ mul (0.75 / 1.5)</summary>" in body


def test_code_that_could_not_load_is_a_failure_with_the_load_error_as_message():
    record = empty_record()
    record["imports"] = {"micrograd.engine": {
        "type": "SyntaxError", "message": "expected ':'", "during": "",
        "where": {"file": "micrograd/engine.py", "line": 34, "function": "<module>", "source": "def f(x)"}}}
    result = check_of(graded("add", 0.0, 2.0, NOT_RUN), graded("mul", 0.0, 2.0, NOT_RUN), record=record)
    doc = result_document(result, ENV, None)
    assert all(not t["passed"] and t["score"] == 0 and "expected ':'" in t["message"] for t in doc["tests"])
    assert validate(doc) == [] and (doc["score"], doc["max-score"]) == (0, 4)
    body = release_body(result)
    assert body.count("expected ':'") == 1 and "<details>" not in body


def test_an_assignment_with_no_tests_is_a_failure_not_a_vacuous_pass():
    result = check_of(record=empty_record(error="no micrograd/engine.py in the submission"))
    doc = result_document(result, ENV, None)
    assert doc["tests"][0]["passed"] is False and "no micrograd/engine.py" in doc["tests"][0]["message"]
    assert validate(doc) == []


def test_a_withheld_result_writes_nothing(tmp_path):
    result = CheckResult([ASSIGNMENT], path=Path("."))
    result.results[ASSIGNMENT.id] = gradescope_results(ASSIGNMENT, empty_record(grader_error="no sandbox"))
    with pytest.raises(WithheldError):
        classroom50.write(result, tmp_path, ENV)
    with pytest.raises(WithheldError):  # a missing result is no score either
        classroom50.write(CheckResult([ASSIGNMENT], path=Path(".")), tmp_path, ENV)
    assert list(tmp_path.iterdir()) == []


def test_an_invalid_document_of_the_grader_s_own_is_a_grader_error(tmp_path, monkeypatch):
    monkeypatch.setattr(classroom50, "validate", lambda doc: ["'score' (5) is above 'max-score' (4)"])
    with pytest.raises(WithheldError, match="breaks the Classroom 50 contract"):
        classroom50.write(check_of(graded("add", 2.0, 2.0)), tmp_path, ENV)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(not hasattr(os, "symlink") or os.name == "nt", reason="symbolic links need POSIX here")
def test_planted_links_are_replaced_not_followed(tmp_path):
    checkout, elsewhere = tmp_path / "checkout", tmp_path / "elsewhere"
    checkout.mkdir()
    elsewhere.mkdir()
    for name in ("result.json", "release-body.md", ".result.json.tmp", ".release-body.md.tmp"):
        (elsewhere / name).write_text("precious")
        (checkout / name).symlink_to(elsewhere / name)
    returned = classroom50.write(check_of(graded("add", 2.0, 2.0)), checkout, ENV)
    written = checkout / "result.json"
    assert not written.is_symlink() and json.loads(written.read_text(encoding="utf-8")) == returned
    assert not (checkout / "release-body.md").is_symlink()
    assert all((elsewhere / name).read_text() == "precious" for name in os.listdir(elsewhere))
    doc = json.loads(written.read_text(encoding="utf-8"))
    assert validate(doc) == [] and doc["score"] == doc["max-score"] == 2
    assert "# micrograd self-check: 2 / 2 points" in (checkout / "release-body.md").read_text(encoding="utf-8")


def test_clear_removes_what_an_earlier_run_left(tmp_path):
    (tmp_path / "result.json").write_text('{"score": 100}')
    (tmp_path / "release-body.md").symlink_to(tmp_path / "nowhere")
    classroom50.clear(tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_commit_time_is_the_committer_date_of_head_or_none(tmp_path):
    assert classroom50.commit_time(tmp_path) is None  # not a repository
    stamp = classroom50.commit_time(ROOT)
    assert stamp is None or re.fullmatch(classroom50.TIME, stamp)
