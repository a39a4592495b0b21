"""The network's tests with nothing of the grader's working in the worker (issue 39): the recording ``Value`` and the
handles a worker holds, and the judge's side that answers them (``assignments/shared/parts``).

The worker's ``Value`` computes forward values and records its graph; ``backward()`` sends the graph to the judge,
which must compute exactly what the grader's own engine computes, refuse anything malformed, and answer the grader's
parts' questions only where the probe allows them.
"""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings

from assignments.shared.checks.graphs import expected_from_math
from assignments.shared.checks.strategies import expression_graphs
from grader.judge.reference import in_process
from grader.sandbox import own_parts
from grader.sandbox.probekit import ProbeError, answering
from grader.testing.judged import AskRefused

recording = own_parts.get("recording")
judge = own_parts.get("network_judge")
stand_ins = own_parts.get("stand_ins")


def build(value_cls, graph):
    """The graph spec's nodes made with ``value_cls``'s own operations (leaves first)."""
    nodes = [value_cls(x) for x in graph["leaves"]]
    for op, *operands in graph["nodes"]:
        args = [o["const"] if isinstance(o, dict) else nodes[o] for o in operands]
        if op == "pow":
            out = args[0] ** args[1]
        elif op in ("add", "sub", "mul", "truediv"):
            symbol = {"add": "__add__", "sub": "__sub__", "mul": "__mul__", "truediv": "__truediv__"}[op]
            first = args[0] if isinstance(args[0], value_cls) else value_cls(args[0])
            out = getattr(first, symbol)(args[1])
        elif op == "neg":
            out = -args[0]
        else:
            out = getattr(args[0], op)()
        nodes.append(out)
    return nodes


def channel(network=None):
    """The probe's channel to a judge's side that answers ``backward`` (through JSON, as over the pipe)."""
    return answering(in_process(network or judge.Network(backward=True)))


@settings(max_examples=60, derandomize=True, deadline=None)
@given(graph=expression_graphs())
def test_the_judges_backward_is_the_graders_engine_on_the_recorded_graph(graph):
    try:
        expected = build(stand_ins.Value, graph)
    except (ArithmeticError, ValueError, TypeError):
        return  # outside an operation's domain: the forward pass raises in the worker too
    if any(isinstance(n.data, complex) or not math.isfinite(n.data) for n in expected):
        return
    expected[-1].backward()
    nodes = build(recording.Value, graph)
    with channel():
        nodes[-1].backward()
    assert [n.data for n in nodes] == [n.data for n in expected]
    leaves = len(graph["leaves"])
    assert [n.grad for n in nodes[:leaves]] == pytest.approx([n.grad for n in expected[:leaves]], rel=1e-12, abs=1e-12)
    math_says = expected_from_math(graph)
    assert [n.grad for n in nodes[:leaves]] == pytest.approx(math_says["grad"][:leaves], rel=1e-5, abs=1e-6)


def test_backward_accumulates_into_the_grads_the_nodes_hold_as_micrograd_does():
    with channel():
        w = recording.Value(0.5)
        w.grad = 2.0  # no zero_grad before this backward: micrograd adds to it
        (w * 3.0).backward()
        assert w.grad == 5.0
        out = w * w
        out.backward()
        assert w.grad == 5.0 + 2 * 0.5


def test_backward_uses_the_operands_data_as_they_were_when_the_node_was_made():
    """A step that updates the weights between the forward and the backward pass (a training-loop bug) gets the
    gradients its graph was made with, as the grader's engine (which computed them when it made each node) gave."""
    with channel():
        a, b = recording.Value(2.0), recording.Value(3.0)
        out = a * b
        a.data = 100.0
        out.backward()
    assert (a.grad, b.grad) == (3.0, 2.0)


def test_the_worker_holds_no_local_gradient_and_no_backward_of_its_own():
    assert not hasattr(recording, "LOCAL") and not hasattr(recording, "topological_order")
    node = recording.Value(0.5).tanh()
    assert not hasattr(node, "_backward") and not hasattr(node, "_parents")
    with pytest.raises(ProbeError):  # no channel: nothing answers
        node.backward()


def test_nodes_on_the_tape_that_root_was_not_made_from_keep_their_grads():
    """backward() sends every node made since the last one (no graph walk in the worker); the judge passes gradients
    only to what the root was made from."""
    with channel():
        w = recording.Value(0.5)
        w.grad = 0.25
        unrelated = recording.Value(3.0) * recording.Value(4.0)
        unrelated.grad = 7.0
        loss = w * 2.0
        loss.backward()
    assert (w.grad, unrelated.grad, loss.grad) == (2.25, 7.0, 1.0)


