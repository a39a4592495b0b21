"""Judge-side: which part of the whole network is wrong when measured alone (the XOR test's feedback).

The test of the whole network (``test_network_trains_xor``) runs every method at once: an exception surfaces in
whichever method happened to run into the fault (``Tanh.forward`` given what a wrong ``Sequential.forward`` passed it;
``train`` calling ``backward()`` on the float a wrong ``mse_loss`` returned), and a wrong number says nothing about
where it came from. So when that test fails, each part the network is made of is measured alone, as its own tests
measure it (the grader's Value, weights and stand-ins: :mod:`assignments.modules.probes`), on small inputs of the
network's shapes, against the reference; the feedback names the first part that is wrong alone, in the order the
network uses them, or says plainly that every part is right alone and only the whole network is wrong.

Nothing here is a verdict of the XOR test: its points are decided by its own comparison; this only names the method.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from grader.testing import Failure, StudentFault, close, show
from grader.testing.cases import NOT_RUN_KINDS

XOR_X = [[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]]
XOR_Y = [0.0, 1.0, 1.0, 0.0]
WEIGHTS_2_4 = [0.3, -0.5, 0.8, 0.1, -0.7, 0.4, 0.6, -0.2, 0.05, -0.15, 0.25, -0.35]
STAND_INS = [["scale", 1.5], ["reverse"], ["shift", -0.5]]
WHOLE = "Sequential"
"""What the test names when every part is right alone: the whole network (a class, as the ``mlp`` tests name
``MLP``: "Start here" puts it after every method)."""

PARTS: tuple[tuple[str, str, tuple[Any, ...], tuple[str, ...], str], ...] = (
    ("Linear.__init__", "modules_linear_init", (2, 4, 7), ("rows", "bias", "sizes", "all_values", "distinct"),
     "keep nin and nout; weight is nout rows of nin distinct Values, then bias nout distinct Values"),
    ("Linear.parameters", "modules_linear_parameters", (2, 4, WEIGHTS_2_4), ("identity", "stable"),
     "return the Value objects themselves: weight row by row, then bias"),
    ("Sequential.__init__", "modules_sequential", (STAND_INS, [1.0], None, "held"), ("held",),
     "keep the modules given, in order, in a list: self.modules"),
    ("Sequential.parameters", "modules_sequential", (STAND_INS, [1.0], None, "parameters"), ("identity", "stable"),
     "every module's parameters, module by module"),
    ("SGD.__init__", "modules_sgd", ([1.0, -2.0, 0.5], [], 0.2, "held"), ("passes", "lr"),
     "keep list(params) in self.params and lr in self.lr"),
    ("Linear.forward", "modules_linear", (2, 4, WEIGHTS_2_4, [[0.0, 1.0], [1.0, 1.0]], [1.0, -0.5, 0.25, 2.0]),
     ("outputs", "grads", "input_grads"),
     "output i is bias[i] + sum_j weight[i][j] * x[j], built with Value operations, always a list"),
    ("Tanh.forward", "modules_activation", ("Tanh", [0.5, -1.0, 2.0, 0.0], [1.0, 2.0, -1.0, 0.5]), ("output", "grads"),
     "apply Value.tanh() to each item and return the list of Values"),
    ("Sequential.forward", "modules_sequential", (STAND_INS, [1.0, -2.0, 0.5], [1.0, 0.5, -1.0]),
     ("output", "calls", "grads", "input_grads"), "x = module(x) for each module of self.modules in order; return the last x"),
    ("mse_loss", "modules_mse", ([0.2, 0.9, 0.7, -0.1], XOR_Y), ("loss", "grads"),
     "the mean over the pairs of (p - t) ** 2, as a Value"),
    ("SGD.zero_grad", "modules_zero_grad", ("SGD", [0.5, -1.5, 2.0], [3.0, -2.0, 0.5], [1.0, 2.0, -1.0]),
     ("grads", "data", "after"), "for p in self.params: p.grad = 0.0"),
    ("SGD.step", "modules_sgd", ([1.0, -2.0, 0.5], [[0.5, -1.0, 2.0], [1.0, 1.0, 1.0]], 0.2), ("steps",),
     "for p in self.params: p.data -= self.lr * p.grad"),
    ("train", "modules_train", ([0.5, -0.3, 0.1], XOR_X, XOR_Y, 0.2, 2), ("losses", "final"),
     "each step: preds, loss = mse_loss(preds, ys), optimizer.zero_grad(), loss.backward(), optimizer.step(); "
     "return each loss.data"),
)
"""Each part of ``Sequential(Linear(2, 4), Tanh(), Linear(4, 1))`` trained by ``train`` with ``SGD`` and
``mse_loss``, in the order the network uses them: the method, the probe and arguments its own tests use, the fields
of the answer they compare, and a hint about it."""


def difference(got: Any, want: Any, where: str = "") -> str | None:
    """Where ``got`` first differs from ``want`` (numbers within a relative 1e-6), as ``"where: got, expected"``."""
    if isinstance(want, float) and not isinstance(want, bool):
        return None if close(got, want, 1e-6, 1e-9) else f"{where}: {show(got)}, expected {show(want)}"
    if isinstance(want, Mapping) and isinstance(got, Mapping):
        if set(got) != set(want):
            return f"{where or 'the answer'}: {show(got)}, expected {show(want)}"
        return next((d for k in want if (d := difference(got[k], want[k], f"{where}.{k}" if where else k))), None)
    if isinstance(want, Sequence) and not isinstance(want, str) and isinstance(got, Sequence) and not isinstance(got, str):
        if len(got) != len(want):
            return f"{where}: {len(got)} items, expected {len(want)}"
        return next((d for k, (g, w) in enumerate(zip(got, want)) if (d := difference(g, w, f"{where}[{k}]"))), None)
    return None if got == want else f"{where}: {show(got)}, expected {show(want)}"


def wrong_alone(student: Callable[..., Any], reference: Callable[..., Any]) -> tuple[str, str, str] | None:
    """The first part of :data:`PARTS` that is wrong measured alone: its method, what it got wrong and its hint."""
    for method, probe, args, fields, hint in PARTS:
        try:
            got = student(probe, *args)
        except StudentFault as fault:
            if fault.kind in NOT_RUN_KINDS:
                return None
            return method, fault.message, hint
        except Failure as failure:
            return method, failure.message, hint
        want = reference(probe, *args)
        found = difference({f: got[f] for f in fields}, {f: want[f] for f in fields})
        if found is not None:
            return method, found, hint
    return None


def named_alone(failure: Failure, student: Callable[..., Any], reference: Callable[..., Any]) -> Failure:
    """``failure`` of the whole network, reported under the part that is wrong alone (:func:`wrong_alone`), or under
    the whole network (:data:`WHOLE`) when every part is right alone."""
    if isinstance(failure, StudentFault) and failure.kind in NOT_RUN_KINDS:
        return failure
    found = wrong_alone(student, reference)
    if found is not None:
        method, what, hint = found
        return Failure(f"{failure.message}\n  measured alone, {method} is wrong: {what}", method, hint)
    return Failure(f"the whole network is wrong: {failure.message}\n  measured alone, each of its parts (Linear, "
                   "Tanh, Sequential, SGD, mse_loss, train) gives the reference's answers, so the fault shows only "
                   "when they run together", WHOLE,
                   "every part passes its own tests: train the handout's XOR network yourself (plain numbers as "
                   "inputs, as train gives them) and follow the first step by hand")
