"""Hidden tests of assignment 6 (classifier): softmax, cross-entropy, a network with an activation per layer,
the training loop and accuracy, compared with the reference solution.

Fault isolation (see ``assignments/classifier/probes.py``): every probe computes
with the grader's own ``Value``, so an engine bug costs no points here. The grader
makes the logits ``softmax`` and ``cross_entropy`` consume and reads their
gradients after its own ``backward()``; a network method runs on the grader's
parts; a constructor runs with recorders in place of the parts it makes; ``train``
runs on the grader's network with a stand-in loss in place of ``cross_entropy``.
Two tests are about several methods at once: ``test_configurable_network`` (the
student's whole network, with pinned weights) and ``test_training_learns_the_spiral``
(the student's network, ``train`` and ``cross_entropy`` together).
"""

import math
import random
from collections.abc import Sequence
from typing import Any

import pytest

from assignments.classifier.checks import (
    NETWORK, activations, count_of, layer_shapes, model_call, model_spec, parts, train_hint,
)
from assignments.shared.checks.outputs import compare_numbers, show_list, values
from assignments.shared.checks.architectures import ACTIVATIONS, layer_outputs
from assignments.shared.probes.engine_probes import FORWARD
from grader.sandbox import own_parts
from grader.testing import Failure, GraderFault, StudentFault, close, show

SOFTMAX_HINT = ("subtract m = max(l.data for l in logits) from every logit, exp() each, and divide each by their sum, "
                "all with Value operations")
CE_HINT = ("with m = max(l.data for l in logits): lse = m + log(sum_j exp(l_j - m)) built from Value operations; "
           "the loss is lse minus the target's logit")
LEARN = {"points": 6, "data_seed": 0, "sizes": [6, 3], "steps": 100, "lr": 2.0, "weight_seed": 89, "needed": 12}
"""The training target: MLP(2, [6, 3]) from the grader's weights (``random.Random(weight_seed)``, uniform in [-1, 1],
in the documented order) on the 15 points of make_spiral(6, 3, seed=0) off the centre (where the three arms meet,
one point has three labels), ``steps`` steps at ``lr``: at least ``needed`` of 15 points right, by the judge's own
arithmetic on the final weights. The seed was chosen for a plateau (a correct loop has 14 or more right at every
step from 70 to 200); ``python bench/classifier_false_fail.py`` measures the margin: correct solutions get 15, also
from weights moved by 1e-9, and a catalogued bug that trains 11 or fewer (the training loop's bugs 8 or fewer). One run costs about 0.2 s of CPU (15 points, 100 steps on the grader's
Value)."""
LEARN_CORRECT = 15
"""Points a correct solution classifies right at the end of the training target (bench/classifier_false_fail.py)."""


def logit_vectors(name, n, low=-4.0, high=4.0):
    rng = random.Random(name)
    return [[round(rng.uniform(low, high), 3) for _ in range(rng.randint(2, 5))] for _ in range(n)]


def weights(rng, n):
    return [round(rng.uniform(-1, 1), 4) for _ in range(n)]


def float_softmax(logits):
    m = max(logits)
    e = [math.exp(x - m) for x in logits]
    return [v / sum(e) for v in e]


# --- softmax ------------------------------------------------------------------------------------------------------

def check_probs(got, exp, logits):
    what = f"softmax({logits})"
    compare_numbers(values(got["probs"], what, len(logits)), values(exp["probs"], what, len(logits)), what,
                    rel=1e-7, abs_tol=1e-12)


def check_grads(got, exp, what, fn):
    if got["grads"] is None:
        raise Failure(f"{what} did not return Value objects built from the logits, so backward() cannot reach the "
                      "logits: build the result with Value operations (exp(), +, /), not with math on .data")
    compare_numbers(got["grads"], exp["grads"], f"after backward() from {fn}, logit", " {k}'s grad", 1e-6, 1e-9)


@pytest.mark.points(2)
@pytest.mark.task("6.1")
def test_softmax_values(student, reference, check):
    """softmax on random logit vectors: positive probabilities that sum to 1, as the reference's"""
    for logits in logit_vectors("softmax values", 5):
        with check.case(f"softmax({logits})", method="softmax", hint=SOFTMAX_HINT):
            check_probs(student("classifier_softmax", logits, None), reference("classifier_softmax", logits, None),
                        logits)


