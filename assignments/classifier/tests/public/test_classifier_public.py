"""Public tests of assignment 6 (classifier), shipped to students.

In hidden grading every test runs only the function it is about, on the
grader's own ``Value``: the grader makes the logits, the network's parts, and
(for ``train``) the network and a stand-in loss in place of ``cross_entropy``,
so a bug costs points only where it is. Your copy of the course does not have
the grader's parts (they would be a working solution), so your self-check runs
these tests on your own engine and network: when one fails, it first tries your
engine's operations and names the engine method to fix first if one is wrong.
The expected numbers are written out here (worked by hand, or with ``math``).
"""

import math

import pytest

from assignments.classifier.checks import (
    count_of, model_call, model_spec, own_engine_first, parts, train_hint,
)
from assignments.shared.checks.outputs import compare_numbers, values
from grader.testing import Failure, close, show


@pytest.fixture(autouse=True)
def engine_first(student, check):
    """On your own engine (a self-check), a failing case names the engine method to fix first, if one is wrong."""
    check.first = own_engine_first(student)


def check_grads(got, want, what):
    if got["grads"] is None:
        raise Failure(f"{what} did not return Values built from the logits, so backward() cannot reach them: use "
                      "Value operations (exp(), +, /), not math on .data")
    compare_numbers(got["grads"], want, "after backward(), logit", label=" {k}'s grad", rel=1e-6, abs_tol=1e-9)


@pytest.mark.points(2)
@pytest.mark.task("6.1")
def test_softmax(student, check):
    """softmax([2.0, 1.0, 0.1]) = [0.6590, 0.2424, 0.0986], and its gradient"""
    # p_k = e**l_k / (e**2 + e**1 + e**0.1); d p_0 / d l_k = p_0 * ([k == 0] - p_k)
    p = [0.6590011388859679, 0.24243297070471392, 0.09856589040931818]
    hint = "subtract the largest logit (a float), exp() each, divide each by their sum: all with Value operations"
    with check.case("softmax([2.0, 1.0, 0.1])", method="softmax", hint=hint):
        got = student("classifier_softmax", [2.0, 1.0, 0.1], None)
        compare_numbers(values(got["probs"], "softmax([2.0, 1.0, 0.1])", 3), p, "softmax([2.0, 1.0, 0.1])")
    with check.case("backward() from softmax([2.0, 1.0, 0.1])[0]", method="softmax", hint=hint):
        got = student("classifier_softmax", [2.0, 1.0, 0.1], [1.0, 0.0, 0.0])
        check_grads(got, [p[0] * ((k == 0) - p[k]) for k in range(3)], "softmax([2.0, 1.0, 0.1])")


@pytest.mark.points(1)
@pytest.mark.task("6.1")
def test_softmax_large_logits(student, check):
    """softmax([1000, 0, -1000]) = [1, 0, 0] and softmax([-1000, -1000]) = [0.5, 0.5]: no overflow, no 0/0"""
    for logits, want in (([1000.0, 0.0, -1000.0], [1.0, 0.0, 0.0]), ([-1000.0, -1000.0], [0.5, 0.5])):
        with check.case(f"softmax({logits})", method="softmax",
                        hint="math.exp(1000) overflows and math.exp(-1000) is 0.0: subtract the largest logit "
                             "first, so every exponent is <= 0 and the largest term is exactly 1"):
            got = student("classifier_softmax", logits, None)
            compare_numbers(values(got["probs"], f"softmax({logits})", len(logits)), want, f"softmax({logits})",
                            abs_tol=1e-300)


@pytest.mark.points(2)
@pytest.mark.task("6.2")
def test_cross_entropy(student, check):
    """cross_entropy([2.0, 1.0, 0.1], 0) = 0.4170 with gradient [-0.3410, 0.2424, 0.0986] = softmax - onehot"""
    p = [0.6590011388859679, 0.24243297070471392, 0.09856589040931818]
    hint = ("lse = m + log(sum_j exp(l_j - m)) with m the largest logit (a float); the loss is lse minus the "
            "target's logit; its gradient is then softmax(logits) - onehot(target)")
    for target in (0, 2):
        what = f"cross_entropy([2.0, 1.0, 0.1], target={target})"
        with check.case(what, method="cross_entropy", hint=hint):
            got = student("classifier_cross_entropy", [2.0, 1.0, 0.1], target)
            loss = values(got["loss"], what, single=True)[0]
            if not close(loss, -math.log(p[target])):
                raise Failure(f"{what} was {show(loss)}, expected -log softmax(logits)[{target}] = "
                              f"{-math.log(p[target])!r}")
            check_grads(got, [p[k] - (k == target) for k in range(3)], what)


