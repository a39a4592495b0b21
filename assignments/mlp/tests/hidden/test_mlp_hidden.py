"""Hidden tests for assignment 3: parameters, forward values, gradients, SGD
and XOR training, compared with the reference solution.

Weights are pinned through ``parameters()`` with values from a fixed-seed
generator, so a check passes only if parameters() returns the live objects,
in the documented order, with biases, and the forward and backward passes
compute the right numbers. The XOR test uses the student's own
initialisation and replays training from the student's initial weights with
the reference, so a correct engine never fails it because of an unlucky
seed, and a reported trajectory is only accepted if it is the one gradient
descent really takes.
"""

import random

import pytest

from grader.testing.models import (
    compare_outputs, confirm_weights, forward_from_math, model_call, model_spec, parameter_count, pinned_to,
)
from grader.testing import Failure, close, show

XOR_X = [[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]]
XOR_Y = [-1.0, 1.0, 1.0, -1.0]
XOR_SEEDS = [1, 2, 3, 4, 5]
LR, MAX_STEPS, MARGIN = 0.1, 300, 0.5
CHECKED_STEPS = 20
"""Steps of the XOR loss curve that must match the reference replay: enough to prove real
gradient descent with a correct engine, few enough that rounding (summation order over a
set-ordered graph) cannot grow into a visible difference; later steps can be chaotic."""
PARAMS_HINT = ("parameters() must return the live Value objects (not copies), layer by layer, neuron by neuron, "
               "each neuron's weights then its bias")


def pinned(kind, *args, rng, **kwargs):
    weights = [rng.uniform(-1, 1) for _ in range(parameter_count(kind, *args))]
    return model_spec(kind, *args, weights=weights, **kwargs)


def inputs(rng, nin, n=3):
    return [[round(rng.uniform(-2, 2), 3) for _ in range(nin)] for _ in range(n)]


@pytest.mark.points(2)
@pytest.mark.task("3.1-3.3")
def test_parameter_counts(student, check):
    """parameters() has one entry per weight and bias, for several shapes"""
    rng = random.Random("counts")
    for spec in [model_spec("Neuron", 5), model_spec("Layer", 4, 3), model_spec("MLP", 3, [5, 1]),
                 model_spec("MLP", 1, [2, 3, 2])]:
        with check.case(f"len({model_call(spec)}.parameters())", method=f"{spec['kind']}.parameters",
                        hint="a neuron has nin weights and one bias; Layer and MLP collect their parts' parameters"):
            x = inputs(rng, spec["args"][0], 1)[0]
            got, expected = student("nn_parameters", spec, x), parameter_count(spec["kind"], *spec["args"])
            if got["count"] != expected:
                raise Failure(f"{model_call(spec)}.parameters() returned {got['count']} values, expected {expected}")
            confirm_weights(got["output"], got["data"], spec, x, method=f"{spec['kind']}.__call__")


@pytest.mark.points(4)
@pytest.mark.task("3.1-3.3")
def test_parameters_are_live_and_ordered(student, reference, check):
    """Weights set through parameters() change the output, in the documented order"""
    rng = random.Random("live")
    for spec, nin in [(pinned("MLP", 3, [4, 4, 1], rng=rng), 3), (pinned("MLP", 2, [3, 2], rng=rng), 2),
                      (pinned("Layer", 2, 3, rng=rng), 2)]:
        xs = inputs(rng, nin)
        with check.case(f"{model_call(spec)} with random weights set through parameters()",
                        method=f"{spec['kind']}.parameters", hint=PARAMS_HINT):
            compare_outputs(student("nn_forward", spec, xs), reference("nn_forward", spec, xs), spec, xs)


@pytest.mark.points(3)
@pytest.mark.task("3.1")
def test_neuron_forward(student, reference, check):
    """Neuron forward pass, with tanh and linear"""
    rng = random.Random("neuron")
    for nonlin in (True, False):
        spec = pinned("Neuron", 4, rng=rng, nonlin=nonlin)
        xs = inputs(rng, 4)
        with check.case(f"{model_call(spec)} on random inputs", method="Neuron.__call__",
                        hint="act = sum(w_i * x_i) + b; return act.tanh() if nonlin else act"):
            compare_outputs(student("nn_forward", spec, xs), reference("nn_forward", spec, xs), spec, xs)


@pytest.mark.points(3)
@pytest.mark.task("3.2")
def test_layer_forward(student, reference, check):
    """Layer forward pass: one Value for one neuron, a list otherwise; kwargs reach the neurons"""
    rng = random.Random("layer")
    for spec in [pinned("Layer", 3, 1, rng=rng), pinned("Layer", 3, 4, rng=rng), pinned("Layer", 3, 2, rng=rng, nonlin=False)]:
        xs = inputs(rng, 3)
        with check.case(f"{model_call(spec)} on random inputs", method="Layer.__call__",
                        hint="outs = [n(x) for n in self.neurons]; return outs[0] if len(outs) == 1 else outs; "
                             "pass **kwargs on to every Neuron"):
            compare_outputs(student("nn_forward", spec, xs), reference("nn_forward", spec, xs), spec, xs)