@pytest.mark.points(3)
@pytest.mark.task("6.1")
def test_softmax_gradients(student, reference, check):
    """softmax's gradient: backward() from sum_k c_k * p_k reaches every logit"""
    rng = random.Random("softmax grads")
    for logits in logit_vectors("softmax gradients", 4):
        c = [round(rng.uniform(-2, 2), 2) for _ in logits]
        with check.case(f"backward() from sum_k c_k * softmax({logits})[k] with c = {c}", method="softmax",
                        hint=SOFTMAX_HINT + "; the shift m is a plain float, so no gradient flows through it"):
            got, exp = student("classifier_softmax", logits, c), reference("classifier_softmax", logits, c)
            check_probs(got, exp, logits)
            check_grads(got, exp, f"softmax({logits})", "sum_k c_k * p_k")


@pytest.mark.points(2)
@pytest.mark.task("6.1")
def test_softmax_large_logits(student, reference, check):
    """softmax is stable: no overflow for logits near 1000, no 0/0 for logits near -1000"""
    for logits in ([1000.0, 0.0, -1000.0], [-1000.0, -1000.0], [710.0, 709.5, 0.0], [-745.0, -750.0, -760.0]):
        with check.case(f"softmax({logits})", method="softmax",
                        hint="exp(1000) overflows and exp(-1000) is 0.0: subtract the largest logit first, so every "
                             "exponent is <= 0 and the largest term is exactly 1"):
            c = [1.0] + [0.0] * (len(logits) - 1)
            got, exp = student("classifier_softmax", logits, c), reference("classifier_softmax", logits, c)
            check_probs(got, exp, logits)
            check_grads(got, exp, f"softmax({logits})", "softmax(logits)[0]")


# --- cross_entropy ------------------------------------------------------------------------------------------------

def check_loss(got, exp, logits, target):
    what = f"cross_entropy({logits}, target={target})"
    loss = values(got["loss"], what, single=True)[0]
    want = values(exp["loss"], what, single=True)[0]
    if not close(loss, want, 1e-7, 1e-10):
        raise Failure(f"{what} was {show(loss)}, expected {show(want)} = -log softmax(logits)[{target}]")


@pytest.mark.points(2)
@pytest.mark.task("6.2")
def test_cross_entropy_values(student, reference, check):
    """cross_entropy on random logits and targets: -log of the target's softmax probability"""
    rng = random.Random("ce targets")
    for logits in logit_vectors("cross entropy values", 5):
        target = rng.randrange(len(logits))
        with check.case(f"cross_entropy({logits}, target={target})", method="cross_entropy", hint=CE_HINT):
            check_loss(student("classifier_cross_entropy", logits, target),
                       reference("classifier_cross_entropy", logits, target), logits, target)


@pytest.mark.points(3)
@pytest.mark.task("6.2")
def test_cross_entropy_gradients(student, reference, check):
    """cross_entropy's gradient with respect to the logits is softmax(logits) - onehot(target)"""
    rng = random.Random("ce grad targets")
    for logits in logit_vectors("cross entropy gradients", 4):
        target = rng.randrange(len(logits))
        with check.case(f"backward() from cross_entropy({logits}, target={target})", method="cross_entropy",
                        hint=CE_HINT + "; the gradient is then softmax(logits) - onehot(target)"):
            got = student("classifier_cross_entropy", logits, target)
            exp = reference("classifier_cross_entropy", logits, target)
            if got["grads"] is None:
                check_grads(got, exp, f"cross_entropy({logits}, {target})", "the loss")
            want = [p - (k == target) for k, p in enumerate(float_softmax(logits))]
            for k, (g, w) in enumerate(zip(got["grads"], exp["grads"])):
                if not close(g, w, 1e-6, 1e-9):
                    raise Failure(f"after backward() from the loss, logit {k}'s grad was {show(g)}, expected "
                                  f"softmax(logits)[{k}] - {int(k == target)} = {show(want[k])}")


@pytest.mark.points(2)
@pytest.mark.task("6.2")
def test_cross_entropy_large_logits(student, reference, check):
    """cross_entropy is stable: exact for logits of +-1000, where a probability rounds to 0"""
    for logits, target in (([1000.0, 0.0, -1000.0], 1), ([1000.0, 0.0, -1000.0], 0), ([-1000.0, -1000.0], 0),
                           ([0.0, 800.0], 0), ([-3.0, 705.0, 700.0], 2)):
        with check.case(f"cross_entropy({logits}, target={target})", method="cross_entropy",
                        hint="never form the probability (it rounds to 0.0 and log(0) fails) and never exp() a large "
                             "logit: lse = m + log(sum_j exp(l_j - m)) with the largest logit m"):
            got = student("classifier_cross_entropy", logits, target)
            exp = reference("classifier_cross_entropy", logits, target)
            check_loss(got, exp, logits, target)
            check_grads(got, exp, f"cross_entropy({logits}, {target})", "the loss")


