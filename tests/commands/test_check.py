"""`grader check`: the student self-check and its output formats."""

from __future__ import annotations

import json
import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

from actions_runner import lines, obeyed, parse
from checkout import ROOT

from grader.cli import main
from grader.commands import check as check_command
from grader.course.course import Course
from grader.outputs.classroom50 import validate
from grader.outputs.gradescope_results import gradescope_results
from grader.outputs.records import GradedTest, empty_record
from grader.outputs.self_check import CheckResult

EXAMPLES = ROOT / "examples" / "submissions"


def run(capsys, *args: str) -> tuple[int, str]:
    status = main(["--course", str(ROOT), "check", *args])
    return status, capsys.readouterr().out


FIRST_THREE = ("-a", "value_ops", "-a", "backward", "-a", "mlp")
"""The assignments on engine.py and nn.py alone (the examples hold no later assignment's files)."""


def test_a_correct_solution_passes_and_exits_0(capsys):
    status, out = run(capsys, str(EXAMPLES / "correct_recursive"), *FIRST_THREE)  # engine.py and nn.py only
    assert status == 0
    assert "All public tests pass." in out and "10 / 10 public points" in out


def test_a_failing_solution_exits_1_with_per_task_scores_and_teaching_feedback(capsys):
    status, out = run(capsys, str(EXAMPLES / "bug_wrong_tanh"), "-a", "backward")
    assert status == 1
    assert "task 2.1-2.5: 4 / 5" in out
    assert "Value.tanh" in out and "expected" in out and "Hint:" in out


def test_the_self_check_needs_neither_hidden_tests_nor_the_reference(tmp_path, capsys):
    course = tmp_path / "release"
    for aid in ("value_ops", "backward", "mlp"):
        src = ROOT / "assignments" / aid
        shutil.copytree(src / "tests" / "public", course / "assignments" / aid / "tests" / "public")
        shutil.copy(src / "assignment.yaml", course / "assignments" / aid / "assignment.yaml")
    shutil.copytree(ROOT / "assignments" / "shared", course / "assignments" / "shared",
                    ignore=shutil.ignore_patterns("parts", "__pycache__"))  # the course's probes and checks
    shutil.copytree(EXAMPLES / "correct_recursive" / "micrograd", course / "micrograd")
    assert main(["--course", str(course), "check", str(course)]) == 0
    assert "All public tests pass." in capsys.readouterr().out


def test_by_default_only_the_released_assignments_are_checked(tmp_path, capsys):
    course = tmp_path / "release"
    for aid in ("value_ops", "backward"):
        src = ROOT / "assignments" / aid
        shutil.copytree(src / "tests" / "public", course / "assignments" / aid / "tests" / "public")
        shutil.copy(src / "assignment.yaml", course / "assignments" / aid / "assignment.yaml")
    config = course / "assignments" / "backward" / "assignment.yaml"
    config.write_text(config.read_text(encoding="utf-8") + "released: false\n", encoding="utf-8")
    shutil.copytree(ROOT / "assignments" / "shared", course / "assignments" / "shared",
                    ignore=shutil.ignore_patterns("parts", "__pycache__"))
    shutil.copytree(EXAMPLES / "correct_recursive" / "micrograd", course / "micrograd")
    assert main(["--course", str(course), "check", str(course), "--format", "json"]) == 0
    assert list(json.loads(capsys.readouterr().out)["assignments"]) == ["value_ops"]  # backward is not out yet
    assert main(["--course", str(course), "check", str(course), "-a", "backward", "--format", "json"]) == 0
    assert list(json.loads(capsys.readouterr().out)["assignments"]) == ["backward"]  # named: checked all the same


def test_json_format(capsys):
    status, out = run(capsys, str(EXAMPLES / "template_unchanged"), "-a", "value_ops", "--format", "json")
    doc = json.loads(out)
    assert status == 1 and doc["passed"] is False
    assert doc["assignments"]["value_ops"]["score"] == 0 and doc["assignments"]["value_ops"]["max_score"] == 10
    assert set(doc["assignments"]["value_ops"]["tasks"]) == {"1.1", "1.2", "1.3", "1.4"}


def test_junit_format(capsys):
    status, out = run(capsys, str(EXAMPLES / "bug_wrong_tanh"), "-a", "backward", "--format", "junit")
    suite = ET.fromstring(out).find("testsuite")
    assert suite.get("name") == "backward" and int(suite.get("failures")) >= 1
    failing = [c for c in suite.findall("testcase") if c.find("failure") is not None]
    assert any("tanh" in c.get("name") for c in failing)