def test_backward_on_an_older_graph_finds_its_nodes_through_prev():
    with channel():
        a = recording.Value(2.0)
        first = a * a
        second = a * 3.0
        second.backward()  # the tape starts again: first is from before it
        (first + 1.0).backward()
    assert a.grad == 3.0 + 4.0


def test_a_tape_that_filled_up_without_a_backward_starts_again_and_loses_nothing(monkeypatch):
    """A forward pass over many points with no backward() (an accuracy) must not hold every node: the tape starts
    again when full, and a graph made across the restart is still differentiated whole."""
    monkeypatch.setattr(recording, "MAX_TAPE", 10)
    with channel():
        a = recording.Value(0.5)
        h = a
        for _ in range(30):  # 30 nodes: the tape starts again twice on the way
            h = h * 1.0
        assert len(recording._TAPE) <= 10
        (h + 0.0).backward()
    assert a.grad == 1.0


def test_a_node_the_student_made_by_hand_passes_no_gradient_as_before():
    with channel():
        a = recording.Value(2.0)
        out = recording.Value(4.0, (a,), "+")
        out.backward()
    assert a.grad == 0.0 and out.grad == 1.0


def own(value_cls, data, children, op, local):
    """A node the student's code makes itself, micrograd's way: ``Value(data, children, op)`` and a ``_backward``
    closure passing ``local[k] * out.grad`` to child ``k`` (bound as it should be)."""
    out = value_cls(data, tuple(children), op)

    def _backward(out=out, children=tuple(children)):
        for child, g in zip(children, local):
            child.grad += g * out.grad

    out._backward = _backward
    return out


def test_a_node_the_student_made_with_its_own_backward_passes_what_its_closure_passes():
    """Issue 55: the student's own closure runs, wherever the node sits among the grader's; the operands it reaches
    (a node of the grader's made between two of the student's included) pass their gradients on afterwards."""
    def network(value_cls):
        a, b = value_cls(0.5), value_cls(-1.5)
        h = a * b  # the grader's, made before the student's nodes
        t = own(value_cls, math.tanh(h.data), [h], "tanh", [1 - math.tanh(h.data) ** 2])
        k = a + 2.0  # the grader's, made between two of the student's: an operand of the second
        s = own(value_cls, t.data * k.data, [t, k], "my_mul", [k.data, t.data])  # an operation the grader lacks
        loss = s * s + b
        return [a, b, h, t, k, s, loss]

    expected = network(stand_ins.Value)
    expected[-1].backward()
    with channel():
        nodes = network(recording.Value)
        nodes[-1].backward()
    assert [n.grad for n in nodes] == pytest.approx([n.grad for n in expected], rel=1e-12)
    assert nodes[0].grad != 0.0 and nodes[4].grad != 0.0


def test_closures_bound_late_give_what_the_students_engine_gives():
    """A real student's Tanh module: closures made in a loop, each bound to the last input and output."""
    with channel():
        xs = [recording.Value(v) for v in (0.5, -1.0, 2.0)]
        outs = []
        for x in xs:
            out = recording.Value(math.tanh(x.data), (x,), "tanh")

            def _backward():
                x.grad += (1 - out.data ** 2) * out.grad  # noqa: B023 - the student's bug, on purpose

            out._backward = _backward
            outs.append(out)
        (outs[0] + outs[1] + outs[2]).backward()
    last = 1 - math.tanh(2.0) ** 2
    assert [x.grad for x in xs] == pytest.approx([0.0, 0.0, 3 * last])


def test_a_closure_that_leaves_no_number_is_the_students_error_and_a_hostile_resume_is_refused():
    with channel():
        a = recording.Value(2.0)
        out = recording.Value(4.0, (a,), "double")

        def _backward():
            a.grad = None

        out._backward = _backward
        with pytest.raises(ProbeError, match="after the _backward of a node your code made, a gradient is NoneType"):
            out.backward()
    network = judge.Network(backward=True)
    with pytest.raises(AskRefused, match="no pass to go on with"):
        network.answer("backward", {"more": recording.packed("d", [1.0])})
    a = recording.Value(2.0)
    out = own(recording.Value, 4.0, [a], "double", [2.0])
    nodes, payload = recording.graph(out)
    paused = network.answer("backward", json.loads(json.dumps(payload)))
    assert set(paused) == {"grads", "run"} and recording.unpacked("q", paused["run"]) == [len(nodes) - 1]
    with pytest.raises(AskRefused, match="do not fit"):
        network.answer("backward", {"more": recording.packed("d", [1.0] * (len(nodes) + 1))})