# --- the network --------------------------------------------------------------------------------------------------

def check_outputs(got, exp, spec, inputs, grads=True):
    for x, out, want in zip(inputs, got["outputs"], exp["outputs"], strict=True):
        what = f"{model_call(spec)} on x = {x}"
        if "value" in want:
            compare_numbers(values(out, what, single=True), [want["value"]], what, label=" (output {k})")
        else:
            compare_numbers(values(out, what, len(want["list"])), want["list"], what, label=" output {k}")
    if grads:
        if got["grads"] is None:
            raise Failure(f"{model_call(spec)} did not return Values built from its weights: backward() cannot reach "
                          "them (use Value operations, not math on .data)")
        compare_numbers(got["grads"], exp["grads"], f"after backward() from the outputs on x = {inputs[0]}, weight",
                        " {k}'s grad", 1e-6, 1e-9)


ACTIVATION_HINT = {
    "tanh": "act = sum(w_i * x_i) + b, then act.tanh()",
    "relu": "act = sum(w_i * x_i) + b, then act.relu()",
    "sigmoid": "act = sum(w_i * x_i) + b, then act.sigmoid()",
    "linear": "act = sum(w_i * x_i) + b, returned as it is: \"linear\" applies no activation",
}


@pytest.mark.points(3)
@pytest.mark.task("6.3")
def test_neuron_forward(student, reference, check):
    """Neuron.__call__ for each activation: values and the gradients of w and b"""
    rng = random.Random("neuron forward")
    for act in ("tanh", "relu", "sigmoid", "linear"):
        spec = parts("Neuron", 3, act, weights=weights(rng, 4))
        inputs = [[round(rng.uniform(-2, 2), 3) for _ in range(3)] for _ in range(3)]
        with check.case(f"Neuron(3, {act!r}) with w, b = {spec['weights']}", method="Neuron.__call__",
                        hint=ACTIVATION_HINT[act]):
            check_outputs(student("classifier_forward", spec, inputs), reference("classifier_forward", spec, inputs),
                          spec, inputs)


def check_neuron_made(got, spec):
    nin, act = spec["args"]
    (made_nin, _, made_act), = got["parts"] or [(-1, 1, "")]
    if made_nin != nin:
        raise Failure(f"{model_call(spec)} made {made_nin} weights in self.w, expected {nin}")
    if made_act != act:
        raise Failure(f"{model_call(spec)}.activation is {made_act!r}, expected {act!r}")
    data = got["data"]
    if not got["all_values"] or got["distinct"] != nin + 1:
        raise Failure(f"{model_call(spec)}: self.w and self.b must be {nin + 1} distinct Value objects")
    if not all(isinstance(w, float) and -1.0 <= w <= 1.0 for w in data) or len(set(data)) < nin + 1:
        raise Failure(f"{model_call(spec)} made weights {show_list(data)}, expected distinct draws of "
                      "random.uniform(-1, 1)")


@pytest.mark.points(2)
@pytest.mark.task("6.3")
def test_neuron_init(student, check):
    """Neuron(nin, activation) keeps nin weights, a bias and its activation; refuses unknown activations"""
    for spec in (model_spec("Neuron", 5, "relu", seed=3), model_spec("Neuron", 4, "sigmoid", seed=4),
                 model_spec("Neuron", 3, "linear", seed=5)):
        hint = ("self.w = [Value(random.uniform(-1, 1)) for _ in range(nin)], self.b likewise, "
                "self.activation = activation")
        if spec["args"][1] == "linear":
            hint = "accept every activation the handout names: \"tanh\", \"relu\", \"sigmoid\" and \"linear\" (none); " + hint
        with check.case(f"{model_call(spec)} freshly built", method="Neuron.__init__", hint=hint):
            check_neuron_made(student("classifier_structure", spec), spec)
    spec = model_spec("Neuron", 2, "gelu")
    with check.case("Neuron(2, 'gelu') raises ValueError", method="Neuron.__init__",
                    hint="check the name against \"tanh\", \"relu\", \"sigmoid\", \"linear\" and raise ValueError"):
        check_raises(student("classifier_raises", spec), spec)


def check_raises(got, spec):
    if got["raised"] != "ValueError":
        what = "returned normally" if got["raised"] is None else f"raised {got['raised']}: {got['message']}"
        raise Failure(f"{model_call(spec)} {what}, expected a ValueError that names the problem")