HOSTILE_TANH = ("print('::add-mask::printed', flush=True)\n"
                "        raise NotImplementedError('Task 2.1\\n::error title=forged::owned\\n  ##[warning]x')")
"""The template's tanh, printing and raising what GitHub Actions' runner would obey as workflow commands."""


def test_github_format_writes_annotations_and_the_summary_but_no_classroom_result(tmp_path, capsys, monkeypatch):
    output, summary = tmp_path / "output", tmp_path / "summary"
    monkeypatch.setenv("GITHUB_OUTPUT", str(output))
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    submission = shutil.copytree(EXAMPLES / "template_unchanged", tmp_path / "hostile")
    engine = submission / "micrograd" / "engine.py"
    code = engine.read_text(encoding="utf-8")
    engine.write_text(code.replace('raise NotImplementedError("Task 2.1: implement Value.tanh")', HOSTILE_TANH),
                      encoding="utf-8")
    status, out = run(capsys, str(submission), "-a", "backward", "--format", "github")
    assert status == 1
    annotations = [line for line in out.splitlines() if line.startswith("::error ")]
    assert annotations and all("::" in a[8:] for a in annotations)
    assert any("file=micrograd/engine.py,line=" in a for a in annotations)
    # the runner obeys the annotations and the fence around the report, nothing the student's code said
    token = out.split("::stop-commands::", 1)[1].split("\n", 1)[0]
    assert [c.name for c in obeyed(out)] == ["error"] * len(annotations) + ["stop-commands", token]
    assert "\\::error title=forged::owned" in out and "##\\[warning]x" in out and "| ::add-mask::printed" in out
    assert "## micrograd self-check" in summary.read_text()
    assert not output.exists()  # GitHub Classroom's `result` output: nothing reads it since 28 August 2026


def test_an_error_message_reaches_the_log_inert(capsys):
    """Any error's text (the judge's log, quoted when it fails, can hold what a submission said) is inert."""
    assert main(["--course", str(ROOT), "check", "/no/such/\n::error::x ##[add-mask]y\x1b", "-a", "value_ops"]) == 2
    err = capsys.readouterr().err
    assert [line for line in lines(err) if parse(line)] == [] and "\\::error::x ##\\[add-mask]y\\x1b" in err


CLASSROOM50_ENV = {"CLASSROOM": "ml-2026", "ASSIGNMENT": "micrograd",
                   "SUBMISSION_TAG": "submit/2026-06-01T14-32-05Z-a1b2c3d", "USERNAME": "alice", "OWNER": "alice", "ASSIGNMENT_TYPE": "individual",
                   "COMMIT_URL": "https://github.com/ml-2026/micrograd-alice/commit/a1b2c3d",
                   "RELEASE_URL": "https://github.com/ml-2026/micrograd-alice/releases/tag/submit",
                   "REVIEW_URL": "https://github.com/ml-2026/micrograd-alice/commit/a1b2c3d", "GITHUB_SHA": "a1b2c3d"}


def classroom50_run(tmp_path, capsys, monkeypatch, folder: Path, *args: str) -> tuple[int, str, dict]:
    checkout = tmp_path / "checkout"
    shutil.copytree(folder, checkout)
    monkeypatch.chdir(checkout)
    for key, value in CLASSROOM50_ENV.items():
        monkeypatch.setenv(key, value)
    status, out = run(capsys, ".", *args, "--format", "classroom50")
    return status, out, json.loads((checkout / "result.json").read_text(encoding="utf-8"))


def test_classroom50_format_exits_0_with_a_valid_result_for_the_template(tmp_path, capsys, monkeypatch):
    status, out, doc = classroom50_run(tmp_path, capsys, monkeypatch, EXAMPLES / "template_unchanged", "-a", "value_ops")
    assert status == 0 and validate(doc) == []
    assert (doc["score"], doc["max-score"]) == (0, 10)
    # the template's given constructor keeps the contract (a test worth no points); every other test fails
    assert [t["test-name"] for t in doc["tests"] if t["passed"]] == ["value_ops: Value(data, children, op) keeps data, grad = 0, _prev and _op"]
    assert (doc["classroom"], doc["assignment"], doc["owner"]) == ("ml-2026", "micrograd", "alice")
    assert "Classroom 50: wrote result.json and release-body.md (0 / 10 points)" in out
    assert "task 1.1:" in out  # the text report as usual, fenced for GitHub Actions' log
    token = out.split("::stop-commands::", 1)[1].split("\n", 1)[0]
    assert f"\n::{token}::\nClassroom 50: wrote" in out and out.startswith("::stop-commands::")
    body = (tmp_path / "checkout" / "release-body.md").read_text(encoding="utf-8")
    assert body.startswith("# micrograd self-check: 0 / 10 points")