def test_a_graph_the_student_tampered_with_is_the_students_error():
    with channel():
        node = recording.Value(1.0) * 2.0
        node._vals = ("one", 2.0)
        with pytest.raises(ProbeError, match="not a number"):
            node.backward()
        node = recording.Value(1.0) * 2.0
        node.grad = "1"
        with pytest.raises(ProbeError, match="not a number"):
            node.backward()
        node = recording.Value(1.0) * 2.0
        (recording.Value(1.0) * 3.0).backward()  # node is from before the tape now: found through _prev
        node._prev = {"not a node"}
        with pytest.raises(ProbeError, match="not a node"):
            node.backward()


def packed_graph(**changes):
    """The packed graph of ``0.5 * 2.0 + 1.0`` (nodes: two leaves, their product, the sum), with ``changes``; a change
    may be a function of the node's ``_seq`` numbers."""
    nodes, payload = recording.graph(recording.Value(0.5) * recording.Value(2.0) + 1.0)
    seqs = [n._seq for n in nodes]
    return {**payload, **{k: v(seqs) if callable(v) else v for k, v in changes.items()}}


@pytest.mark.parametrize("payload", [
    pytest.param("a graph", id="not-a-dict"),
    pytest.param({}, id="no-columns"),
    pytest.param(packed_graph(extra=1), id="another-column"),
    pytest.param(packed_graph(vals=[0.5, 2.0]), id="a-list-not-packed"),
    pytest.param(packed_graph(vals="%%%not base64"), id="not-base64"),
    pytest.param(packed_graph(vals=recording.packed("d", [1.0])), id="too-few-operands"),
    pytest.param(packed_graph(refs=lambda q: recording.packed("q", [q[3], q[1], q[2], -1])), id="an-operand-made-later"),
    pytest.param(packed_graph(refs=lambda q: recording.packed("q", [q[0], q[1], q[3], -1])), id="a-cycle"),
    pytest.param(packed_graph(seqs=lambda q: recording.packed("q", [q[1], q[0], q[2], q[3]])), id="not-in-order"),
    pytest.param(packed_graph(arity=recording.packed("I", [0, 0, 2, 5])), id="arity-beyond-the-operands"),
    pytest.param(packed_graph(ops=recording.packed("B", [])), id="no-nodes"),
    pytest.param(packed_graph(ops="A" * 400_000), id="beyond-the-largest-graph"),
])
def test_a_malformed_graph_is_refused(payload):
    with pytest.raises(AskRefused):
        judge.Network(backward=True).answer("backward", json.loads(json.dumps(payload)))


def test_the_judge_answers_only_what_the_probe_allows():
    """backward only on the grader's Value, the network once, a part's forward pass and parameters() only for the
    kinds the probe names, and nothing made unless the probe's constructor test asks for it."""
    network = judge.Network([(2, 1, True)], [0.5, -1.0, 0.25], backward=False, network=True, calls={"Neuron"})
    with pytest.raises(AskRefused, match="backward"):
        network.answer("backward", packed_graph())
    made = network.answer("network", {})
    with pytest.raises(AskRefused):
        network.answer("network", {})
    with pytest.raises(AskRefused):
        network.answer("make", {"kind": "Neuron", "nin": 2, "nonlin": True})
    neuron = made["layers"][0]["neurons"][0]["part"]
    program = network.answer("call", {"part": neuron, "params": [0.5, -1.0, 0.25], "x": [1.0, {"v": 2.0}]})
    assert program["nodes"][-1][2] == pytest.approx(math.tanh(0.5 - 2.0 + 0.25))
    for kind in ("Layer", "MLP"):
        part = made["layers"][0]["part"] if kind == "Layer" else made["part"]
        with pytest.raises(AskRefused, match=f"the grader's {kind} is there for the tests of another method"):
            network.answer("call", {"part": part, "params": [0.5, -1.0, 0.25], "x": [1.0, 2.0]})
        with pytest.raises(AskRefused):
            network.answer("parameters", {"part": part})
    with pytest.raises(AskRefused):  # the weights it holds, nothing else
        network.answer("call", {"part": neuron, "params": [0.5], "x": [1.0, 2.0]})
    assert network.record() == {"backward_passes": 0, "forward_passes": 1, "networks": 1, "made": 3, "refused": 8,
                                "most_activations": 0, "activations_reached": 0}


def test_a_handle_builds_the_judges_forward_pass_and_its_gradients_flow():
    network = judge.Network([(2, 2, True), (2, 1, False)], [0.1, 0.2, 0.3, -0.4, 0.5, -0.6, 0.7, 0.8, -0.9],
                            backward=True, network=True, calls={"MLP"}, parameters={"MLP"})
    with channel(network):
        mlp = recording.network()
        x = [recording.Value(1.0), 2.0]
        out = mlp(x)
        out.backward()
        params = mlp.parameters()
    theirs = stand_ins.MLP([stand_ins.Layer(2, 2, True), stand_ins.Layer(2, 1, False)])
    stand_ins.pin(theirs.parameters(), [0.1, 0.2, 0.3, -0.4, 0.5, -0.6, 0.7, 0.8, -0.9])
    leaf = stand_ins.Value(1.0)
    expected = theirs([leaf, 2.0])
    expected.backward()
    assert out.data == expected.data
    assert [p.grad for p in params] == [p.grad for p in theirs.parameters()] and x[0].grad == leaf.grad


