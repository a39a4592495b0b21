"""`grader check`'s report when one error stops several assignments, and its one-line view of the others: the text
report and every other format, from records written here (no grading)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

from checkout import ROOT

from grader.course.course import Course
from grader.outputs import formats
from grader.outputs.classroom50 import release_body, result_document, validate
from grader.outputs.failures import NOT_RUN
from grader.outputs.gradescope_results import gradescope_results
from grader.outputs.records import GradedTest, JudgeRecord, empty_record
from grader.outputs.self_check import CheckResult

VALUE_OPS, BACKWARD, FORWARD = Course(ROOT).assignments(["value_ops", "backward", "forward_mode"])
SYNTAX = {"type": "SyntaxError", "message": "expected ':'", "during": "",
          "where": {"file": "micrograd/engine.py", "line": 52, "function": "<module>", "source": "def __mul__(self, other)"}}
DETAIL = "at micrograd/engine.py line 52, in <module>: def __mul__(self, other)"


def graded(name: str, score: float, most: float, output: str = "") -> GradedTest:
    return GradedTest(key=f"t::{name}", name=name, task="1.2", max_score=most, score=score,
                      status="passed" if score == most else "failed", visibility="visible", public=True,
                      output=output, methods=[], about=[], hints=[], internal_error="", grader_error="", duration=0.1,
                      slowest_call=None)


def stopped(*names: str) -> JudgeRecord:
    """An assignment none of whose tests could run: engine.py has a syntax error."""
    record = empty_record()
    record["tests"] = [graded(name, 0.0, 2.0, NOT_RUN) for name in names]
    record["imports"] = {"micrograd.engine": SYNTAX}
    return record


def ran(*tests: GradedTest) -> JudgeRecord:
    record = empty_record()
    record["tests"] = list(tests)
    return record


def check() -> CheckResult:
    """engine.py does not load: Assignments 1 and 2 are stopped; Assignment 4 (forward.py) runs and fails a test."""
    result = CheckResult([VALUE_OPS, BACKWARD, FORWARD], path=Path("."))
    records = [(VALUE_OPS, stopped("add", "mul")), (BACKWARD, stopped("tanh", "relu", "exp")),
               (FORWARD, ran(graded("Dual.__add__", 0.0, 2.0, "✗ x0 + x1\n  Dual.__add__: wrong"), graded("pow", 1.0, 1.0)))]
    result.results = {a.id: gradescope_results(a, record) for a, record in records}
    return result


def test_the_error_is_shown_once_with_the_assignments_it_stops_and_each_other_assignment_in_one_line():
    lines = formats.text(check(), every=False).splitlines()
    text = "\n".join(lines)
    assert text.count("expected ':'") == 1 and text.count(DETAIL) == 1
    assert "  The same error stops Assignment 2: fix it, and their tests run again too." in lines
    assert f"{BACKWARD.title}: 0 / 6 public points: not run: micrograd/engine.py could not be imported (the error " \
           "above)" in lines
    assert f"{FORWARD.title}: 1 / 3 public points: 1 of 2 public tests fail" in lines
    assert "Dual.__add__: wrong" not in text  # not in detail: only the first assignment not passing is
    assert "`grader check -a forward_mode` (one)" in lines[-3]
    assert lines[-1] == "Total: 1 / 13 public points; next: micrograd/engine.py could not be imported (see above)"


def test_with_every_assignment_in_detail_the_error_is_still_shown_once():
    text = formats.text(check(), every=True)
    assert text.count("expected ':'") == 1 and "Dual.__add__: wrong" in text and "task 4.1" not in text
    assert f"{BACKWARD.title}: 0 / 6 public points: not run:" in text and "`grader check -v`" not in text


def test_machine_formats_keep_every_test_and_name_the_error_once_with_the_assignments_it_stops():
    result = check()
    doc = json.loads(formats.as_json(result))
    assert [(e["assignments"], e["detail"].count(DETAIL)) for e in doc["load_errors"]] == [(["value_ops", "backward"], 1)]
    assert [len(doc["assignments"][a]["tests"]) for a in ("value_ops", "backward", "forward_mode")] == [2, 3, 2]
    suites = ET.fromstring(formats.check_junit(result).split("?>", 1)[1]).findall("testsuite")
    assert [len(s.findall("testcase")) for s in suites] == [2, 3, 2]
    failure = suites[1].find("testcase/failure")
    assert failure is not None and "micrograd/engine.py could not be imported" in failure.get("message", "")
    c50 = result_document(result, {}, None)
    assert validate(c50) == [] and len(c50["tests"]) == 7


def test_github_and_classroom50_show_the_error_once(tmp_path):
    summary = tmp_path / "summary.md"
    result = check()
    out = formats.github(result, {"GITHUB_STEP_SUMMARY": str(summary)}, every=False)
    annotations = [line for line in out.splitlines() if line.startswith("::error ")]
    loading = [a for a in annotations if "could not be loaded" in a]
    assert len(loading) == 1 and loading[0].startswith(
        "::error file=micrograd/engine.py,line=52,title=value_ops%2C backward%3A your code could not be loaded::")
    assert len(annotations) == 2  # and Dual.__add__'s
    for markdown in (summary.read_text(encoding="utf-8"), release_body(result)):
        assert markdown.count(DETAIL) == 1 and "(this stops Assignment 1, Assignment 2)" in markdown
        assert markdown.count("Not run: micrograd/engine.py could not be imported (the error above).") == 2


def test_an_error_that_stops_a_later_assignment_only_is_its_one_line_with_file_and_line():
    result = CheckResult([VALUE_OPS, FORWARD], path=Path("."))
    forward = stopped("Dual.__add__")
    forward["imports"] = {"micrograd.forward": {**SYNTAX, "where": {**SYNTAX["where"], "file": "micrograd/forward.py",
                                                                    "line": 3}}}
    result.results = {VALUE_OPS.id: gradescope_results(VALUE_OPS, ran(graded("add", 0.0, 2.0, "✗ x0 + x1\n  wrong"))),
                      FORWARD.id: gradescope_results(FORWARD, forward)}
    lines = formats.text(result, every=False).splitlines()
    assert f"{FORWARD.title}: 0 / 2 public points: not run: micrograd/forward.py could not be imported: raised " \
           "SyntaxError: expected ':' (micrograd/forward.py line 3)" in lines
    assert lines[-1] == f"Total: 0 / 4 public points; next: task 1.2 of {VALUE_OPS.title}"
