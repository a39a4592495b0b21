"""Public tests for assignment 3 (shipped to students).

Weights are set by hand through ``parameters()`` (documented order: layer by
layer, neuron by neuron, each neuron's weights then its bias), so expected
outputs are computed here with ``math``.
"""

import math

import pytest

from grader.testing.models import compare_outputs, confirm_weights, model_call, model_spec
from grader.testing import Failure, show


def value(x):
    return {"value": x}


@pytest.mark.points(2)
@pytest.mark.task("3.1-3.3")
def test_parameter_counts(student, check):
    """parameters() counts weights and biases: Neuron(3) has 4, Layer(3, 2) has 8, MLP(2, [4, 4, 1]) has 37"""
    x = [0.5, -1.0, 2.0]
    for spec, expected in [(model_spec("Neuron", 3), 4), (model_spec("Layer", 3, 2), 8),
                           (model_spec("MLP", 2, [4, 4, 1]), 37)]:
        with check.case(f"len({model_call(spec)}.parameters())", method=f"{spec['kind']}.parameters",
                        hint="each neuron has nin weights and one bias; a layer or MLP returns all of its parts'"):
            got = student("nn_parameters", spec, x[:spec["args"][0]])
            if got["count"] != expected:
                raise Failure(f"{model_call(spec)}.parameters() returned {got['count']} values, expected {expected}")
            # a count alone is easy to make up: the model's output must be what those parameters give
            confirm_weights(got["output"], got["data"], spec, x[:spec["args"][0]], method=f"{spec['kind']}.__call__")


@pytest.mark.points(2)
@pytest.mark.task("3.1")
def test_neuron_forward(student, check):
    """Neuron: tanh(w . x + b), or w . x + b when nonlin=False"""
    w, x = [0.5, -1.0, 2.0, 0.1], [1.0, 2.0, 3.0]
    act = 0.5 * 1 - 1.0 * 2 + 2.0 * 3 + 0.1
    for nonlin, expected in [(True, math.tanh(act)), (False, act)]:
        spec = model_spec("Neuron", 3, nonlin=nonlin, weights=w)
        with check.case(f"{model_call(spec)} with weights {w[:3]} and bias {w[3]} on x = {x}",
                        method="Neuron.__call__", hint="sum w_i * x_i, add the bias, then tanh only if nonlin"):
            compare_outputs(student("nn_forward", spec, [x]), {"outputs": [value(expected)]}, spec, [x])


@pytest.mark.points(2)
@pytest.mark.task("3.2")
def test_layer_outputs(student, check):
    """Layer returns a single Value when nout == 1, else a list"""
    x = [1.0, -2.0]
    spec = model_spec("Layer", 2, 1, weights=[0.3, 0.2, -0.5])
    with check.case("Layer(2, 1) on x = [1, -2]", method="Layer.__call__",
                    hint="return outs[0] when there is one neuron, so an MLP's last layer gives a Value"):
        compare_outputs(student("nn_forward", spec, [x]), {"outputs": [value(math.tanh(0.3 - 0.4 - 0.5))]}, spec, [x])
    spec = model_spec("Layer", 2, 3, weights=[1, 0, 0, 0, 1, 0, 1, 1, 0.5])
    expected = {"outputs": [{"list": [math.tanh(1.0), math.tanh(-2.0), math.tanh(-0.5)]}]}
    with check.case("Layer(2, 3) on x = [1, -2]", method="Layer.__call__", hint="one output per neuron, in order"):
        compare_outputs(student("nn_forward", spec, [x]), expected, spec, [x])


@pytest.mark.points(2)
@pytest.mark.task("3.3")
def test_mlp_forward(student, check):
    """MLP(2, [2, 1]): a tanh hidden layer and a linear output layer"""
    weights = [1.0, -1.0, 0.0, 0.5, 0.5, 0.2, 2.0, 3.0, 0.5]
    x = [0.6, 0.2]
    h = [math.tanh(0.6 - 0.2 + 0.0), math.tanh(0.3 + 0.1 + 0.2)]
    expected = 2.0 * h[0] + 3.0 * h[1] + 0.5
    spec = model_spec("MLP", 2, [2, 1], weights=weights)
    with check.case(f"MLP(2, [2, 1]) with weights {weights} on x = {x}", method="MLP.__call__",
                    hint="hidden layers use tanh; the last layer is linear (nonlin=False)"):
        compare_outputs(student("nn_forward", spec, [x]), {"outputs": [value(expected)]}, spec, [x])


@pytest.mark.points(2)
@pytest.mark.task("3.4")
def test_zero_grad(student, check):
    """zero_grad() sets every parameter's gradient back to 0"""
    spec = model_spec("MLP", 2, [3, 1], weights=[0.1 * k - 0.6 for k in range(13)])
    x = [0.5, -1.0]
    with check.case("MLP(2, [3, 1]): every p.grad set to 1.0, then zero_grad()", method="Module.zero_grad",
                    hint="set p.grad = 0.0 on every p in self.parameters() (assigning to a loop variable does nothing)"):
        got = student("nn_zero_grad", spec, x)
        if len(got["after_zero_grad"]) != 13 or any(g != 0.0 for g in got["after_zero_grad"]):
            raise Failure(f"after zero_grad() the gradients were {[show(g) for g in got['after_zero_grad']]}, "
                          "expected 13 zeros")
        confirm_weights(got["output"], got["data"], spec, x, method="MLP.__call__")
