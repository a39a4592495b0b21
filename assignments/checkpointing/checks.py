"""Judge-side helpers of assignment ``checkpointing``: the chain's numbers with ``math``, the counts of a run, and
comparisons that say what went wrong.

The chain is the handout's (``tanh(w * x + b)`` per layer); what is computed here with ``math`` is the plain forward
pass and its derivatives, never the checkpointed algorithm the student writes.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Any

from assignments.shared.checks.outputs import compare_numbers
from grader.testing import Failure, close, show

PASSES = ("checkpointed_forward", "checkpointed_backward")


def chain_weights(n: int, seed: Any) -> list[float]:
    """``w, b`` of each of ``n`` layers: ``w`` in [0.5, 1.5], ``b`` in [-0.5, 0.5] (the handout's ``make_chain``)."""
    rng = random.Random(seed)
    return [round(v, 4) for _ in range(n) for v in (rng.uniform(0.5, 1.5), rng.uniform(-0.5, 0.5))]


def activations(weights: Sequence[float], x: float) -> list[float]:
    """The input of each layer, then the output: ``n + 1`` numbers."""
    out = [x]
    for i in range(len(weights) // 2):
        out.append(math.tanh(weights[2 * i] * out[-1] + weights[2 * i + 1]))
    return out


def plain_gradients(weights: Sequence[float], x: float, upstream: float = 1.0) -> tuple[float, list[float]]:
    """The gradient of ``upstream * output`` with respect to the input, and to each layer's ``w`` and ``b``."""
    a = activations(weights, x)
    grads = [0.0] * len(weights)
    g = upstream
    for i in reversed(range(len(weights) // 2)):
        local = 1.0 - a[i + 1] ** 2
        grads[2 * i], grads[2 * i + 1] = g * local * a[i], g * local
        g = g * local * weights[2 * i]
    return g, grads


def counts_of(got: dict[str, Any], layers: int) -> dict[str, int]:
    """What the run made the chain of ``layers`` layers do: counted by the judge in hidden grading, by the probe in a
    self-check.

    Raises:
        Failure: In hidden grading, when the judge evaluated fewer layers than the chain has: the run did not go
            through the grader's layers (its gradients and the worker's counts are then nobody's measurement).
    """
    judged = got.get("judged")
    source = judged if judged is not None else got["counted"]
    if source is None:
        raise Failure("the grader counted nothing for this run (a grader error)")
    counts = {key: source[key] for key in ("forward_passes", "backward_passes", "most_activations",
                                           "activations_reached", "most_alive")}
    if judged is not None and counts["forward_passes"] < layers:
        raise Failure(f"the grader's {layers} layers were evaluated {counts['forward_passes']} times: the pass must "
                      "call the layers it is given, each at least once")
    return counts


def compare(got: Any, want: float, what: str, rel: float = 1e-9) -> None:
    """One number against its expected value."""
    compare_numbers([got], [want], what, label="", rel=rel, abs_tol=1e-12)


def compare_grads(got: Sequence[Any], want: Sequence[float], what: str, rel: float = 1e-9) -> None:
    """Each layer's ``w`` and ``b`` gradients, naming the first that differs."""
    for k, (g, w) in enumerate(zip(got, want, strict=True)):
        if not close(g, w, rel, 1e-12):
            raise Failure(f"{what}: layer {k // 2}'s {'wb'[k % 2]}.grad was {show(g)}, expected {show(w)}")


def reached_every_layer(counts: dict[str, int], layers: int) -> None:
    """Every layer's gradient came from a ``backward()`` through its activation: the activations the backward passes
    reached add up to at least the chain's layers.

    Raises:
        Failure: When they do not (a gradient written by hand, or a layer no backward pass went through).
    """
    if counts["activations_reached"] < layers:
        raise Failure(f"the backward passes went through {counts['activations_reached']} layer activations of the "
                      f"{layers} layers: each layer's gradient comes from a backward() through its own activation")


def held(counts: dict[str, int]) -> int:
    """The most activations alive at once the counts show: one checkpoint per segment's backward pass, plus the most
    layer outputs alive at one moment (``most_alive``: the largest segment's, for the handout's passes)."""
    return counts["backward_passes"] + counts["most_alive"]


def grads_of(got: dict[str, Any]) -> list[Any]:
    """Each layer's ``w`` and ``b`` gradient after the run: in hidden grading as the judge's own backward passes gave
    them (``weight_grads``: a gradient written by hand in the worker changes nothing), in a self-check as the probe
    read them."""
    judged = got.get("judged")
    return judged["weight_grads"] if judged is not None else got["grads"]


def no_graph_outlives_its_layer(counts: dict[str, int], linked_inputs: int) -> None:
    """The checkpointed forward pass held one activation at a time: each layer ran on a fresh ``Value``.

    Args:
        counts: The run's counts (:func:`counts_of`).
        linked_inputs: The layers the probe saw run on a new node whose graph holds an earlier layer's output.

    Raises:
        Failure: When a layer ran on a ``Value`` that still holds the last one's graph (made from it, or the last
            output itself: more than one activation alive at once).
    """
    if linked_inputs:
        raise Failure(f"{linked_inputs} of the layers ran on a Value whose graph still holds an earlier layer's output "
                      "(made with it among its children), expected none: the whole graph stays alive. Run each layer "
                      "on a fresh Value of the last output's data, Value(h), with no children")
    if counts["most_alive"] > 1:
        raise Failure(f"the forward pass kept {counts['most_alive']} layer outputs alive at once, expected 1: run each "
                      "layer on a fresh Value of the last output's data, so that no graph outlives its layer")


def forward_within_the_cost_model(got: dict[str, Any], layers: int, every: int) -> None:
    """``checkpointed_forward``'s share of the cost model, from a run of it alone: each layer evaluated once, no
    ``backward()``, one activation alive at a time, and ``ceil(layers / every)`` checkpoints, each a plain number.

    Raises:
        Failure: Naming ``checkpointed_forward``, on the first that does not hold.
    """
    counts = counts_of(got, layers)
    if counts["forward_passes"] != layers or counts["backward_passes"]:
        raise Failure(f"the forward pass evaluated layers {counts['forward_passes']} times and ran backward() "
                      f"{counts['backward_passes']} times, expected each of the {layers} layers once and no "
                      "backward()")
    no_graph_outlives_its_layer(counts, got["linked_inputs"])
    kept, want = got["checkpoints"] or [], math.ceil(layers / every)
    if len(kept) != want:
        raise Failure(f"the forward pass kept {len(kept)} checkpoints, expected ceil({layers} / {every}) = {want}")
    for k, c in enumerate(kept):
        if not isinstance(c, float):
            raise Failure(f"checkpoint {k} is {show(c)}: a checkpoint is a plain number (the data), which holds no "
                          "graph")


def backward_within_the_cost_model(got: dict[str, Any], dx: float, grads: Sequence[float], layers: int,
                                   bound: float) -> None:
    """``checkpointed_backward``'s share of the cost model, from a run of it alone on the grader's checkpoints: the
    plain gradients (``dx`` for the input, ``grads`` for each layer's ``w`` and ``b``), each from a ``backward()``
    through its layer, with at most ``bound`` activations held (a checkpoint per ``backward()`` plus the most alive
    at once) and each layer recomputed once.

    Raises:
        Failure: On the first that does not hold.
    """
    compare(got["input_grad"], dx, "the gradient of the input", rel=1e-7)
    compare_grads(grads_of(got), grads, "after checkpointed_backward", rel=1e-7)
    counts = counts_of(got, layers)
    reached_every_layer(counts, layers)
    if not counts["backward_passes"] or held(counts) > bound or counts["forward_passes"] > layers:
        raise Failure(f"the backward pass held up to {held(counts)} activations ({counts['backward_passes']} "
                      f"checkpoints, up to {counts['most_alive']} layer outputs alive at once) and evaluated layers "
                      f"{counts['forward_passes']} times, expected at most {bound:g} and {layers} (each layer "
                      "recomputed once)")


def returned(got: dict[str, Any]) -> str:
    """What ``cost`` or ``best_every`` returned (a ``checkpointing_cost`` answer), as the student wrote it: an int as
    an int (``8``), a float as a float (``8.0``); several numbers as a tuple ``(8, 32)``."""
    shown = [str(int(v)) if is_int and isinstance(v, float) and v.is_integer() else show(v)
             for v, is_int in zip(got["result"], got["ints"])]
    return shown[0] if len(shown) == 1 else f"({', '.join(shown)})" if shown else "nothing"
