"""The probes of assignment ``forward_mode``: they run the student's ``micrograd/forward.py`` in the sandbox.

An *expression spec* is plain data that the judge writes and the probe
executes with the student's ``Dual`` (and the judge with the reference's)::

    {
      "leaves": [[2.0, 0.5], [-1.0, 1.5]],    # x0 = Dual(2.0, 0.5), x1 = Dual(-1.0, 1.5)
      "nodes": [["mul", 0, 1],                # n2 = x0 * x1
                ["add", {"const": 3}, 2],     # n3 = 3 + n2  (n2.__radd__(3))
                ["sin", 3]],                  # n4 = n3.sin()
      "build": [3],                           # the nodes the probe makes itself (default: none)
      "locals": {"3": [0.0, 1.0]}             # d node / d operand for each of them (added by the judge)
    }

An operand is a node index or ``{"const": number}``, a plain int or float
passed as is, so wrapping and the reflected operations are exercised; ``pow``
takes its exponent as a const. ``sin cos exp log tanh`` call the method of
the same name (``x.sin()``), the method the handout grades.

A node the probe makes (``"build"``) does not call the student's operations:
its value is the operation on its operands' ``val`` (plain floats, :data:`FORWARD`)
and its tangent is the sum over its operands of the given local derivative
times the operand's ``dot``. Only the constructor ``Dual(val, dot)`` of the
student runs. So a test about ``__mul__`` can put its products between the
grader's own nodes: a wrong ``sin`` costs nothing there.

A *function spec* (probes ``forward_mode_derivative`` and
``forward_mode_gradient``) has the point as its leaves (``[1.5, -0.5]``, one
number per argument of ``f``) and nodes the probe makes, all of them. The
probe hands the student's ``derivative``/``gradient`` a function ``f`` that
computes the nodes from its arguments' ``val`` and ``dot`` this way and
returns ``Dual(value, tangent)`` of the last node, or the plain number
``spec["constant"]`` when the spec has one. ``f`` counts its calls and
records the arguments of each, so the judge sees how many passes were made and
how each was seeded. A plain number passed to ``f`` is a constant (tangent 0).

Nothing here differentiates: the local derivatives of the nodes the probe
makes come from the judge (:func:`complete`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, TypedDict

from assignments.shared.probes.engine_probes import FORWARD as ENGINE_FORWARD
from assignments.shared.probes.engine_probes import describe_node
from probekit import Context, MalformedAnswer, Number, ProbeError, count, number, numbers, record, short_repr

FORWARD: dict[str, Callable[..., float]] = {
    **{op: ENGINE_FORWARD[op] for op in ("add", "sub", "mul", "truediv", "pow", "neg", "exp", "log", "tanh", "sum")},
    "sin": math.sin,
    "cos": math.cos,
}
"""What each operation of the vocabulary computes on plain floats (the value of a node the probe makes)."""

BINARY: dict[str, Callable[[Any, Any], Any]] = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "truediv": lambda a, b: a / b,
    "pow": lambda a, b: a**b,
}
UNARY: dict[str, Callable[[Any], Any]] = {
    "neg": lambda a: -a,
    "sin": lambda a: a.sin(),
    "cos": lambda a: a.cos(),
    "exp": lambda a: a.exp(),
    "log": lambda a: a.log(),
    "tanh": lambda a: a.tanh(),
}
MAX_CALLS = 1_000_000_000
"""Most calls of ``f`` an answer may report."""


def leaf_value(leaf: Any) -> float:
    """The value of a leaf: ``[val, dot]`` in an expression spec, a number in a function spec."""
    return float(leaf[0] if isinstance(leaf, list) else leaf)


def probe_made(spec: dict[str, Any]) -> set[int]:
    """The nodes the probe makes itself: ``"build": "probe"`` (every node) or a list of node indices."""
    how = spec.get("build", "student")
    if how == "probe":
        return set(range(len(spec["leaves"]), len(spec["leaves"]) + len(spec["nodes"])))
    return set(how) if isinstance(how, list) else set()


def given_locals(spec: dict[str, Any], index: int, length: int) -> list[float]:
    """The local derivatives the judge sent for node ``index``: ``length`` numbers (NaN for a missing one)."""
    given = (spec.get("locals") or {}).get(str(index))
    if not isinstance(given, list) or len(given) != length:
        raise ProbeError(f"the request gives no local derivatives for n{index}, a node the grader makes")
    return [math.nan if g is None else float(g) for g in given]


def read(obj: Any, what: str) -> tuple[float, float]:
    """The ``val`` and ``dot`` of a Dual as floats (a plain number: its value, tangent 0)."""
    if type(obj) in (int, float):
        return float(obj), 0.0
    pair = []
    for name in ("val", "dot"):
        x = number(getattr(obj, name))
        if type(x) is not float:
            raise ProbeError(f"{what}.{name} is {short_repr(getattr(obj, name), 60)}, not a number")
        pair.append(x)
    return pair[0], pair[1]


def grader_node(dual: type, spec: dict[str, Any], index: int, args: list[Any]) -> Any:
    """Node ``index`` made by the probe from its operands ``args`` (Duals or plain numbers): only ``Dual(val, dot)``
    of the student runs."""
    op = spec["nodes"][index - len(spec["leaves"])][0]
    locals_ = given_locals(spec, index, len(args))
    pairs = [read(a, f"the operand {k} of n{index}") for k, a in enumerate(args)]
    try:
        value = float(FORWARD[op](*(v for v, _ in pairs)))
    except (ArithmeticError, ValueError, TypeError):
        value = math.nan
    tangent = math.fsum(g * d for g, (_, d), a in zip(locals_, pairs, args) if type(a) not in (int, float))
    return dual(value, tangent)


def student_node(dual: type, spec: dict[str, Any], index: int, args: list[Any], ctx: Context) -> Any:
    """Node ``index`` made by the student's operation on ``args``; it must be a Dual."""
    op = spec["nodes"][index - len(spec["leaves"])][0]
    ctx.during = f"computing n{index} = {describe_node(spec, index)}"
    if op == "sum":
        out = sum(args)
    elif op in UNARY:
        out = UNARY[op](args[0])
    else:
        out = BINARY[op](args[0], args[1])
    if not isinstance(out, dual):
        raise ProbeError(f"{describe_node(spec, index)} returned {type(out).__name__} {short_repr(out, 60)}, "
                         "expected a new Dual")
    return out


