"""Hidden tests for assignment 3: parameters, forward values, gradients, SGD
and XOR training, compared with the reference solution.

Fault isolation: each test runs only the method it is about. The model's
other parts are the grader's own (``parts``), a constructor is tested with
the grader's ``Neuron``/``Layer`` standing in for the ones it calls
(``nn_structure``), and every network computes with the grader's own
``Value``, so an engine bug costs no points here (the engine is graded in
assignments 1 and 2). Three integration tests train the student's whole
network (``test_sgd_trajectory``, ``test_xor_converges``) and, for one
point, the student's network on the student's engine
(``test_xor_with_your_engine``).

The XOR tests use the student's own initialisation and replay training from
the student's initial weights with the reference, so a correct network never
fails them because of an unlucky seed, and a reported trajectory is only
accepted if it is the one gradient descent really takes. The initialisation
must be the handout's (weights uniform in [-1, 1], distinct), and a run must
learn: one that starts at a solution, or whose weights never move, learned
nothing, whatever its final predictions.
"""

import random

import pytest

from assignments.shared.checks.contracts import NETWORK
from assignments.shared.checks.derived import BaseCalls
from assignments.shared.checks.models import (
    check_parameters, check_structure, compare_outputs, confirm_weights, forward_from_math, model_call, model_spec, parameter_count,
    own_engine_first, parts, pinned_to,
)
from grader.sandbox import own_parts as course_parts
from assignments.shared.checks import architectures
from grader.testing import Failure, GraderFault, close, show

pytestmark = [pytest.mark.contract(NETWORK), pytest.mark.base_of.with_args(BaseCalls)]

XOR_X = [[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]]
XOR_Y = [-1.0, 1.0, 1.0, -1.0]
XOR_SEEDS = [1, 2, 3, 4, 5]
LR, MAX_STEPS, MARGIN = 0.1, 300, 0.5
CHECKED_STEPS = 20
"""Steps of the XOR loss curve that must match the reference replay: enough to prove real
gradient descent with a correct engine, few enough that rounding (summation order over a
set-ordered graph) cannot grow into a visible difference; later steps can be chaotic."""
NETWORK = ("Neuron.__init__", "Neuron.__call__", "Neuron.parameters", "Layer.__init__", "Layer.__call__",
           "Layer.parameters", "MLP.__init__", "MLP.__call__", "MLP.parameters", "Module.zero_grad")
"""What the integration tests are about: every method of the network."""
PARAMS_HINT = ("parameters() must return the live Value objects (not copies), layer by layer, neuron by neuron, "
               "each neuron's weights then its bias")


def random_weights(rng, kind, *args):
    return [rng.uniform(-1, 1) for _ in range(parameter_count(kind, *args))]


def pinned(kind, *args, rng, **kwargs):
    return model_spec(kind, *args, weights=random_weights(rng, kind, *args), **kwargs)


def own_parts(kind, *args, rng, **kwargs):
    return parts(kind, *args, weights=random_weights(rng, kind, *args), **kwargs)


def inputs(rng, nin, n=3):
    return [[round(rng.uniform(-2, 2), 3) for _ in range(nin)] for _ in range(n)]


@pytest.mark.points(2)
@pytest.mark.task("3.1-3.3")
def test_parameter_counts(student, check):
    """parameters() has one entry per weight and bias, for several shapes"""
    rng = random.Random("counts")
    for kind, args in [("Neuron", (5,)), ("Layer", (4, 3)), ("MLP", (3, [5, 1])), ("MLP", (1, [2, 3, 2]))]:
        spec = own_parts(kind, *args, rng=rng)
        with check.case(f"len({model_call(spec)}.parameters())", method=f"{kind}.parameters",
                        hint="a neuron has nin weights and one bias; Layer and MLP collect their parts' parameters"):
            x = inputs(rng, args[0], 1)[0]
            got, expected = student("nn_parameters", spec, x), parameter_count(kind, *args)
            if got["count"] != expected:
                raise Failure(f"{model_call(spec)}.parameters() returned {got['count']} values, expected {expected}")
            # a count alone is easy to make up: the output must be what the values parameters() returned give
            confirm_weights(got["output"], got["data"], spec, x)


