"""Judge-side helpers of assignment ``modules``: comparisons that say what went wrong, and hints.

Nothing here computes what a graded method computes: expected values come from the
reference (hidden tests) or are written out with ``math`` in the public tests.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from assignments.shared.checks import graphs
from assignments.shared.checks.models import own_engine_first as shared_engine_first
from assignments.shared.checks.outputs import show_list, values
from grader.testing import Failure, close

EVERY_METHOD = ("Module.zero_grad", "Linear.__init__", "Linear.forward", "Linear.parameters", "Tanh.forward",
                "ReLU.forward", "Sequential.__init__", "Sequential.forward", "Sequential.parameters", "SGD.__init__",
                "SGD.zero_grad", "SGD.step", "mse_loss", "train")
"""Every graded method: what the test of the whole network is about."""

ENGINE_FIRST: tuple[tuple[str, dict[str, Any]], ...] = (
    ("Value.__add__", graphs.binary("add", 0.5, -1.5)),
    ("Value.__radd__", graphs.binary("add", graphs.const(1.0), 0.5)),
    ("Value.__mul__", graphs.binary("mul", 0.5, -1.5)),
    ("Value.__rmul__", graphs.binary("mul", graphs.const(2.0), 0.5)),
    ("Value.__sub__", graphs.binary("sub", 0.5, -1.5)),
    ("Value.__pow__", graphs.binary("pow", 0.5, graphs.const(2))),
    ("Value.tanh", graphs.unary("tanh", 0.5)),
    ("Value.relu", graphs.unary("relu", 0.5)),
    ("Value.backward", graphs.spec([0.5, -1.5], [["mul", 0, 1], ["add", 2, 0], ["tanh", 3]], built=True)),
)
"""The engine operations the modules compute with, each on one small graph: what is tried first when a test fails
in a self-check, which runs the modules on the student's own ``Value``."""


def own_engine_first(student: Callable[..., Any]) -> Callable[[], tuple[str, str] | None] | None:
    """For ``check.first``: in a self-check, the first engine operation of :data:`ENGINE_FIRST` that is wrong."""
    return shared_engine_first(student, operations=ENGINE_FIRST, what="your modules")


def linear_weights(nin: int, nout: int, rng: Any) -> list[float]:
    """Pinned weights of ``Linear(nin, nout)`` in the documented order (rows, then bias), 4 decimals."""
    return [round(rng.uniform(-1, 1), 4) for _ in range((nin + 1) * nout)]


def describe_weight(nin: int, nout: int, k: int) -> str:
    """The name of weight ``k`` of ``Linear(nin, nout)`` in the documented order."""
    if k < nin * nout:
        return f"weight[{k // nin}][{k % nin}]"
    return f"bias[{k - nin * nout}]"


def compare_weights(got: Sequence[Any], want: Sequence[float], nin: int, nout: int, what: str,
                    rel: float = 1e-7) -> None:
    """Compare the weights (or their gradients) of ``Linear(nin, nout)``, naming the first that differs."""
    for k, (g, w) in enumerate(zip(got, want, strict=True)):
        if not close(g, float(w), rel, 1e-10):
            raise Failure(f"{what} of {describe_weight(nin, nout, k)} was {g!r}, expected {w!r}"
                          if isinstance(g, float) else f"{what} of {describe_weight(nin, nout, k)} was not a number")


def outputs_of(got: dict[str, Any], what: str, length: int) -> list[Any]:
    """The numbers of a module's output, which must be a list of ``length`` Values (also for one output)."""
    if "value" in got:
        raise Failure(f"{what} returned a single Value, expected a list of {length}: a module always returns a list "
                      "(also Linear(n, 1)), so that the next module can take it")
    return values(got, what, length)


def train_hint(got: dict[str, Any], steps: int, points: int) -> str:
    """A hint about ``train`` from what its probe saw (the optimiser's calls, the loss's and the model's calls)."""
    events, calls = got["events"], got["calls"]
    if calls == 0:
        return ("compute each step's loss with mse_loss(preds, ys): this test puts a stand-in loss in place of "
                "mse_loss, and your train never called it")
    if got["model_calls"] != steps * points:
        return f"each step calls the model once per point ({points} calls per step), and takes model(x)[0]"
    if "zero_grad" not in events:
        return "call optimizer.zero_grad() in every step, before loss.backward(): gradients add up across steps"
    first = [e for e in events if e in ("zero_grad", "backward")][:2]
    if first == ["backward", "zero_grad"]:
        return "optimizer.zero_grad() after backward() wipes the gradients before the step: call it before backward()"
    if "step" not in events:
        return "call optimizer.step() in every step, after loss.backward()"
    return ("each step: preds = [model(x)[0] for x in xs], loss = mse_loss(preds, ys), optimizer.zero_grad(), "
            "loss.backward(), optimizer.step(); return each step's loss.data")


def float_losses(got: dict[str, Any], what: str, steps: int) -> list[float]:
    """The losses ``train`` returned: ``steps`` floats."""
    losses = values(got["losses"], what, steps)
    if not all(isinstance(v, float) for v in losses):
        raise Failure(f"{what} returned {show_list(losses)}, expected floats: each loss's loss.data")
    return losses

