"""Hypothesis strategies shared by the assignments' tests (judge side).

:func:`expression_graphs` draws random expression graphs (graph specs, see
:mod:`assignments.shared.probes.engine_probes`) with reused nodes, built node by node while
their values are tracked with plain floats, so every graph stays inside each
operation's domain with a margin: no ``log`` of a value below 0.2, no
division by a value within 0.2 of zero, no ``relu`` within 0.05 of its kink,
no ``exp`` above 5, no value above 1e3 in magnitude. A drawn operation that
would leave the domain is replaced by ``add``, which keeps shrinking simple.
Central finite differences with ``h = 1e-6`` are then accurate to about 1e-8.
"""

from __future__ import annotations

import math
from typing import Any

from hypothesis import strategies as st

from assignments.shared.checks.graphs import FUNCTIONS, spec
from assignments.shared.probes.engine_probes import BINARY, UNARY

UNARY_OPS = tuple(UNARY)  # the probes' own vocabulary: ("neg", "tanh", "relu", "exp", "log", "sigmoid")
BINARY_OPS = tuple(BINARY)  # ("add", "sub", "mul", "truediv", "pow")
ALL_OPS = BINARY_OPS + UNARY_OPS
EXPONENTS = (2, 3, -1, 0.5, 1.5)


def in_domain(op: str, args: list[float]) -> bool:
    """Whether ``op`` applied to ``args`` stays safely inside its domain."""
    x = args[0]
    if op == "log":
        return x > 0.2
    if op == "relu":
        return abs(x) > 0.05
    if op == "exp":
        return x < 5.0
    if op == "truediv":
        return abs(args[1]) > 0.2
    if op == "pow":
        exponent = args[1]
        if isinstance(exponent, float) and not exponent.is_integer():
            return x > 0.2
        return exponent >= 0 or abs(x) > 0.2
    return True


@st.composite
def expression_graphs(
    draw: st.DrawFn, max_leaves: int = 3, max_nodes: int = 8, ops: tuple[str, ...] = ALL_OPS
) -> dict[str, Any]:
    """A random single-output graph spec in ``backward`` mode.

    Operands are drawn from every earlier node, so nodes are often reused
    (fan-out), and every node without a consumer is added into the output,
    so every node's gradient matters.
    """
    leaves = [draw(st.integers(-20, 20).map(lambda k: round(k / 10 + 0.05, 2))) for _ in range(draw(st.integers(1, max_leaves)))]
    values = [float(x) for x in leaves]
    nodes: list[list[Any]] = []
    used: set[int] = set()
    for _ in range(draw(st.integers(1, max_nodes))):
        op = draw(st.sampled_from(ops))
        a = draw(st.integers(0, len(values) - 1))
        if op in UNARY_OPS:
            operands: list[Any] = [a]
            args = [values[a]]
        elif op == "pow":
            exponent = draw(st.sampled_from(EXPONENTS))
            operands, args = [a, {"const": exponent}], [values[a], exponent]
        else:
            b = draw(st.integers(0, len(values) - 1))
            operands, args = [a, b], [values[a], values[b]]
        value = _apply(op, args) if in_domain(op, args) else None
        if value is None or not math.isfinite(value) or abs(value) > 1e3:
            b = operands[1] if len(operands) == 2 and not isinstance(operands[1], dict) else a
            op, operands = "add", [a, b]
            value = values[a] + values[b]
        nodes.append([op, *operands])
        used.update(o for o in operands if isinstance(o, int))
        values.append(value)
    sinks = [i for i in range(len(leaves), len(values)) if i not in used]
    out = sinks[0]
    for s in sinks[1:]:
        nodes.append(["add", out, s])
        out = len(leaves) + len(nodes) - 1
    return spec(leaves, nodes, mode="backward")


def _apply(op: str, args: list[float]) -> float | None:
    try:
        return float(FUNCTIONS[op](*args))
    except (ValueError, ZeroDivisionError, OverflowError):
        return None
