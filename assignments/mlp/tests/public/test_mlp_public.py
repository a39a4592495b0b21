"""Public tests for assignment 3 (shipped to students).

In hidden grading each test runs only the method it is about: the model's
other parts are the grader's own (``parts``: a ``Neuron`` gets its ``w``,
``b`` and ``nonlin``, a ``Layer`` its ``neurons``, an ``MLP`` its
``layers``), and every network runs on the grader's own ``Value``, so a bug in
your engine costs no points there (the engine is graded in assignments 1 and
2). Your copy of the course does not have the grader's parts (they would be a
working solution), so your self-check runs these tests on your own engine and
parts: when one fails, it first tries your engine's ``+``, ``*`` and
``tanh``, and names the engine method to fix first if one of them is wrong.
Expected outputs are computed here with ``math``.
"""

import math

import pytest

from assignments.shared.checks.contracts import NETWORK
from assignments.shared.checks.derived import BaseCalls
from assignments.shared.checks.models import (
    check_parameters, check_structure, compare_outputs, confirm_weights, model_call, model_spec, own_engine_first,
    parts,
)
from grader.testing import Failure, show
from grader.testing.contracts import check_contract

pytestmark = [pytest.mark.contract(NETWORK), pytest.mark.base_of.with_args(BaseCalls)]


@pytest.fixture(autouse=True)
def engine_first(student, check):
    """On your own engine (a self-check), a failing case names the engine method to fix first, if one is wrong."""
    check.first = own_engine_first(student)


def value(x):
    return {"value": x}


def weights(n):
    return [round(0.37 * math.sin(3.1 * k + 1.0), 4) for k in range(n)]


@pytest.mark.points(0)
def test_network_contract(student, check):
    """Neuron(nin, nonlin) keeps w, b and nonlin; Layer(nin, nout, **kwargs) accepts nonlin"""
    check_contract(check, student, NETWORK)


@pytest.mark.points(2)
@pytest.mark.task("3.1-3.3")
def test_parameter_counts(student, check):
    """parameters() returns the live weights and biases in order: Neuron(3) has 4, Layer(3, 2) 8, MLP(2, [4, 4, 1]) 37"""
    x = [0.5, -1.0, 2.0]
    for spec in [parts("Neuron", 3, weights=weights(4)), parts("Layer", 3, 2, weights=weights(8)),
                 parts("MLP", 2, [4, 4, 1], weights=weights(37))]:
        nin = spec["args"][0]
        with check.case(f"{model_call(spec)}.parameters()", method=f"{spec['kind']}.parameters",
                        hint="each neuron returns self.w + [self.b]; a layer or MLP returns all of its parts' "
                             "parameters, in order"):
            check_parameters(student("nn_parameters", spec, x[:nin]), spec, x[:nin])


@pytest.mark.points(2)
@pytest.mark.task("3.1")
def test_neuron_forward(student, check):
    """Neuron: tanh(w . x + b), or w . x + b when nonlin=False"""
    w, x = [0.5, -1.0, 2.0, 0.1], [1.0, 2.0, 3.0]
    act = 0.5 * 1 - 1.0 * 2 + 2.0 * 3 + 0.1
    for nonlin, expected in [(True, math.tanh(act)), (False, act)]:
        spec = parts("Neuron", 3, nonlin=nonlin, weights=w)
        with check.case(f"{model_call(spec)} with self.w = {w[:3]} and self.b = {w[3]} on x = {x}",
                        method="Neuron.__call__", hint="sum w_i * x_i, add the bias, then tanh only if self.nonlin"):
            compare_outputs(student("nn_forward", spec, [x]), {"outputs": [value(expected)]}, spec, [x])


@pytest.mark.points(2)
@pytest.mark.task("3.2")
def test_layer_outputs(student, check):
    """Layer returns a single Value when nout == 1, else a list"""
    x = [1.0, -2.0]
    spec = parts("Layer", 2, 1, weights=[0.3, 0.2, -0.5])
    with check.case("Layer(2, 1) on x = [1, -2]", method="Layer.__call__",
                    hint="return outs[0] when there is one neuron, so an MLP's last layer gives a Value"):
        compare_outputs(student("nn_forward", spec, [x]), {"outputs": [value(math.tanh(0.3 - 0.4 - 0.5))]}, spec, [x])
    spec = parts("Layer", 2, 3, weights=[1, 0, 0, 0, 1, 0, 1, 1, 0.5])
    expected = {"outputs": [{"list": [math.tanh(1.0), math.tanh(-2.0), math.tanh(-0.5)]}]}
    with check.case("Layer(2, 3) on x = [1, -2]", method="Layer.__call__", hint="one output per neuron, in order"):
        compare_outputs(student("nn_forward", spec, [x]), expected, spec, [x])


