"""Hidden tests of assignment 9 (modules): each method on seeded inputs against the reference solution, and the
whole network trained on XOR.

Fault isolation (see ``assignments/modules/probes.py``): every probe computes with
the grader's own ``Value``; ``Linear.forward`` runs on weights the grader set,
``Sequential`` on the grader's stand-in modules, ``train`` on a stand-in model,
optimiser and loss. One test is about every method at once:
``test_network_trains_xor`` (the student's ``Sequential`` of their ``Linear`` and
``Tanh``, trained by their ``train``, ``SGD`` and ``mse_loss``).
"""

import math
import random

import pytest

from assignments.modules.alone import WHOLE, named_alone
from assignments.modules.checks import (
    EVERY_METHOD, compare_weights, float_losses, linear_weights, outputs_of, train_hint,
)
from assignments.shared.checks.outputs import compare_numbers, values
from assignments.modules.probes import network_size
from grader.testing import Failure, show


def grads_of(got, key, what):
    if got[key] is None:
        raise Failure(f"{what} did not return Values built from its inputs, so backward() cannot reach them")
    return got[key]


@pytest.mark.points(3)
@pytest.mark.task("9.2")
def test_linear_on_random_inputs(student, reference, check):
    """Linear(nin, nout) on seeded weights and inputs: outputs, and the gradients of every weight and input"""
    rng = random.Random("linear")
    for nin, nout in ((1, 1), (3, 4), (5, 2)):
        w = linear_weights(nin, nout, rng)
        xs = [[round(rng.uniform(-2, 2), 3) for _ in range(nin)] for _ in range(2)]
        c = [round(rng.uniform(-1, 1), 3) for _ in range(nout)]
        with check.case(f"Linear({nin}, {nout}) with pinned weights on x = {xs[0]}", method="Linear.forward",
                        hint="output i is bias[i] + sum_j weight[i][j] * x[j] (row i of weight holds output i's "
                             "weights), built with Value operations"):
            got = student("modules_linear", nin, nout, w, xs, c)
            exp = reference("modules_linear", nin, nout, w, xs, c)
            for k, x in enumerate(xs):
                compare_numbers(outputs_of(got["outputs"][k], f"Linear({nin}, {nout})({x})", nout),
                                exp["outputs"][k]["list"], f"Linear({nin}, {nout})({x})")
            compare_weights(grads_of(got, "grads", f"Linear({nin}, {nout})"), exp["grads"], nin, nout,
                            f"after backward() from sum_k c_k * y_k with c = {c}, the gradient", rel=1e-6)
            compare_numbers(grads_of(got, "input_grads", f"Linear({nin}, {nout})"), exp["input_grads"],
                            "after backward(), the gradient of x", rel=1e-6)


@pytest.mark.points(1)
@pytest.mark.task("9.2")
def test_linear_init_scale(student, check):
    """Linear(9, 5): 45 weights and 5 biases, spread over [-1/3, 1/3] (k = 1 / sqrt(nin)), drawn in the documented
    order, different per seed"""
    seen = []
    for seed in (11, 12):
        with check.case(f"Linear(9, 5) after random.seed({seed})", method="Linear.__init__",
                        hint="draw every weight and bias with random.uniform(-k, k), k = 1 / math.sqrt(nin), weight "
                             "row by row first, then bias"):
            got = student("modules_linear_init", 9, 5, seed)
            if got["rows"] != [9] * 5 or got["bias"] != 5:
                raise Failure(f"Linear(9, 5) made rows of lengths {got['rows']} and {got['bias']} biases, expected "
                              "5 rows of 9 and 5 biases")
            data = got["data"]
            bad = [d for d in data if not (isinstance(d, float) and math.isfinite(d))]
            if bad:
                raise Failure(f"{len(bad)} of the {len(data)} weights and biases were not numbers (the first: "
                              f"{show(bad[0])}): expected each a Value holding a float")
            if max(map(abs, data)) > 1 / 3 + 1e-12:
                raise Failure(f"an initial weight was outside [-1/3, 1/3]: largest magnitude {max(map(abs, data))!r}")
            if max(map(abs, data)) < 0.2:
                raise Failure(f"the initial weights all lie within {max(map(abs, data)):.3g} of 0, expected them "
                              "spread over [-1/3, 1/3]")
            rng = random.Random(seed)  # the documented order: weight row by row, then bias
            compare_weights(data, [rng.uniform(-1 / 3, 1 / 3) for _ in range(50)], 9, 5,
                            f"drawn in the documented order (weight row by row, then bias) after random.seed({seed}), "
                            "the initial value")
            seen.append(data)
    if len(seen) == 2 and seen[0] == seen[1]:
        with check.case("Linear(9, 5) after two different seeds", method="Linear.__init__",
                        hint="draw from the random module, so that the seed decides the weights"):
            raise Failure("two different seeds gave the same weights")