@pytest.mark.points(1)
@pytest.mark.task("6.2")
def test_cross_entropy_large_logits(student, check):
    """cross_entropy([1000, 0, -1000], 1) = 1000 exactly (the probability of class 1 rounds to 0)"""
    what = "cross_entropy([1000.0, 0.0, -1000.0], target=1)"
    with check.case(what, method="cross_entropy",
                    hint="never form the probability (it rounds to 0.0 and log(0) fails) and never exp() a large "
                         "logit: lse = m + log(sum_j exp(l_j - m)) with the largest logit m"):
        got = student("classifier_cross_entropy", [1000.0, 0.0, -1000.0], 1)
        loss = values(got["loss"], what, single=True)[0]
        if not close(loss, 1000.0):
            raise Failure(f"{what} was {show(loss)}, expected 1000.0")
        check_grads(got, [1.0, -1.0, 0.0], what)


@pytest.mark.points(2)
@pytest.mark.task("6.3")
def test_neuron_forward(student, check):
    """Neuron(3, activation) with w = [0.5, -1.0, 2.0], b = 0.1 on x = [1, 2, 3]: each activation of act = 4.6"""
    act = 0.5 * 1 - 1.0 * 2 + 2.0 * 3 + 0.1
    expected = {"tanh": math.tanh(act), "relu": act, "sigmoid": 1 / (1 + math.exp(-act)), "linear": act}
    slope = {"tanh": 1 - math.tanh(act) ** 2, "relu": 1.0, "sigmoid": expected["sigmoid"] * (1 - expected["sigmoid"]),
             "linear": 1.0}
    for name, want in expected.items():
        spec = parts("Neuron", 3, name, weights=[0.5, -1.0, 2.0, 0.1])
        with check.case(f"Neuron(3, {name!r}) with w = [0.5, -1.0, 2.0], b = 0.1 on x = [1, 2, 3]",
                        method="Neuron.__call__",
                        hint=f"act = sum(w_i * x_i) + b with Value operations, then "
                             f"{'no activation' if name == 'linear' else f'act.{name}()'}"):
            got = student("classifier_forward", spec, [[1.0, 2.0, 3.0]])
            out = values(got["outputs"][0], f"{model_call(spec)} on x = [1, 2, 3]", single=True)[0]
            if not close(out, want):
                raise Failure(f"{model_call(spec)} on x = [1, 2, 3] gave {show(out)}, expected {want!r}")
            if got["grads"] is None:
                raise Failure(f"{model_call(spec)} did not return a Value built from w and b")
            compare_numbers(got["grads"], [slope[name] * v for v in (1.0, 2.0, 3.0, 1.0)],
                            "after backward() from the output, parameter", label=" {k}'s grad (w[0], w[1], w[2], b)",
                            rel=1e-6, abs_tol=1e-9)


