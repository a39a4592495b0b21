"""Public tests for assignment 9 (shipped to students): Module, Linear, Tanh, ReLU, Sequential, SGD, mse_loss, train.

In hidden grading every module runs on the grader's own ``Value``, so a bug in
your engine costs no points here (the engine is graded in assignments 1 and 2),
and each test runs one of your methods only: ``Linear.forward`` on weights the
grader sets in ``weight`` and ``bias``; ``Sequential`` on the grader's stand-in
modules (they scale, shift or reverse a vector); ``train`` on a stand-in model,
optimiser and loss. Your copy of the course has no grader's ``Value``, so your
self-check runs on your own engine: when a test fails, it first tries your
engine's operations and names the one to fix first if one is wrong. Expected
values are computed here with ``math``.
"""

import math
import random

import pytest

from assignments.modules.checks import compare_weights, float_losses, outputs_of, own_engine_first, train_hint
from assignments.shared.checks.outputs import compare_numbers, values
from grader.testing import Failure


@pytest.fixture(autouse=True)
def engine_first(student, check):
    """On your own engine (a self-check), a failing case names the engine method to fix first, if one is wrong."""
    check.first = own_engine_first(student)


def grads_of(got, key, what):
    if got[key] is None:
        raise Failure(f"{what} did not return Values built from its inputs, so backward() cannot reach them: build "
                      "the outputs with Value operations")
    return got[key]


def check_zero_grad(student, check, owner, hint, title=None):
    data, grads, weights = [0.5, -1.5, 2.0], [3.0, -2.0, 0.5], [1.0, 2.0, -1.0]
    method = "Module.zero_grad" if owner == "Sequential" else f"{owner}.zero_grad"
    with check.case(title or f"{owner}.zero_grad() on parameters {data} whose grads are {grads}", method=method,
                    hint=hint):
        got = student("modules_zero_grad", owner, data, grads, weights)
        try:
            compare_numbers(got["grads"], [0.0, 0.0, 0.0], "after zero_grad(), parameter", " {k}'s grad")
            compare_numbers(got["data"], data, "after zero_grad(), parameter", " {k}'s data")
            compare_numbers(got["after"], [2 * w * p for w, p in zip(weights, data)],
                            "after zero_grad() and a backward pass of sum_k w_k * p_k**2, parameter", " {k}'s grad")
        except Failure as failure:
            if not got.get("own"):
                raise
            raise Failure(failure.message, "Sequential.zero_grad",  # Sequential's own zero_grad, not Module's
                          "Sequential inherits Module.zero_grad, which zeroes every p in self.parameters() (every "
                          "module's): drop the override, or zero every module's parameters") from None


@pytest.mark.points(1)
@pytest.mark.task("9.1")
def test_module_zero_grad(student, check):
    """Module.zero_grad() sets every parameter's gradient to 0 (also a Sequential's: every module's), and leaves the
    data alone"""
    check_zero_grad(student, check, "Module",
                    "for p in self.parameters(): p.grad = 0.0 (assigning to p itself does nothing)")
    check_zero_grad(student, check, "Sequential",
                    "for p in self.parameters(): p.grad = 0.0 (assigning to p itself does nothing)",
                    "Sequential(scale 0.5, scale -1.5, scale 2.0).zero_grad(): the grader's modules' parameters, "
                    "whose grads are [3.0, -2.0, 0.5]")


@pytest.mark.points(2)
@pytest.mark.task("9.2")
def test_linear_forward(student, check):
    """Linear: y_i = sum_j weight[i][j] * x_j + bias[i], always a list; the gradients of the weights and inputs"""
    w, b, x, c = [[0.5, -1.0, 2.0], [0.1, 0.2, -0.3]], [0.1, -0.2], [1.0, 2.0, 3.0], [1.0, 2.0]
    flat = [v for row in w for v in row] + b
    with check.case(f"Linear(3, 2) with weight = {w} and bias = {b} on x = {x}", method="Linear.forward",
                    hint="output i is bias[i] plus the sum over j of weight[i][j] * x[j], built with Value operations"):
        got = student("modules_linear", 3, 2, flat, [x], c)
        y = [sum(wij * xj for wij, xj in zip(row, x)) + bi for row, bi in zip(w, b)]
        compare_numbers(outputs_of(got["outputs"][0], "Linear(3, 2)(x)", 2), y, "Linear(3, 2)(x)")
        expected = [ci * xj for ci in c for xj in x] + c
        compare_weights(grads_of(got, "grads", "Linear(3, 2)"), expected, 3, 2,
                        f"after backward() from {c[0]} * y[0] + {c[1]} * y[1], the gradient")
        compare_numbers(grads_of(got, "input_grads", "Linear(3, 2)"),
                        [sum(ci * w[i][j] for i, ci in enumerate(c)) for j in range(3)],
                        "after backward(), the gradient of x", label="[{k}]")
    w1, x1 = [0.3, -0.7, 0.05], [2.0, 1.0]
    with check.case("Linear(2, 1) with weight = [[0.3, -0.7]] and bias = [0.05] on x = [2, 1]", method="Linear.forward",
                    hint="return a list also when nout == 1 (the next module takes a list)"):
        got = student("modules_linear", 2, 1, w1, [x1], None)
        compare_numbers(outputs_of(got["outputs"][0], "Linear(2, 1)(x)", 1), [0.3 * 2 - 0.7 * 1 + 0.05],
                        "Linear(2, 1)(x)")