# --- values a submission supplies: the judge bounds them, and its probe fails saying why (issue 53, 2) ---------------

def test_a_negative_number_to_a_fractional_power_fails_the_students_backward_not_the_judge():
    """modules: ``(Value(-1.0) ** 0.5).backward()``: the local gradient is complex, which the judge could not pack."""
    with channel():
        out = recording.Value(-1.0) ** 0.5
        with pytest.raises(ProbeError, match="not a real number"):
            out.backward()


def test_a_layer_too_large_for_the_grader_is_refused_before_its_weights_are_drawn():
    """mlp: a student's ``MLP.__init__`` that makes ``Layer(900, 900)`` of the grader's: an answer of 16 MB."""
    network = judge.Network(makes={"Layer", "Neuron"}, compose=True)
    with pytest.raises(AskRefused, match="at most 100,000 weights in one test: a Layer\\(900, 900\\)"):
        network.answer("make", {"kind": "Layer", "nin": 900, "nout": 900, "nonlin": True})
    assert network.parts == [] and network.weights_made == 0
    layers = [network.answer("make", {"kind": "Layer", "nin": 99, "nout": 100, "nonlin": True}) for _ in range(10)]
    assert len(layers) == 10 and network.weights_made == judge.MAX_WEIGHTS
    with pytest.raises(AskRefused, match="beside the 100,000 made already"):
        network.answer("make", {"kind": "Neuron", "nin": 1, "nonlin": True})
    with pytest.raises(AskRefused, match="beside the 100,000 made already"):
        network.answer("compose", {"kind": "Neuron", "nin": 1, "nonlin": True})


def test_weights_and_inputs_too_large_for_a_float_are_refused():
    """mlp: the grader's neuron given ``10**3000`` weights and inputs would answer an integer the judge cannot send."""
    network = judge.Network([(2, 1, False)], [0.5, -1.0, 0.25], network=True, calls={"Neuron"})
    neuron = network.answer("network", {})["layers"][0]["neurons"][0]["part"]
    for params, x in (([10 ** 3000, 1, 1], [1.0, 2.0]), ([1, 1, 1], [10 ** 3000, 2.0]), ([1, 1, 1], [{"v": -(10 ** 400)}, 2])):
        with pytest.raises(AskRefused, match="too large for the grader"):
            network.answer("call", {"part": neuron, "params": params, "x": x})
    big = 2 ** 1023  # the largest taken: products of such numbers still cross the pipe
    program = network.answer("call", {"part": neuron, "params": [big, big, big], "x": [big, big]})
    assert len(json.dumps(program)) < 10_000
    with pytest.raises(AskRefused, match="wrong number of weights or inputs"):  # a neuron of 2 inputs, sent 100,000
        network.answer("call", {"part": neuron, "params": [1, 1, 1], "x": [1.0] * 100_000})


def test_in_the_checkpointing_tests_a_students_own_node_passes_its_gradient_into_the_judges_layers_and_no_further():
    """A checkpointed pass may glue segments with nodes of its own (``Value(h.data, (h,), "glue")`` and a closure):
    the gradient its closure passes to the judge's activation flows on through the judge's layers; a closure that
    writes into a node of the judge's it was not made from is refused (the judge's counts and weight gradients are
    the judge's)."""
    def chain():
        network = judge.Network([(1, 1, True)] * 3, [0.5, 0.1, 0.7, -0.2, 1.1, 0.3], backward=True, network=True,
                                calls={"Neuron"}, activations=True)
        with answering(in_process(network)):
            neurons = [layer.neurons[0] for layer in recording.network().layers]
        return network, neurons

    def weight_grads(glue):
        network, neurons = chain()
        with answering(in_process(network)):
            h, outs = recording.Value(0.2), []
            for neuron in neurons:
                h = neuron([h])
                outs.append(h)
            root = glue(h, outs) if glue else h * 2.0
            root.backward()
        return network.record()["weight_grads"]

    expected = weight_grads(None)
    assert weight_grads(lambda h, outs: own(recording.Value, 2 * h.data, [h], "glue", [2.0])) == expected

    def forged(h, outs):
        out = recording.Value(2 * h.data, (h,), "glue")

        def _backward():
            h.grad += 2.0 * out.grad
            outs[0].grad += 5.0  # a node of the judge's this one was not made from

        out._backward = _backward
        return out

    with pytest.raises(ProbeError, match="changed the gradient of a node of the grader's layers"):
        weight_grads(forged)
