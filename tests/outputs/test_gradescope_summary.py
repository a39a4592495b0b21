"""Gradescope's top-level ``output``: what a student reads first (the score, each task's score, "Start here")."""

from __future__ import annotations

from pathlib import Path

from grader.course.config import Course
from grader.outputs.records import GradedTest, JudgeRecord, empty_record
from grader.outputs.results import gradescope_results

ROOT = Path(__file__).resolve().parents[2]
ASSIGNMENT = Course(ROOT).assignments(["value_ops"])[0]


def graded(name: str, task: str, score: float, most: float, methods: list[str] | None = None,
           visibility: str = "visible", output: str = "") -> GradedTest:
    return GradedTest(key=f"t::{name}", name=name, task=task, max_score=most, score=score,
                      status="passed" if score == most else "failed", visibility=visibility,
                      public=visibility == "visible", output=output, methods=methods or [], about=methods or [],
                      hints=[], internal_error="", grader_error="", duration=0.1, slowest_call=None)


def record(*tests: GradedTest) -> JudgeRecord:
    r = empty_record()
    r["tests"] = list(tests)
    return r


def test_the_top_level_output_has_the_task_scores_and_start_here():
    doc = gradescope_results(ASSIGNMENT, record(
        graded("add", "1.1", 2.0, 2.0),
        graded("mul", "1.2", 1.0, 2.0, ["Value.__mul__"], output="✗ x0 * x1"),
        graded("mul reuse", "1.2", 0.0, 2.0, ["Value.__mul__"]),
    ))
    summary = doc["output"].split("\n\n")[0].splitlines()
    assert summary[0] == f"{ASSIGNMENT.title}: 3 / 6 points."
    assert summary[1] == "Tasks: 1.1 2/2 ✓, 1.2 1/4."
    assert summary[2].startswith("Start here: 2 of the failing tests point to Value.__mul__: fix it first")
    assert "`" not in doc["output"] and "##" not in doc["output"]  # plain text, not Markdown


def test_tests_shown_only_later_stay_out_of_the_summary():
    """Gradescope shows the top-level output at once: a test visible only after publication must not surface in
    "Start here" or the task scores before then."""
    doc = gradescope_results(ASSIGNMENT, record(
        graded("add", "1.1", 2.0, 2.0),
        graded("hidden exp", "1.4", 0.0, 3.0, ["Value.exp"], visibility="after_published"),
    ))
    summary = doc["output"].split("\n\n")[0]
    assert "Value.exp" not in summary and "1.4" not in summary
    assert "Tasks (the tests you can see now): 1.1 2/2 ✓." in summary


def test_a_withheld_score_says_so_and_nothing_else():
    doc = gradescope_results(ASSIGNMENT, empty_record(grader_error="the sandbox could not be started"))
    assert "score withheld" in doc["output"] and "Start here" not in doc["output"] and "score" not in doc