@pytest.mark.points(1)
@pytest.mark.task("9.2")
def test_linear_parameters(student, check):
    """Linear.parameters(): the live weights row by row, then the bias"""
    weights = [0.1 * k - 0.4 for k in range(9)]
    with check.case("Linear(2, 3).parameters()", method="Linear.parameters",
                    hint="return weight[0][0], weight[0][1], weight[1][0], ... (row by row), then the bias: the "
                         "Value objects themselves"):
        got = student("modules_linear_parameters", 2, 3, weights)
        if got["count"] != 9:
            raise Failure(f"Linear(2, 3).parameters() returned {got['count']} items, expected 9 (6 weights, 3 biases)")
        if got["identity"] != list(range(9)):
            raise Failure(f"Linear(2, 3).parameters() returned the weights in the order {got['identity']} (-1: not a "
                          "weight of the layer), expected [0, 1, ..., 8]: weight row by row, then bias")


@pytest.mark.points(1)
@pytest.mark.task("9.2")
def test_linear_init(student, check):
    """Linear(4, 3): weight is 3 rows of 4 distinct Values, bias 3 Values, all in [-1/sqrt(4), 1/sqrt(4)]"""
    with check.case("Linear(4, 3) freshly built", method="Linear.__init__",
                    hint="weight = [[Value(random.uniform(-k, k)) for each input] for each output], bias = "
                         "[Value(random.uniform(-k, k)) for each output], k = 1 / math.sqrt(nin)"):
        got = student("modules_linear_init", 4, 3, 1)
        if got["rows"] != [4, 4, 4] or got["bias"] != 3:
            raise Failure(f"Linear(4, 3) made weight with rows of lengths {got['rows']} and a bias of "
                          f"{got['bias']}, expected 3 rows of 4 (one row per output) and 3 biases")
        if got["sizes"] != [4, 3]:
            raise Failure(f"Linear(4, 3) has nin, nout = {got['sizes']}, expected [4, 3]")
        if not got["all_values"] or got["distinct"] != 15:
            raise Failure("each weight and each bias must be its own Value object (15 here)")
        if not all(isinstance(d, float) and abs(d) <= 0.5 for d in got["data"]) or len(set(got["data"])) < 15:
            raise Failure(f"the initial weights were {got['data'][:6]}..., expected 15 different numbers in "
                          "[-0.5, 0.5] (k = 1 / sqrt(4))")
    rng = random.Random(1)
    drawn = [rng.uniform(-0.5, 0.5) for _ in range(15)]
    with check.case("Linear(4, 3) after random.seed(1): weight row by row, then bias, in the order drawn",
                    method="Linear.__init__",
                    hint="draw weight first, row by row (one row per output), then bias, each with "
                         "random.uniform(-k, k): a seeded run then gives the same layer as everyone's"):
        got = student("modules_linear_init", 4, 3, 1)
        if len(got["data"]) != 15:
            raise Failure(f"Linear(4, 3) made {len(got['data'])} weights and biases, expected 15")
        if got["data"][12:] == drawn[:3] or got["data"][:3] == drawn[12:]:
            raise Failure(f"bias was {got['data'][12:]} and weight[0] began {got['data'][:3]}: the bias was drawn "
                          f"before the weights (expected bias {drawn[12:]} and weight[0] beginning {drawn[:3]})")
        compare_weights(got["data"], drawn, 4, 3, "after random.seed(1), the initial value")