@pytest.mark.points(1)
@pytest.mark.task("6.3")
def test_layer_and_mlp_forward(student, check):
    """Layer(2, 1) returns a list of one output; MLP(2, [2, 3]) is a tanh layer, then three linear logits"""
    spec = parts("Layer", 2, 1, "linear", weights=[0.3, 0.2, -0.5])
    with check.case("Layer(2, 1, 'linear') with w = [0.3, 0.2], b = -0.5 on x = [1, -2]", method="Layer.__call__",
                    hint="one output per neuron, in a list, even for a layer of one neuron"):
        got = student("classifier_forward", spec, [[1.0, -2.0]])
        compare_numbers(values(got["outputs"][0], "Layer(2, 1, 'linear') on x = [1, -2]", 1), [0.3 - 0.4 - 0.5],
                        "Layer(2, 1, 'linear') on x = [1, -2]", label=": output {k}")
    w = [1.0, -1.0, 0.0, 0.5, 0.5, 0.2, 2.0, 3.0, 0.5, -1.0, 0.0, 0.1, 0.5, -0.5, 0.0]
    x = [0.6, 0.2]
    h = [math.tanh(0.6 - 0.2 + 0.0), math.tanh(0.3 + 0.1 + 0.2)]
    logits = [2.0 * h[0] + 3.0 * h[1] + 0.5, -1.0 * h[0] + 0.0 * h[1] + 0.1, 0.5 * h[0] - 0.5 * h[1] + 0.0]
    spec = parts("MLP", 2, [2, 3], None, weights=w)
    with check.case(f"MLP(2, [2, 3]) with weights {w} on x = {x}", method="MLP.__call__",
                    hint="feed x through each layer of self.layers in turn and return the last layer's list"):
        got = student("classifier_forward", spec, [x])
        compare_numbers(values(got["outputs"][0], f"MLP(2, [2, 3]) on x = {x}", 3), logits,
                        f"MLP(2, [2, 3]) on x = {x}", label=": logit {k}")


@pytest.mark.points(1)
@pytest.mark.task("6.3")
def test_constructors(student, check):
    """MLP(2, [8, 3]) makes a tanh layer of 8 and a linear layer of 3; Layer(2, 3, 'relu') three relu neurons; the activations given are used; Neuron(3, 'linear') is a neuron"""
    spec = model_spec("MLP", 2, [8, 3])
    with check.case("MLP(2, [8, 3]) freshly built", method="MLP.__init__",
                    hint="layer i is Layer(sizes[i], sizes[i + 1], activations[i]) with sizes = [nin] + layer_sizes; "
                         "activations=None means tanh for every layer but the last, which is linear"):
        got = student("classifier_structure", spec)
        if got["parts"] != [(2, 8, "tanh"), (8, 3, "linear")]:
            made = ", ".join(f"Layer({a}, {b}, {c!r})" for a, b, c in got["parts"])
            raise Failure(f"MLP(2, [8, 3]) made [{made}], expected [Layer(2, 8, 'tanh'), Layer(8, 3, 'linear')]")
    spec = model_spec("Layer", 2, 3, "relu")
    with check.case("Layer(2, 3, 'relu') freshly built", method="Layer.__init__",
                    hint="nout neurons in self.neurons, each made with Neuron(nin, activation)"):
        got = student("classifier_structure", spec)
        if got["parts"] != [(2, 1, "relu")] * 3:
            made = ", ".join(f"Neuron({a}, {c!r})" for a, _, c in got["parts"])
            raise Failure(f"Layer(2, 3, 'relu') made [{made}], expected three Neuron(2, 'relu')")
    spec = model_spec("MLP", 3, [4, 2], ["relu", "sigmoid"])
    with check.case("MLP(3, [4, 2], ['relu', 'sigmoid']) freshly built", method="MLP.__init__",
                    hint="layer i is Layer(sizes[i], sizes[i + 1], activations[i]): use the activations given"):
        got = student("classifier_structure", spec)
        if got["parts"] != [(3, 4, "relu"), (4, 2, "sigmoid")]:
            made = ", ".join(f"Layer({a}, {b}, {c!r})" for a, b, c in got["parts"])
            raise Failure(f"MLP(3, [4, 2], ['relu', 'sigmoid']) made [{made}], expected [Layer(3, 4, 'relu'), "
                          "Layer(4, 2, 'sigmoid')]")
    spec = model_spec("Neuron", 3, "linear")
    with check.case("Neuron(3, 'linear') freshly built", method="Neuron.__init__",
                    hint="\"linear\" (no activation) is one of the four names Neuron accepts; keep it in "
                         "self.activation, with nin weights in self.w and a bias in self.b"):
        got = student("classifier_structure", spec)
        if got["parts"] != [(3, 1, "linear")]:
            made = ", ".join(f"{n} weights and activation {a!r}" for n, _, a in got["parts"])
            raise Failure(f"Neuron(3, 'linear') made {made}, expected 3 weights and activation 'linear'")


