"""Judge-side helpers of assignment ``classifier``: model specs, and comparisons that say what went wrong.

Nothing here computes what a graded function computes: expected values come
from the reference (hidden tests) or are written out in the public tests.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from assignments.classifier.probes import parameter_count, shape
from assignments.shared.checks import graphs
from assignments.shared.checks.models import own_engine_first as shared_engine_first
from grader.testing import close

NETWORK = ("Neuron.__init__", "Neuron.__call__", "Neuron.parameters", "Layer.__init__", "Layer.__call__",
           "Layer.parameters", "MLP.__init__", "MLP.__call__", "MLP.parameters")
"""Every method of the network: what the tests of a whole network are about."""


def model_spec(kind: str, *args: Any, weights: Sequence[float] | None = None, seed: int = 0, engine: str = "grader",
               build: str = "student") -> dict[str, Any]:
    """A model spec for the ``classifier_*`` probes, e.g. ``model_spec("MLP", 2, [8, 3], None, weights=[...])``.

    Args:
        kind: ``"Neuron"``, ``"Layer"`` or ``"MLP"``.
        *args: The constructor's arguments: ``nin, activation``; ``nin, nout, activation``; ``nin, layer_sizes,
            activations``.
        weights: One float per weight and bias in the documented order, or None (the student's own).
        seed: ``random.seed`` before the model is built.
        engine: ``"grader"`` (the grader's ``Value``) or ``"student"``.
        build: ``"student"`` (the student's constructors) or ``"parts"`` (the student's object holding the
            grader's parts: only the method under test runs).
    """
    return {"kind": kind, "args": list(args), "seed": seed, "engine": engine, "build": build,
            "weights": None if weights is None else [float(w) for w in weights]}


def parts(kind: str, *args: Any, weights: Sequence[float]) -> dict[str, Any]:
    """A spec whose parts are the grader's, pinned to ``weights``."""
    return model_spec(kind, *args, weights=weights, build="parts")


def model_call(spec: dict[str, Any]) -> str:
    """How the student would write the spec's construction, e.g. ``MLP(2, [8, 3])``."""
    args = list(spec["args"])
    while spec["kind"] == "MLP" and len(args) > 2 and args[-1] is None:
        args.pop()
    return f"{spec['kind']}({', '.join(map(repr, args))})"


def count_of(spec: dict[str, Any]) -> int:
    """Number of weights and biases of the spec's model."""
    return parameter_count(spec)


def layer_shapes(spec: dict[str, Any]) -> list[tuple[int, int, str]]:
    """``(nin, nout, activation)`` of each layer of the spec's model (a Neuron is a layer of one)."""
    return shape(spec)


def activations(spec: dict[str, Any]) -> list[str]:
    """The activation of each layer of the spec's model (the handout's defaults filled in)."""
    return [act for _, _, act in shape(spec)]


ENGINE_FIRST: tuple[tuple[str, dict[str, Any]], ...] = (
    ("Value.__add__", graphs.binary("add", 0.5, -1.5)),
    ("Value.__radd__", graphs.binary("add", graphs.const(1.0), 0.5)),
    ("Value.__mul__", graphs.binary("mul", 0.5, -1.5)),
    ("Value.__rmul__", graphs.binary("mul", graphs.const(2.0), 0.5)),
    ("Value.__neg__", graphs.unary("neg", 0.5)),
    ("Value.__sub__", graphs.binary("sub", 0.5, -1.5)),
    ("Value.__pow__", graphs.binary("pow", 0.5, graphs.const(2))),
    ("Value.__truediv__", graphs.binary("truediv", 0.5, -1.5)),
    ("Value.exp", graphs.unary("exp", 0.5)),
    ("Value.log", graphs.unary("log", 0.5)),
    ("Value.tanh", graphs.unary("tanh", 0.5)),
    ("Value.relu", graphs.unary("relu", 0.5)),
    ("Value.sigmoid", graphs.unary("sigmoid", 0.5)),
    ("Value.backward", graphs.spec([0.5, -1.5], [["mul", 0, 1], ["add", 2, 0], ["exp", 3]], built=True)),
)
"""The engine operations a classifier computes with, each on one small graph: what is tried first when a test fails
in a self-check, which runs the classifier on the student's own ``Value``."""


def own_engine_first(student: Callable[..., Any]) -> Callable[[], tuple[str, str] | None] | None:
    """For ``check.first``: in a self-check (no grader parts), the first engine operation of :data:`ENGINE_FIRST`
    that is wrong, so that a classifier test's failure names the engine method to fix first; None in hidden grading,
    where the classifier runs on the grader's own ``Value``."""
    return shared_engine_first(student, operations=ENGINE_FIRST, what="your classifier")


def train_hint(got: dict[str, Any], losses: Sequence[float], steps: int, lr: float, points: int) -> str:
    """A hint about ``train`` from what its probe saw: the calls it made (``zero_grad``, ``backward``,
    ``sgd_step``) and its first loss against a correct loop's (``losses``). Only the judge's own texts."""
    events, calls = got["events"], got["calls"]
    if calls == 0:
        return ("train must compute each point's loss with cross_entropy(model(x), y): this test puts a stand-in loss "
                "in place of cross_entropy, and your train never called it")
    if "zero_grad" not in events:
        return "call zero_grad(params) in every step, before loss.backward(): gradients add up across steps otherwise"
    first = [e for e in events if e in ("zero_grad", "backward")][:2]
    if first == ["backward", "zero_grad"]:
        return "zero_grad between backward() and sgd_step wipes the gradients before the step: call it before backward()"
    if any(e.startswith("sgd_step") and e != f"sgd_step({lr!r})" for e in events):
        return "call sgd_step(params, lr) with the lr train was given: sgd_step already steps against the gradient"
    mine = got["losses"].get("list") or [None]
    if losses and isinstance(mine[0], float) and close(mine[0], points * losses[0], 1e-6):
        return f"the loss is the mean of the points' losses: divide their sum by len(xs) ({points} here)"
    if calls != steps * points:
        return f"each step computes the loss of every point once ({points} calls per step)"
    return ("each step: loss = the mean of cross_entropy(model(x), y) over the points, zero_grad(params), "
            "loss.backward(), sgd_step(params, lr); return each step's loss.data")