@pytest.mark.points(1)
@pytest.mark.task("3.3")
def test_mlp_forward(student, check):
    """MLP(2, [2, 1]): each layer's outputs are the next layer's inputs"""
    w = [1.0, -1.0, 0.0, 0.5, 0.5, 0.2, 2.0, 3.0, 0.5]
    x = [0.6, 0.2]
    h = [math.tanh(0.6 - 0.2 + 0.0), math.tanh(0.3 + 0.1 + 0.2)]
    expected = 2.0 * h[0] + 3.0 * h[1] + 0.5
    spec = parts("MLP", 2, [2, 1], weights=w)
    with check.case(f"MLP(2, [2, 1]) with weights {w} on x = {x}", method="MLP.__call__",
                    hint="feed x through each layer of self.layers in turn, and return the last layer's output"):
        compare_outputs(student("nn_forward", spec, [x]), {"outputs": [value(expected)]}, spec, [x])


@pytest.mark.points(1)
@pytest.mark.task("3.1")
def test_initial_weights(student, check):
    """Neuron(12): twelve distinct Value weights and a bias, uniform in [-1, 1]"""
    x = [0.1 * k - 0.5 for k in range(12)]
    for spec in [model_spec("Neuron", 12, seed=3), model_spec("Neuron", 12, seed=4)]:  # (weights only: no nonlin)
        with check.case(f"{model_call(spec)} freshly built", method="Neuron.__init__",
                        hint="each weight, and the bias, is its own Value drawn with random.uniform(-1, 1)"):
            got = student("nn_structure", spec, x)
            check_structure(got, spec, x, nonlin=False)
            if not all(isinstance(w, float) and -1.0 <= w <= 1.0 for w in got["data"]):
                raise Failure(f"initial weights were {[show(w) for w in got['data'][:6]]}..., expected numbers in "
                              "[-1, 1]")
            if len(set(got["data"])) < 12:
                raise Failure(f"the 13 initial weights and bias hold only {len(set(got['data']))} distinct values: "
                              "draw each one with random.uniform(-1, 1)")


@pytest.mark.points(1)
@pytest.mark.task("3.2-3.3")
def test_constructors(student, check):
    """Layer(2, 3, nonlin=False) makes three linear neurons; MLP(2, [3, 1]) a tanh layer, then a linear one"""
    x = [0.5, -1.0]
    for spec, method, hint in [
        (model_spec("Layer", 2, 3, seed=1, nonlin=False), "Layer.__init__",
         "make nout neurons of nin inputs, and pass the keyword arguments on to each Neuron"),
        (model_spec("MLP", 2, [3, 1], seed=2), "MLP.__init__",
         "layer i is Layer(sizes[i], sizes[i + 1], nonlin=...), nonlin=False for the last layer only"),
    ]:
        with check.case(f"{model_call(spec)} freshly built", method=method, hint=hint):
            check_structure(student("nn_structure", spec, x), spec, x)


@pytest.mark.points(1)
@pytest.mark.task("3.4")
def test_zero_grad(student, check):
    """zero_grad() sets every parameter's gradient back to 0"""
    spec = parts("MLP", 2, [3, 1], weights=[0.1 * k - 0.6 for k in range(13)])
    x = [0.5, -1.0]
    with check.case("MLP(2, [3, 1]): every p.grad set to 1.0, then zero_grad()", method="Module.zero_grad",
                    hint="set p.grad = 0.0 on every p in self.parameters() (assigning to a loop variable does nothing)"):
        got = student("nn_zero_grad", spec, x)
        if len(got["after_zero_grad"]) != 13 or any(g != 0.0 for g in got["after_zero_grad"]):
            raise Failure(f"after zero_grad() the gradients were {[show(g) for g in got['after_zero_grad']]}, "
                          "expected 13 zeros")
        confirm_weights(got["output"], got["data"], spec, x)
