"""`grader grade` end to end on the shipped example submissions."""

from __future__ import annotations

import csv
import json
import re
import shutil
from pathlib import Path

import pytest
from checkout import ROOT

from grader.cli import main
from grader.course.config import VISIBILITIES
from grader.course.course import Course

ASSIGNMENTS = ["value_ops", "backward", "mlp"]


def grades(out: Path) -> dict[str, dict[str, str]]:
    with open(out / "grades.csv", encoding="utf-8") as f:
        return {row["student"]: row for row in csv.DictReader(f)}


def readme_table() -> dict[str, dict[str, str]]:
    """The expected-scores table of examples/README.md."""
    text = (ROOT / "examples" / "README.md").read_text(encoding="utf-8")
    scores = text[text.index("Expected scores"):]
    rows = [line for line in scores.splitlines() if line.startswith("| `")]
    table = {}
    for line in rows:
        cells = [c.strip() for c in line.strip("|").split("|")]
        table[cells[0].strip("`")] = dict(zip(["value_ops", "backward", "mlp", "total"], cells[1:5]))
    return table


def test_every_example_scores_what_the_examples_readme_says(graded_class):
    expected = readme_table()
    examples = {p.name.removesuffix(".ipynb") for p in (ROOT / "examples" / "submissions").iterdir()
                if not p.name.startswith(".")}
    assert set(expected) == examples
    got = grades(graded_class)
    for student, row in expected.items():
        first = {k: got[student][k] for k in ASSIGNMENTS}
        total = round(sum(float(v) for v in first.values()), 2)
        assert {**first, "total": f"{total:g}"} == row, student


def test_reference_scores_full_marks_and_template_scores_zero(graded_class):
    course = Course(ROOT)
    got = grades(graded_class)
    for a in course.assignments():
        if not a.is_concept_check:  # a concept check's right answers are each student's own: validate grades them
            assert float(got["reference_solution"][a.id]) == a.points
        assert float(got["template_unchanged"][a.id]) == 0.0
    assert got["reference_solution"]["notes"] == ""


def test_each_examples_checkpoint_scores_what_the_examples_readme_says(graded_class):
    text = (ROOT / "examples" / "README.md").read_text(encoding="utf-8")
    table = text[text.index("| student's checkpoint"):text.index("Expected scores")]
    expected = {cells[0]: cells[1] for line in table.splitlines()[2:] if line.startswith("| ")
                for cells in [[c.strip() for c in line.strip("|").split("|")]]}
    got = grades(graded_class)
    assert {s: got[s]["checkpoint"] for s in expected} == expected
    assert float(got["zipped_correct"]["checkpoint"]) == 12 - 5  # correct_recursive's answers: its numbers, not these
    for student in set(got) - set(expected) - {"reference_solution", "zipped_correct"}:  # no answers: 0, and why
        assert got[student]["checkpoint"] == "0", student
        assert "checkpoint: missing answers/checkpoint.yaml" in got[student]["notes"], student


def test_zip_submission_scores_like_the_same_folder(graded_class):
    got = grades(graded_class)
    assert {a: got["zipped_correct"][a] for a in ASSIGNMENTS} == {a: got["correct_recursive"][a] for a in ASSIGNMENTS}