@pytest.mark.points(1)
@pytest.mark.task("9.3")
def test_activations(student, check):
    """Tanh()(x) and ReLU()(x) apply tanh and relu to each item; they have no parameters"""
    x, c = [0.5, -1.0, 2.0], [1.0, 2.0, 3.0]
    for name, f, df in (("Tanh", math.tanh, lambda v: 1 - math.tanh(v) ** 2),
                        ("ReLU", lambda v: max(v, 0.0), lambda v: 1.0 if v > 0 else 0.0)):
        with check.case(f"{name}()(x) on x = {x}", method=f"{name}.forward",
                        hint=f"return [xi.{name.lower()}() for xi in x]: a list of Values"):
            got = student("modules_activation", name, x, c)
            compare_numbers(outputs_of(got["output"], f"{name}()(x)", 3), [f(v) for v in x], f"{name}()(x)")
            compare_numbers(grads_of(got, "grads", f"{name}()"), [ci * df(v) for ci, v in zip(c, x)],
                            f"after backward() from sum_k c_k * y_k with c = {c}, the gradient of x")
            if got["parameters"] != 0:
                raise Failure(f"{name}().parameters() returned {got['parameters']} items: an activation has none")


def stand_in_output(specs, x):
    for kind, *value in specs:
        x = x[::-1] if kind == "reverse" else [v * value[0] if kind == "scale" else v + value[0] for v in x]
    return x


@pytest.mark.points(2)
@pytest.mark.task("9.4")
def test_sequential_forward(student, check):
    """Sequential(a, b, c)(x) is c(b(a(x))): each module's output is the next one's input"""
    for specs, x in (([["scale", 2.0], ["shift", 1.0]], [1.0, -2.0]),
                     ([["shift", 1.0], ["reverse"], ["scale", -0.5]], [1.0, 2.0, 3.0])):
        with check.case(f"Sequential of the grader's modules {specs} on x = {x}", method="Sequential.forward",
                        hint="x = module(x) for each module of self.modules in order; return the last x"):
            got = student("modules_sequential", specs, x, [1.0] * len(x))
            if got["calls"] != list(range(len(specs))):
                raise Failure(f"the modules were called in the order {got['calls']}, expected "
                              f"{list(range(len(specs)))} (each once, first to last)")
            compare_numbers(outputs_of(got["output"], "Sequential(...)(x)", len(x)), stand_in_output(specs, x),
                            "Sequential(...)(x)")
    with check.case("Sequential(scale 2, shift 1) on x = [1, -2]: gradients", method="Sequential.forward",
                    hint="return the last module's output itself, so that backward() reaches every module"):
        got = student("modules_sequential", [["scale", 2.0], ["shift", 1.0]], [1.0, -2.0], [1.0, 1.0])
        compare_numbers(grads_of(got, "grads", "Sequential(...)"), [-1.0, 2.0],
                        "after backward() from y[0] + y[1], the gradient of the modules' parameter", label=" {k}")
        compare_numbers(grads_of(got, "input_grads", "Sequential(...)"), [2.0, 2.0],
                        "after backward(), the gradient of x")


@pytest.mark.points(1)
@pytest.mark.task("9.4")
def test_sequential_parameters(student, check):
    """Sequential.parameters(): every module's parameters, module by module (live objects)"""
    specs = [["scale", 2.0], ["reverse"], ["shift", 1.0], ["scale", 3.0]]
    with check.case(f"Sequential of the grader's modules {specs}.parameters()", method="Sequential.parameters",
                    hint="[p for module in self.modules for p in module.parameters()]"):
        got = student("modules_sequential", specs, [1.0], None, "parameters")
        if got["identity"] != [0, 1, 2]:
            raise Failure(f"parameters() returned the modules' parameters in the order {got['identity']} (-1: not a "
                          "parameter of a module), expected [0, 1, 2]: module by module")
        if not got["stable"]:
            raise Failure("two calls of parameters() returned different objects: return the modules' own Values")


@pytest.mark.points(1)
@pytest.mark.task("9.4")
def test_sequential_init(student, check):
    """Sequential(a, b, c).modules is the list [a, b, c]"""
    specs = [["scale", 2.0], ["reverse"], ["shift", 1.0]]
    with check.case("Sequential(a, b, c).modules", method="Sequential.__init__",
                    hint="keep the modules given, in order, in a list: self.modules"):
        got = student("modules_sequential", specs, [1.0], None, "held")
        if got["held"] != [0, 1, 2]:
            raise Failure(f"modules held {got['held']} (indices of the modules given; -1: another object), expected "
                          "[0, 1, 2]")


@pytest.mark.points(1)
@pytest.mark.task("9.5")
def test_sgd_zero_grad(student, check):
    """SGD.zero_grad() sets the gradient of every parameter it holds to 0, and leaves the data alone"""
    check_zero_grad(student, check, "SGD", "for p in self.params: p.grad = 0.0")


