"""Assignment checkpointing: the judge counts the chain's work on its side (a submission that hides its work from the
judge, or keeps the whole graph, earns no count points), answers are bounded, and the cost model and the chain's
math are the independent ones."""

from __future__ import annotations

import csv
import json
import math
import re
import shutil
import zipfile

import nbformat
import pytest
from checkout import ROOT
from course_runs import reference_code, run

from assignments.checkpointing.checks import activations, chain_weights, plain_gradients
from assignments.checkpointing.probes import ANSWERS
from assignments.shared.parts.network_judge import Network
from grader.cli import main
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


def test_the_judge_counts_only_its_own_activations_and_checks_its_nodes():
    """In-process, as a worker would ask: a chain of the judge's 3 layers (evaluated on each other's output) and 2
    tanh nodes of the student's; a backward() from the last layer reaches the judge's 3 activations, not the others',
    and a node of the judge's relabelled, cut loose or given a gradient by hand is refused."""
    from assignments.shared.parts import recording
    from grader.judge.reference import in_process
    from grader.sandbox.probekit import ProbeError, answering

    def chain() -> tuple[Network, list]:
        judge = Network([(1, 1, True)] * 3, [0.5, 0.1, 0.7, -0.2, 1.1, 0.3], backward=True, network=True,
                        calls={"Neuron"}, activations=True)
        with answering(in_process(judge)):
            neurons = [layer.neurons[0] for layer in recording.network().layers]
        return judge, neurons

    judge, neurons = chain()
    with answering(in_process(judge)):
        extra = recording.Value(0.3).tanh().tanh()  # the student's own tanh nodes: no activation of the grader's
        h = recording.Value(0.2)
        for neuron in neurons:
            h = neuron([h])
        (h + extra).backward()
    record = judge.record()
    assert (record["most_activations"], record["activations_reached"], record["most_alive"]) == (3, 3, 3)
    assert record["weight_grads"] == [g for n in neurons for g in (n.w[0].grad, n.b.grad)] != [0.0] * 6
    for tamper, says in (("relabel", "not as the grader made it"), ("cut", "not as the grader made it"),
                         ("by hand", "set by hand"), ("weight", "takes its gradient only through")):
        judge, neurons = chain()
        with answering(in_process(judge)):
            h = recording.Value(0.2)
            outs = []
            for neuron in neurons:
                h = neuron([h])
                outs.append(h)
            root = h * 2.0
            if tamper == "relabel":
                outs[1]._op = "mul"
            elif tamper == "cut":
                outs[0]._prev, outs[0]._rs, outs[0]._vals, outs[0]._op = set(), (), (), ""
            elif tamper == "by hand":
                outs[1].grad = 5.0
            else:
                root = root + neurons[0].w[0] * 3.0
            with pytest.raises(ProbeError, match=says):
                root.backward()