@pytest.mark.points(1)
@pytest.mark.task("3.3")
def test_mlp_linear_output(student, reference, check):
    """MLP: the last layer is linear, so outputs can exceed 1 in magnitude"""
    weights = [0.8, -0.6, 0.1, 0.4, 0.9, -0.2, 3.0, -2.5, 1.5]
    spec = model_spec("MLP", 2, [2, 1], weights=weights)
    xs = [[1.0, -1.0], [0.3, 2.0]]
    with check.case(f"{model_call(spec)} with large output weights", method="MLP.__init__",
                    hint="create the last layer with nonlin=False; only hidden layers use tanh"):
        compare_outputs(student("nn_forward", spec, xs), reference("nn_forward", spec, xs), spec, xs)


@pytest.mark.points(4)
@pytest.mark.task("3.1-3.3")
def test_parameter_gradients(student, reference, check):
    """Gradients of the output with respect to every parameter"""
    rng = random.Random("grads")
    for spec, nin in [(pinned("MLP", 3, [4, 4, 1], rng=rng), 3), (pinned("Neuron", 3, rng=rng), 3)]:
        x = inputs(rng, nin, 1)[0]
        with check.case(f"{model_call(spec)}: backward() from the output on x = {x}", method="Neuron.__call__",
                        hint="build the forward pass only from Value operations so every weight and bias is in the graph"):
            got, exp = student("nn_backward", spec, x), reference("nn_backward", spec, x)
            if len(got["grads"]) != len(exp["grads"]):
                raise Failure(f"parameters() returned {len(got['grads'])} values, expected {len(exp['grads'])}")
            for k, (g, e) in enumerate(zip(got["grads"], exp["grads"])):
                if not close(g, e):
                    raise Failure(f"parameter {k} of parameters() had grad {show(g)}, expected {show(e)}")


@pytest.mark.points(3)
@pytest.mark.task("3.4")
def test_zero_grad(student, check):
    """zero_grad() resets every parameter's gradient, in place"""
    rng = random.Random("zero")
    spec = pinned("MLP", 2, [3, 3, 1], rng=rng)
    x = [0.4, -0.7]
    with check.case(f"{model_call(spec)}: every p.grad set to 1.0, then zero_grad()", method="Module.zero_grad",
                    hint="for p in self.parameters(): p.grad = 0.0 (rebinding p or making new Values does nothing)"):
        got = student("nn_zero_grad", spec, x)
        after = got["after_zero_grad"]
        if len(after) != parameter_count("MLP", 2, [3, 3, 1]) or any(g != 0.0 for g in after):
            raise Failure(f"after zero_grad() the gradients were {[show(g) for g in after[:8]]}, expected all 0.0")
        confirm_weights(got["output"], got["data"], spec, x, method="MLP.__call__")


@pytest.mark.points(1)
@pytest.mark.task("3.1")
def test_initial_weights(student, check):
    """Neuron weights start uniform in [-1, 1], not constant"""
    spec = model_spec("MLP", 2, [4, 4, 1], seed=7)
    x = [0.3, -0.8]
    with check.case("MLP(2, [4, 4, 1]) freshly built", method="Neuron.__init__",
                    hint="self.w = [Value(random.uniform(-1, 1)) for _ in range(nin)]"):
        got = student("nn_parameters", spec, x)
        weights = weight_values(got["data"], 2, [4, 4, 1])
        check_initial(weights)
        confirm_weights(got["output"], got["data"], spec, x, method="MLP.__call__")


def weight_values(data, nin, nouts):
    """The weights (not biases) of an MLP's parameter data, in order."""
    if len(data) != parameter_count("MLP", nin, nouts):
        raise Failure(f"parameters() returned {len(data)} values, expected {parameter_count('MLP', nin, nouts)}")
    sizes, weights, k = [nin, *nouts], [], 0
    for i, nout in enumerate(nouts):
        for _ in range(nout):
            weights += data[k:k + sizes[i]]
            k += sizes[i] + 1
    return weights


def check_initial(weights):
    if not all(isinstance(w, float) and -1.0 <= w <= 1.0 for w in weights):
        raise Failure(f"initial weights were {[show(w) for w in weights[:6]]}..., expected numbers in [-1, 1]")
    if len(set(weights)) < 0.9 * len(weights):
        raise Failure(f"initial weights are (nearly) constant: {len(set(weights))} distinct values among "
                      f"{len(weights)} weights, expected distinct random values in [-1, 1]; "
                      "all neurons would then learn the same thing")