def test_classroom50_format_gives_a_correct_solution_full_marks(tmp_path, capsys, monkeypatch):
    status, out, doc = classroom50_run(tmp_path, capsys, monkeypatch, EXAMPLES / "correct_recursive", "-a", "value_ops")
    assert status == 0 and validate(doc) == []
    assert doc["score"] == doc["max-score"] == 10 and all(t["passed"] for t in doc["tests"])


def test_classroom50_points_are_the_sum_of_partial_scores(tmp_path, capsys, monkeypatch):
    status, _, doc = classroom50_run(tmp_path, capsys, monkeypatch, EXAMPLES / "bug_wrong_tanh", "-a", "backward")
    assert status == 0 and validate(doc) == []  # failing tests are a score, not an error
    assert 0 < doc["score"] < doc["max-score"] and doc["score"] == sum(t["score"] for t in doc["tests"])
    # tanh's own public test loses its point; the backward() tests run on the grader's own nodes and keep theirs
    assert doc["score"] == 9


def test_classroom50_format_writes_no_result_when_the_grader_failed(tmp_path, capsys, monkeypatch):
    def withheld(course, path, assignment_ids=None, sandbox=None, follower=None):
        result = CheckResult(course.assignments(assignment_ids), path=path)
        result.results = {a.id: gradescope_results(a, empty_record(grader_error="the sandbox could not start"))
                          for a in result.assignments}
        return result

    monkeypatch.setattr(check_command, "self_check", withheld)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "result.json").write_text('{"score": 10, "max-score": 10}')  # committed, or left by an earlier run
    status, out = run(capsys, ".", "-a", "value_ops", "--format", "classroom50")
    assert status == 3 and "not checked" in out and "Classroom 50: wrote" not in out
    assert not (tmp_path / "result.json").exists() and not (tmp_path / "release-body.md").exists()


def test_v_shows_every_assignment_in_detail_and_without_it_only_the_first_not_passing(capsys, monkeypatch):
    asked: list[list[str] | None] = []

    def one_failing_test_each(course, path, assignment_ids=None, sandbox=None, follower=None):
        asked.append(assignment_ids)
        result = CheckResult(course.assignments(assignment_ids), path=path)
        for a in result.assignments:
            record = empty_record()
            record["tests"] = [GradedTest(key="t::m", name=f"{a.id} test", task="9.9", max_score=2.0, score=0.0,
                                          status="failed", visibility="visible", public=True, output="✗ case\n  wrong",
                                          methods=[], about=[], hints=[], internal_error="", grader_error="",
                                          duration=0.1, slowest_call=None)]
            result.results[a.id] = gradescope_results(a, record)
        return result

    monkeypatch.setattr(check_command, "self_check", one_failing_test_each)
    released = [a.id for a in Course(ROOT).released_assignments()]
    status, out = run(capsys, ".", "-v")
    assert status == 1 and asked == [released]  # the released assignments, by id
    assert all(f"  ✗ {aid} test (0 / 2)" in out for aid in released) and "grader check -v" not in out
    status, out = run(capsys, ".")
    assert [aid for aid in released if f"  ✗ {aid} test (0 / 2)" in out] == released[:1]
    assert f"`grader check -v` (all) or `grader check -a {released[1]}` (one)" in out
    assert sum(": 1 of 1 public tests fail" in line for line in out.splitlines()) == len(released) - 1


def test_missing_path_is_a_clear_error(capsys, tmp_path):
    assert main(["--course", str(ROOT), "check", str(tmp_path / "nope")]) == 2
    assert "does not exist" in capsys.readouterr().err


def variant(tmp_path: Path, name: str, *edits: tuple[str, str]) -> Path:
    """The example's correct solution with ``(old, new)`` replacements in its engine.py (each must apply)."""
    folder = tmp_path / name
    shutil.copytree(EXAMPLES / "correct_recursive", folder)
    engine = folder / "micrograd" / "engine.py"
    text = engine.read_text(encoding="utf-8")
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new, 1)
    engine.write_text(text, encoding="utf-8")
    return folder