@pytest.mark.points(1)
@pytest.mark.task("6.3")
def test_parameters(student, check):
    """parameters() returns the model's own weights and biases in order: Neuron(3) 4, Layer(3, 2) 8, MLP(2, [8, 3]) 51"""
    x = [0.5, -1.0, 2.0]
    for args in (("Neuron", 3, "tanh"), ("Layer", 3, 2, "tanh"), ("MLP", 2, [8, 3], None)):
        n = count_of(model_spec(*args))
        spec = parts(*args, weights=[round(0.37 * math.sin(3.1 * k + 1.0), 4) for k in range(n)])
        with check.case(f"{model_call(spec)}.parameters()", method=f"{args[0]}.parameters",
                        hint="a neuron's parameters are self.w + [self.b]; a layer's, its neurons' in order; an MLP's, "
                             "its layers' in order (the model's own Value objects, not copies)"):
            got = student("classifier_parameters", spec, x[:args[1]])
            if got["count"] != n:
                raise Failure(f"{model_call(spec)}.parameters() returned {got['count']} values, expected {n}")
            if got["identity"] != list(range(n)):
                raise Failure(f"{model_call(spec)}.parameters() did not return the model's own weights and biases in "
                              "order (layer by layer, neuron by neuron, weights then bias)")


@pytest.mark.points(2)
@pytest.mark.task("6.4")
def test_train(student, check):
    """train: three steps of gradient descent from pinned weights, with a stand-in loss in place of cross_entropy"""
    xs = [[0.1, 0.2], [-0.3, 0.5], [0.7, -0.1], [0.0, -0.6]]
    ys = [0, 1, 2, 1]
    w = [0.2, -0.1, 0.0, -0.3, 0.4, 0.1, 0.5, 0.2, -0.2]
    spec = parts("MLP", 2, [3], ["linear"], weights=w)
    # the test puts a stand-in loss in place of your cross_entropy, 0.5 * sum_k (l_k - onehot(y)_k)**2 per point
    # (a squared error: a bug in cross_entropy cannot show here); these numbers are three steps of gradient descent
    losses = [0.46110000000000007, 0.2973721519140625, 0.24797344560471857]
    final = [0.172413344140625, 0.0050538937499999895, 0.19797498046875, -0.36935822910156246, 0.25255538203125005,
             0.485512626953125, 0.6594281533203125, 0.15900166171875, 0.129514599609375]
    with check.case("train(MLP(2, [3], ['linear']), 4 points, steps=3, lr=0.5)", method="train",
                    hint="each step: loss = mean of cross_entropy(model(x), y) over the points, zero_grad(params), "
                         "loss.backward(), sgd_step(params, lr); return each step's loss.data"):
        got = student("classifier_train", spec, xs, ys, 3, 0.5)
        try:
            compare_numbers(values(got["losses"], "train(...)", 3), losses, "the loss before step", label=" {k}")
            compare_numbers(got["final"], final, "after three steps, weight", label=" {k}")
        except Failure as failure:
            raise Failure(failure.message, "train", train_hint(got, losses, 3, 0.5, len(xs))) from None


@pytest.mark.points(1)
@pytest.mark.task("6.5")
def test_accuracy(student, check):
    """accuracy: 3 of 4 points whose largest logit is their class give 0.75"""
    # logits = x (class 0), -x (class 1), 0 (class 2) for x = x[0]: the class of x is 0 if x > 0, 1 if x < 0
    spec = parts("MLP", 2, [3], ["linear"], weights=[1.0, 0.0, 0.0, -1.0, 0.0, 0.0, 0.0, 0.0, 0.0])
    xs = [[0.5, 0.0], [-0.5, 0.0], [2.0, 1.0], [-1.0, 3.0]]
    with check.case("accuracy on 4 points, 3 of them right", method="accuracy",
                    hint="count the points whose largest logit (by .data) is at index y; divide by len(xs)"):
        got = values(student("classifier_accuracy", spec, xs, [0, 1, 0, 2])["accuracy"], "accuracy(model, xs, ys)",
                     single=True)[0]
        if not close(got, 0.75):
            raise Failure(f"accuracy(model, xs, ys) was {show(got)}, expected 0.75 (3 of 4 points)")