def check_made(got, spec, inner):
    if spec["kind"] == "Layer":
        nin, nout, act = spec["args"]
        want = [(nin, 1, act)] * nout
    else:
        want = layer_shapes(spec)
    made = got["parts"]
    where = "neurons" if spec["kind"] == "Layer" else "layers"
    if any(nin == -1 and nout == -1 for nin, nout, _ in made):
        raise Failure(f"{model_call(spec)}.{where} holds {made[0][2]} objects, expected the {inner}s its __init__ "
                      f"made with {inner}(...)")
    if len(made) != len(want):
        raise Failure(f"{model_call(spec)} made {len(made)} {where}, expected {len(want)}")
    for k, (m, w) in enumerate(zip(made, want)):
        if m != w:
            as_made = f"Neuron({m[0]}, {m[2]!r})" if inner == "Neuron" else f"Layer({m[0]}, {m[1]}, {m[2]!r})"
            as_want = f"Neuron({w[0]}, {w[2]!r})" if inner == "Neuron" else f"Layer({w[0]}, {w[1]}, {w[2]!r})"
            raise Failure(f"{model_call(spec)}: {where}[{k}] was made as {as_made}, expected {as_want}")


@pytest.mark.points(2)
@pytest.mark.task("6.3")
def test_layer(student, reference, check):
    """Layer(nin, nout, activation) makes nout neurons with that activation; its call always returns a list"""
    for spec in (model_spec("Layer", 3, 4, "relu"), model_spec("Layer", 2, 1, "sigmoid")):
        with check.case(f"{model_call(spec)} freshly built", method="Layer.__init__",
                        hint="nout neurons in self.neurons, each made with Neuron(nin, activation)"):
            check_made(student("classifier_structure", spec), spec, "Neuron")
    rng = random.Random("layer call")
    for spec in (parts("Layer", 3, 4, "tanh", weights=weights(rng, 16)),
                 parts("Layer", 3, 1, "linear", weights=weights(rng, 4))):
        inputs = [[round(rng.uniform(-2, 2), 3) for _ in range(3)] for _ in range(2)]
        with check.case(f"{model_call(spec)} with neurons made by the grader", method="Layer.__call__",
                        hint="one output per neuron, in a list, even for a layer of one neuron"):
            check_outputs(student("classifier_forward", spec, inputs), reference("classifier_forward", spec, inputs),
                          spec, inputs, grads=False)


@pytest.mark.points(3)
@pytest.mark.task("6.3")
def test_mlp_init(student, check):
    """MLP(nin, layer_sizes, activations): one layer per size with its activation; default tanh, then linear"""
    for spec in (model_spec("MLP", 2, [8, 8, 1], ["relu", "sigmoid", "linear"]),
                 model_spec("MLP", 3, [5, 2], ["linear", "tanh"]), model_spec("MLP", 3, [4, 4, 3])):
        with check.case(f"{model_call(spec)} freshly built", method="MLP.__init__",
                        hint="sizes = [nin] + layer_sizes; layer i is Layer(sizes[i], sizes[i + 1], activations[i]); "
                             "activations=None means tanh for every layer but the last, which is linear"):
            got = student("classifier_structure", spec)
            check_made(got, spec, "Layer")
            if got["activations"] != activations(spec):
                raise Failure(f"{model_call(spec)}.activations is {got['activations']}, expected {activations(spec)}")
    for args in (([4, 3], ["tanh"]), ([4, 3], ["tanh", "tanh", "linear"]), ([4, 3], ["tanh", "softmax"])):
        spec = model_spec("MLP", 2, *args)
        with check.case(f"{model_call(spec)} raises ValueError", method="MLP.__init__",
                        hint="raise ValueError when len(activations) != len(layer_sizes) or a name is not one of "
                             "\"tanh\", \"relu\", \"sigmoid\", \"linear\""):
            check_raises(student("classifier_raises", spec), spec)


@pytest.mark.points(1)
@pytest.mark.task("6.3")
def test_mlp_forward(student, reference, check):
    """MLP.__call__ feeds each layer's outputs to the next and returns the logits"""
    rng = random.Random("mlp forward")
    for args in ((2, [4, 4, 3], ["tanh", "tanh", "linear"]), (3, [5, 2], ["linear", "tanh"])):
        spec = parts("MLP", *args, weights=weights(rng, count_of(model_spec("MLP", *args))))
        inputs = [[round(rng.uniform(-2, 2), 3) for _ in range(args[0])] for _ in range(2)]
        with check.case(f"{model_call(spec)} with layers made by the grader", method="MLP.__call__",
                        hint="for layer in self.layers: x = layer(x); return x (the last layer's list)"):
            check_outputs(student("classifier_forward", spec, inputs), reference("classifier_forward", spec, inputs),
                          spec, inputs)