@pytest.mark.points(4)
@pytest.mark.task("3.1-3.3")
def test_parameters_are_live_and_ordered(student, check):
    """parameters() returns the model's own Value objects, in the documented order"""
    rng = random.Random("live")
    for kind, args in [("MLP", (3, [4, 4, 1])), ("MLP", (2, [3, 2])), ("Layer", (2, 3)), ("Neuron", (4,))]:
        spec = own_parts(kind, *args, rng=rng)
        x = inputs(rng, args[0], 1)[0]
        with check.case(f"{model_call(spec)}.parameters() are its parts' own Values, in order",
                        method=f"{kind}.parameters", hint=PARAMS_HINT):
            check_parameters(student("nn_parameters", spec, x), spec, x)


@pytest.mark.points(4)
@pytest.mark.task("3.1")
def test_neuron_forward(student, reference, check):
    """Neuron forward pass, with tanh and linear"""
    rng = random.Random("neuron")
    for nonlin in (True, False):
        spec = own_parts("Neuron", 4, rng=rng, nonlin=nonlin)
        xs = inputs(rng, 4)
        with check.case(f"{model_call(spec)} on random inputs", method="Neuron.__call__",
                        hint="act = sum(w_i * x_i) + b; return act.tanh() if self.nonlin else act"):
            compare_outputs(student("nn_forward", spec, xs), reference("nn_forward", spec, xs), spec, xs)


@pytest.mark.points(3)
@pytest.mark.task("3.2")
def test_layer_forward(student, reference, check):
    """Layer forward pass: one Value for one neuron, a list otherwise"""
    rng = random.Random("layer")
    for spec in [own_parts("Layer", 3, 1, rng=rng), own_parts("Layer", 3, 4, rng=rng),
                 own_parts("Layer", 3, 2, rng=rng, nonlin=False)]:
        xs = inputs(rng, 3)
        with check.case(f"{model_call(spec)} on random inputs", method="Layer.__call__",
                        hint="outs = [n(x) for n in self.neurons]; return outs[0] if len(outs) == 1 else outs"):
            compare_outputs(student("nn_forward", spec, xs), reference("nn_forward", spec, xs), spec, xs)


@pytest.mark.points(2)
@pytest.mark.task("3.2")
def test_layer_init(student, check):
    """Layer(nin, nout, **kwargs) makes nout neurons of nin inputs, passing kwargs on to each"""
    rng = random.Random("layer init")
    for spec in [model_spec("Layer", 3, 4, seed=5), model_spec("Layer", 2, 3, seed=6, nonlin=False)]:
        x = inputs(rng, spec["args"][0], 1)[0]
        with check.case(f"{model_call(spec)} freshly built", method="Layer.__init__",
                        hint="self.neurons = [Neuron(nin, **kwargs) for _ in range(nout)]"):
            check_structure(student("nn_structure", spec, x), spec, x)


@pytest.mark.points(1)
@pytest.mark.task("3.3")
def test_mlp_linear_output(student, check):
    """MLP(nin, nouts) chains Layers of the right sizes: tanh hidden layers, a linear last layer"""
    rng = random.Random("mlp init")
    for spec in [model_spec("MLP", 2, [2, 1], seed=8), model_spec("MLP", 3, [4, 4, 1], seed=9)]:
        x = inputs(rng, spec["args"][0], 1)[0]
        with check.case(f"{model_call(spec)} freshly built", method="MLP.__init__",
                        hint="sizes = [nin] + nouts; layer i is Layer(sizes[i], sizes[i + 1], nonlin=i != last); "
                             "only hidden layers use tanh"):
            check_structure(student("nn_structure", spec, x), spec, x)


@pytest.mark.points(1)
@pytest.mark.task("3.3")
def test_mlp_forward(student, reference, check):
    """MLP forward pass: each layer's outputs feed the next"""
    rng = random.Random("mlp forward")
    for spec in [own_parts("MLP", 3, [4, 4, 1], rng=rng), own_parts("MLP", 2, [3, 2], rng=rng)]:
        xs = inputs(rng, spec["args"][0])
        with check.case(f"{model_call(spec)} on random inputs", method="MLP.__call__",
                        hint="for layer in self.layers: x = layer(x); return x"):
            compare_outputs(student("nn_forward", spec, xs), reference("nn_forward", spec, xs), spec, xs)


