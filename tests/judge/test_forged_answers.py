"""Forged probe answers earn nothing (issue 12, A): a stub whose process answers the probes itself,
with malformed data, with answers made up from the request alone, or with empty lists, scores 0 on
every assignment, every test is scored (none withheld) and the failures say the answer was unusable."""

from __future__ import annotations

import csv
import json

import hostile_submissions as H
import pytest
from checkout import ROOT

from grader.cli import main
from grader.judge.answers import MalformedAnswer, parse
from grader.sandbox.protocol import ProtocolError, decode


@pytest.fixture(scope="module")
def forged_class(tmp_path_factory):
    base = tmp_path_factory.mktemp("forged")
    subs, out = base / "subs", base / "out"
    H.write(subs / "baseline_correct", H.CORRECT)
    H.stub_with_forgery(subs / "baseline_template", "none")  # a strategy that forges nothing: the honest stub
    for strategy in H.FORGE_STRATEGIES:
        H.stub_with_forgery(subs / f"forged_{strategy}", strategy)
    status = main(["--course", str(ROOT), "grade", str(subs), "-o", str(out), "-j", "2"])
    with open(out / "grades.csv", encoding="utf-8") as f:
        grades = {row["student"]: row for row in csv.DictReader(f)}
    return {"status": status, "out": out, "grades": grades}


def test_the_baselines_score_full_marks_and_zero(forged_class):
    grades = forged_class["grades"]
    assert forged_class["status"] == 0
    assert float(grades["baseline_correct"]["total"]) == 130.0
    assert float(grades["baseline_template"]["total"]) == 0.0


@pytest.mark.parametrize("strategy", H.FORGE_STRATEGIES)
def test_a_stub_that_forges_its_answers_scores_zero_and_nothing_is_withheld(forged_class, strategy):
    row = forged_class["grades"][f"forged_{strategy}"]
    assert float(row["total"]) == 0.0, row
    for aid in ("value_ops", "backward", "mlp"):
        results = json.loads((forged_class["out"] / aid / f"forged_{strategy}" / "results.json").read_text())
        assert results["score"] == 0.0
        assert [t["name"] for t in results["tests"] if t.get("score", 0) != 0] == []
        assert "grader error" not in json.dumps(results).lower()


def test_a_malformed_answer_is_named_in_the_feedback(forged_class):
    feedback = (forged_class["out"] / "value_ops" / "forged_malformed" / "feedback.md").read_text(encoding="utf-8")
    assert "could not be used" in feedback


@pytest.mark.parametrize("value", [
    [[[[]]]], 10 ** 300, "1.0", None, True, {"data": [1.0], "grad": [1.0]}, {"data": [1] * 3, "grad": [1.0] * 3},
    {"data": [1.0] * 3, "grad": [1.0] * 3, "extra": 1}, {"data": [1.0] * 3, "grad": [True] * 3},
    {"data": [1.0] * 3, "grad": [{"nonnumeric": 1, "repr": "x"}] * 3},
])
def test_graph_answers_of_the_wrong_shape_are_malformed(value):
    spec = {"leaves": [1.0, 2.0], "nodes": [["add", 0, 1]]}
    with pytest.raises(MalformedAnswer):
        parse("graph", [spec], value)


def test_a_well_formed_answer_comes_back_typed_and_capped():
    spec = {"leaves": [1.0], "nodes": [["tanh", 0]]}
    answer = parse("graph", [spec], {"data": [1.0, 0.5], "grad": [{"nonnumeric": "Value", "repr": "x" * 10_000}, 1.0]})
    assert answer["data"] == [1.0, 0.5] and len(answer["grad"][0]["repr"]) <= 120  # type: ignore[index]