def check_parameters(got, spec, x):
    n = count_of(spec)
    if got["count"] != n:
        raise Failure(f"{model_call(spec)}.parameters() returned {got['count']} values, expected {n}")
    for k, i in enumerate(got["identity"]):
        if i != k:
            what = "a Value that is not one of the model's weights (a copy?)" if i == -1 else f"weight {i}"
            raise Failure(f"{model_call(spec)}.parameters()[{k}] is {what}, expected weight {k} of the documented "
                          "order: layer by layer, neuron by neuron, each neuron's weights then its bias")
    if not got["stable"]:
        raise Failure(f"{model_call(spec)}.parameters() returned other objects the second time it was called")


@pytest.mark.points(2)
@pytest.mark.task("6.3")
def test_parameters(student, check):
    """parameters() returns the model's own weights and biases, in order"""
    rng = random.Random("parameters")
    for args in (("Neuron", 4, "tanh"), ("Layer", 3, 4, "linear"), ("MLP", 2, [4, 4, 3], None)):
        spec = parts(*args, weights=weights(rng, count_of(model_spec(*args))))
        x = [round(rng.uniform(-1, 1), 3) for _ in range(args[1])]
        with check.case(f"{model_call(spec)}.parameters()", method=f"{args[0]}.parameters",
                        hint="a neuron's parameters are self.w + [self.b]; a layer's, its neurons' in order; an MLP's, "
                             "its layers' in order"):
            check_parameters(student("classifier_parameters", spec, x), spec, x)


@pytest.mark.points(2)
@pytest.mark.task("6.3")
@pytest.mark.methods(*NETWORK)
def test_configurable_network(student, reference, check):
    """Whole networks with an activation per layer (MLP(2, [8, 8, 1]) and others): parameter count, forward values and gradients"""
    rng = random.Random("configurable")
    for args in ((2, [8, 8, 1], ["relu", "sigmoid", "linear"]), (2, [6, 6, 3], ["tanh", "relu", "linear"]),
                 (3, [5, 2], ["sigmoid", "tanh"]), (2, [4, 3], None)):
        spec = model_spec("MLP", *args, weights=weights(rng, count_of(model_spec("MLP", *args))))
        inputs = [[round(rng.uniform(-2, 2), 3) for _ in range(args[0])] for _ in range(3)]
        with check.case(f"{model_call(spec)} with pinned weights", method="MLP",
                        hint="each layer applies its own activation; the network tests of single methods say which "
                             "one is wrong"):
            try:
                got = student("classifier_parameters", {**spec, "weights": None}, inputs[0])
                if got["count"] != count_of(spec):
                    raise Failure(f"{model_call(spec)}.parameters() returned {got['count']} values, expected "
                                  f"{count_of(spec)}")
                got = student("classifier_forward", spec, inputs)
            except StudentFault as fault:
                if fault.kind != "raised" or fault.error.get("type") == "NotImplementedError":
                    raise
                raise Failure(fault.message, "MLP", "each layer's call returns a list that the next layer takes as "
                              "its x; the tests of single methods say which one is wrong") from None
            check_outputs(got, reference("classifier_forward", spec, inputs), spec, inputs)


# --- training and accuracy ----------------------------------------------------------------------------------------

TRAIN_X = [[0.12, 0.85], [-0.4, 0.33], [0.71, -0.52], [-0.9, -0.1], [0.05, -0.77], [0.6, 0.6]]
TRAIN_Y = [0, 1, 2, 1, 2, 0]


@pytest.mark.points(3)
@pytest.mark.task("6.4")
def test_train_steps(student, reference, check):
    """train follows gradient descent step by step (on the grader's network, with a stand-in loss)"""
    rng = random.Random("train steps")
    for steps, lr in ((1, 0.5), (5, 0.3)):
        spec = parts("MLP", 2, [4, 3], None, weights=weights(rng, 27))
        with check.case(f"train(MLP(2, [4, 3]), 6 points, steps={steps}, lr={lr}) from pinned weights",
                        method="train", hint="each step: loss = mean of the points' losses, zero_grad(params), "
                                             "loss.backward(), sgd_step(params, lr); return the losses as floats"):
            got = student("classifier_train", spec, TRAIN_X, TRAIN_Y, steps, lr)
            exp = reference("classifier_train", spec, TRAIN_X, TRAIN_Y, steps, lr)
            what = f"train(..., steps={steps}, lr={lr})"
            try:
                losses = values(got["losses"], what, steps)
                if not all(isinstance(v, float) for v in losses):
                    raise Failure(f"{what} returned {show_list(losses)}: the losses must be floats (loss.data)")
                compare_numbers(losses, exp["losses"]["list"], f"{what}: the loss before step", label=" {k}",
                                rel=1e-7)
                compare_numbers(got["final"], exp["final"], f"after {what}, weight", label=" {k}", rel=1e-7)
            except Failure as failure:
                raise Failure(failure.message, "train",
                              train_hint(got, exp["losses"]["list"], steps, lr, len(TRAIN_X))) from None


