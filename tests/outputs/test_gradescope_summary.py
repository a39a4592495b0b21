"""Gradescope's top-level ``output``: what a student reads first (the score, each task's score, "Start here")."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from checkout import ROOT

from grader.cli import main
from grader.course.course import Course
from grader.outputs.gradescope_results import gradescope_results
from grader.outputs.records import GradedTest, JudgeRecord, empty_record

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


def test_the_summary_score_counts_only_the_tests_visible_now():
    doc = gradescope_results(ASSIGNMENT, record(
        graded("add", "1.1", 2.0, 2.0),
        graded("hidden pow", "1.3", 1.0, 3.0, ["Value.__pow__"], visibility="after_due_date"),
    ))
    summary = doc["output"].split("\n\n")[0].splitlines()
    assert summary[0] == (f"{ASSIGNMENT.title}: 2 / 2 points in the tests you can see now; the other 3 points are "
                          "tests you will see after the due date.")
    assert doc["score"] == 3.0  # the instructor's grade counts every test


# --- end to end: a submission that fails only hidden tests sees what a correct one sees ---------------------

def _hidden_only_bug(dest: Path) -> Path:
    """The reference with a ``__pow__`` gradient wrong only for the exponent 1.5, which only hidden tests use."""
    sub = dest / "micrograd"
    sub.mkdir(parents=True)
    (sub / "__init__.py").write_text("")
    for name in ("engine", "nn"):
        text = "".join(line for line in (ROOT / "reference" / "micrograd" / f"{name}.py").read_text().splitlines(True)
                       if "# BEGIN SOLUTION" not in line and "# END SOLUTION" not in line)
        if name == "engine":
            right = "self.grad += other * self.data ** (other - 1) * out.grad"
            assert right in text
            text = text.replace(right, "self.grad += (1.4 if other == 1.5 else other) * self.data ** (other - 1) * out.grad")
        (sub / f"{name}.py").write_text(text)
    return dest


def _student_view(doc: dict) -> tuple:
    """What Gradescope shows a student before the due date: the top-level output and the visible tests."""
    return doc["output"], [(t["name"], t["score"], t["max_score"], t["status"], t["output"])
                           for t in doc["tests"] if t["visibility"] == "visible"]


def test_a_submission_failing_only_hidden_tests_sees_what_a_correct_one_sees(tmp_path, capsys, monkeypatch):
    subs = tmp_path / "subs"
    _hidden_only_bug(subs / "hidden_only")
    shutil.copytree(subs / "hidden_only", subs / "correct")
    (subs / "correct" / "micrograd" / "engine.py").write_text(
        (subs / "correct" / "micrograd" / "engine.py").read_text().replace("(1.4 if other == 1.5 else other)", "other"))
    out = tmp_path / "out"
    assert main(["--course", str(ROOT), "grade", str(subs), "-o", str(out), "-a", "value_ops"]) == 0
    docs = {n: json.loads((out / "value_ops" / n / "results.json").read_text()) for n in ("correct", "hidden_only")}
    assert docs["hidden_only"]["score"] < docs["correct"]["score"]  # the hidden tests do catch it
    assert _student_view(docs["hidden_only"]) == _student_view(docs["correct"])
    # the self-check and Classroom 50's result run the public tests only: the same for both
    seen = {}
    for name in ("correct", "hidden_only"):
        capsys.readouterr()
        assert main(["--course", str(ROOT), "check", str(subs / name), "-a", "value_ops"]) == 0
        text = capsys.readouterr().out
        here = tmp_path / f"c50-{name}"
        here.mkdir()
        monkeypatch.chdir(here)  # Classroom 50's files are written to the working folder
        assert main(["--course", str(ROOT), "check", str(subs / name), "-a", "value_ops",
                     "--format", "classroom50"]) == 0
        result = json.loads((here / "result.json").read_text())
        for when in ("datetime", "graded_at"):  # when it ran (no commit here): not about the submission
            result.pop(when, None)
        seen[name] = (text, result, (here / "release-body.md").read_text())
    assert seen["hidden_only"] == seen["correct"]
