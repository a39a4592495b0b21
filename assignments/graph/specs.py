"""The graphs of assignment ``graph``'s tests, as DOT graph specs (judge side; the format: ``probes.py``).

A test writes a graph as an expression graph of the engine's probes
(:func:`assignments.shared.checks.graphs.spec`: leaves, then ``[op, operand,
...]`` per node) and :func:`from_expression` turns it into a DOT graph spec:
a plain-number operand becomes a leaf of its own (as ``Value`` wraps it), a
power keeps its exponent in its op (``**2``), each node's data is its
forward value, and its grad a number drawn from the test's seed. Node data
are made distinct at four decimals, so that a record can also be found by
the data it shows.
"""

from __future__ import annotations

import random
from typing import Any

from assignments.shared.checks.graphs import spec as expression
from assignments.shared.checks.strategies import EXPONENTS, in_domain
from assignments.shared.probes.engine_probes import BINARY, UNARY, forward_value

OPS = {"add": "+", "sub": "-", "mul": "*", "truediv": "/", "neg": "neg", "tanh": "tanh", "relu": "ReLU",
       "exp": "exp", "log": "log", "sigmoid": "sigmoid"}
"""The ``_op`` a node of each operation gets (a power: ``**`` and its exponent)."""


def dot_spec(data: list[float], prev: list[list[int]], op: list[str], grad: list[float] | None = None,
             label: dict[int, str] | None = None, root: int | None = None) -> dict[str, Any]:
    """A DOT graph spec (see ``probes.py``); ``grad`` defaults to zeros."""
    out: dict[str, Any] = {"data": [float(x) for x in data], "grad": [float(g) for g in grad or [0.0] * len(data)],
                           "op": list(op), "prev": [list(p) for p in prev]}
    if label:
        out["label"] = {str(k): v for k, v in label.items()}
    if root is not None:
        out["root"] = root
    return out


def from_expression(graph: dict[str, Any], seed: Any, grads: bool = True) -> dict[str, Any]:
    """The DOT graph spec of an expression graph (its leaves, then its nodes; a constant operand as a new leaf just
    before its node). Grads are drawn from ``random.Random(seed)`` (zeros when ``grads`` is False)."""
    rng = random.Random(seed)
    data: list[float] = []
    prev: list[list[int]] = []
    op: list[str] = []
    where: list[int] = []  # the expression graph's node index -> the DOT spec's
    for x in graph["leaves"]:
        where.append(len(data))
        data.append(float(x))
        prev.append([])
        op.append("")
    for name, *operands in graph["nodes"]:
        children, args = [], []
        for o in operands:
            if isinstance(o, dict) and name == "pow":
                args.append(float(o["const"]))
                continue
            if isinstance(o, dict):
                data.append(float(o["const"]))
                prev.append([])
                op.append("")
                children.append(len(data) - 1)
                args.append(float(o["const"]))
            else:
                children.append(where[o])
                args.append(data[where[o]])
        where.append(len(data))
        data.append(forward_value(name, args))
        prev.append(children)
        op.append(f"**{operands[1]['const']}" if name == "pow" else OPS[name])
    seen: set[str] = set()
    for k, x in enumerate(data):  # distinct at four decimals: nudge a repeated value by 0.0001 at a time
        while f"{x:.4f}" in seen:
            x += 0.0001
        data[k] = x
        seen.add(f"{x:.4f}")
    grad = [round(rng.uniform(-3, 3), 6) if grads else 0.0 for _ in data]
    return dot_spec(data, prev, op, grad)


def random_expression(rng: random.Random, leaves: int, nodes: int) -> dict[str, Any]:
    """A random expression graph: each operation drawn from the engine's vocabulary, its operands from every earlier
    node (so nodes are reused) or a constant, kept inside each operation's domain (as
    :func:`assignments.shared.checks.strategies.expression_graphs` does), and every node without a consumer (an
    unused leaf too) added into the output, so every node is reachable from it."""
    values = [round(rng.uniform(-2, 2), 2) or 0.5 for _ in range(leaves)]
    xs = list(values)
    body: list[list[Any]] = []
    used: set[int] = set()
    ops = list(BINARY) + list(UNARY)
    while len(body) < nodes:
        name = rng.choice(ops)
        a = rng.randrange(len(values))
        if name in UNARY:
            operands: list[Any] = [a]
            args = [values[a]]
        elif name == "pow":
            e = rng.choice(EXPONENTS)
            operands, args = [a, {"const": e}], [values[a], e]
        else:
            b: Any = rng.randrange(len(values)) if rng.random() < 0.8 else {"const": round(rng.uniform(0.5, 3), 1)}
            operands = [a, b]
            args = [values[a], b["const"] if isinstance(b, dict) else values[b]]
        value = forward_value(name, args) if in_domain(name, args) else float("nan")
        if not abs(value) < 1e3:
            continue
        body.append([name, *operands])
        used.update(o for o in operands if isinstance(o, int))
        values.append(value)
    sinks = [i for i in range(leaves, len(values)) if i not in used] + [i for i in range(leaves) if i not in used]
    out = sinks[0]
    for s in sinks[1:]:
        body.append(["add", out, s])
        out = leaves + len(body) - 1
    return expression(xs, body)


def diamond_chain(levels: int, seed: Any) -> dict[str, Any]:
    """``n_{k+1} = n_k * c_k + n_k``, ``levels`` times: 2**levels paths from the output down to ``x0``."""
    rng = random.Random(seed)
    body: list[list[Any]] = []
    prev_node = 0
    for _ in range(levels):
        body += [["mul", prev_node, {"const": round(rng.uniform(0.5, 1.5), 3)}], ["add", prev_node + 1, prev_node]]
        prev_node += 2
    return from_expression(expression([rng.uniform(0.9, 1.1)], body), seed, grads=False)


def deep_chain(length: int) -> dict[str, Any]:
    """A chain of ``length`` operations, each node made from the one before (deeper than Python's recursion limit
    for ``length`` above 1000)."""
    names = ["tanh", "exp", "neg"]
    return dot_spec([0.001 * k for k in range(length + 1)], [[]] + [[k] for k in range(length)],
                    [""] + [names[k % 3] for k in range(length)])


def describe(spec: dict[str, Any], most: int = 14) -> str:
    """The graph as a reader of the feedback writes it: ``n3 = x0 + x1; n4 = exp(n3)`` (the first ``most`` nodes)."""
    from assignments.graph.drawings import node_name  # a sibling judge module

    parts = []
    for k, (op, children) in enumerate(zip(spec["op"], spec["prev"])):
        if not op and not children:
            continue
        names = [node_name(spec, c) for c in children]
        if op in ("+", "-", "*", "/") and len(names) == 2:
            rhs = f"{names[0]} {op} {names[1]}"
        elif op.startswith("**") and len(names) == 1:
            rhs = f"{names[0]}{op}"
        elif len(names) == 1 and op and op.isidentifier():
            rhs = f"{op}({names[0]})"
        else:
            rhs = f"[{op}]({', '.join(names)})"
        parts.append(f"{node_name(spec, k)} = {rhs}")
    shown = "; ".join(parts[:most])
    return shown + (f"; ... ({len(parts)} operations)" if len(parts) > most else "")


def leaves_text(spec: dict[str, Any]) -> str:
    """The leaves' data: ``x0 = 1.0, x1 = 2.0``."""
    return ", ".join(f"x{k} = {x!r}" for k, x in enumerate(spec["data"]) if not spec["prev"][k] and not spec["op"][k])