def float_accuracy(logits, ys):
    return sum(max(range(len(ls)), key=ls.__getitem__) == y for ls, y in zip(logits, ys)) / len(ys)


@pytest.mark.points(1)
@pytest.mark.task("6.5")
def test_accuracy(student, check):
    """accuracy is the fraction of points whose largest logit is their class (ties: the first)"""
    rng = random.Random("accuracy")
    w = weights(rng, 9)
    spec = parts("MLP", 2, [3], ["linear"], weights=w)
    xs = [[round(rng.uniform(-1, 1), 3) for _ in range(2)] for _ in range(10)]
    preds = [max(range(3), key=layer_outputs([(2, 3, "linear")], w, x).__getitem__) for x in xs]
    for name, ys in (("every label the predicted class", preds), ("no label the predicted class",
                                                                  [(p + 1) % 3 for p in preds]),
                     ("some labels right", [p if k % 3 else (p + 2) % 3 for k, p in enumerate(preds)])):
        with check.case(f"accuracy on 10 points, {name}", method="accuracy",
                        hint="count the points whose largest logit (by .data) is at index y, divide by len(xs)"):
            expected = sum(p == y for p, y in zip(preds, ys)) / len(ys)
            got = values(student("classifier_accuracy", spec, xs, ys)["accuracy"], "accuracy(model, xs, ys)",
                         single=True)[0]
            if not close(got, expected, 1e-12, 1e-12):
                raise Failure(f"accuracy(model, xs, ys) was {show(got)}, expected {expected} "
                              f"({round(expected * len(ys))} of {len(ys)} points)")
    tie = parts("MLP", 2, [3], ["linear"], weights=[0.3, -0.2, 0.5, 0.1, 0.4, 0.2, 0.7, 0.1, 0.5])
    with check.case("accuracy with a tie: at x = [0, 0] logits 0 and 2 are both 0.5", method="accuracy",
                    hint="ties go to the first largest logit, as max(range(len(logits)), key=...) does"):
        # both points labelled 0: the first largest is right on both, the last largest on neither
        got = values(student("classifier_accuracy", tie, [[0.0, 0.0], [0.0, 0.0]], [0, 0])["accuracy"],
                     "accuracy(model, xs, ys)", single=True)[0]
        if not close(got, 1.0, 1e-12, 1e-12):
            raise Failure(f"accuracy(model, [[0, 0], [0, 0]], [0, 0]) was {show(got)}, expected 1.0 (the first "
                          "largest logit, class 0, is the prediction)")


def spiral(n, seed):
    """``make_spiral(n, 3, noise=0.2, seed)`` (the given code), without the centre points."""
    rng = random.Random(seed)
    points = []
    for j in range(3):
        for i in range(n):
            angle = 4.0 * j + 4.0 * (i / (n - 1)) + rng.gauss(0.0, 1.0) * 0.2
            points.append(((i / (n - 1)) * math.sin(angle), (i / (n - 1)) * math.cos(angle), j, i))
    return [[a, b] for a, b, _, i in points if i], [j for _, _, j, i in points if i]


Shape = Sequence[tuple[int, int, str]]
"""``(nin, nout, activation)`` of each layer of a network.

The training check lives here, with the hidden tests, not in ``checks.py``: it computes the mean cross-entropy
and its gradient, what students write, and ``checks.py`` is part of what they receive."""


ACTIVATION: dict[str, Any] = {"linear": lambda a: a, "tanh": FORWARD["tanh"], "relu": FORWARD["relu"],
                              "sigmoid": FORWARD["sigmoid"]}
"""Each activation on a float, as the grader's ``Value`` computes it."""
SLOPE: dict[str, Any] = {"linear": lambda a, out: 1.0, "tanh": lambda a, out: 1.0 - out * out,
                         "relu": lambda a, out: 1.0 if a > 0 else 0.0, "sigmoid": lambda a, out: out * (1.0 - out)}
