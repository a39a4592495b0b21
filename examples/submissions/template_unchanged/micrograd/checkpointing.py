"""Gradient checkpointing on a long chain of layers: trade compute for memory in the backward pass.

A plain backward pass keeps every activation of the forward pass alive until
``backward()`` has used it: memory grows with the depth ``n`` of the network.
Gradient checkpointing (Chen, Xu, Zhang and Guestrin, "Training Deep Nets with
Sublinear Memory Cost", 2016, arXiv:1604.06174) keeps only every ``every``-th
activation, as a plain number (a *checkpoint*), and discards the graph. The
backward pass then runs segment by segment, from the last to the first: it
recomputes the segment's forward pass from its checkpoint (a fresh leaf), runs
``backward()`` on that small graph seeded with the gradient flowing in from the
segment after it (the *upstream gradient*), and hands the gradient of the
segment's input on to the segment before it.

With ``n`` layers and a checkpoint every ``every`` layers the pass holds at most
``ceil(n / every)`` checkpoints plus one segment's ``every`` activations, and
evaluates every layer twice (once forward, once recomputed): about ``2 sqrt(n)``
activations for one extra forward pass when ``every`` is near ``sqrt(n)``.

Here a *layer* is any callable mapping one ``Value`` (or a float) to one
``Value`` built from ``Value`` operations, with its own parameters (the course's
chain: ``tanh(w * x + b)``, :func:`make_chain`).
"""

from __future__ import annotations

import math
import random
from typing import Callable, Sequence, Union

from .engine import Value

Layer = Callable[[Union[Value, float]], Value]
"""One layer of the chain: a Value (or a float) in, a Value out."""


class TanhUnit:
    """The course's layer: ``tanh(w * x + b)`` with its own weight ``w`` and bias ``b`` (given code)."""

    def __init__(self, w: float, b: float) -> None:
        self.w, self.b = Value(w), Value(b)

    def __call__(self, x: Union[Value, float]) -> Value:
        return (self.w * x + self.b).tanh()

    def parameters(self) -> list[Value]:
        return [self.w, self.b]


def make_chain(n: int, seed: int = 0) -> list[TanhUnit]:
    """``n`` layers with weights and biases drawn from ``random.Random(seed)`` (given code, for trying things out).

    The weights are drawn from ``uniform(0.5, 1.5)`` and the biases from
    ``uniform(-0.5, 0.5)``, so that the signal neither dies nor saturates
    along a chain of a few dozen layers.
    """
    rng = random.Random(seed)
    return [TanhUnit(rng.uniform(0.5, 1.5), rng.uniform(-0.5, 0.5)) for _ in range(n)]


def forward(layers: Sequence[Layer], x: Union[Value, float]) -> Value:
    """The plain forward pass: each layer applied to the previous one's output; the whole graph stays alive."""
    raise NotImplementedError("Task 10.1: implement forward")


def checkpointed_forward(layers: Sequence[Layer], x: float, every: int) -> tuple[float, list[float]]:
    """The forward pass keeping only checkpoints: no graph outlives its layer.

    Args:
        layers: The chain.
        x: The input, a number.
        every: The distance between checkpoints, in layers (at least 1).

    Returns:
        ``(y, checkpoints)``: the output's data, and the input of layer ``0``,
        ``every``, ``2 * every``, ... as numbers (``ceil(n / every)`` of them).
    """
    raise NotImplementedError("Task 10.2: implement checkpointed_forward")


def checkpointed_backward(layers: Sequence[Layer], checkpoints: Sequence[float], every: int,
                          upstream: float = 1.0) -> float:
    """The backward pass, segment by segment from the last: recompute, then ``backward()`` on the segment alone.

    Segment ``j`` is ``layers[j * every:(j + 1) * every]``, starting from a
    fresh leaf ``Value(checkpoints[j])``. Its output is multiplied by the
    upstream gradient ``g`` before ``backward()`` (which seeds its root with
    1), so every node gets ``g`` times its local derivative; the leaf's
    ``grad`` is the next ``g``. The layers' parameters accumulate their
    gradients (``+=``), as in a plain ``backward()``.

    Args:
        layers: The chain (the same as the forward pass's).
        checkpoints: What :func:`checkpointed_forward` returned.
        every: The distance between checkpoints, in layers.
        upstream: The gradient of the loss with respect to the chain's output.

    Returns:
        The gradient of the loss with respect to the chain's input.
    """
    raise NotImplementedError("Task 10.3: implement checkpointed_backward")


def cost(n: int, every: int) -> tuple[int, int]:
    """The cost of :func:`checkpointed_forward` then :func:`checkpointed_backward` on ``n`` layers.

    Returns:
        ``(held, evaluations)``: the most activations alive at once (the
        checkpoints plus the largest segment's activations) and how many times
        a layer is evaluated in the two passes together.
    """
    raise NotImplementedError("Task 10.4: implement cost")


def best_every(n: int) -> int:
    """The distance between checkpoints, from 1 to ``n``, with the fewest activations held (the smallest on a tie)."""
    raise NotImplementedError("Task 10.4: implement best_every")