@pytest.mark.points(3)
@pytest.mark.task("3.1")
def test_parameter_gradients(student, reference, check):
    """Gradients of a neuron's output with respect to its weights and bias"""
    rng = random.Random("grads")
    for spec in [own_parts("Neuron", 3, rng=rng), own_parts("Neuron", 5, rng=rng, nonlin=False)]:
        x = inputs(rng, spec["args"][0], 1)[0]
        with check.case(f"{model_call(spec)}: backward() from the output on x = {x}", method="Neuron.__call__",
                        hint="build the forward pass only from Value operations so every weight and bias is in the graph"):
            got, exp = student("nn_backward", spec, x), reference("nn_backward", spec, x)
            if len(got["grads"]) != len(exp["grads"]):
                raise Failure(f"{len(got['grads'])} gradients came back, expected {len(exp['grads'])}")
            for k, (g, e) in enumerate(zip(got["grads"], exp["grads"])):
                if not close(g, e):
                    what = "self.b" if k == spec["args"][0] else f"self.w[{k}]"
                    # a wrong output explains wrong gradients: say that, with its own hint, rather than guess
                    try:
                        compare_outputs(student("nn_forward", spec, [x]), reference("nn_forward", spec, [x]), spec, [x])
                    except Failure as wrong:
                        raise Failure(f"{what} had grad {show(g)} after backward(), expected {show(e)}, because the "
                                      f"output is wrong: {wrong.message}", None,
                                      "act = sum(w_i * x_i) + b; return act.tanh() if self.nonlin else act") from None
                    raise Failure(f"{what} had grad {show(g)} after backward(), expected {show(e)} (the output "
                                  "itself is right)")


@pytest.mark.points(3)
@pytest.mark.task("3.4")
def test_zero_grad(student, check):
    """zero_grad() resets every parameter's gradient, in place"""
    rng = random.Random("zero")
    spec = own_parts("MLP", 2, [3, 3, 1], rng=rng)
    x = [0.4, -0.7]
    with check.case(f"{model_call(spec)}: every p.grad set to 1.0, then zero_grad()", method="Module.zero_grad",
                    hint="for p in self.parameters(): p.grad = 0.0 (rebinding p or making new Values does nothing)"):
        got = student("nn_zero_grad", spec, x)
        after = got["after_zero_grad"]
        if len(after) != parameter_count("MLP", 2, [3, 3, 1]) or any(g != 0.0 for g in after):
            raise Failure(f"after zero_grad() the gradients were {[show(g) for g in after[:8]]}, expected all 0.0")
        if got["data"] != spec["weights"]:
            raise Failure("zero_grad() changed the weights (p.data): it must only set p.grad = 0.0")
        confirm_weights(got["output"], got["data"], spec, x)


@pytest.mark.points(2)
@pytest.mark.task("3.1")
def test_initial_weights(student, check):
    """Neuron weights start uniform in [-1, 1], not constant, each its own Value"""
    rng = random.Random("initial")
    for spec in [model_spec("Neuron", 20, seed=7), model_spec("Neuron", 9, seed=11)]:  # (weights only: no nonlin)
        x = inputs(rng, spec["args"][0], 1)[0]
        with check.case(f"{model_call(spec)} freshly built", method="Neuron.__init__", hint=INIT_HINT):
            got = student("nn_structure", spec, x)
            check_structure(got, spec, x, nonlin=False)
            check_initial(got["data"][:-1])


INIT_HINT = "self.w = [Value(random.uniform(-1, 1)) for _ in range(nin)]; self.b = Value(random.uniform(-1, 1))"