@pytest.mark.points(1)
@pytest.mark.task("9.2")
def test_linear_parameters_order(student, check):
    """Linear(4, 3).parameters(): the 15 live Values, weight row by row, then bias"""
    rng = random.Random("parameters")
    with check.case("Linear(4, 3).parameters()", method="Linear.parameters",
                    hint="[w for row in self.weight for w in row] + self.bias"):
        got = student("modules_linear_parameters", 4, 3, linear_weights(4, 3, rng))
        if got["identity"] != list(range(15)):
            raise Failure(f"parameters() gave the layer's weights in the order {got['identity']} (-1: not one of its "
                          "weights), expected 0 to 14: weight row by row, then bias")
        if not got["stable"]:
            raise Failure("two calls of parameters() returned different objects")


@pytest.mark.points(2)
@pytest.mark.task("9.3")
def test_activation_gradients(student, reference, check):
    """Tanh and ReLU on seeded inputs of both signs: values and gradients"""
    rng = random.Random("activations")
    for name in ("Tanh", "ReLU"):
        x = [round(rng.uniform(-3, 3), 3) for _ in range(6)]
        c = [round(rng.uniform(-1, 1), 3) for _ in range(6)]
        with check.case(f"{name}()(x) on x = {x}", method=f"{name}.forward",
                        hint=f"apply Value.{name.lower()}() to each item and return the list"):
            got, exp = student("modules_activation", name, x, c), reference("modules_activation", name, x, c)
            compare_numbers(outputs_of(got["output"], f"{name}()(x)", 6), exp["output"]["list"], f"{name}()(x)")
            compare_numbers(grads_of(got, "grads", f"{name}()"), exp["grads"],
                            f"after backward() from sum_k c_k * y_k with c = {c}, the gradient of x", rel=1e-6)


@pytest.mark.points(2)
@pytest.mark.task("9.4")
def test_sequential_on_random_modules(student, reference, check):
    """Sequential of the grader's stand-in modules, seeded: output, order of calls, parameters and gradients"""
    rng = random.Random("sequential")
    for length in (1, 4, 6):
        specs = [["reverse"] if rng.random() < 0.25 else [rng.choice(("scale", "shift")), round(rng.uniform(-2, 2), 3)]
                 for _ in range(length)]
        x = [round(rng.uniform(-2, 2), 3) for _ in range(3)]
        c = [round(rng.uniform(-1, 1), 3) for _ in range(3)]
        with check.case(f"Sequential of {specs} on x = {x}", method="Sequential.forward",
                        hint="x = module(x) for each module in order; return the last module's output"):
            got, exp = student("modules_sequential", specs, x, c), reference("modules_sequential", specs, x, c)
            compare_numbers(outputs_of(got["output"], "Sequential(...)(x)", 3), exp["output"]["list"],
                            "Sequential(...)(x)")
            compare_numbers(grads_of(got, "grads", "Sequential(...)"), exp["grads"],
                            "after backward(), the gradient of the modules' parameter", label=" {k}", rel=1e-6)
        with check.case(f"Sequential of {specs}.parameters()", method="Sequential.parameters",
                        hint="every module's parameters, module by module"):
            got = student("modules_sequential", specs, x, None, "parameters")
            exp = reference("modules_sequential", specs, x, None, "parameters")
            if got["identity"] != exp["identity"]:
                raise Failure(f"parameters() gave the modules' parameters in the order {got['identity']}, expected "
                              f"{exp['identity']}")


@pytest.mark.points(1)
@pytest.mark.task("9.5")
def test_sgd_on_random_steps(student, reference, check):
    """SGD.step on seeded data, gradients and learning rate, three steps"""
    rng = random.Random("sgd")
    data = [round(rng.uniform(-2, 2), 3) for _ in range(5)]
    grads = [[round(rng.uniform(-2, 2), 3) for _ in range(5)] for _ in range(3)]
    lr = 0.05
    with check.case(f"SGD(params, lr={lr}): three steps", method="SGD.step",
                    hint="p.data -= self.lr * p.grad for every p in self.params"):
        got, exp = student("modules_sgd", data, grads, lr), reference("modules_sgd", data, grads, lr)
        for k in range(3):
            compare_numbers(got["steps"][k], exp["steps"][k], f"after step {k + 1}, parameter", " {k}'s data")


