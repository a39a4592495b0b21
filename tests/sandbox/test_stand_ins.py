"""The grader's own Value and network parts (issue 14, fault isolation of the network's tests).

The network's tests run the student's methods on the grader's ``Value`` and
next to the grader's parts, so those stand-ins must compute exactly what a
correct engine computes, must be put back after every probe, and must leave
alone a network built another way than the handout's.
"""

from __future__ import annotations

import math
import sys
import types

import pytest
from checkout import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

from assignments.shared.checks.graphs import expected_from_math
from assignments.shared.checks.models import forward_from_math, model_spec, parts
from assignments.shared.checks.strategies import expression_graphs
from grader.judge.reference import load_reference, run_probe
from grader.sandbox import own_parts

own_parts.use(str(ROOT / "assignments" / "shared" / "parts"))
stand_ins = own_parts.load("stand_ins")  # (every test starts with it loaded again: tests/conftest.py)
REFERENCE = load_reference(ROOT / "reference")
NN_SOURCE = (ROOT / "reference" / "micrograd" / "nn.py").read_text(encoding="utf-8")


def network(name: str, nn_source: str) -> types.SimpleNamespace:
    """A submission whose engine is the reference's and whose nn.py is ``nn_source``."""
    package = types.ModuleType(name)
    package.__path__ = []
    sys.modules[name] = package
    sys.modules[f"{name}.engine"] = REFERENCE.engine
    nn = types.ModuleType(f"{name}.nn")
    nn.__package__ = name
    sys.modules[f"{name}.nn"] = nn
    exec(compile(nn_source, f"{name}/nn.py", "exec"), nn.__dict__)
    return types.SimpleNamespace(engine=REFERENCE.engine, nn=nn)


@settings(max_examples=60, derandomize=True, deadline=None)
@given(graph=expression_graphs())
def test_the_graders_value_computes_values_and_gradients_like_math(graph):
    mg = types.SimpleNamespace(engine=types.SimpleNamespace(Value=stand_ins.Value))
    got = run_probe(mg, "graph", [{**graph, "mode": "backward", "backward": [-1]}])
    expected = expected_from_math(graph)
    assert got["data"] == pytest.approx(expected["data"], rel=1e-12, abs=1e-12)
    leaves = len(graph["leaves"])
    assert got["grad"][:leaves] == pytest.approx(expected["grad"][:leaves], rel=1e-5, abs=1e-6)


@settings(max_examples=80, derandomize=True, deadline=None)
@given(a=st.floats(-1e6, 1e6), b=st.floats(-1e6, 1e6), same=st.booleans())
def test_the_fast_sums_and_products_compute_exactly_what_the_tables_say(a, b, same):
    """``+`` and ``*`` of two Values skip the generic ``_apply`` (the XOR tests' hot loop): bit for bit the same
    forward value, the same children, and the same gradients."""
    for op, fast in (("add", stand_ins.Value.__add__), ("mul", stand_ins.Value.__mul__)):
        results = []
        for generic in (False, True):
            x = stand_ins.Value(a)
            y = x if same else stand_ins.Value(b)
            out = x._apply(op, x, y) if generic else fast(x, y)
            out.grad = 0.75
            out._backward()
            results.append((out.data, out._op, sorted("x" if c is x else "y" for c in out._prev), x.grad, y.grad))
        assert results[0] == results[1]


def test_a_finished_graph_of_the_graders_value_is_freed_without_the_garbage_collector():
    """No node holds itself (a closure per node would): a training step's graph is freed as soon as the step
    drops it, instead of waiting for the cyclic garbage collector, which halved the cost of the XOR tests."""
    import gc
    import weakref

    gc.disable()
    try:
        x, w = stand_ins.Value(0.5), stand_ins.Value(-1.5)
        hidden = (x * w + 1.0).tanh()
        loss = (hidden - 1.0) ** 2
        loss.backward()
        assert w.grad != 0.0
        refs = [weakref.ref(hidden), weakref.ref(loss)]
        del hidden, loss
        assert all(ref() is None for ref in refs)
    finally:
        gc.enable()


def test_the_students_value_is_back_after_a_probe_even_one_that_raises():
    mg = network("sub_restore", NN_SOURCE.replace("act = sum(", "raise RuntimeError('boom'); act = sum("))
    theirs = mg.engine.Value
    with pytest.raises(Exception, match="boom"):
        run_probe(mg, "nn_forward", [parts("Neuron", 2, weights=[0.1, 0.2, 0.3]), [[1.0, 2.0]]])
    assert mg.engine.Value is theirs and mg.nn.Value is theirs and mg.nn.Neuron.__name__ == "Neuron"


def test_a_method_runs_on_the_graders_parts_when_the_constructor_is_missing():
    stub = NN_SOURCE.replace("        self.w = [Value(random.uniform(-1, 1)) for _ in range(nin)]",
                             "        raise NotImplementedError('Task 3.1')")
    mg = network("sub_no_init", stub)
    spec = parts("Neuron", 2, weights=[0.5, -1.0, 0.25])
    got = run_probe(mg, "nn_forward", [spec, [[1.0, 2.0]]])
    assert got["outputs"][0]["value"] == pytest.approx(math.tanh(0.5 - 2.0 + 0.25))
    # the constructor's own test sees the stub
    with pytest.raises(Exception, match="Task 3.1"):
        run_probe(mg, "nn_structure", [model_spec("Neuron", 2), [1.0, 2.0]])