def check_initial(weights, method=None, hint=None):
    """The handout's initialisation: every weight (not bias) a number in [-1, 1], and (nearly) all distinct.

    ``method`` and ``hint``: what a failure names (a test about ``Neuron.__init__`` leaves them to its case).
    """
    if not all(isinstance(w, float) and -1.0 <= w <= 1.0 for w in weights):
        raise Failure(f"initial weights were {[show(w) for w in weights[:6]]}..., expected numbers in [-1, 1]",
                      method, hint)
    if len(set(weights)) < 0.9 * len(weights):
        raise Failure(f"initial weights are (nearly) constant: {len(set(weights))} distinct values among "
                      f"{len(weights)} weights, expected distinct random values in [-1, 1]; "
                      "all neurons would then learn the same thing", method, hint)


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


@pytest.mark.points(2)
@pytest.mark.task("3.1-3.4")
@pytest.mark.methods(*NETWORK)
def test_sgd_trajectory(student, reference, check):
    """The handout's MLP(2, [4, 4, 1]) (tanh, tanh, linear) from pinned weights: one SGD step, then twenty, on XOR follow the reference"""
    rng = random.Random("trajectory")
    spec = pinned("MLP", 2, [4, 4, 1], rng=rng)
    with check.case(f"{model_call(spec)} with pinned weights: one SGD step (MSE, lr {LR})", method="MLP",
                    hint="one step: forward on all points, loss, zero_grad(), backward(), p.data -= lr * p.grad"):
        got = student("nn_train", spec, XOR_X, XOR_Y, LR, 1, None)
        stood_in(check, got)
        exp = reference("nn_train", spec, XOR_X, XOR_Y, LR, 1, None)
        same_network(got, exp, student)
        compare_losses(got, exp, rel=1e-7)
        if not all(close(p, e) for p, e in zip(got["preds"], exp["preds"])):
            raise Failure(f"after one SGD step the predictions were {[show(p) for p in got['preds']]}, "
                          f"expected {exp['preds']}")
    with check.case(f"{model_call(spec)} with pinned weights, MSE, lr {LR}, 20 steps", method="MLP",
                    hint="each step: forward on all points, loss, zero_grad(), backward(), p.data -= lr * p.grad"):
        got = student("nn_train", spec, XOR_X, XOR_Y, LR, 20, None)
        stood_in(check, got)
        exp = reference("nn_train", spec, XOR_X, XOR_Y, LR, 20, None)
        same_network(got, exp, student)
        compare_losses(got, exp, rel=1e-6)


def stood_in(check, got):
    """Say so when training set the gradients to 0 itself because the student's ``Module.zero_grad`` was not there to
    call: the test then measures the network's training, and the missing method costs only its own tests."""
    if got["zero_grad"] is not None:
        what = {"missing": "does not exist", "None": "sets p.grad to None (the handout's sets p.grad = 0.0: "
                "micrograd's grad is a float, which backward() adds to)"}.get(
            got["zero_grad"], "is not written yet (it raises NotImplementedError)")
        check.note(f"your Module.zero_grad {what}, so this test set every p.grad = 0.0 itself before each "
                   "backward(): it measures the training of your network, and the zero_grad tests charge the "
                   "method")


def same_network(got, exp, student):
    """Say so when the first loss, from the same weights, is not the handout's network's: then the network computes
    another function (another activation somewhere), which is not a training bug."""
    if not got["losses"] or close(got["losses"][0], exp["losses"][0], rel=1e-9, abs_tol=1e-12):
        return
    nouts = [4, 4, 1]
    fits = [a for a in architectures.identify(2, nouts, got["initial"], XOR_X, XOR_Y, got["losses"][0])
            if a != architectures.handout(nouts)]
    if fits:
        acts = fits[0]
        method = "MLP.__init__" if acts[:-1] == architectures.handout(nouts)[:-1] else "Neuron.__call__"
        try:  # which asked for another network: MLP.__init__ (the layers it makes), or the neurons (how they compute)?
            built = student("nn_structure", model_spec("MLP", 2, nouts), XOR_X[1])["parts"]
        except Failure:
            built = None
        if built:
            wanted = [True] * (len(nouts) - 1) + [False]
            method = "MLP.__init__" if [part[2] for part in built] != wanted else layer_or_neuron(student)
        raise Failure(f"from these weights your network's loss is {show(got['losses'][0])}, the handout's network's "
                      f"{show(exp['losses'][0])}: your network is not the handout's ({architectures.difference(acts, nouts)}); "
                      "this test trains the handout's network, so it cannot pass until yours is that one", method,
                      "the handout's MLP has tanh in every layer but the last, which is linear (nonlin=False)")