STDLIB = "The grader runs the standard library only (numpy, matplotlib and other packages are not installed)"


def test_an_import_of_numpy_is_shown_once_with_file_line_why_and_the_assignments_it_stops(tmp_path, capsys):
    folder = variant(tmp_path, "numpy_user", ('"""Scalar autograd', 'import numpy as np\n"""Scalar autograd'))
    status, out = run(capsys, str(folder), *FIRST_THREE)
    assert status == 1
    assert out.count(STDLIB) == 1 and out.count("No module named 'numpy'") == 1  # once, not once per assignment
    assert out.count("at micrograd/engine.py line 1, in <module>: import numpy as np") == 1
    assert "The same error stops Assignment 2 and Assignment 3" in out
    for title in ("Assignment 2: backward()", "Assignment 3: a neural network"):
        line = next(line for line in out.splitlines() if line.startswith(title))
        assert line.endswith(": not run: micrograd/engine.py could not be imported (the error above)"), line
    assert "✗" not in out and "task 1.1:" not in out and "Hint:" not in out  # nothing else for those assignments
    assert out.splitlines()[-1].endswith("next: micrograd/engine.py could not be imported (see above)")
    assert len(out.splitlines()) < 15, out


def test_a_missing_colon_is_shown_once_with_file_and_line(capsys):
    status, out = run(capsys, str(EXAMPLES / "syntax_error"), "-a", "value_ops")
    assert status == 1
    assert out.count("SyntaxError: expected ':'") == 1 and "at micrograd/engine.py line 34" in out
    assert "standard library" not in out and "✗" not in out
    assert len(out.splitlines()) < 10, out


# sigmoid built on exp, and exp missing: the sigmoid tests fail inside sigmoid, on a method that does not exist
SIGMOID_ON_MISSING_EXP = (("    def exp(self):", "    def exponential(self):"),
                          ("    def sigmoid(self):\n", "    def sigmoid(self):\n        return 1 / (1 + (-self).exp())\n"))


def test_an_attribute_error_for_a_missing_method_names_that_method_and_starts_there(tmp_path, capsys):
    folder = variant(tmp_path, "no_exp", *SIGMOID_ON_MISSING_EXP)
    status, out = run(capsys, str(folder), "-a", "backward", "--format", "json")
    tests = json.loads(out)["assignments"]["backward"]["tests"]
    sigmoid = next(t for t in tests if t["name"].startswith("Value.sigmoid"))
    assert "Value.exp: your code raised AttributeError: 'Value' object has no attribute 'exp'" in sigmoid["output"]
    assert "Value.sigmoid:" not in sigmoid["output"] and "ds/dx" not in sigmoid["output"]  # not sigmoid's hint
    assert "Hint: Value.exp does not exist: define it in class Value" in sigmoid["output"]
    subs = tmp_path / "subs"
    shutil.copytree(folder, subs / "no_exp")
    assert main(["--course", str(ROOT), "grade", str(subs), "-a", "backward", "-o", str(tmp_path / "out")]) == 0
    feedback = (tmp_path / "out" / "backward" / "no_exp" / "feedback.md").read_text(encoding="utf-8")
    start = feedback.split("## Start here", 1)[1].split("##", 1)[0]
    assert "of the failing tests point to `Value.exp`: fix it first" in start and "Value.sigmoid" not in start


def test_an_error_in_add_s_closure_is_add_s_and_is_shown_once_with_how_many_more_cases(tmp_path, capsys):
    folder = variant(tmp_path, "add_closure", ("            self.grad += out.grad\n            other.grad += out.grad",
                                               "            self.grad += out.gradd\n            other.grad += out.grad"))
    status, out = run(capsys, str(folder), "-a", "value_ops")
    assert status == 1
    assert out.count("AttributeError: 'Value' object has no attribute 'gradd'") == 1
    assert re.search(r"\(the same error in \d+ more cases\)", out) and "x0 - x1 at (5, 2): the same error as above" in out
    status, out = run(capsys, str(folder), "-a", "value_ops", "--format", "json")
    tests = json.loads(out)["assignments"]["value_ops"]["tests"]
    sub = next(t for t in tests if "__sub__" in t["name"])["output"]  # a case about x0 - x1 = x0 + (-x1)
    assert "Value.__add__: your code raised AttributeError" in sub and "Value.__sub__:" not in sub
