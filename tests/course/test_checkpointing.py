"""Assignment checkpointing: the judge counts the chain's work on its side (a submission that hides its work from the
judge, or keeps the whole graph, earns no count points), answers are bounded, and the cost model and the chain's
math are the independent ones."""

from __future__ import annotations

import csv
import json
import math
import zipfile

import nbformat
import pytest
from checkout import ROOT
from course_runs import reference_code, run

from assignments.checkpointing.checks import activations, chain_weights, plain_gradients
from assignments.checkpointing.probes import ANSWERS
from assignments.shared.parts.network_judge import Network
from assignments.shared.parts.recording import OPS, packed
from grader.judge.reference import load_reference
from grader.sandbox.schema import MalformedAnswer


@pytest.fixture(scope="module")
def mg():
    return load_reference(ROOT / "reference")


def test_the_chains_math_is_a_central_difference_of_its_forward_pass():
    weights, x, h = chain_weights(9, "math"), 0.2, 1e-6
    dx, grads = plain_gradients(weights, x, 1.0)
    assert math.isclose(dx, (activations(weights, x + h)[-1] - activations(weights, x - h)[-1]) / (2 * h),
                        rel_tol=1e-6)
    for k in (0, 7, 17):
        up, down = list(weights), list(weights)
        up[k] += h
        down[k] -= h
        assert math.isclose(grads[k], (activations(up, x)[-1] - activations(down, x)[-1]) / (2 * h), rel_tol=1e-5)


def test_the_reference_cost_model_is_the_minimum_over_every_distance(mg):
    for n in (1, 2, 7, 16, 36, 100, 1000):
        held = {k: math.ceil(n / k) + min(k, n) for k in range(1, n + 1)}
        assert mg.checkpointing.best_every(n) == min(held, key=lambda k: (held[k], k))
        assert abs(mg.checkpointing.best_every(n) - math.sqrt(n)) <= 1 + math.sqrt(n) / 4
    assert mg.checkpointing.cost(36, 6) == (12, 72)


def test_the_judge_counts_the_activations_one_backward_reached():
    """A chain of 3 tanh nodes made before 2 others that the root does not use: 3 reached, not 5."""
    tanh = OPS["tanh"]
    ops = [0, tanh, tanh, 0, tanh, tanh, tanh]  # leaf a; t1(a), t2(t1) unused; leaf b; t3(b), t4(t3), t5(t4): root
    refs = [0, 1, 3, 4, 5]
    vals = [0.1, 0.2, 0.3, 0.4, 0.5]
    payload = {"seqs": packed("q", list(range(7))), "ops": packed("B", ops), "arity": packed("I", [0, 1, 1, 0, 1, 1, 1]),
               "refs": packed("q", refs), "vals": packed("d", vals), "grads": packed("d", [0.0] * 7)}
    judge = Network(backward=True, activations=True)
    judge.answer("backward", payload)
    assert judge.record()["most_activations"] == 3 and judge.record()["backward_passes"] == 1


@pytest.mark.parametrize("args, answer", [
    (("forward", [0.5, 0.1] * 3, 0.2, 1),
     {"output": 0.1, "checkpoints": None, "input_grad": None, "grads": [0.0] * 7, "counted": None}),
    (("checkpointed_forward", [0.5, 0.1] * 3, 0.2, 1),
     {"output": 0.1, "checkpoints": [0.0] * 4, "input_grad": None, "grads": [0.0] * 6, "counted": None}),
    (("forward", [0.5, 0.1] * 3, 0.2, 1),
     {"output": 0.1, "checkpoints": None, "input_grad": None, "grads": [0.0] * 6,
      "counted": {"forward_passes": -1, "backward_passes": 0, "most_activations": 0}}),
])
def test_answers_are_bounded_by_their_requests(args, answer):
    with pytest.raises(MalformedAnswer):
        ANSWERS["checkpointing_run"](answer, *args)




HIDING = '''

import sys as _sys


def _unseen():  # the probe sees no grader's parts: the chain is built on this Value and counted in the worker
    return None


for _module in list(_sys.modules.values()):
    if getattr(_module, "__name__", "").endswith("checkpointing.probes"):
        _module.handles = _unseen
'''

WHOLE_GRAPH = '''

def checkpointed_backward(layers, checkpoints, every, upstream=1.0):  # right gradients, the whole graph alive
    start = Value(checkpoints[0])
    h = start
    for layer in layers:
        h = layer(h)
    (h * upstream).backward()
    return start.grad
'''

HAND = '''

def checkpointed_backward(layers, checkpoints, every, upstream=1.0):  # gradients by hand beside one empty backward()
    a = [checkpoints[0]]
    for layer in layers:
        a.append(layer(a[-1]).data)
    g = upstream
    for i in reversed(range(len(layers))):
        local = 1.0 - a[i + 1] ** 2
        layers[i].w.grad += g * local * a[i]
        layers[i].b.grad += g * local
        g = g * local * layers[i].w.data
    (Value(a[0]) * 0.0).backward()  # a backward() the judge sees, through no layer: 2n evaluations, 1 backward
    return g
'''