def run_expression(mg: Any, spec: dict[str, Any], ctx: Context) -> dict[str, list[Any]]:
    """Probe ``forward_mode_expr``: make the leaves, compute every node; return each node's ``val`` and ``dot``.

    The values are read after the last node is made, leaves included, so an operation that changed its
    operands in place shows as a changed leaf.
    """
    dual = mg.forward.Dual
    made = probe_made(spec)
    nodes: list[Any] = []
    for i, (val, dot) in enumerate(spec["leaves"]):
        ctx.during = f"creating x{i} = Dual({val!r}, {dot!r})"
        nodes.append(dual(val, dot))
    for i, (_, *operands) in enumerate(spec["nodes"], start=len(spec["leaves"])):
        args = [o["const"] if isinstance(o, dict) else nodes[o] for o in operands]
        if i in made:
            ctx.during = f"creating n{i} = {describe_node(spec, i)} (a node the grader makes)"
            nodes.append(grader_node(dual, spec, i, args))
        else:
            nodes.append(student_node(dual, spec, i, args, ctx))
    ctx.during = "reading val and dot"
    return {"val": [number(n.val) for n in nodes], "dot": [number(n.dot) for n in nodes]}


class Calls:
    """The grader's function ``f`` of a function spec: counts its calls and records each one's arguments."""

    def __init__(self, mg: Any, spec: dict[str, Any], ctx: Context) -> None:
        self.dual = mg.forward.Dual
        self.spec = spec
        self.ctx = ctx
        self.count = 0
        self.vals: list[list[float]] = []
        self.dots: list[list[float]] = []
        self.keep = len(spec["leaves"]) + 2  # calls recorded: enough to show a pass too many

    def __call__(self, *args: Any) -> Any:
        self.count += 1
        spec, n = self.spec, len(self.spec["leaves"])
        if len(args) != n:
            raise ProbeError(f"f takes {n} argument{'s' * (n != 1)}, one per input; it was called with {len(args)}")
        pairs = []
        for k, a in enumerate(args):
            if not isinstance(a, (self.dual, int, float)) or isinstance(a, bool):
                raise ProbeError(f"f was called with {short_repr(a, 60)} as its argument {k}: expected a Dual")
            pairs.append(read(a, f"the argument {k} of f"))
        if len(self.vals) < self.keep:
            self.vals.append([v for v, _ in pairs])
            self.dots.append([d for _, d in pairs])
        if "constant" in spec:
            return float(spec["constant"])
        nodes: list[Any] = [self.dual(v, d) for v, d in pairs]
        for i, (_, *operands) in enumerate(spec["nodes"], start=n):
            nodes.append(grader_node(self.dual, spec, i, [o["const"] if isinstance(o, dict) else nodes[o]
                                                          for o in operands]))
        return nodes[-1]


def run_derivative(mg: Any, spec: dict[str, Any], ctx: Context) -> dict[str, Any]:
    """Probe ``forward_mode_derivative``: ``derivative(f, x)`` with the grader's ``f`` and ``x = leaves[0]``."""
    f = Calls(mg, spec, ctx)
    x = spec["leaves"][0]
    ctx.during = f"calling derivative(f, {x!r})"
    result = mg.forward.derivative(f, x)
    return {"result": number(result), "calls": f.count, "vals": f.vals, "dots": f.dots}