@pytest.mark.points(1)
@pytest.mark.task("9.6")
def test_mse_on_random_inputs(student, reference, check):
    """mse_loss on seeded predictions and targets: value and gradients"""
    rng = random.Random("mse")
    for n in (1, 5):
        preds = [round(rng.uniform(-2, 2), 3) for _ in range(n)]
        targets = [round(rng.uniform(-2, 2), 3) for _ in range(n)]
        with check.case(f"mse_loss({preds}, {targets})", method="mse_loss",
                        hint="the mean over the pairs of (p - t) ** 2, as a Value"):
            got, exp = student("modules_mse", preds, targets), reference("modules_mse", preds, targets)
            compare_numbers(values(got["loss"], "mse_loss", single=True), [exp["loss"]["value"]], "mse_loss(...)",
                            label="")
            compare_numbers(grads_of(got, "grads", "mse_loss"), exp["grads"],
                            "after backward(), the gradient of prediction", rel=1e-6)


@pytest.mark.points(2)
@pytest.mark.task("9.6")
def test_train_steps(student, reference, check):
    """train follows the loop step by step on the grader's stand-in model, optimiser and loss"""
    rng = random.Random("train")
    xs = [[round(rng.uniform(-1, 1), 3) for _ in range(2)] for _ in range(5)]
    ys = [round(rng.uniform(-1, 1), 3) for _ in range(5)]
    for steps, lr in ((1, 0.2), (5, 0.05)):
        weights = [round(rng.uniform(-1, 1), 3) for _ in range(3)]
        with check.case(f"train(model, 5 points, optimizer, steps={steps}) on the grader's stand-ins",
                        method="train", hint="each step: preds, loss = mse_loss(preds, ys), optimizer.zero_grad(), "
                                             "loss.backward(), optimizer.step(); return each loss.data"):
            got = student("modules_train", weights, xs, ys, lr, steps)
            exp = reference("modules_train", weights, xs, ys, lr, steps)
            try:
                compare_numbers(float_losses(got, "train(...)", steps), exp["losses"]["list"],
                                "train(...): the loss of step", " {k}")
                compare_numbers(got["final"], exp["final"], "after training, weight", " {k}")
            except Failure as failure:
                raise Failure(failure.message, "train", train_hint(got, steps, len(xs))) from None


XOR = {"layers": [["Linear", 2, 4], ["Tanh"], ["Linear", 4, 1]], "lr": 0.2, "steps": 30}
"""The whole network: Sequential(Linear(2, 4), Tanh(), Linear(4, 1)) on XOR, full batch, from seeded weights."""


@pytest.mark.points(2)
@pytest.mark.task("9.1-9.6")
@pytest.mark.methods(*EVERY_METHOD)
def test_network_trains_xor(student, reference, check):
    """Sequential(Linear(2, 4), Tanh(), Linear(4, 1)) trained on XOR by train and SGD: the reference's losses and weights"""
    rng = random.Random("xor")
    layers, lr, steps = XOR["layers"], XOR["lr"], XOR["steps"]
    weights = [round(rng.uniform(-1, 1), 4) for _ in range(network_size(layers))]
    xs, ys = [[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]], [0.0, 1.0, 1.0, 0.0]
    with check.case(f"Sequential(Linear(2, 4), Tanh(), Linear(4, 1)) trained {steps} steps at lr={lr} on XOR",
                    method=WHOLE, hint="the tests of single methods say which one is wrong"):
        try:
            got = student("modules_learn", layers, weights, xs, ys, lr, steps)
            exp = reference("modules_learn", layers, weights, xs, ys, lr, steps)
            compare_numbers(float_losses(got, "train(...)", steps), exp["losses"]["list"], "the loss of step", " {k}",
                            rel=1e-6)
            compare_numbers(got["final"], exp["final"], "after training, parameter", " {k}", rel=1e-6)
        except Failure as failure:  # named by the part that is wrong measured alone, not where it surfaced
            raise named_alone(failure, student, reference) from None