def test_a_method_on_the_graders_parts_keeps_what_init_sets_when_init_refuses_the_specs_keyword():
    """A Neuron whose __init__ takes no ``nonlin`` (it raises TypeError for ``nonlin=False``) and whose __call__
    reads ``self.nin``, set only by __init__: the grader builds it without the keyword, then sets its parts
    (``nonlin`` too), so __call__ is measured on what it does, not on an attribute the refused call never set."""
    own = NN_SOURCE.replace("    def __init__(self, nin: int, nonlin: bool = True) -> None:\n        # BEGIN SOLUTION Task 3.1\n",
                            "    def __init__(self, nin: int) -> None:\n        # BEGIN SOLUTION Task 3.1\n"
                            "        self.nin = nin\n", 1).replace(
        "        self.nonlin = nonlin\n", "        self.nonlin = True\n", 1).replace(
        "act = sum((wi * xi for wi, xi in zip(self.w, x)), self.b)",
        "act = sum((self.w[i] * x[i] for i in range(self.nin)), self.b)", 1)
    assert own.count("self.nin") == 2 and "nonlin: bool" not in own.split("class Layer")[0]
    mg = network("sub_no_nonlin_keyword", own)
    spec = parts("Neuron", 2, weights=[0.5, -1.0, 0.25], nonlin=False)
    got = run_probe(mg, "nn_forward", [spec, [[1.0, 2.0]]])
    assert got["outputs"][0]["value"] == pytest.approx(0.5 - 2.0 + 0.25)


def test_an_engine_bug_does_not_reach_the_network_tests():
    """A network graded on the grader's Value gets the right numbers even when the student's tanh is wrong."""
    broken = types.SimpleNamespace(engine=types.SimpleNamespace(Value=REFERENCE.engine.Value), nn=REFERENCE.nn)
    mg = network("sub_engine_bug", NN_SOURCE)
    engine = types.ModuleType("sub_engine_bug.engine")
    exec("class Value:\n    def __init__(self, *a, **k):\n        raise NotImplementedError('Task 1.1')\n", engine.__dict__)
    mg.engine = engine
    mg.nn.Value = engine.Value
    spec = model_spec("MLP", 2, [3, 1], weights=[0.1 * k - 0.5 for k in range(13)])
    got = run_probe(mg, "nn_forward", [spec, [[0.5, -1.0]]])
    assert got["outputs"][0]["value"] == pytest.approx(forward_from_math(spec, spec["weights"], [0.5, -1.0])["value"])
    with pytest.raises(Exception, match="Task 1.1"):
        run_probe(mg, "nn_forward", [{**spec, "engine": "student"}, [[0.5, -1.0]]])
    assert broken.engine.Value is REFERENCE.engine.Value


def test_a_constructor_is_read_through_the_graders_parts():
    drops = NN_SOURCE.replace("Neuron(nin, **kwargs) for _ in range(nout)", "Neuron(nin) for _ in range(nout)")
    mg = network("sub_drops_kwargs", drops)
    got = run_probe(mg, "nn_structure", [model_spec("Layer", 3, 2, nonlin=False), [1.0, 0.0, -1.0]])
    assert got["parts"] == [[3, 1, True], [3, 1, True]]
    got = run_probe(mg, "nn_structure", [model_spec("MLP", 2, [3, 1]), [1.0, 0.0]])
    assert got["parts"] == [[2, 3, True], [3, 1, False]] and len(got["data"]) == 13


MATRIX_LAYER = (ROOT / "reference" / "variants" / "matrix_layer" / "micrograd" / "nn.py").read_text(
    encoding="utf-8").replace("from micrograd.engine import Value", "from .engine import Value")


def test_a_network_of_another_design_is_graded_as_it_is_built():
    """A Layer holding a weight matrix has no ``neurons``: its tests run on the student's own layer."""
    mg = network("sub_matrix", MATRIX_LAYER)
    spec = parts("Layer", 2, 3, weights=[0.1 * k - 0.4 for k in range(9)])
    got = run_probe(mg, "nn_forward", [spec, [[1.0, -2.0]]])
    want = forward_from_math(spec, spec["weights"], [1.0, -2.0])
    assert got["outputs"][0]["list"] == pytest.approx(want["list"])
    got = run_probe(mg, "nn_parameters", [spec, [1.0, -2.0]])
    assert got["identity"] is None and got["count"] == 9
    got = run_probe(mg, "nn_structure", [model_spec("Layer", 2, 3, nonlin=False), [1.0, -2.0]])
    assert got["parts"] is None and len(got["data"]) == 9


def test_parameters_report_which_of_the_graders_parts_they_are():
    copies = NN_SOURCE.replace("        return self.w + [self.b]", "        return [Value(p.data) for p in self.w + [self.b]]")
    spec = parts("Neuron", 2, weights=[0.5, -1.0, 0.25])
    assert run_probe(network("sub_live", NN_SOURCE), "nn_parameters", [spec, [1.0, 2.0]])["identity"] == [0, 1, 2]
    assert run_probe(network("sub_copies", copies), "nn_parameters", [spec, [1.0, 2.0]])["identity"] == [-1, -1, -1]