def run_gradient(mg: Any, spec: dict[str, Any], ctx: Context) -> dict[str, Any]:
    """Probe ``forward_mode_gradient``: ``gradient(f, *leaves)`` with the grader's ``f``.

    ``result`` is the list (or tuple) returned, at most one item longer than the inputs, or
    ``{"other": type name, "repr": text}`` for anything else.
    """
    f = Calls(mg, spec, ctx)
    xs = spec["leaves"]
    ctx.during = f"calling gradient(f, {', '.join(repr(x) for x in xs)})"
    result = mg.forward.gradient(f, *xs)
    if isinstance(result, (list, tuple)):
        out: Any = [number(g) for g in list(result)[: len(xs) + 1]]
    else:
        out = {"other": type(result).__name__, "repr": short_repr(result, 100)}
    return {"result": out, "calls": f.count, "vals": f.vals, "dots": f.dots}


class ExpressionAnswer(TypedDict):
    """``forward_mode_expr``: ``val`` and ``dot`` of every node, leaves first."""

    val: list[Number]
    dot: list[Number]


class DerivativeAnswer(TypedDict):
    """``forward_mode_derivative``: what ``derivative`` returned, and the calls of ``f`` it made."""

    result: Number
    calls: int
    vals: list[list[float]]
    dots: list[list[float]]


class GradientAnswer(TypedDict):
    """``forward_mode_gradient``: the list returned (or ``{"other", "repr"}``), and the calls of ``f``."""

    result: list[Number] | dict[str, str]
    calls: int
    vals: list[list[float]]
    dots: list[list[float]]


def parse_expression(value: Any, spec: dict[str, Any]) -> ExpressionAnswer:
    """One number per node of the request's spec, in each of ``val`` and ``dot``."""
    n = len(spec["leaves"]) + len(spec["nodes"])
    got = record(value, "forward_mode_expr", ("val", "dot"))
    return ExpressionAnswer(val=numbers(got["val"], "val", n), dot=numbers(got["dot"], "dot", n))


def _calls(got: dict[str, Any], spec: dict[str, Any]) -> tuple[int, list[list[float]], list[list[float]]]:
    n = len(spec["leaves"])
    calls = count(got["calls"], "calls", MAX_CALLS)
    recorded: list[list[list[float]]] = []
    for key in ("vals", "dots"):
        rows = got[key]
        if type(rows) is not list or len(rows) != min(calls, n + 2):
            raise MalformedAnswer(f"{key}: expected one list per recorded call of f")
        table = []
        for k, row in enumerate(rows):
            items = numbers(row, f"{key}[{k}]", n)
            if not all(type(x) is float for x in items):
                raise MalformedAnswer(f"{key}[{k}]: expected numbers")
            table.append([float(x) for x in items])  # type: ignore[arg-type]
        recorded.append(table)
    return calls, recorded[0], recorded[1]


def parse_derivative(value: Any, spec: dict[str, Any]) -> DerivativeAnswer:
    got = record(value, "forward_mode_derivative", ("result", "calls", "vals", "dots"))
    calls, vals, dots = _calls(got, spec)
    return DerivativeAnswer(result=numbers([got["result"]], "result")[0], calls=calls, vals=vals, dots=dots)


def parse_gradient(value: Any, spec: dict[str, Any]) -> GradientAnswer:
    got = record(value, "forward_mode_gradient", ("result", "calls", "vals", "dots"))
    calls, vals, dots = _calls(got, spec)
    result = got["result"]
    if type(result) is list:
        if len(result) > len(spec["leaves"]) + 1:
            raise MalformedAnswer("result: longer than the request allows")
        out: Any = numbers(result, "result")
    else:
        other = record(result, "result", ("other", "repr"))
        if type(other["other"]) is not str or type(other["repr"]) is not str:
            raise MalformedAnswer("result: expected a list of numbers or a type name and a text")
        out = {"other": other["other"][:120], "repr": other["repr"][:120]}
    return GradientAnswer(result=out, calls=calls, vals=vals, dots=dots)


PROBES = {
    "forward_mode_expr": lambda mg, ctx, spec: run_expression(mg, spec, ctx),
    "forward_mode_derivative": lambda mg, ctx, spec: run_derivative(mg, spec, ctx),
    "forward_mode_gradient": lambda mg, ctx, spec: run_gradient(mg, spec, ctx),
}
"""This module's probes (see ``grader.sandbox.probes``)."""
NEEDS = {name: ("micrograd.forward",) for name in PROBES}
ANSWERS = {"forward_mode_expr": parse_expression, "forward_mode_derivative": parse_derivative,
           "forward_mode_gradient": parse_gradient}
JUDGE_SIDE = "assignments.forward_mode.checks"
"""Where the judge completes this module's requests (the local derivatives of the nodes a probe makes): its
``REQUESTS``, imported by the judge only (``grader.sandbox.probes``)."""