@pytest.mark.points(4)
@pytest.mark.task("3.1-3.4")
def test_sgd_trajectory(student, reference, check):
    """One SGD step, then twenty, on XOR from pinned weights follow the reference"""
    rng = random.Random("trajectory")
    spec = pinned("MLP", 2, [4, 4, 1], rng=rng)
    with check.case(f"{model_call(spec)} with pinned weights: one SGD step (MSE, lr {LR})", method="MLP",
                    hint="one step: forward on all points, loss, zero_grad(), backward(), p.data -= lr * p.grad"):
        got = student("nn_train", spec, XOR_X, XOR_Y, LR, 1, None)
        exp = reference("nn_train", spec, XOR_X, XOR_Y, LR, 1, None)
        compare_losses(got, exp, rel=1e-7)
        if not all(close(p, e) for p, e in zip(got["preds"], exp["preds"])):
            raise Failure(f"after one SGD step the predictions were {[show(p) for p in got['preds']]}, "
                          f"expected {exp['preds']}")
    with check.case(f"{model_call(spec)} with pinned weights, MSE, lr {LR}, 20 steps", method="MLP",
                    hint="each step: forward on all points, loss, zero_grad(), backward(), p.data -= lr * p.grad"):
        got = student("nn_train", spec, XOR_X, XOR_Y, LR, 20, None)
        exp = reference("nn_train", spec, XOR_X, XOR_Y, LR, 20, None)
        compare_losses(got, exp, rel=1e-6)


def compare_losses(got, exp, rel, steps=None):
    """Compare the loss curves step by step: the first ``steps`` losses (default: all the reference's).

    Never vacuous: the student's curve must hold every loss compared (the
    reference's curve always holds at least the initial loss).
    """
    wanted = exp["losses"][:steps]
    losses = got["losses"]
    if len(losses) < len(wanted) or (steps is None and len(losses) != len(wanted)):
        raise Failure(f"training reported {len(losses)} losses ({got['steps']} steps), expected "
                      f"{len(exp['losses'])} ({exp['steps']} steps)")
    for step, (g, e) in enumerate(zip(losses, wanted)):
        if not close(g, e, rel=rel, abs_tol=1e-9):
            raise Failure(f"the loss before step {step} was {show(g)}, but gradient descent with a correct engine "
                          f"from the same weights gives {show(e)}")


@pytest.mark.points(5)
@pytest.mark.task("3.1-3.4")
def test_xor_converges(student, reference, check):
    """Your MLP(2, [4, 4, 1]) learns XOR (margin 0.5) in at most 300 SGD steps, for at least 4 of 5 seeds"""
    ok = 0
    for done, seed in enumerate(XOR_SEEDS):
        if ok >= 4 or done - ok >= 2:
            break
        spec = model_spec("MLP", 2, [4, 4, 1], seed=seed)
        with check.case(f"XOR with random.seed({seed}) before MLP(2, [4, 4, 1]), MSE, lr {LR}", method="MLP",
                        hint="check the pinned-weights tests first; then make sure each step calls zero_grad() "
                             "before backward()"):
            got = student("nn_train", spec, XOR_X, XOR_Y, LR, MAX_STEPS, MARGIN)
            xor_verdict(got, reference)
            ok += 1
    if ok < 4:
        raise Failure(f"XOR was learned for {ok} seed(s); at least 4 of 5 are needed")


def xor_verdict(got, reference):
    """Accept a seed if training converged or failed exactly like a correct engine from a proper start.

    Convergence is decided from the final weights the student reported, with
    ``math``; the first steps of the loss curve must be the ones a correct
    engine takes from the reported initial weights, so neither end can be
    made up.
    """
    initial, final = got["initial"], got["final"]
    if len(initial) != 37 or not all(isinstance(w, float) and abs(w) <= 1e3 for w in initial + final):
        raise Failure("MLP(2, [4, 4, 1]).parameters() did not give 37 finite numbers before and after training "
                      "(initial weights belong in [-1, 1])")
    replay = reference("nn_train", pinned_to(model_spec("MLP", 2, [4, 4, 1]), initial), XOR_X, XOR_Y, LR, MAX_STEPS,
                       MARGIN)
    compare_losses(got, replay, rel=1e-6, steps=CHECKED_STEPS + 1)
    spec = model_spec("MLP", 2, [4, 4, 1])
    preds = [forward_from_math(spec, final, x)["value"] for x in XOR_X]
    if not all(close(p, e, rel=1e-6, abs_tol=1e-9) for p, e in zip(got["preds"], preds)):
        raise Failure(f"the final predictions {[show(p) for p in got['preds']]} are not what the final weights "
                      f"give: {[show(p) for p in preds]}")
    if all(p * y > MARGIN for p, y in zip(preds, XOR_Y)):
        return
    check_initial(weight_values(initial, 2, [4, 4, 1]))
    if all(p * y > MARGIN for p, y in zip(replay["preds"], XOR_Y)):
        raise Failure(f"after {got['steps']} steps the predictions were {[show(p) for p in preds]}; "
                      f"a correct engine from the same initial weights reaches margin {MARGIN} "
                      f"in {replay['steps']} steps")