def test_training_answers_are_bounded_by_the_request():
    spec = {"kind": "MLP", "args": [2, [1]], "kwargs": {}, "seed": 0, "weights": None}
    good = {"initial": [0.1] * 4, "losses": [1.0, 0.5], "steps": 1, "preds": [0.0] * 4, "final": [0.2] * 4,
            "zero_grad": None}
    assert parse("nn_train", [spec, [[0, 0]] * 4, [1.0] * 4, 0.1, 1, None], good)["steps"] == 1
    assert parse("nn_train", [spec, [[0, 0]] * 4, [1.0] * 4, 0.1, 1, None], {**good, "zero_grad": "missing"})
    for bad in [{**good, "steps": 2}, {**good, "losses": []}, {**good, "preds": [0.0]}, {**good, "final": []},
                {**good, "steps": 10 ** 30}, {**good, "zero_grad": "x" * 10_000}, {**good, "zero_grad": 1}]:
        with pytest.raises(MalformedAnswer):
            parse("nn_train", [spec, [[0, 0]] * 4, [1.0] * 4, 0.1, 1, None], bad)


def test_a_message_nested_too_deeply_or_with_a_huge_integer_is_a_protocol_error():
    for line in (b"[" * 200_000, b'{"id": ' + b"9" * 5000 + b"}"):
        with pytest.raises(ProtocolError):
            decode(line)


def test_an_exception_in_a_tests_own_code_withholds_the_score_and_never_grants_part_of_it(tmp_path, capsys):
    """A bug in a test (not in the submission) after some cases passed: the assignment's score is
    withheld (no score, an empty gradebook cell, exit status 3), and the test keeps no partial credit."""
    course = H.copy_course(tmp_path / "course", ["value_ops"], test_seconds=10)
    yaml_path = course / "assignments" / "value_ops" / "assignment.yaml"
    yaml_path.write_text(yaml_path.read_text().replace("points: 40", "points: 41"))
    with open(course / "assignments" / "value_ops" / "tests" / "hidden" / "test_value_ops_hidden.py", "a") as f:
        f.write(
            "\n\n@pytest.mark.points(1)\n@pytest.mark.task('1.1')\n"
            "def test_with_a_bug_of_its_own(student, reference, check):\n"
            "    '''A test whose own code fails after a passing case'''\n"
            "    spec = graphs.binary('add', 1.0, 2.0)\n"
            "    with check.case('x0 + x1'):\n"
            "        compare_graph(student('graph', spec), reference('graph', spec), spec)\n"
            "    {}['missing']\n")
    H.write(tmp_path / "subs" / "correct", H.CORRECT)
    status = main(["--course", str(course), "grade", str(tmp_path / "subs"), "-o", str(tmp_path / "out"),
                   "-a", "value_ops"])
    assert status == 3
    doc = json.loads((tmp_path / "out" / "value_ops" / "correct" / "results.json").read_text())
    assert "score" not in doc and "KeyError" in doc["extra_data"]["grader"]["grader_error"]
    buggy = next(t for t in doc["tests"] if t["name"].startswith("A test whose own code"))
    assert buggy["score"] == 0.0 and buggy["status"] == "failed"
    with open(tmp_path / "out" / "grades.csv", encoding="utf-8") as f:
        assert next(csv.DictReader(f))["value_ops"] == ""


def test_contract_answers_are_bounded():
    """The constructor's order and the parameter that switches gradients off are positions the judge bounds."""
    assert parse("value_gradient_switch", [], 3) == 3 and parse("value_gradient_switch", [], None) is None
    for bad in (0, 9, 10 ** 30, "3", True, [3]):
        with pytest.raises(MalformedAnswer):
            parse("value_gradient_switch", [], bad)
    node = {"data": 3.0, "grad": 0.0, "prev": 1, "operands": 0, "op": "", "backward": True}
    leaf = {**node, "data": 2.0, "prev": 0}
    good = {"leaf": leaf, "node": node, "equal": False, "order": {"children": 2, "op": 3}}
    assert parse("value_contract", [], good)["order"] == {"children": 2, "op": 3}
    for order in ({"children": 0, "op": None}, {"children": 2, "op": 99}, {"children": 2}, "x" * 10_000):
        with pytest.raises(MalformedAnswer):
            parse("value_contract", [], {**good, "order": order})
