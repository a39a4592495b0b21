"""The probes of assignment ``gradcheck``: the student's checker run on functions the grader makes.

Every function handed to the student's ``numerical_grad``, ``analytic_grad``,
``gradcheck`` and ``count_ops`` is a graph spec of
:mod:`assignments.shared.probes.engine_probes` turned into a Python function
``f(*leaves)`` (:func:`function_of`): each call rebuilds the graph on the
``Value``s it is given, every node made by the probe itself
(``engine_probes.grader_node``: the one-argument constructor, then ``_prev``
and ``_op``), its forward value computed with ``math`` (``FORWARD``) at the
data of those ``Value``s, its ``_backward`` the probe's own closure
(``engine_probes.closure``) with the local gradients the judge sent
(``"locals"``). So no operation of the student's engine runs, and:

* the forward values, hence every central difference, are right at every point;
* the local gradients are numbers the judge computed at the spec's point ``xs``
  (``leaves``), right only there. That is all the analytic side needs: a gradient
  check evaluates ``backward()`` at ``xs`` only; finite differences read
  ``.data`` alone. A *broken operation* is the same node with some of those
  numbers changed by the judge (a factor, a sign, a zero, ...), so the request
  does not say which functions are broken: only the student's checker,
  comparing the two sides, can tell.

In hidden grading the ``Value`` the student's functions use is the grader's own
(the part ``stand_ins``, put in place of the student's for the probe, as the
network's probes do: :func:`grader_engine`), so an engine bug (a ``backward()``
without a visited set) costs no points here; a self-check, which has no
parts, runs on the student's own engine.

Probes measure, the judge decides: they return the verdicts, gradients and
counts as the student's functions give them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypedDict

from assignments.shared.probes.engine_probes import (
    SYMBOL,
    closure,
    describe_node,
    forward_value,
    given_locals,
    grader_node,
    order_children,
)
from assignments.shared.probes.nn_probes import engine_in_use
from probekit import Context, MalformedAnswer, Number, ProbeError, count, flag, number, numbers, record, short_repr

FUNCTIONS = ("numerical_grad", "analytic_grad", "gradcheck", "count_ops")
"""The functions of ``micrograd/gradcheck.py`` (Tasks 7.1 to 7.4)."""
LONGEST = 80
"""The longest function written as one expression in messages (a longer one is listed node by node)."""
MAX_COUNT = 10**9
"""The largest operation count an answer may hold (a wrong count may be large, never this large)."""


def grader_engine(mg: Any) -> Any:
    """While the block runs, the grader's own ``Value`` in place of the student's (hidden grading) in ``engine``,
    ``gradcheck`` and the module its functions were defined in (a notebook's code lives in one module); yields the
    class in use. Without the grader's parts (a self-check) nothing changes."""
    return engine_in_use(mg, True, "gradcheck", FUNCTIONS)


def expression(spec: dict[str, Any], index: int = -1) -> str:
    """The expression of node ``index`` (default: the output) in the leaves, e.g. ``(x0 * x1).tanh() + x0``; a long
    one (a shared node written out at each use) as the list of its nodes, e.g. ``n3, where n2 = x0 * x1; n3 =
    n2 * n2``."""
    text = _expression(spec, index)[0]
    leaves = len(spec["leaves"])
    if len(text) <= LONGEST or index % (leaves + len(spec["nodes"])) != leaves + len(spec["nodes"]) - 1:
        return text
    nodes = "; ".join(f"n{i} = {describe_node(spec, i)}" for i in range(leaves, leaves + len(spec["nodes"])))
    return f"n{leaves + len(spec['nodes']) - 1}, where {nodes}"


PRECEDENCE = {"add": 1, "sub": 1, "mul": 2, "truediv": 2, "neg": 3, "pow": 4}
"""How tightly each operator binds, as in Python (a name, a call or a positive number: 5)."""


def _expression(spec: dict[str, Any], index: int) -> tuple[str, int]:
    """The expression of node ``index``, and how tightly it binds (:data:`PRECEDENCE`)."""
    leaves = len(spec["leaves"])
    index %= leaves + len(spec["nodes"])
    if index < leaves:
        return f"x{index}", 5
    op, *operands = spec["nodes"][index - leaves]
    parts = [(repr(o.get("const")), 5 if o.get("const", 0) >= 0 else 3) if isinstance(o, dict)
             else _expression(spec, o) for o in operands]
    level = PRECEDENCE.get(op, 5)
    # the operand levels each position needs: a - (b + c), a / (b * c), (-a) ** 2, (a + b).tanh()
    needs = {"add": (1, 1), "sub": (1, 2), "mul": (2, 3), "truediv": (2, 3), "pow": (5, 4), "neg": (4,)}
    inner = [text if binds >= need else f"({text})"
             for (text, binds), need in zip(parts, needs.get(op, (5,) * len(parts)))]
    if op == "neg":
        return f"-{inner[0]}", level
    if op == "sum":
        return f"sum([{', '.join(text for text, _ in parts)}])", 5
    if op in SYMBOL:
        return f"{inner[0]} {SYMBOL[op]} {inner[1]}", level
    return f"{inner[0]}.{op}()", 5


def function_of(spec: dict[str, Any], ctx: Context, made: list[tuple[Any, Any]] | None = None,
                on_class: Callable[[type], None] | None = None) -> Callable[..., Any]:
    """The Python function of ``len(spec["leaves"])`` ``Value``s that rebuilds ``spec``'s graph on them.

    ``f`` holds only what building the nodes takes (each node's operation, operands and local gradients), not the
    request: not the point, not what the judge knows about the function, nothing the student's checker could read
    instead of comparing the two sides itself.

    Args:
        spec: A graph spec with ``"locals"`` for every node (the judge completes it).
        ctx: Says which function the student's code is evaluating.
        made: If given, each node ``f`` makes is appended with its closure, as ``(node, closure)``.
        on_class: If given, called with the class of the ``Value``s ``f`` is called with, at each call.

    Returns:
        ``f``: forward values with ``math`` at the given ``Value``s' data, the grader's nodes and closures.
    """
    n = len(spec["leaves"])
    what = expression(spec)
    # per node: its operation, its operands (a constant, or the index of an earlier node), which operands are
    # nodes, and the local gradient of each
    program = [(op, [float(o["const"]) if isinstance(o, dict) else int(o) for o in operands],
                [not isinstance(o, dict) for o in operands], given_locals(spec, i, len(operands)))
               for i, (op, *operands) in enumerate(spec["nodes"], start=n)]

    def f(*leaves: Any) -> Any:
        if len(leaves) != n:
            raise ProbeError(f"f = {what} takes {n} Values, but it was called with {len(leaves)} arguments")
        values: list[float] = []
        for x in leaves:
            data = getattr(x, "data", None)
            if isinstance(x, (int, float)) or not isinstance(data, (int, float)) or isinstance(data, bool):
                raise ProbeError(f"f = {what} was called with {short_repr(x, 60)}: call it with Values, "
                                 "e.g. f(*[Value(x) for x in point])")
            values.append(float(data))
        value_cls = type(leaves[0])
        if on_class is not None:
            on_class(value_cls)
        nodes = list(leaves)
        for op, operands, is_node, gradients in program:
            value = forward_value(op, [values[int(o)] if node else o for o, node in zip(operands, is_node)])
            parents = [(nodes[int(o)], g) for o, node, g in zip(operands, is_node, gradients) if node]
            out = grader_node(value_cls, value, [p for p, _ in parents], op)
            out._backward = closure(out, parents)
            order_children(out, [p for p, _ in parents])
            if made is not None:
                made.append((out, out._backward))
            nodes.append(out)
            values.append(value)
        return nodes[-1]

    f.__qualname__ = f.__name__ = "f"
    return f


def _point(spec: dict[str, Any], value_cls: type | None) -> list[Any]:
    """The point ``xs`` the student's function gets: a new list of numbers, or of new ``Value``s."""
    return [float(x) if value_cls is None else value_cls(float(x)) for x in spec["leaves"]]


def _floats(got: Any, n: int, what: str) -> list[Any]:
    """A list of ``n`` numbers returned by the student's ``what``, as plain data (non-numbers marked)."""
    if not isinstance(got, (list, tuple)) or len(got) != n:
        raise ProbeError(f"{what} returned {short_repr(got, 80)}, expected a list of {n} numbers (one per input)")
    return [number(g) for g in got]


def _unchanged(xs: list[Any], before: list[Any], spec: dict[str, Any], as_values: bool) -> bool:
    """Whether the caller's list ``xs`` still holds the point (the same numbers; the same Values, same data)."""
    if len(xs) != len(before) or any(x is not b for x, b in zip(xs, before)):
        return False
    if as_values:
        return all(getattr(x, "data", None) == float(v) for x, v in zip(xs, spec["leaves"]))
    return all(type(x) is float and x == float(v) for x, v in zip(xs, spec["leaves"]))


def probe_verdicts(mg: Any, ctx: Context, specs: list[dict[str, Any]], atol: float, rtol: float) -> dict[str, Any]:
    """Probe ``gradcheck_verdicts``: ``gradcheck(f, xs, atol, rtol)`` for the function of each spec at its point."""
    verdicts = []
    with grader_engine(mg):
        for spec in specs:
            f = function_of(spec, ctx)
            xs = _point(spec, None)
            ctx.during = f"calling gradcheck(f, {xs!r}, {atol!r}, {rtol!r}) with f = {expression(spec)}"
            got = mg.gradcheck.gradcheck(f, xs, atol, rtol)
            if type(got) is not bool:
                raise ProbeError(f"gradcheck returned {short_repr(got, 60)}, expected True or False")
            verdicts.append(got)
    return {"verdicts": verdicts}


def probe_numerical(mg: Any, ctx: Context, spec: dict[str, Any], h: float | None, as_values: bool) -> dict[str, Any]:
    """Probe ``gradcheck_numerical``: ``numerical_grad(f, xs, h)`` (``h`` None: the default step), and whether
    the caller's ``xs`` is left as it was."""
    with grader_engine(mg) as value_cls:
        f = function_of(spec, ctx)
        xs = _point(spec, value_cls if as_values else None)
        before = list(xs)
        ctx.during = f"calling numerical_grad(f, {list(spec['leaves'])!r}{'' if h is None else f', {h!r}'}) with " \
                     f"f = {expression(spec)}"
        got = mg.gradcheck.numerical_grad(f, xs) if h is None else mg.gradcheck.numerical_grad(f, xs, h)
        grads = _floats(got, len(xs), "numerical_grad")
        return {"grads": grads, "unchanged": _unchanged(xs, before, spec, as_values)}


def probe_analytic(mg: Any, ctx: Context, spec: dict[str, Any], as_values: bool) -> dict[str, Any]:
    """Probe ``gradcheck_analytic``: ``analytic_grad(f, xs)`` twice on the same ``xs``, then the grads of the
    caller's ``Value``s (all 0.0 when ``xs`` holds numbers) and whether ``xs`` is left as it was."""
    with grader_engine(mg) as value_cls:
        f = function_of(spec, ctx)
        xs = _point(spec, value_cls if as_values else None)
        before, calls = list(xs), []
        for which in ("first", "second"):
            ctx.during = f"calling analytic_grad(f, {list(spec['leaves'])!r}) ({which} call) with f = {expression(spec)}"
            calls.append(_floats(mg.gradcheck.analytic_grad(f, xs), len(xs), "analytic_grad"))
        ctx.during = "reading the grads of the Values passed as xs"
        caller = [number(x.grad) for x in xs] if as_values else [0.0] * len(xs)
        return {"first": calls[0], "second": calls[1], "caller_grads": caller,
                "unchanged": _unchanged(xs, before, spec, as_values)}


def per_path_backward(self: Any) -> None:
    """A ``backward()`` without a visited set (a broken engine): each node once per path from the output."""
    order: list[Any] = []

    def visit(node: Any) -> None:
        for child in list(node._prev):
            visit(child)
        order.append(node)

    visit(self)
    self.grad = 1.0
    for node in reversed(order):
        node._backward()


@contextmanager
def backward_per_path(patched: list[tuple[type, Any]]) -> Iterator[Callable[[type], None]]:
    """While the block runs, the classes passed to the yielded function get :func:`per_path_backward`."""
    def patch(cls: type) -> None:
        if any(c is cls for c, _ in patched):
            return
        patched.append((cls, cls.__dict__.get("backward")))
        cls.backward = per_path_backward  # type: ignore[attr-defined]

    try:
        yield patch
    finally:
        for cls, own in reversed(patched):
            if own is None:
                del cls.backward  # type: ignore[attr-defined]
            else:
                cls.backward = own  # type: ignore[attr-defined]


def _counts(got: Any) -> list[int]:
    if (not isinstance(got, (tuple, list)) or len(got) != 2
            or any(type(c) is not int or not 0 <= c <= MAX_COUNT for c in got)):
        raise ProbeError(f"count_ops returned {short_repr(got, 60)}, expected a tuple (forward, backward) of two "
                         "whole numbers")
    return [int(got[0]), int(got[1])]


def probe_count(mg: Any, ctx: Context, spec: dict[str, Any], engine: str) -> dict[str, Any]:
    """Probe ``gradcheck_count``: ``count_ops(f, xs)`` twice, and how many of the closures of the nodes ``f`` made
    are not the grader's any more after each call (not restored).

    ``engine``: ``"once"`` (the engine's ``backward()``, each closure once) or ``"per_path"`` (a ``backward()``
    without a visited set, :func:`per_path_backward`, for the duration of the calls).
    """
    with grader_engine(mg), backward_per_path([]) as patch:
        calls, left = [], []
        for which in ("first", "second"):
            made: list[tuple[Any, Any]] = []
            f = function_of(spec, ctx, made, patch if engine == "per_path" else None)
            ctx.during = f"calling count_ops(f, {list(spec['leaves'])!r}) ({which} call) with f = {expression(spec)}"
            calls.append(_counts(mg.gradcheck.count_ops(f, _point(spec, None))))
            ctx.during = "reading the _backward of the nodes f made"
            left.append(sum(1 for node, own in made if getattr(node, "_backward", None) is not own))
    return {"first": calls[0], "second": calls[1], "not_restored": left}


class VerdictsAnswer(TypedDict):
    """``gradcheck_verdicts``: the student's verdict on each function."""

    verdicts: list[bool]


class NumericalAnswer(TypedDict):
    """``gradcheck_numerical``: the student's numerical gradient; whether the caller's point is unchanged."""

    grads: list[Number]
    unchanged: bool


class AnalyticAnswer(TypedDict):
    """``gradcheck_analytic``: two analytic gradients at the same point; the caller's Values' grads."""

    first: list[Number]
    second: list[Number]
    caller_grads: list[Number]
    unchanged: bool


class CountAnswer(TypedDict):
    """``gradcheck_count``: (forward, backward) of two calls; closures not restored after each."""

    first: list[int]
    second: list[int]
    not_restored: list[int]


def _size(spec: Any) -> tuple[int, int]:
    return len(spec["leaves"]), len(spec["nodes"])


def parse_verdicts(value: Any, specs: list[Any], atol: Any, rtol: Any) -> VerdictsAnswer:
    got = record(value, "gradcheck_verdicts", ("verdicts",))
    if type(got["verdicts"]) is not list or len(got["verdicts"]) != len(specs):
        raise MalformedAnswer(f"verdicts: expected {len(specs)} verdicts")
    return VerdictsAnswer(verdicts=[flag(v, f"verdicts[{i}]") for i, v in enumerate(got["verdicts"])])


def parse_numerical(value: Any, spec: Any, h: Any, as_values: Any) -> NumericalAnswer:
    got = record(value, "gradcheck_numerical", ("grads", "unchanged"))
    n = _size(spec)[0]
    return NumericalAnswer(grads=numbers(got["grads"], "grads", n), unchanged=flag(got["unchanged"], "unchanged"))


def parse_analytic(value: Any, spec: Any, as_values: Any) -> AnalyticAnswer:
    got = record(value, "gradcheck_analytic", ("first", "second", "caller_grads", "unchanged"))
    n = _size(spec)[0]
    return AnalyticAnswer(first=numbers(got["first"], "first", n), second=numbers(got["second"], "second", n),
                          caller_grads=numbers(got["caller_grads"], "caller_grads", n),
                          unchanged=flag(got["unchanged"], "unchanged"))


def parse_count(value: Any, spec: Any, engine: Any) -> CountAnswer:
    got = record(value, "gradcheck_count", ("first", "second", "not_restored"))
    pairs = {}
    for key in ("first", "second", "not_restored"):
        items = got[key]
        if type(items) is not list or len(items) != 2:
            raise MalformedAnswer(f"{key}: expected two whole numbers")
        pairs[key] = [count(c, f"{key}[{i}]", MAX_COUNT) for i, c in enumerate(items)]
    return CountAnswer(first=pairs["first"], second=pairs["second"], not_restored=pairs["not_restored"])


def complete(args: list[Any]) -> list[Any]:
    """The judge's part of a request: the local gradients of every node of each spec that has none (judge only)."""
    from assignments.shared.checks.graphs import with_local_gradients  # judge side: never imported in a worker

    def done(spec: Any) -> Any:
        return with_local_gradients({**spec, "build": "probe"}) if isinstance(spec, dict) else spec

    if args and isinstance(args[0], list):
        return [[done(s) for s in args[0]], *args[1:]]
    return [done(args[0]), *args[1:]] if args else args


PROBES = {
    "gradcheck_verdicts": lambda mg, ctx, specs, atol, rtol: probe_verdicts(mg, ctx, specs, atol, rtol),
    "gradcheck_numerical": lambda mg, ctx, spec, h, as_values: probe_numerical(mg, ctx, spec, h, as_values),
    "gradcheck_analytic": lambda mg, ctx, spec, as_values: probe_analytic(mg, ctx, spec, as_values),
    "gradcheck_count": lambda mg, ctx, spec, engine: probe_count(mg, ctx, spec, engine),
}
"""This module's probes (see ``grader.sandbox.probes``)."""
NEEDS = {name: ("micrograd.engine", "micrograd.gradcheck") for name in PROBES}
ANSWERS = {
    "gradcheck_verdicts": parse_verdicts,
    "gradcheck_numerical": parse_numerical,
    "gradcheck_analytic": parse_analytic,
    "gradcheck_count": parse_count,
}
REQUESTS = {name: complete for name in PROBES}