@pytest.mark.parametrize("args, answer", [
    (("forward", [0.5, 0.1] * 3, 0.2, 1),
     {"output": 0.1, "checkpoints": None, "input_grad": None, "grads": [0.0] * 7, "linked_inputs": 0,
      "counted": None}),
    (("checkpointed_forward", [0.5, 0.1] * 3, 0.2, 1),
     {"output": 0.1, "checkpoints": [0.0] * 4, "input_grad": None, "grads": [0.0] * 6, "linked_inputs": 0,
      "counted": None}),
    (("forward", [0.5, 0.1] * 3, 0.2, 1),
     {"output": 0.1, "checkpoints": None, "input_grad": None, "grads": [0.0] * 6, "linked_inputs": 0,
      "counted": {"forward_passes": -1, "backward_passes": 0, "most_activations": 0}}),
    (("checkpointed_forward", [0.5, 0.1] * 3, 0.2, 1),
     {"output": 0.1, "checkpoints": [0.0] * 3, "input_grad": None, "grads": [0.0] * 6, "linked_inputs": -1,
      "counted": None}),
    (("checkpointed_forward", [0.5, 0.1] * 3, 0.2, 1),
     {"output": 0.1, "checkpoints": [0.0] * 3, "input_grad": None, "grads": [0.0] * 6, "linked_inputs": 0.0,
      "counted": None}),
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


# Issue 53, 3: counts forged against a judge that believed the graph the worker described (each scored 30/30)
NO_LAYER_TANH = '''

def checkpointed_backward(layers, checkpoints, every, upstream=1.0):  # by hand, then backward() through tanh of no layer
    n = len(layers)
    a = [checkpoints[0]]
    for layer in layers:
        a.append(layer(a[-1]).data)
    g = upstream
    for i in reversed(range(n)):
        local = 1.0 - a[i + 1] ** 2
        layers[i].w.grad += g * local * a[i]
        layers[i].b.grad += g * local
        g = g * local * layers[i].w.data
    for j in range(len(checkpoints)):  # one backward() per segment, through as many tanh nodes as the segment's layers
        h = Value(0.1)
        for _ in range(min(every, n - j * every)):
            h = h.tanh()
        h.backward()
    return g
'''

RELABELLED = '''

def checkpointed_backward(layers, checkpoints, every, upstream=1.0):  # the whole graph, its tanh nodes relabelled
    n = len(layers)
    start = Value(checkpoints[0])
    h, outs = start, []
    for layer in layers:
        h = layer(h)
        outs.append(h)
    for out in outs[:n - min(every, n)]:  # the judge sees tanh nodes in the last segment only
        out._op = "mul"
    (h * upstream).backward()
    a = [checkpoints[0]] + [o.data for o in outs]
    g = upstream
    for i in reversed(range(n)):
        local = 1.0 - a[i + 1] ** 2
        layers[i].w.grad = g * local * a[i]
        layers[i].b.grad = g * local
        g = g * local * layers[i].w.data
    for j in range(len(checkpoints) - 1):  # padding: a backward() for each other segment, through tanh of no layer
        t = Value(0.1)
        for _ in range(every):
            t = t.tanh()
        t.backward()
    return g
'''

CUT = '''

def checkpointed_backward(layers, checkpoints, every, upstream=1.0):  # one graph, each segment's input made a leaf
    import sys
    recording = next(m for m in list(sys.modules.values()) if hasattr(m, "_restart"))  # the grader's Value's module
    tokens = getattr(recording, "_TOKENS", {{}})
    n = len(layers)
    h = Value(checkpoints[0])
    outs = [h]
    for layer in layers:  # one forward pass: n evaluations, the whole graph kept
        kept = tokens.pop(h._seq, None) if {strip!r} else None  # the input sent as a plain Value: no link recorded
        out = layer(h)
        if kept is not None:
            tokens[h._seq] = kept
        h = out
        outs.append(h)
    recording._restart()  # the forward pass off the tape: each backward() below sends what it reaches
    g = upstream
    for j in reversed(range(len(checkpoints))):
        first, last = outs[j * every], outs[min((j + 1) * every, n)]
        add = next(iter(outs[j * every + 1]._prev))  # tanh(add(mul(w, first), b))
        mul = next(node for node in add._prev if first in node._prev)
        x = Value(first.data)  # the segment's input, made a leaf for this backward() alone, as old as first
        x._seq = first._seq
        mul._prev = (mul._prev - {{first}}) | {{x}}
        kept = tokens.pop(first._seq, None) if {strip!r} else None
        (last * g).backward()
        if kept is not None:
            tokens[first._seq] = kept
        g = x.grad
    return g
'''


def test_a_class_is_graded_on_the_judges_counts(tmp_path):
    subs = tmp_path / "subs"
    engine, code = reference_code("engine.py"), reference_code("checkpointing.py")
    for name, text in {"right": code, "whole_graph": code + WHOLE_GRAPH, "hiding": code + HIDING,
                       "by_hand": code + HAND, "no_layer_tanh": code + NO_LAYER_TANH, "relabelled": code + RELABELLED,
                       "cut": code + CUT.format(strip=False), "cut_unlinked": code + CUT.format(strip=True),
                       "forward_keeps_graph": code.replace("h = layer(Value(h)).data", "h = layer(Value(h) if isinstance(h, float) else h)").replace(
                           "return h, checkpoints", "return h.data, checkpoints").replace("checkpoints.append(h)", "checkpoints.append(getattr(h, 'data', h))")}.items():
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
    assert "a gradient of the grader's layers was set by hand" in feedback  # the graph sent holds the weights
    # issue 53, 3: the forged counts; each loses every test of its pass, none is withheld
    backward_tests = {"checkpointed_backward recomputes each segment from its checkpoint and gives the plain gradients",
                      "checkpointed_backward on the reference's checkpoints", "16 layers",
                      "36 layers, checkpoints every 1, 6 and 36 layers"}
    for name, says in (("no_layer_tanh", "set by hand"), ("relabelled", "not as the grader made it"),
                       ("cut", "not as the grader made it"), ("cut_unlinked", "activations alive at once")):
        assert backward_tests <= lost(name), (name, lost(name))
        assert "withheld" not in rows[name]["notes"]
        assert says in (out / "checkpointing" / name / "feedback.md").read_text(encoding="utf-8"), name
    # the handout's "no graph outlives its layer", measured at every moment, not only inside backward()
    assert "checkpointed_forward keeps the input of every every-th layer as a number, and evaluates each layer " \
           "once" in lost("forward_keeps_graph")
    assert "kept 7 layer outputs alive at once" in (out / "checkpointing" / "forward_keeps_graph" / "feedback.md"
                                                    ).read_text(encoding="utf-8")


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
    # on the judge's counts (public 4 of 4 points, hidden 2 of 3 cases of 4, the backward pass's trade-offs 1 of 2
    # cases of 1 and 1 of 3 cases of 1.5); every 8 of 8 layers, every 1 and every 36 hold what a whole graph holds and
    # pass, and the forward pass's trade-off tests are the forward pass's alone
    assert math.isclose(whole["score"], 30 - 4 - 8 / 3 - 0.5 - 0.5, abs_tol=1e-3), whole["score"]



def test_the_ledger_counts_what_each_pass_must_have_held():
    """live_activations.Ledger on the passes the handout names: a plain backward pass holds all n, the checkpointed
    one a segment at a time, a forward pass on fresh Values one; a forward pass on the outputs themselves, or a
    backward pass that reuses the forward pass's graph, all of them."""
    from assignments.shared.probes.live_activations import Ledger

    def run(n: int, every: int, chained_forward: bool, recompute: bool) -> int:
        ledger, made, last = Ledger(), [], None
        for i in range(n):  # the forward pass
            ledger.tick()
            ledger.made(i, [last] if chained_forward and last is not None else [])
            made.append(i)
            last = i
        key = n
        for start in reversed(range(0, n, every)):  # the backward pass, segment by segment
            segment = list(range(start, min(start + every, n)))
            if recompute:
                prev = None
                segment = []
                for _ in range(start, min(start + every, n)):
                    ledger.tick()
                    ledger.made(key, [prev] if prev is not None else [])
                    segment.append(key)
                    prev, key = key, key + 1
            ledger.tick()
            ledger.used(segment)
        return ledger.most_alive()

    assert run(16, 16, chained_forward=True, recompute=False) == 16  # plain: forward, then one backward()
    assert run(16, 4, chained_forward=False, recompute=True) == 4  # the handout's two passes
    assert run(16, 4, chained_forward=True, recompute=True) == 16  # the forward pass kept its graph
    assert run(16, 4, chained_forward=False, recompute=False) == 16  # the forward's outputs reused, not recomputed
    ledger = Ledger()
    for i in range(5):
        ledger.tick()
        ledger.made(i)
    assert ledger.most_alive() == 1 and Ledger().most_alive() == 0
    chain = Ledger()  # a submission that chains every call it can: each use is O(1), the count linear
    for i in range(200_000):
        chain.tick()
        chain.made(i, [i - 1] if i else [])
    chain.tick()
    chain.used([0])
    assert chain.most_alive() == 200_000


FORWARD = '''    checkpoints = []
    h = x
    for i, layer in enumerate(layers):
        if i % every == 0:
            checkpoints.append(h)
        h = layer(Value(h)).data
    return h, checkpoints
'''

FORWARD_BUGS = {  # held-out checkpointed_forward bugs written from the handout (the graded path, not bugs.yaml)
    "plus_one": FORWARD.replace("if i % every == 0:", "if (i + 1) % every == 0:"),
    "late": FORWARD.replace("""        if i % every == 0:
            checkpoints.append(h)
        h = layer(Value(h)).data
""", """        h = layer(Value(h)).data
        if i % every == 0:
            checkpoints.append(h)
"""),
    "values": FORWARD.replace("    h = x\n", "    h = Value(x)\n").replace(
        "h = layer(Value(h)).data", "h = layer(Value(h.data))").replace("return h, ", "return h.data, "),
    "linked": FORWARD.replace("    h = x\n", "    h = Value(x)\n").replace("checkpoints.append(h)", "checkpoints.append(h.data)")
    .replace("h = layer(Value(h)).data", "h = layer(Value(h.data, (h,)))").replace("return h, ", "return h.data, "),
    "carried": FORWARD.replace("    checkpoints = []\n", "    checkpoints = []\n\n    class Kept(float):\n        pass\n\n")
    .replace("            checkpoints.append(h)\n", "            kept = Kept(h)\n            kept.graph = out\n"
                                                  "            checkpoints.append(kept)\n")
    .replace("        h = layer(Value(h)).data\n", "        out = layer(Value(h))\n        h = out.data\n")
    .replace("    h = x\n", "    h, out = x, None\n"),
}
FORWARD_TESTS = {"test_checkpointed_forward", "test_checkpointed_forward_on_seeded_chains",
                 "test_the_forward_pass_of_the_trade_off", "test_the_forward_pass_measured_by_the_grader"}
BACKWARD_TESTS = {"test_checkpointed_backward", "test_checkpointed_backward_on_seeded_chains", "test_the_trade_off",
                  "test_memory_against_compute_measured_by_the_grader"}


def test_a_bug_in_checkpointed_forward_costs_only_its_own_tests_and_is_named(tmp_path):
    """Each checkpointed_forward bug loses points in checkpointed_forward's tests only, named there; the backward
    pass's tests (on the grader's checkpoints) give it full marks. A forward pass that keeps the whole graph through
    a "fresh" Value(h.data, (h,)), or checkpoints that carry their Value, is caught; a checkpointed_backward that
    recomputes each segment from the chain's input is still checkpointed_backward's."""
    code = reference_code("checkpointing.py")
    assert FORWARD in code
    students = {name: code.replace(FORWARD, body) for name, body in FORWARD_BUGS.items()}
    students["from_input"] = code.replace('''        start = Value(checkpoints[j])
        h = start
''', '''        h = checkpoints[0]
        for layer in layers[:j * every]:
            h = layer(Value(h)).data
        start = Value(h)
        h = start
''')
    subs = tmp_path / "subs"
    for name, text in students.items():
        assert text != code, name
        (subs / name / "micrograd").mkdir(parents=True)
        (subs / name / "micrograd" / "engine.py").write_text(reference_code("engine.py"))
        (subs / name / "micrograd" / "checkpointing.py").write_text(text)
    out = tmp_path / "out"
    status, printed = run("--course", str(ROOT), "grade", str(subs), "-a", "checkpointing", "-o", str(out))
    assert status == 0, printed

    def failed(student: str) -> dict[str, dict]:
        results = json.loads((out / "checkpointing" / student / "results.json").read_text(encoding="utf-8"))
        return {t["extra_data"]["key"].split("::")[-1]: t for t in results["tests"] if t["score"] < t["max_score"]}

    for name in FORWARD_BUGS:
        lost = failed(name)
        assert lost and set(lost) <= FORWARD_TESTS, (name, sorted(lost))
        assert {"test_checkpointed_forward", "test_checkpointed_forward_on_seeded_chains"} <= set(lost), name
        for key, t in lost.items():
            assert t["extra_data"]["methods"] == ["checkpointed_forward"], (name, key, t["extra_data"]["methods"])
            assert "checkpointed_backward:" not in t["output"], (name, key)
    linked = failed("linked")["test_checkpointed_forward"]["output"]
    assert "ran on a Value whose graph still holds an earlier layer's output" in linked, linked
    carried = failed("carried")["test_the_forward_pass_of_the_trade_off"]["output"]
    assert "checkpoint 0 is a Kept object" in carried and "a checkpoint is a plain number" in carried, carried
    lost = failed("from_input")
    assert set(lost) <= BACKWARD_TESTS and "test_checkpointed_backward" in lost, sorted(lost)
    assert all(t["extra_data"]["methods"] == ["checkpointed_backward"] for t in lost.values()), lost


def test_the_self_check_shows_a_forward_pass_that_keeps_the_graph_through_a_fresh_values_children(tmp_path):
    """grader check (the student's own engine, counted in the worker) reveals Value(h.data, (h,)) too, under
    checkpointed_forward."""
    code = reference_code("checkpointing.py")
    (tmp_path / "micrograd").mkdir()
    (tmp_path / "micrograd" / "engine.py").write_text(reference_code("engine.py"))
    (tmp_path / "micrograd" / "checkpointing.py").write_text(code.replace(FORWARD, FORWARD_BUGS["linked"]))
    status, printed = run("--course", str(ROOT), "check", str(tmp_path), "-a", "checkpointing")
    assert status == 1, printed
    assert "checkpointed_forward: 6 of the layers ran on a Value whose graph still holds" in printed, printed
    assert "checkpointed_backward:" not in printed, printed


@pytest.mark.parametrize("answer", [{"result": [8.0, 32.0], "ints": [True]}, {"result": [8.0], "ints": [1]},
                                    {"result": [8.0], "ints": None}])
def test_a_cost_answer_has_one_int_flag_per_number(answer):
    with pytest.raises(MalformedAnswer):
        ANSWERS["checkpointing_cost"](answer, 16, 4)


@pytest.mark.parametrize("student, cost, shown", [
    ("ints", "math.ceil(n / every) + min(every, n) + 1, 2 * n", "returned (9, 32), expected (8, 32)"),
    ("floats", "float(math.ceil(n / every) + min(every, n) + 1), 2.0 * n", "returned (9.0, 32.0), expected (8, 32)"),
])
def test_feedback_shows_the_numbers_cost_returned_as_it_returned_them(tmp_path, student, cost, shown):
    """``cost`` returns ints (the handout's ``tuple[int, int]``): feedback shows an int the student returned as an int
    and a float as a float (it showed ``[9.0, 32.0]`` for both), and the expected values as the reference's ints."""
    package = tmp_path / "subs" / student / "micrograd"
    shutil.copytree(ROOT / "reference" / "micrograd", package, ignore=shutil.ignore_patterns("__pycache__"))
    source = (package / "checkpointing.py").read_text(encoding="utf-8")
    old = "    return math.ceil(n / every) + min(every, n), 2 * n\n"
    assert source.count(old) == 1
    (package / "checkpointing.py").write_text(source.replace(old, f"    return {cost}\n"), encoding="utf-8")
    out = tmp_path / "out"
    assert main(["--course", str(ROOT), "grade", str(tmp_path / "subs"), "-o", str(out), "-a", "checkpointing"]) == 0
    tests = json.loads((out / "checkpointing" / student / "results.json").read_text(encoding="utf-8"))["tests"]
    public = next(t for t in tests if t["name"].startswith("cost(n, every):"))
    assert f"cost(16, 4) {shown}" in public["output"]
    hidden = next(t for t in tests if t["name"].startswith("cost(n, every) for seeded sizes"))
    assert re.search(r"cost\(\d+, \d+\) returned \((\d+)(\.0)?, \d+(\.0)?\), expected \(\d+, \d+\)", hidden["output"])
    assert (".0," in hidden["output"]) == (student == "floats")
