"""Graph specs for tests: builders, a plain-float evaluator and finite differences.

Specs are the plain-data expression graphs executed by the ``graph`` probe
(see :mod:`assignments.shared.probes.engine_probes` for the format). The evaluator here computes
forward values with ``math`` only, so public tests (which run without the
reference solution) can check gradients against central finite differences.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from assignments.shared.probes.engine_probes import FORWARD, forward_value, probe_made
from grader.sandbox import own_parts


def const(x: float) -> dict[str, float]:
    """A plain-number operand (exercises wrapping and reflected operations)."""
    return {"const": x}


def spec(
    leaves: Sequence[float],
    nodes: Sequence[Sequence[Any]],
    *,
    mode: str = "backward",
    seed: float = 1.0,
    backward: Sequence[int] = (-1,),
    built: bool | Sequence[int] = False,
) -> dict[str, Any]:
    """Build a graph spec.

    Args:
        leaves: Values of the leaf nodes x0, x1, ...
        nodes: ``[op, operand, ...]`` per node; an operand is a node index or :func:`const`.
        mode: ``"local"`` (seed the last node's grad and run the closures) or
            ``"backward"`` (call ``backward()`` on each of ``backward``).
        seed: The upstream gradient set on the output in local mode.
        backward: Node indices to call ``backward()`` on, in order.
        built: ``True``: the probe makes every node itself (the constructor and its own ``_backward``
            closures), so only the student's ``backward()`` is exercised, none of their operations; a list
            of node indices: the probe makes those nodes (e.g. the ``+`` joining two uses of an input).
    """
    out: dict[str, Any] = {"leaves": list(leaves), "nodes": [list(n) for n in nodes], "mode": mode}
    if mode == "local":
        out["seed"] = seed
        out["output"] = -1
    else:
        out["backward"] = list(backward)
    if built is True:
        out["build"] = "probe"
    elif built:
        out["build"] = list(built)
    return out


def built(graph: dict[str, Any]) -> dict[str, Any]:
    """``graph`` with its nodes made by the probe (see :func:`spec`'s ``built``)."""
    return {**graph, "build": "probe"}


def binary(op: str, a: Any, b: Any, *, seed: float = 1.0) -> dict[str, Any]:
    """``a op b`` in local mode; ``a``/``b`` are numbers (leaves) or :func:`const` operands."""
    leaves: list[float] = []
    operands: list[Any] = []
    for x in (a, b):
        if isinstance(x, dict):
            operands.append(x)
        else:
            operands.append(len(leaves))
            leaves.append(x)
    return spec(leaves, [[op, *operands]], mode="local", seed=seed)


def unary(op: str, a: float, *, seed: float = 1.0) -> dict[str, Any]:
    """``op(a)`` in local mode."""
    return spec([a], [[op, 0]], mode="local", seed=seed)


# --- plain-float evaluation -------------------------------------------------

FUNCTIONS: dict[str, Callable[..., float]] = FORWARD
"""What each operation of the probes' vocabulary computes on plain floats (the probe's own table)."""


def evaluate(graph: dict[str, Any], leaves: Sequence[float] | None = None) -> list[float]:
    """Forward values of every node, computed with plain floats.

    Raises:
        ValueError, ZeroDivisionError, OverflowError: Outside an operation's domain (a ValueError also for a
            complex result, ``(-2.0) ** 0.5``: a graph a student's answer describes may hold one).
    """
    values = [float(x) for x in (graph["leaves"] if leaves is None else leaves)]
    for op, *operands in graph["nodes"]:
        args = [o["const"] if isinstance(o, dict) else values[o] for o in operands]
        value = FUNCTIONS[op](*args)
        if isinstance(value, complex):
            raise ValueError(f"{op} of {args} is not a real number")
        values.append(float(value))
    return values


def output_index(graph: dict[str, Any]) -> int:
    """Index of the output node (the last node)."""
    return len(graph["leaves"]) + len(graph["nodes"]) - 1


def central_difference(graph: dict[str, Any], leaf: int, h: float = 1e-6) -> float:
    """d(output)/d(leaf) by the central finite difference (f(x+h) - f(x-h)) / 2h.

    ``h`` is scaled by ``max(1, |x|)``; the truncation error is O(h**2).
    """
    xs = [float(x) for x in graph["leaves"]]
    step = h * max(1.0, abs(xs[leaf]))
    out = output_index(graph)
    up, down = list(xs), list(xs)
    up[leaf] += step
    down[leaf] -= step
    return (evaluate(graph, up)[out] - evaluate(graph, down)[out]) / (2 * step)


def expected_from_math(graph: dict[str, Any]) -> dict[str, list[float]]:
    """A ``graph``-probe-shaped result: exact forward values and finite-difference
    gradients of the output w.r.t. each leaf (other nodes' grads are NaN).

    Only meaningful for single-output graphs (``local`` mode with seed 1, or
    ``backward`` on the last node).
    """
    data = evaluate(graph)
    seed = graph.get("seed", 1.0) if graph.get("mode") == "local" else 1.0
    grads = [seed * central_difference(graph, i) for i in range(len(graph["leaves"]))]
    grads += [math.nan] * (len(data) - len(grads))
    return {"data": data, "grad": grads}


# --- the local gradients of the nodes the probe makes -------------------------

def _difference(op: str, args: list[float], j: int) -> float:
    """d op / d operand ``j`` at ``args``: :func:`central_difference` on the one-node graph (NaN outside the
    operation's domain)."""
    try:
        return central_difference({"leaves": args, "nodes": [[op, *range(len(args))]]}, j)
    except (ArithmeticError, ValueError, TypeError):
        return math.nan


def local_gradients(op: str, args: list[float]) -> list[float]:
    """The local gradient of ``op`` w.r.t. each operand at ``args``.

    Exact where the grader's own parts are loaded (hidden grading:
    ``local_gradients`` of ``assignments/shared/parts``); else, in a
    self-check, which has no answer key, by central differences of the forward
    values, within about 1e-9 of the exact ones.
    """
    exact = own_parts.get("local_gradients")
    if exact is not None:
        return [float(g) for g in exact.local_gradients(op, args)[1]]
    return [_difference(op, args, j) for j in range(len(args))]


def complete_graph(args: list[Any]) -> list[Any]:
    """The judge's part of a ``graph`` request: the local gradients of the nodes the probe makes."""
    return [with_local_gradients(args[0]), *args[1:]] if args and isinstance(args[0], dict) else args


REQUESTS = {"graph": complete_graph}
"""The judge side of :mod:`assignments.shared.probes.engine_probes` (its ``JUDGE_SIDE``)."""


def with_local_gradients(graph: dict[str, Any]) -> dict[str, Any]:
    """``graph`` with ``"locals"``: the local gradients of each node the probe makes (``built``), which the probe
    needs for their ``_backward`` closures; unchanged when the probe makes no node or ``"locals"`` is there."""
    made = probe_made(graph)
    if not made or "locals" in graph:
        return graph
    values: list[float] = [float(x) for x in graph["leaves"]]
    given: dict[str, list[float | None]] = {}
    for i, (op, *operands) in enumerate(graph["nodes"], start=len(graph["leaves"])):
        args = [float(o["const"]) if isinstance(o, dict) else values[o] for o in operands]
        values.append(forward_value(op, args))  # the probe's own values for the nodes it makes
        if i in made:
            given[str(i)] = [g if math.isfinite(g) else None for g in local_gradients(op, args)]
    return {**graph, "locals": given}
