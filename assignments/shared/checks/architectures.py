"""Which network a student's ``MLP`` really is, read from what it computed, and training replayed on that network.

The handout's ``MLP(2, [4, 4, 1])`` has tanh in its hidden layers and a
linear output layer. A student's network may use another activation (ReLU
neurons, a tanh output) and still learn XOR with the handout's training
loop. The XOR tests check that it learns, so they must replay the training
of the student's own network, not of the handout's: :func:`identify` finds
the activations, one per layer among :data:`ACTIVATIONS`, that give the
student's first loss from the student's initial weights, and :func:`replay`
trains that network with the grader's own ``Value`` (the loop of the
``nn_train`` probe: full-batch SGD on the mean squared error). The
constructor tests charge an architecture that is not the handout's; the
XOR tests do not charge it again when the network learns XOR (a seed on
which it does not is accepted, as for the handout's network, when a correct
engine fails from the same weights too, but never for a network with no
nonlinear hidden layer: a linear function cannot separate XOR).

Weights are in micrograd's documented order: layer by layer, neuron by
neuron, each neuron's weights then its bias.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from assignments.shared.probes.engine_probes import FORWARD

ACTIVATIONS: dict[str, Callable[[float], float]] = {
    "tanh": FORWARD["tanh"],
    "linear": lambda a: a,
    "relu": FORWARD["relu"],
    "sigmoid": FORWARD["sigmoid"],
}
"""The activations a layer may use, as plain-float functions (the probes' own, :data:`FORWARD`)."""

Architecture = tuple[str, ...]
"""One activation name per layer, e.g. ``("tanh", "tanh", "linear")``."""


def handout(nouts: Sequence[int]) -> Architecture:
    """The handout's activations: tanh in every layer but the last, which is linear."""
    return tuple("tanh" for _ in nouts[:-1]) + ("linear",)


def layer_outputs(shape: Sequence[tuple[int, int, str]], weights: Sequence[float], x: Sequence[float]) -> list[float]:
    """The outputs of the last layer of ``shape`` (``(nin, nout, activation)`` per layer) with ``weights`` on ``x``,
    with plain floats: each neuron computes ``act(w . x + b)``.

    Raises:
        ValueError: If ``weights`` is not one float per parameter.
    """
    if len(weights) != sum((nin + 1) * nout for nin, nout, _ in shape) or not all(type(w) is float for w in weights):
        raise ValueError("one float per parameter is needed")
    values, k = [float(v) for v in x], 0
    for nin, nout, act in shape:
        outs = []
        for _ in range(nout):
            s = sum((w * v for w, v in zip(weights[k:k + nin], values)), 0.0) + weights[k + nin]
            outs.append(ACTIVATIONS[act](s))
            k += nin + 1
        values = outs
    return values


def forward(nin: int, nouts: Sequence[int], acts: Architecture, weights: Sequence[float], x: Sequence[float]) -> float:
    """The single output of the network with ``acts`` and ``weights`` on ``x``, with plain floats.

    Raises:
        ValueError: If ``weights`` is not one float per parameter.
    """
    sizes = [nin, *nouts]
    return layer_outputs([(sizes[i], n, acts[i]) for i, n in enumerate(nouts)], weights, x)[0]


def mse(preds: Sequence[float], ys: Sequence[float]) -> float:
    """The mean squared error, as the ``nn_train`` probe computes it."""
    return sum((p - y) ** 2 for p, y in zip(preds, ys)) * (1.0 / len(ys))


def identify(nin: int, nouts: Sequence[int], initial: Sequence[float], xs: Sequence[Sequence[float]],
             ys: Sequence[float], first_loss: object, rel: float = 1e-9) -> list[Architecture]:
    """Every architecture (one activation per layer) whose loss from ``initial`` is ``first_loss``: the handout's
    first, then those with one activation in all hidden layers, then the others, each group in a fixed order.
    Several may fit one loss (ReLU and linear agree where every input is positive). A ``first_loss`` that is not a
    float (a student's answer: a non-number's marker) fits none.
    """
    if type(first_loss) is not float:
        return []
    names = list(ACTIVATIONS)
    found: list[Architecture] = []
    combos: list[Architecture] = [()]
    for _ in nouts:
        combos = [c + (a,) for c in combos for a in names]
    combos.sort(key=lambda c: (c != handout(nouts), len(set(c[:-1]))))  # then one activation in the hidden layers
    for acts in combos:
        try:
            loss = mse([forward(nin, nouts, acts, initial, x) for x in xs], ys)
        except (OverflowError, ValueError):
            continue
        if math.isclose(loss, first_loss, rel_tol=rel, abs_tol=1e-12):
            found.append(acts)
    return found


def replay(value_cls: type, nin: int, nouts: Sequence[int], acts: Architecture, initial: Sequence[float],
           xs: Sequence[Sequence[float]], ys: Sequence[float], lr: float, steps: int,
           margin: float | None) -> dict[str, Any]:
    """Train the network with ``acts`` from ``initial`` on ``value_cls`` (the grader's ``Value``): what ``nn_train``
    answers for a correct network of that architecture (``initial``, ``losses``, ``steps``, ``preds``, ``final``)."""
    params = [value_cls(float(w)) for w in initial]
    sizes = [nin, *nouts]

    def model(x: Sequence[float]) -> Any:
        values: list[Any] = list(x)
        k = 0
        for i, nout in enumerate(nouts):
            outs = []
            for _ in range(nout):
                s = sum((w * v for w, v in zip(params[k:k + sizes[i]], values)), params[k + sizes[i]])
                outs.append(s if acts[i] == "linear" else getattr(s, acts[i])())
                k += sizes[i] + 1
            values = outs
        return values[0]

    losses, step = [], 0
    while True:
        preds = [model(x) for x in xs]
        values = [p.data for p in preds]
        loss = sum((p - y) ** 2 for p, y in zip(preds, ys)) * (1.0 / len(ys))
        losses.append(loss.data)
        if margin is not None and all(v * y > margin for v, y in zip(values, ys)):
            break
        if step == steps:
            break
        for p in params:
            p.grad = 0.0
        loss.backward()
        for p in params:
            p.data -= lr * p.grad
        step += 1
    return {"initial": list(initial), "losses": losses, "steps": step, "preds": values,
            "final": [p.data for p in params]}


def describe(acts: Architecture) -> str:
    """``("tanh", "tanh", "linear")`` as ``tanh, tanh, linear``."""
    return ", ".join(acts)


def difference(acts: Architecture, nouts: Sequence[int]) -> str:
    """How ``acts`` differs from the handout's network, layer by layer, e.g. "layer 3 uses tanh; the handout's
    output layer is linear"."""
    want = handout(nouts)
    parts = []
    for i, (got, exp) in enumerate(zip(acts, want), start=1):
        if got != exp:
            which = "output layer" if i == len(want) else f"layer {i}"
            parts.append(f"layer {i} uses {got}; the handout's {which} is {exp}")
    return "; ".join(parts) or "the handout's network"