def test_a_class_is_graded_on_the_judges_counts(tmp_path):
    subs = tmp_path / "subs"
    engine, code = reference_code("engine.py"), reference_code("checkpointing.py")
    for name, text in {"right": code, "whole_graph": code + WHOLE_GRAPH, "hiding": code + HIDING,
                       "by_hand": code + HAND}.items():
        (subs / name / "micrograd").mkdir(parents=True)
        (subs / name / "micrograd" / "engine.py").write_text(engine)
        (subs / name / "micrograd" / "checkpointing.py").write_text(text)
    cell = (engine + "\n" + code.replace("from .engine import Value\n", "")).replace(
        "from __future__ import annotations\n", "")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("from __future__ import annotations\n" + cell)])
    (subs / "colab.ipynb").write_text(nbformat.writes(nb))
    out = tmp_path / "out"
    status, printed = run("--course", str(ROOT), "grade", str(subs), "-a", "checkpointing", "-o", str(out))
    assert status == 0, printed
    with open(out / "grades.csv", encoding="utf-8") as f:
        rows = {r["student"]: r for r in csv.DictReader(f)}
    assert rows["right"]["checkpointing"] == "30" and rows["colab"]["checkpointing"] == "30", rows

    def lost(student: str) -> set[str]:
        results = json.loads((out / "checkpointing" / student / "results.json").read_text(encoding="utf-8"))
        return {t["name"].split(":")[0] for t in results["tests"] if t["score"] < t["max_score"]}

    # right gradients, but the grader saw one backward() over the whole chain: the count tests of the backward pass
    assert lost("whole_graph") == {
        "checkpointed_backward recomputes each segment from its checkpoint and gives the plain gradients",
        "checkpointed_backward on the reference's checkpoints",
        "16 layers", "36 layers, checkpoints every 1, 6 and 36 layers"}, lost("whole_graph")
    # work hidden from the judge: the counts it reports are the worker's, and the judge's own say nothing ran
    hidden = lost("hiding")
    assert "checkpointed_forward keeps the input of every every-th layer as a number, and evaluates each layer " \
           "once" in hidden and "16 layers" in hidden and "36 layers, checkpoints every 1, 6 and 36 layers" in hidden
    assert "withheld" not in rows["hiding"]["notes"] and float(rows["hiding"]["checkpointing"]) <= 30 - 9
    feedback = (out / "checkpointing" / "hiding" / "feedback.md").read_text(encoding="utf-8")
    assert "the grader's 7 layers were evaluated 0 times" in feedback
    # right gradients written by hand beside a backward() through no layer, within the compute and memory bounds: the
    # judge saw no layer's activation go through a backward()
    assert {"16 layers", "36 layers, checkpoints every 1, 6 and 36 layers"} <= lost("by_hand"), lost("by_hand")
    feedback = (out / "checkpointing" / "by_hand" / "feedback.md").read_text(encoding="utf-8")
    assert "the backward passes went through 0 layer activations of the 16 layers" in feedback


def test_the_release_gives_the_chain_and_no_checkpointed_pass():
    template = (ROOT / "student_template" / "micrograd" / "checkpointing.py").read_text()
    assert "def make_chain(" in template and "class TanhUnit" in template
    for name in ("forward", "checkpointed_forward", "checkpointed_backward", "cost", "best_every"):
        body = template.split(f"def {name}(", 1)[1].split("\ndef ", 1)[0]
        assert "raise NotImplementedError" in body, name


def test_the_gradescope_zip_grades_an_upload_on_the_judges_counts(tmp_path):
    archive = tmp_path / "autograder.zip"
    status, printed = run("--course", str(ROOT), "gradescope", "-a", "checkpointing", "-o", str(archive))
    assert status == 0, printed
    with zipfile.ZipFile(archive) as zf:
        zf.extractall(tmp_path / "source")
    for name, text in (("right", reference_code("checkpointing.py")), ("whole", reference_code("checkpointing.py") + WHOLE_GRAPH)):
        upload = tmp_path / name
        upload.mkdir()
        (upload / "engine.py").write_text(reference_code("engine.py"))
        (upload / "checkpointing.py").write_text(text)
        status, printed = run("--course", str(tmp_path / "source"), "autograde", str(upload), "-a", "checkpointing",
                              "-o", str(tmp_path / f"{name}.json"))
        assert status == 0, printed
    right = json.loads((tmp_path / "right.json").read_text(encoding="utf-8"))
    whole = json.loads((tmp_path / "whole.json").read_text(encoding="utf-8"))
    assert right["score"] == 30 and math.isclose(sum(t["max_score"] for t in right["tests"]), 30)
    # one backward() over the whole chain: the backward tests' cases whose segments are shorter than the chain fail
    # on the judge's counts (public 4 of 4 points, hidden 2 of 3 cases of 4, the trade-offs 1 of 2 cases of 2 and of
    # 3); every 8 of 8 layers, every 1 and every 36 hold what a whole graph holds and pass
    assert math.isclose(whole["score"], 30 - 4 - 8 / 3 - 1 - 1, abs_tol=1e-3), whole["score"]