def test_results_json_follows_gradescope_schema(graded_class):
    for path in sorted(graded_class.glob("*/*/results.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        assert isinstance(doc["score"], (int, float)) and isinstance(doc["execution_time"], (int, float))
        assert isinstance(doc["output"], str) and doc["tests"], path
        for test in doc["tests"]:
            assert {"name", "score", "max_score", "status", "output", "visibility"} <= set(test)
            assert test["status"] in ("passed", "failed")
            assert test["visibility"] in VISIBILITIES
            assert 0 <= test["score"] <= test["max_score"]
            assert (test["status"] == "passed") == (test["score"] == test["max_score"] and not test["output"])
        assert doc["score"] == pytest.approx(sum(t["score"] for t in doc["tests"]))


def test_feedback_names_the_method_the_inputs_and_a_hint(graded_class):
    text = (graded_class / "value_ops" / "bug_overwritten_grad" / "feedback.md").read_text(encoding="utf-8")
    assert "Value.__mul__" in text
    assert re.search(r"x0\.grad was [-\d.e]+, expected [-\d.e]+", text)
    assert "Hint:" in text and "+=" in text
    text = (graded_class / "backward" / "bug_no_visited" / "feedback.md").read_text(encoding="utf-8")
    # exponential work hits the call's own limit (derived from the reference's milliseconds: grader.judge.deadlines)
    # or the test's own (2 s, not the assignment's 10), or, on a fast machine, the memory limit first
    assert (re.search(r"did not finish within \d+ ms \(the reference solution needs [^)]* for this call\)", text)
            or "did not finish within this test's time limit (2 s)" in text or "MemoryError" in text), text
    assert "visited set" in text


def test_ungradeable_submission_gets_zero_with_a_one_line_reason(graded_class):
    row = grades(graded_class)["syntax_error"]
    assert row["total"] == "0"
    assert "SyntaxError" in row["notes"] and "line 34" in row["notes"] and "\n" not in row["notes"]
    feedback = (graded_class / "backward" / "syntax_error" / "feedback.md").read_text(encoding="utf-8")
    assert "Could not grade" in feedback and "engine.py line 34" in feedback


def test_feedback_never_quotes_hidden_test_source(graded_class):
    hidden_lines = set()
    for test_file in ROOT.glob("assignments/*/tests/hidden/*.py"):
        for line in test_file.read_text(encoding="utf-8").splitlines():
            line = line.strip()
            if len(line) > 25 and not line.startswith(("#", '"', "'")) and "hint=" not in line:
                hidden_lines.add(line)
    for path in graded_class.glob("*/*/*"):
        if path.parts[-3] == "_instructor":  # judge logs are for the instructor only
            continue
        text = path.read_text(encoding="utf-8")
        leaked = [line for line in hidden_lines if line in text]
        assert not leaked, (path, leaked[:3])


def test_every_submission_has_results_and_feedback_for_every_assignment(graded_class):
    students = set(grades(graded_class))
    for a in ASSIGNMENTS:
        assert {p.name for p in (graded_class / a).iterdir()} == students
        for s in students:
            assert (graded_class / a / s / "results.json").is_file()
            assert (graded_class / a / s / "feedback.md").is_file()


def test_grading_three_times_gives_identical_results(tmp_path, course_root):
    subs = tmp_path / "subs"
    subs.mkdir()
    for name in ("bug_overwritten_grad", "correct_recursive"):
        shutil.copytree(ROOT / "examples" / "submissions" / name, subs / name)
    outputs = []
    for run in range(3):
        out = tmp_path / f"out{run}"
        assert main(["--course", str(course_root), "grade", str(subs), "-a", "value_ops", "-a", "backward",
                     "-o", str(out), "-j", "2"]) == 0
        docs = {}
        for path in sorted(out.glob("*/*/results.json")):
            doc = json.loads(path.read_text(encoding="utf-8"))
            doc.pop("execution_time")  # timing fields are the only allowed difference
            for test in doc["tests"]:
                test["extra_data"].pop("duration")
                test["extra_data"].pop("slowest_call", None)  # a timing too: how close a call came to its limit
            docs[str(path.relative_to(out))] = doc
        outputs.append(docs)
    assert outputs[0] == outputs[1] == outputs[2]


def test_committed_template_matches_the_generated_one(course_root, capsys):
    assert main(["--course", str(course_root), "template", "--check"]) == 0


def test_template_example_is_the_committed_template():
    example = ROOT / "examples" / "submissions" / "template_unchanged" / "micrograd"
    template = ROOT / "student_template" / "micrograd"
    assert sorted(p.name for p in example.glob("*.py")) == sorted(p.name for p in template.glob("*.py"))
    for path in template.glob("*.py"):
        assert (example / path.name).read_text(encoding="utf-8") == path.read_text(encoding="utf-8"), path.name


def test_grading_changes_nothing_in_the_course_or_the_submissions(tmp_path):
    course = tmp_path / "course"
    for part in ("assignments", "reference", "student_template"):
        shutil.copytree(ROOT / part, course / part, ignore=shutil.ignore_patterns("__pycache__"))
    subs = tmp_path / "subs"
    shutil.copytree(ROOT / "examples" / "submissions" / "correct_recursive", subs / "alice")

    def snapshot(root: Path) -> dict[str, bytes]:
        return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}

    before = (snapshot(course), snapshot(subs))
    assert main(["--course", str(course), "grade", str(subs), "-a", "backward", "-o", str(tmp_path / "out")]) == 0
    assert (snapshot(course), snapshot(subs)) == before
    assert sorted(p.name for p in course.iterdir()) == ["assignments", "reference", "student_template"]


def test_rerun_keeps_complete_results_regrades_changed_submissions_and_force_regrades_all(tmp_path, capsys):
    subs = tmp_path / "subs"
    shutil.copytree(ROOT / "examples" / "submissions" / "correct_recursive", subs / "alice")
    shutil.copytree(ROOT / "examples" / "submissions" / "bug_overwritten_grad", subs / "bob")
    out = tmp_path / "out"
    args = ["--course", str(ROOT), "grade", str(subs), "-a", "value_ops", "-o", str(out)]
    assert main(args) == 0
    first = (out / "value_ops" / "bob" / "results.json").read_text()
    capsys.readouterr()
    assert main(args) == 0
    assert "Graded 0 submission(s)" in capsys.readouterr().out
    engine = subs / "bob" / "micrograd" / "engine.py"  # bob fixes his bug: new content, new grade
    engine.write_text((ROOT / "examples" / "submissions" / "correct_recursive" / "micrograd" / "engine.py").read_text())
    assert main(args) == 0
    assert "Graded 1 submission(s)" in capsys.readouterr().out
    assert (out / "value_ops" / "bob" / "results.json").read_text() != first
    assert grades(out)["bob"]["value_ops"] == "40"
    assert main([*args, "--force"]) == 0
    assert "Graded 2 submission(s)" in capsys.readouterr().out


def test_a_changed_course_regrades_the_assignments_it_affects_and_says_so(tmp_path, capsys):
    """An instructor edits a hint in a hidden test: the next run (without --force) grades that assignment again,
    keeps the other's results, and says why in one line."""
    course = tmp_path / "course"
    for part in ("assignments", "reference", "student_template"):
        shutil.copytree(ROOT / part, course / part, ignore=shutil.ignore_patterns("__pycache__"))
    subs = tmp_path / "subs"
    shutil.copytree(ROOT / "examples" / "submissions" / "correct_recursive", subs / "bob")
    engine = subs / "bob" / "micrograd" / "engine.py"  # tanh's gradient overwritten instead of accumulated
    engine.write_text(engine.read_text().replace("self.grad += (1.0 - t * t) * out.grad",
                                                 "self.grad = (1.0 - t * t) * out.grad"))
    out = tmp_path / "out"
    args = ["--course", str(course), "grade", str(subs), "-a", "value_ops", "-a", "backward", "-o", str(out)]
    assert main(args) == 0
    kept = (out / "value_ops" / "bob" / "results.json").read_text()
    old = "x feeds two nodes: its gradient must accumulate (+=), not be overwritten"
    hidden = course / "assignments" / "backward" / "tests" / "hidden" / "test_backward_hidden.py"
    assert old in (feedback := (out / "backward" / "bob" / "feedback.md").read_text()), feedback
    hidden.write_text(hidden.read_text().replace(old, "x is used twice: add (+=) into x.grad"))
    capsys.readouterr()
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert "Course content changed since the kept results, graded again: backward (its tests or assignment.yaml; " \
           "1 submission(s))." in printed
    assert "Graded 1 submission(s)" in printed
    assert "x is used twice: add (+=) into x.grad" in (out / "backward" / "bob" / "feedback.md").read_text()
    assert (out / "value_ops" / "bob" / "results.json").read_text() == kept  # not graded again
    assert main(args) == 0
    assert "Graded 0 submission(s)" in capsys.readouterr().out


def test_item_analysis_lists_every_test_with_the_class_pass_rate(graded_class):
    with open(graded_class / "item_analysis.csv", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    students = len(grades(graded_class))
    tests = {(a.id, t["extra_data"]["key"]) for a in Course(ROOT).assignments()
             for t in json.loads((graded_class / a.id / "reference_solution" / "results.json").read_text())["tests"]}
    assert len(rows) == len(tests)
    rates = [float(r["pass_rate"]) for r in rows]
    assert rates == sorted(rates)
    for r in rows:  # the submissions that need attention (no files, import error, template) are left out
        assert int(r["students"]) + int(r["left_out"]) == students and int(r["students"]) >= 1
        assert float(r["pass_rate"]) == pytest.approx(int(r["passed"]) / int(r["students"]), abs=1e-3)
        if r["assignment"] in ASSIGNMENTS:
            assert r["left_out"] == "2"  # syntax_error and template_unchanged
    hardest = rows[0]
    assert float(hardest["pass_rate"]) < 1.0