def layer_or_neuron(student):
    """Of a network whose MLP asks for the right layers but computes another function: ``Layer.__init__`` when it does
    not pass ``nonlin`` on to its neurons (as measured with the grader's ``Neuron``), else ``Neuron.__call__``."""
    try:
        made = student("nn_structure", model_spec("Layer", 2, 3, nonlin=False), XOR_X[1])["parts"]
    except Failure:
        return "Neuron.__call__"
    return "Layer.__init__" if made and any(part[2] is not False for part in made) else "Neuron.__call__"


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


@pytest.mark.points(2)
@pytest.mark.task("3.1-3.4")
@pytest.mark.methods(*NETWORK)
def test_xor_converges(student, reference, check):
    """Your MLP(2, [4, 4, 1]) learns XOR with the handout's training loop (margin 0.5, at most 300 SGD steps) for at least 4 of 5 seeds, with tanh, ReLU, sigmoid or linear layers"""
    ok = 0
    for done, seed in enumerate(XOR_SEEDS):
        if ok >= 4 or done - ok >= 2:
            break
        spec = model_spec("MLP", 2, [4, 4, 1], seed=seed)
        with check.case(f"XOR with random.seed({seed}) before MLP(2, [4, 4, 1]), MSE, lr {LR}", method="MLP",
                        hint="the network tests with pinned weights say which method is wrong; a network whose "
                             "outputs and gradients are right learns XOR here"):
            got = student("nn_train", spec, XOR_X, XOR_Y, LR, MAX_STEPS, MARGIN)
            stood_in(check, got)
            xor_verdict(got, reference)
            ok += 1
    if ok < 4:
        raise Failure(f"XOR was learned for {ok} seed(s); at least 4 of 5 are needed")


@pytest.mark.points(1)
@pytest.mark.task("3.1-3.4")
@pytest.mark.methods(*NETWORK)
def test_xor_with_your_engine(student, reference, check):
    """Your network on your own engine learns XOR: the whole course in one test"""
    spec = model_spec("MLP", 2, [4, 4, 1], seed=1, engine="student")
    check.first = own_engine_first(student, always=True)  # a wrong engine operation is named, not "MLP"
    with check.case(f"XOR with random.seed(1) before MLP(2, [4, 4, 1]) on your Value, MSE, lr {LR}", method="MLP",
                    hint="the other tests run your network on the grader's Value: if only this one fails, "
                         "look at your engine's tests (assignments 1 and 2)"):
        got = student("nn_train", spec, XOR_X, XOR_Y, LR, MAX_STEPS, MARGIN)
        stood_in(check, got)
        xor_verdict(got, reference)


def xor_replay(acts, initial, reference):
    """Training replayed from the student's initial weights on a correct network with activations ``acts``: the
    reference for the handout's network, else the grader's own Value (:func:`assignments.shared.checks.architectures.replay`)."""
    nouts = [4, 4, 1]
    if acts == architectures.handout(nouts):
        return reference("nn_train", pinned_to(model_spec("MLP", 2, nouts), initial), XOR_X, XOR_Y, LR, MAX_STEPS,
                         MARGIN)
    parts_of_grader = course_parts.get("stand_ins")
    if parts_of_grader is None:
        raise GraderFault("the grader's parts (stand_ins) are not loaded: the XOR replay needs them")
    return architectures.replay(parts_of_grader.Value, 2, nouts, acts, initial, XOR_X, XOR_Y, LR, MAX_STEPS, MARGIN)