@pytest.mark.points(1)
@pytest.mark.task("9.5")
def test_sgd_step(student, check):
    """SGD.step(): p.data -= lr * p.grad for every parameter, at every step"""
    data, grads, lr = [1.0, -2.0, 0.5], [[0.5, -1.0, 2.0], [1.0, 1.0, 1.0]], 0.1
    with check.case(f"SGD(params, lr={lr}), two steps", method="SGD.step",
                    hint="for p in self.params: p.data -= self.lr * p.grad"):
        got = student("modules_sgd", data, grads, lr)
        now = list(data)
        for k, step_grads in enumerate(grads):
            now = [d - lr * g for d, g in zip(now, step_grads)]
            compare_numbers(got["steps"][k], now, f"after step {k + 1}, parameter", " {k}'s data")


@pytest.mark.points(1)
@pytest.mark.task("9.5")
def test_sgd_init(student, check):
    """SGD(model.parameters(), lr) keeps the parameters in a list (it may be given a one-pass iterator) and lr"""
    data, lr = [1.0, -2.0, 0.5], 0.5
    with check.case(f"SGD(iter(params), lr={lr}): self.params, read twice, and self.lr", method="SGD.__init__",
                    hint="keep list(params) in self.params (an iterator is used up by its first pass) and lr in "
                         "self.lr"):
        got = student("modules_sgd", data, [], lr, "held")
        first, second = got["passes"]
        if first != [0, 1, 2]:
            raise Failure(f"self.params held the parameters given at places {first} (-1: another object), expected "
                          "[0, 1, 2]: the parameters themselves, in order")
        if second != first:
            raise Failure(f"a second pass over self.params found {second}, expected {first} again: it was used up "
                          "by the first pass (an iterator)")
        compare_numbers([got["lr"]], [lr], "self.lr", label="")


@pytest.mark.points(1)
@pytest.mark.task("9.6")
def test_mse_loss(student, check):
    """mse_loss: the mean of the squared differences, and its gradient 2 (p_k - t_k) / n"""
    preds, targets = [1.0, 2.0, -1.0], [0.5, 2.5, 0.0]
    with check.case(f"mse_loss({preds}, {targets})", method="mse_loss",
                    hint="sum (p - t) ** 2 over the pairs, as Values, then divide by the number of pairs"):
        got = student("modules_mse", preds, targets)
        compare_numbers(values(got["loss"], "mse_loss", single=True), [0.5], "mse_loss(...)", label="")
        compare_numbers(grads_of(got, "grads", "mse_loss"), [1 / 3, -1 / 3, -2 / 3],
                        "after backward() from the loss, the gradient of prediction")


XOR_X = [[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]]
XOR_Y = [0.0, 1.0, 1.0, 0.0]


def stand_in_training(weights, xs, ys, lr, steps):
    """What train computes on the grader's stand-ins: f = a (x0 - x1)**2 + c x0 + d, loss = half the summed squared
    errors, and a step of lr * g / (1 + |g|) against each gradient g. Returns the losses and the final weights."""
    a, c, d = weights
    history = []
    for _ in range(steps):
        r = [a * (x[0] - x[1]) ** 2 + c * x[0] + d - y for x, y in zip(xs, ys)]
        history.append(0.5 * sum(v * v for v in r))
        grads = [sum(v * (x[0] - x[1]) ** 2 for v, x in zip(r, xs)), sum(v * x[0] for v, x in zip(r, xs)), sum(r)]
        a, c, d = (w - lr * g / (1 + abs(g)) for w, g in zip((a, c, d), grads))
    return history, [a, c, d]


@pytest.mark.points(1)
@pytest.mark.task("9.6")
def test_train(student, check):
    """train: each step zero_grad, backward, step, and the loss as a float (on the grader's stand-ins)"""
    weights, lr, steps = [0.5, -0.3, 0.1], 0.1, 2
    with check.case(f"train(model, xor, ys, optimizer, steps={steps}) on the grader's stand-in model and optimiser",
                    method="train", hint="each step: preds, loss = mse_loss(preds, ys), optimizer.zero_grad(), "
                                         "loss.backward(), optimizer.step(); return the losses as floats"):
        got = student("modules_train", weights, XOR_X, XOR_Y, lr, steps)
        losses, final = stand_in_training(weights, XOR_X, XOR_Y, lr, steps)
        try:
            compare_numbers(float_losses(got, "train(...)", steps), losses, "train(...): the loss of step", " {k}")
            compare_numbers(got["final"], final, "after training, weight", " {k}")
        except Failure as failure:
            raise Failure(failure.message, "train", train_hint(got, steps, len(XOR_X))) from None
