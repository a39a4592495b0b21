"""No text a submission controls becomes a GitHub Actions workflow command in a CI log: `grader check --format github`
(and `classroom50`, and the plain report) from records written here, judged by the runner's own rules
(:mod:`actions_runner`, the oracle)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from actions_runner import Command, lines, obeyed, parse
from checkout import ROOT

from grader.commands.check import in_log
from grader.course.course import Course
from grader.inert import actions_fence, actions_log, terminal
from grader.inert import shown as controls_shown
from grader.outputs import formats
from grader.outputs.gradescope_results import gradescope_results
from grader.outputs.records import GradedTest, JudgeRecord, empty_record
from grader.outputs.self_check import CheckResult

ASSIGNMENT = Course(ROOT).assignments(["value_ops"])[0]
GUESSED = "0123456789abcdef0123456789abcdef"
"""A stop token of the form the grader draws (32 hex digits), as a student would guess one."""
HOSTILE = [
    "::error title=x::owned",
    "  ::add-mask::secret",
    "::stop-commands::abc",
    "::abc::",
    "text ##[warning]x",
    "::set-output name=a::b",
    "\t::error file=micrograd/engine.py,line=1::tab",
    "\u3000::warning::ideographic space",
    "\u00a0\u2028::notice::no-break space and a line separator the runner does not split at",
    "fine\r::error::after a carriage return",
    "fine\r\n::group::after CRLF",
    "50%0A::error::escaped newline",
    f"::{GUESSED}::",
    f"::stop-commands::{GUESSED}",
    f"x ##[{GUESSED}] ##[add-path]/tmp/evil",
    "###[error]three hashes",
    "##[##[set-env name=A]b",
]
MESSAGE = "\n".join(HOSTILE)


def failing(name: str, output: str) -> GradedTest:
    return GradedTest(key=f"t::{name}", name=name, task="1.1", max_score=2.0, score=0.0, status="failed",
                      visibility="visible", public=True, output=output, methods=[], about=[], hints=[],
                      internal_error="", grader_error="", duration=0.1, slowest_call=None)


def hostile_check() -> CheckResult:
    """A failing test whose feedback holds every hostile line (at the student's line), and what the program printed."""
    record: JudgeRecord = empty_record()
    record["tests"] = [failing("add ::x:: ##[y]", f"Value.__add__: your code raised ValueError: {MESSAGE}\n"
                                                  f"  at micrograd/engine.py line 7, in __add__: raise ValueError(m)")]
    record["program_output"] = MESSAGE
    result = CheckResult([ASSIGNMENT], path=Path("."))
    result.results[ASSIGNMENT.id] = gradescope_results(ASSIGNMENT, record)
    return result


def fenced(output: str) -> tuple[list[str], str, list[str]]:
    """The lines before ``::stop-commands::TOKEN``, the token, and the lines between it and ``::TOKEN::`` (which end
    the output)."""
    shown = lines(output)
    start = next(i for i, line in enumerate(shown) if line.startswith("::stop-commands::"))
    token = shown[start].removeprefix("::stop-commands::")
    assert shown[-1] == f"::{token}::"
    return shown[:start], token, shown[start + 1:-1]


def test_only_the_graders_annotations_and_fence_are_obeyed_and_the_student_still_reads_every_line(tmp_path):
    summary = tmp_path / "summary.md"
    result = hostile_check()
    output = formats.github(result, {"GITHUB_STEP_SUMMARY": str(summary)})
    annotations, token, report = fenced(output)
    assert re.fullmatch(r"[0-9a-f]{32}", token) and output.count(token) == 2 and token != GUESSED
    assert all(line.startswith("::error ") for line in annotations) and len(annotations) == 1
    assert obeyed(output) == [*map(parse, annotations), Command("stop-commands", {}, token), Command(token)]
    # the neutralising alone would do: no line of the report is a command whatever names the runner knows
    assert [line for line in report if parse(line)] == []
    # the annotation carries the message whole (GitHub's escaping), at the student's line, under its escaped title
    (annotation,) = map(parse, annotations)
    assert annotation is not None and MESSAGE in annotation.data
    assert annotation.properties == {"file": "micrograd/engine.py", "line": "7", "title": "value_ops: add ::x:: ##[y]"}
    # the student reads the report as `grader check` shows it, every line whole: the marks are its only change
    shown = "\n".join(report)
    assert re.sub(r"^(\s*)\\::", r"\1::", shown.replace("##\\[", "##["), flags=re.M) == controls_shown(formats.text(result))
    assert "ValueError: ::error title=x::owned\n      \\::add-mask::secret\n" in shown
    assert "text ##\\[warning]x" in shown
    assert "  | ::set-output name=a::b\n" in shown  # what it printed: after "| ", no line starts a command anyway
    # the job summary is Markdown, which the runner uploads without reading commands in it: fenced code there
    markdown = summary.read_text(encoding="utf-8")
    assert "::error title=x::owned" in markdown and "\r" not in markdown


def test_each_run_draws_a_fresh_token():
    tokens = {fenced(formats.github(hostile_check(), {}))[1] for _ in range(3)}
    assert len(tokens) == 3


def test_a_load_error_reaches_its_annotation_escaped_and_the_report_inert():
    record: JudgeRecord = empty_record()
    record["tests"] = [failing("add", "Not run: your code could not be loaded")]
    record["imports"] = {"micrograd.engine": {"type": "SyntaxError", "message": MESSAGE, "during": "", "where": {
        "file": "micrograd/engine.py", "line": 3, "function": "<module>", "source": "::error::x ##[warning]y"}}}
    result = CheckResult([ASSIGNMENT], path=Path("."))
    result.results[ASSIGNMENT.id] = gradescope_results(ASSIGNMENT, record)
    output = formats.github(result, {})
    annotations, token, report = fenced(output)
    assert [c.name for c in obeyed(output)] == ["error"] * len(annotations) + ["stop-commands", token]
    assert [line for line in report if parse(line)] == [] and "owned" in "\n".join(report)


@pytest.mark.parametrize("line", HOSTILE)
def test_no_line_of_inert_text_is_a_command_and_plain_text_is_unchanged(line):
    for text in (line, f"  {line}", f"said:\n{line}\nend"):
        assert [shown for shown in lines(actions_log(text)) if parse(shown)] == []
    plain = "x0 + x1 = 3.0: expected 3.0 (ratio 1:2, see ::here or a##b[c])\n  a list [1, 2]"
    assert actions_log(plain) == plain


def test_the_fence_is_what_the_runner_stops_and_resumes_on():
    stop, body, resume = actions_fence("a\n::error::b")
    token = stop.removeprefix("::stop-commands::")
    assert resume == f"::{token}::" and body == "a\n\\::error::b"
    assert [c.name for c in obeyed("\n".join([stop, "::error::x", "##[add-mask]y", resume, "::error::z"]))] == [
        "stop-commands", token, "error"]  # inside, even a command that got through is not obeyed


def test_the_plain_and_classroom50_reports_are_inert_and_classroom50_is_fenced():
    report = formats.text(hostile_check())
    plain = in_log(report, fenced=False)
    assert [line for line in lines(plain) if parse(line)] == [] and "owned" in plain
    output = in_log(report, fenced=True)
    _, token, inside = fenced(output)
    assert [c.name for c in obeyed(output)] == ["stop-commands", token] and "\n".join(inside) == plain


def test_every_terminal_line_and_a_json_or_junit_report_obey_no_command():
    """grader grade prints student ids at the start of its gradebook's lines (a CI log for sharded grading), and a
    JSON or JUnit report may be printed in a workflow: terminal() marks what the runner would obey, JSON and JUnit
    say the same data without it."""
    import json
    import xml.etree.ElementTree as ET

    hostile = "::error title=x::owned\n  ::add-mask::secret ##[warning]x"
    assert [line for line in lines(terminal(hostile)) if parse(line)] == []
    assert terminal("plain text, 3:4 and a::b") == "plain text, 3:4 and a::b"  # nothing else changes
    result = hostile_check()  # its messages hold each form
    for printed in (formats.as_json(result), formats.check_junit(result)):
        assert "owned" in printed and [line for line in lines(printed) if parse(line)] == []
    assert json.loads(formats.as_json(result)) == json.loads(json.dumps(json.loads(formats.as_json(result))))
    assert "##[warning]" in json.dumps(json.loads(formats.as_json(result)))  # read back, the data is the student's
    assert "##[warning]" in "".join(ET.fromstring(formats.check_junit(result).split("?>", 1)[1]).itertext())
