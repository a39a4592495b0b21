"""Feedback and output formats, fast: from records written here, no grading."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

from grader.course.config import Course
from grader.outputs import formats
from grader.outputs.records import GradedTest, JudgeRecord, empty_record
from grader.outputs.results import feedback_markdown, gradescope_results
from grader.outputs.self_check import CheckResult

ROOT = Path(__file__).resolve().parents[2]
ASSIGNMENT = Course(ROOT).assignments(["value_ops"])[0]


def graded(name: str, score: float, most: float, output: str = "", methods: list[str] | None = None) -> GradedTest:
    return GradedTest(key=f"t::{name}", name=name, task="1.2", max_score=most, score=score,
                      status="passed" if score == most else "failed", visibility="visible", public=True,
                      output=output, methods=methods or [], about=methods or [], hints=[], internal_error="", grader_error="", duration=0.1)


def record(*tests: GradedTest) -> JudgeRecord:
    r = empty_record()
    r["tests"] = list(tests)
    return r


def test_feedback_starts_with_the_method_most_failures_point_to():
    doc = record(graded("mul", 1.0, 2.0, "✗ x0 * x1\n  Value.__mul__: wrong", ["Value.__mul__"]),
                 graded("reuse", 0.0, 2.0, "✗ x0 * x0", ["Value.__mul__"]), graded("add", 2.0, 2.0))
    text = feedback_markdown(ASSIGNMENT, "alice", doc)
    assert "**3 / 6 points**" in text and "## Start here" in text and "`Value.__mul__`" in text
    assert text.index("### ✗ mul") < text.index("## Passed")


def test_a_withheld_record_has_no_score_in_results_json():
    doc = gradescope_results(ASSIGNMENT, empty_record(grader_error="the sandbox could not be started"))
    assert "score" not in doc and doc["extra_data"]["grader"]["grader_error"]


def test_check_formats_agree_on_the_score():
    result = CheckResult([ASSIGNMENT], path=Path("."))
    result.results[ASSIGNMENT.id] = gradescope_results(ASSIGNMENT, record(graded("mul", 1.0, 2.0, "✗ \x1b[31mred"),
                                                                          graded("add", 2.0, 2.0)))
    assert not result.passed and result.score(ASSIGNMENT) == (3.0, 4.0)
    assert json.loads(formats.as_json(result))["assignments"][ASSIGNMENT.id]["score"] == 3.0
    suite = ET.fromstring(formats.check_junit(result).split("?>", 1)[1]).find("testsuite")
    assert suite is not None and suite.get("failures") == "1"
    assert "\x1b" not in formats.check_junit(result)  # XML 1.0 forbids it: shown as an escape


def test_the_self_check_shows_what_the_program_printed_and_ends_with_the_total_and_the_next_task():
    doc = record(graded("mul", 1.0, 2.0, "✗ x0 * x1"), graded("add", 2.0, 2.0))
    doc["program_output"] = "debug: grad is 0.5\n"
    result = CheckResult([ASSIGNMENT], path=Path("."))
    result.results[ASSIGNMENT.id] = gradescope_results(ASSIGNMENT, doc)
    shown = formats.text(result)
    assert "Your program printed" in shown and "  | debug: grad is 0.5" in shown
    assert shown.splitlines()[-1] == f"Total: 3 / 4 public points; next: task 1.2 of {ASSIGNMENT.title}"