def xor_verdict(got, reference):
    """Accept a seed if training converged from a proper start, or failed exactly like a correct network from it.

    A proper start is the handout's initialisation (weights uniform in [-1, 1],
    distinct: :func:`check_initial`), from which the network does not already
    separate XOR. The student's network is the one whose first loss, from the
    reported initial weights, the student's reported loss is (the handout's,
    or another activation per layer:
    :func:`assignments.shared.checks.architectures.identify`), and whose
    training replayed with a correct engine takes the same first steps.
    Convergence is decided from the final weights the student reported, with
    ``math``; the first steps of the loss curve must be the ones a correct
    engine takes from the reported initial weights, so neither end can be
    made up; and a run whose weights never moved learned nothing.
    """
    initial, final = got["initial"], got["final"]
    nouts = [4, 4, 1]
    if len(initial) != 37 or not all(isinstance(w, float) and abs(w) <= 1e3 for w in initial + final):
        raise Failure("MLP(2, [4, 4, 1]).parameters() did not give 37 finite numbers before and after training "
                      "(initial weights belong in [-1, 1])")
    # the start is the student's initialisation: the handout's, always (a network started at a solution of XOR
    # learns nothing, and with a training that does nothing would "converge")
    check_initial(weight_values(initial, 2, nouts), "Neuron.__init__", INIT_HINT)
    fits = architectures.identify(2, nouts, initial, XOR_X, XOR_Y, got["losses"][0]) if got["losses"] else []
    acts, replay = architectures.handout(nouts), None
    for candidate in fits:
        attempt = xor_replay(candidate, initial, reference)
        try:
            compare_losses(got, attempt, rel=1e-6, steps=CHECKED_STEPS + 1)
        except Failure:
            continue
        acts, replay = candidate, attempt
        break
    if replay is None:  # no network of this shape trains this way: show the difference from the one that fits first
        acts = fits[0] if fits else acts
        replay = xor_replay(acts, initial, reference)
        if not fits:
            raise Failure(f"from its initial weights your network's loss is {show(got['losses'][0])}, and no network "
                          "of this shape with tanh, ReLU, sigmoid or linear layers gives it from those weights: its "
                          "forward pass is wrong (the network tests with pinned weights say where)")
        compare_losses(got, replay, rel=1e-6, steps=CHECKED_STEPS + 1)
    preds = [architectures.forward(2, nouts, acts, final, x) for x in XOR_X]
    if not all(close(p, e, rel=1e-6, abs_tol=1e-9) for p, e in zip(got["preds"], preds)):
        raise Failure(f"the final predictions {[show(p) for p in got['preds']]} are not what the final weights "
                      f"give: {[show(p) for p in preds]}")
    start = [architectures.forward(2, nouts, acts, initial, x) for x in XOR_X]
    if all(p * y > MARGIN for p, y in zip(start, XOR_Y)):  # (never from random weights: 0 of 300,000 seeds)
        raise Failure(f"your network's initial weights already separate XOR (predictions {[show(p) for p in start]} "
                      "before any step): nothing was learned", "MLP",
                      "start from the weights Neuron.__init__ draws with random.uniform(-1, 1) after the grader's "
                      "random.seed(...), and set no weights of your own")
    if got["steps"] > 0 and final == initial:
        raise Failure(f"after {got['steps']} SGD steps every weight is still its initial value: no gradient reached "
                      "a weight, so the network learned nothing")
    if all(p * y > MARGIN for p, y in zip(preds, XOR_Y)):
        return
    if all(a == "linear" for a in acts[:-1]):  # a network with no nonlinear hidden layer cannot represent XOR
        method = "MLP.__init__" if acts[:-1] == architectures.handout(nouts)[:-1] else "Neuron.__call__"
        raise Failure(f"after {got['steps']} steps XOR was not learned (predictions {[show(p) for p in preds]}); your "
                      f"network is not the handout's ({architectures.difference(acts, nouts)}): with no nonlinear "
                      "hidden layer it computes a linear function, which cannot separate XOR", method,
                      "the handout's MLP has tanh in every layer but the last, which is linear (nonlin=False)")
    if all(p * y > MARGIN for p, y in zip(replay["preds"], XOR_Y)):
        raise Failure(f"after {got['steps']} steps the predictions were {[show(p) for p in preds]}; "
                      f"a correct engine from the same initial weights reaches margin {MARGIN} "
                      f"in {replay['steps']} steps")