"""Each activation's local gradient at its input ``a`` and output ``out``, as the grader's ``Value`` has it."""


def mean_cross_entropy_gradient(shape: Shape, weights: Sequence[float], xs: Sequence[Sequence[float]],
                                ys: Sequence[int]) -> list[float]:
    """The gradient of the mean cross-entropy over ``(xs, ys)`` of the network ``shape`` with ``weights`` (the
    documented order), as the handout's training computes it on a correct ``Value``: each layer's neurons
    ``act(b + sum(w_i * v_i))``, the loss ``log(sum(exp(v - m))) + m - v[y]`` with ``m`` the largest logit (a
    number, not a node), averaged. Plain floats, forward then backward by hand (the grader's ``Value`` builds the
    same graph about thirty times slower; ``tests/course/test_classifier.py`` holds the two equal).

    Raises:
        OverflowError, ValueError, ZeroDivisionError: Where the arithmetic fails (no network of this shape then).
    """
    grads = [0.0] * len(weights)
    scale = 1.0 / len(xs)
    for x, y in zip(xs, ys):
        values = [float(v) for v in x]
        layers: list[tuple[list[float], list[float], list[float]]] = []  # (inputs, pre-activations, outputs)
        k = 0
        for nin, nout, act in shape:
            pre, outs = [], []
            for _ in range(nout):
                a = sum((w * v for w, v in zip(weights[k:k + nin], values)), weights[k + nin])
                pre.append(a)
                outs.append(ACTIVATION[act](a))
                k += nin + 1
            layers.append((values, pre, outs))
            values = outs
        m = max(values)
        exps = [math.exp(v - m) for v in values]
        total = sum(exps)
        upstream = [scale * (e / total - (1.0 if j == y else 0.0)) for j, e in enumerate(exps)]
        for (inputs, pre, outs), (nin, nout, act) in zip(reversed(layers), reversed(shape)):
            k -= nout * (nin + 1)
            below = [0.0] * nin
            for j in range(nout):
                g = upstream[j] * SLOPE[act](pre[j], outs[j])
                start = k + j * (nin + 1)
                for i in range(nin):
                    grads[start + i] += g * inputs[i]
                    below[i] += g * weights[start + i]
                grads[start + nin] += g
            upstream = below
    return grads


def check_gradient_descent(states: Sequence[Sequence[Any]], changes: int, final: Sequence[Any],
                           start: Sequence[float], shapes: Sequence[Shape], xs: Sequence[Sequence[float]],
                           ys: Sequence[int], lr: float) -> None:
    """Check that ``train`` changed the weights only by steps of gradient descent on the mean cross-entropy.

    ``states`` are the weights ``train`` computed with, in order (each time it called the model or
    ``cross_entropy`` at changed weights), then ``final`` the weights it left: the first must be ``start`` (the
    grader's), and each next one the previous minus ``lr`` times the gradient there, for every weight that
    ``train`` updates at all (a weight it never moves, such as a bias ``parameters()`` left out, is not held
    against it here). Each step is checked from the student's own weights, so rounding never adds up.

    Args:
        shapes: The networks the student's may be (their outputs fit its logits); one must fit every step.

    Raises:
        Failure: On weights changed before the first loss, without any loss, or by something other than a
            gradient step (e.g. set to a fitted answer, or moved by another loss's gradient).
    """
    if changes > len(states):
        raise Failure(f"train changed the weights {changes} times while computing its losses, more than the "
                      f"{len(states) - 1} steps it was asked for")
    chain = [list(s) for s in states]
    if not chain:
        if list(final) != list(start):
            raise Failure("train changed the weights without calling the model or cross_entropy: training must "
                          "be gradient descent on the mean cross_entropy(model(x), y)")
        return
    if chain[0] != list(start):
        k = next(i for i, (a, b) in enumerate(zip(chain[0], start)) if a != b)
        raise Failure(f"train changed the weights before its first loss (weight {k}: {show(chain[0][k])}, the "
                      f"grader set {show(start[k])}): training must start from the model's weights")
    if list(final) != chain[-1]:
        chain.append(list(final))
    moved = [k for k in range(len(start)) if any(s[k] != start[k] for s in chain)]
    if not all(isinstance(w, float) for s in chain for w in s):
        raise Failure("train left weights that are not numbers")
    first: Failure | None = None
    for network in shapes:
        try:
            _steps(network, chain, moved, xs, ys, lr)
            return
        except Failure as failure:
            first = first or failure
        except (OverflowError, ValueError, ZeroDivisionError):
            continue
    raise first or Failure("train's weights give no network of this shape a cross-entropy to descend")


