"""Feedback and output formats, fast: from records written here, no grading."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

from checkout import ROOT

from grader.course.course import Course
from grader.outputs import formats
from grader.outputs.failures import NOT_RUN
from grader.outputs.feedback import feedback_markdown
from grader.outputs.gradescope_results import gradescope_results
from grader.outputs.records import GradedTest, JudgeRecord, empty_record
from grader.outputs.self_check import CheckResult

ASSIGNMENT = Course(ROOT).assignments(["value_ops"])[0]


def graded(name: str, score: float, most: float, output: str = "", methods: list[str] | None = None) -> GradedTest:
    return GradedTest(key=f"t::{name}", name=name, task="1.2", max_score=most, score=score,
                      status="passed" if score == most else "failed", visibility="visible", public=True,
                      output=output, methods=methods or [], about=methods or [], hints=[], internal_error="", grader_error="", duration=0.1, slowest_call=None)


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


def import_error(etype: str, message: str, line: int, source: str) -> dict:
    return {"type": etype, "message": message, "during": "",
            "where": {"file": "micrograd/engine.py", "line": line, "function": "<module>", "source": source}}


def not_loaded(error: dict, tests: int = 4) -> JudgeRecord:
    doc = record(*(graded(f"test {i}", 0.0, 2.0, NOT_RUN) for i in range(tests)))
    doc["imports"] = {"micrograd.engine": error}
    return doc


def check_of(doc: JudgeRecord) -> CheckResult:
    result = CheckResult([ASSIGNMENT], path=Path("."))
    result.results[ASSIGNMENT.id] = gradescope_results(ASSIGNMENT, doc)
    return result


STDLIB = "the grader runs the standard library only (numpy, matplotlib and other packages are not installed)"


def test_an_import_of_numpy_is_reported_once_with_file_line_and_the_standard_library_sentence():
    doc = not_loaded(import_error("ModuleNotFoundError", "No module named 'numpy'", 1, "import numpy as np"))
    feedback, shown = feedback_markdown(ASSIGNMENT, "alice", doc), formats.text(check_of(doc))
    for text in (feedback, shown):
        assert text.lower().count(STDLIB) == 1 and text.count("No module named 'numpy'") == 1
        assert "at micrograd/engine.py line 1, in <module>: import numpy as np" in text
        assert "test 0" not in text and "✗" not in text and "Start here" not in text  # nothing else for it
    assert "none of the tests could run" in feedback
    section = shown.split(ASSIGNMENT.title, 1)[1].split("\n\n", 1)[0]
    assert len(section.splitlines()) == 5, section  # score, the error (3 lines), what to do
    assert STDLIB in gradescope_results(ASSIGNMENT, doc)["extra_data"]["grader"]["problems"][0].lower()


def test_a_syntax_error_is_reported_once_with_file_and_line_and_no_package_advice():
    doc = not_loaded(import_error("SyntaxError", "expected ':'", 34, "def __mul__(self, other)"))
    shown = formats.text(check_of(doc))
    assert shown.count("expected ':'") == 1 and "at micrograd/engine.py line 34, in <module>: def __mul__" in shown
    assert "standard library" not in shown and "✗" not in shown
    # a submission's own module is not a package the grader lacks
    own = not_loaded(import_error("ModuleNotFoundError", "No module named 'engine'", 3, "from engine import Value"))
    assert "standard library" not in feedback_markdown(ASSIGNMENT, "alice", own)


def test_an_import_error_s_text_stays_inert_in_markdown():
    doc = not_loaded(import_error("SyntaxError", "```\n# \x1b[2J owned", 2, "x = 1 ```"))
    feedback = feedback_markdown(ASSIGNMENT, "alice", doc)
    assert "\x1b" not in feedback and "\\x1b[2J" in feedback
    code = feedback.split("\n````text\n", 1)[1]  # a fence longer than the message's backticks: the "# " stays code
    assert code.endswith("\n````\n") and "\n````" not in code[:-6]


def block(title: str, message: str, more: int = 0) -> str:
    lines = [f"✗ {title}", *(f"  {line}" for line in message.splitlines())]
    return "\n".join(lines + ([f"  (the same error in {more} more cases)"] if more else []))


ADD_RAISES = ("Value.__add__: your code raised AttributeError: 'int' object has no attribute 'data'\n"
              "  at micrograd/engine.py line 24, in __add__: out = Value(self.data + other.data)")


def test_the_same_error_in_several_tests_is_shown_once_with_how_many_more_cases():
    doc = record(
        graded("add", 0.0, 2.0, "0 of 3 case(s) passed.\n" + block("x0 + 1", ADD_RAISES + "\nHint: wrap it", 2),
               ["Value.__add__"]),
        graded("sub", 1.0, 2.0, "1 of 2 case(s) passed.\n" + block("3 - x0", ADD_RAISES + "\n  while 3 - x0\nHint: b"),
               ["Value.__add__"]),
        graded("mul", 1.0, 2.0, "1 of 2 case(s) passed.\n" + block("x0 * x0", "Value.__mul__: x0.grad was 3.0"),
               ["Value.__mul__"]),
    )
    for text in (formats.text(check_of(doc)), feedback_markdown(ASSIGNMENT, "alice", doc)):
        assert text.count("'int' object has no attribute 'data'") == 1
        assert "(the same error in 3 more cases)" in text and "✗ 3 - x0: the same error as above" in text
        assert "x0.grad was 3.0" in text  # another error is shown as it is
    # results.json keeps each test's feedback whole: Gradescope shows tests one by one
    assert all("'int' object" in t["output"] for t in gradescope_results(ASSIGNMENT, doc)["tests"][:2])


def test_start_here_counts_attributions_and_puts_a_method_before_those_built_on_it():
    doc = record(graded("sub", 0.0, 2.0, "✗ x0 - x0", ["Value.__sub__"]),
                 graded("rsub", 0.0, 2.0, "✗ 1 - x0", ["Value.__sub__"]),
                 graded("mul", 1.0, 2.0, "✗ x0 * x0", ["Value.__mul__"]))
    text = feedback_markdown(ASSIGNMENT, "alice", doc)
    assert "1 of the failing tests points to `Value.__mul__`" in text
    assert "Then: `Value.__sub__` (2, built on `Value.__mul__`)." in text
    assert text.index("### ✗ mul") < text.index("### ✗ sub")


def test_a_count_line_written_by_an_earlier_version_is_still_read_as_a_count():
    """Results kept from an earlier run say ``(and N more cases)``: they are read back as a count, never shown as
    a line of the student's error."""
    from grader.outputs.failures import parse

    for line in ("  (and 2 more cases)", "  (the same error in 2 more cases)"):
        (block,) = parse(f"✗ x0 + 1 at 2\n  Value.__add__: your code raised TypeError: boom\n{line}")
        assert block.count == 3 and line not in block.lines