def _steps(shape: Shape, chain: Sequence[Sequence[float]], moved: Sequence[int],
           xs: Sequence[Sequence[float]], ys: Sequence[int], lr: float) -> None:
    for t, (before, after) in enumerate(zip(chain, chain[1:])):
        grads = mean_cross_entropy_gradient(shape, before, xs, ys)
        for k in moved:
            step, want = after[k] - before[k], -lr * grads[k]
            if not close(step, want, 1e-6, 1e-10):
                raise Failure(f"at step {t} of training, weight {k} went from {before[k]:.10g} to {after[k]:.10g}; "
                              f"a step of gradient descent on the mean cross-entropy at lr {lr} takes it to "
                              f"{before[k] + want:.10g}: the weights may change only by such steps (the "
                              "loss the mean of cross_entropy(model(x), y), then zero_grad, loss.backward(), "
                              "sgd_step(params, lr))")


def learn_verdict(got, spec, xs, ys, steps):
    """Accept a training run whose final weights give the logits it reported (with some activation per layer),
    classify at least ``LEARN["needed"]`` points right, by the judge's own arithmetic, and were reached from the
    grader's weights by gradient descent on the mean cross-entropy of that network, step by step
    (:func:`check_gradient_descent`): weights fitted some other way earn nothing."""
    final = got["final"]
    if not all(isinstance(w, float) and math.isfinite(w) for w in final):
        raise Failure(f"after training the weights were not all finite numbers: {show_list(final)}")
    logits = [values(out, f"the trained model on x = {x}", 3) for out, x in zip(got["logits"], xs)]
    sizes = [2, *LEARN["sizes"]]
    fitting, shapes = None, []
    for hidden in ["tanh", *[a for a in ACTIVATIONS if a != "tanh"]]:
        for last in ["linear", *[a for a in ACTIVATIONS if a != "linear"]]:
            shape = [(sizes[0], sizes[1], hidden), (sizes[1], sizes[2], last)]
            try:
                mine = [layer_outputs(shape, final, x) for x in xs]
            except (OverflowError, ValueError):
                continue
            if all(close(g, m, 1e-6, 1e-9) for ls, ms in zip(logits, mine) for g, m in zip(ls, ms)):
                fitting = fitting or mine
                shapes.append(shape)
    if fitting is None:
        raise Failure("the logits of the trained model are not what its final weights give with tanh, relu, sigmoid "
                      "or linear layers: its forward pass is wrong (the network tests say where)")
    right = round(float_accuracy(fitting, ys) * len(ys))
    if right < LEARN["needed"]:
        losses = got["losses"].get("list", [])
        trend = (f"; the loss went from {losses[0]:.4g} to {losses[-1]:.4g}" if len(losses) >= 2
                 and all(isinstance(v, float) for v in (losses[0], losses[-1])) else "")
        raise Failure(f"after {steps} steps your model classifies {right} of {len(ys)} points right{trend}; "
                      f"at least {LEARN['needed']} are needed, and a correct network, cross_entropy and train from "
                      f"the same weights get {LEARN_CORRECT}")
    check_gradient_descent(got["states"], got["changes"], final, spec["weights"], shapes, xs, ys, LEARN["lr"])


@pytest.mark.points(3)
@pytest.mark.task("6.3-6.4")
@pytest.mark.methods(*NETWORK, "cross_entropy", "train")
def test_training_learns_the_spiral(student, check):
    """Your MLP(2, [6, 3]), train and cross_entropy learn the spiral by gradient descent: 12 of 15 points right after 100 steps at lr 2.0"""
    xs, ys = spiral(LEARN["points"], LEARN["data_seed"])
    rng = random.Random(LEARN["weight_seed"])
    spec = model_spec("MLP", 2, LEARN["sizes"])
    spec["weights"] = [rng.uniform(-1, 1) for _ in range(count_of(spec))]
    steps, lr = LEARN["steps"], LEARN["lr"]
    with check.case(f"MLP(2, [6, 3]) from the grader's weights, train(model, xs, ys, {steps}, {lr}) on "
                    f"{len(xs)} spiral points", method="train",
                    hint="the tests of softmax, cross_entropy, the network and train say which part is wrong; when "
                         "they pass, the network learns here"):
        learn_verdict(student("classifier_learn", spec, xs, ys, steps, lr), spec, xs, ys, steps)
