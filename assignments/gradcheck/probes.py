"""The probes of assignment ``gradcheck``: the student's checker run on functions the judge evaluates.

Every function handed to the student's ``numerical_grad``, ``analytic_grad``,
``gradcheck`` and ``count_ops`` is a handle (:func:`function_of`): the worker
holds its number and its leaves' count, nothing of its program. Each call
``f(*leaves)`` asks the judge (``probekit.ask("call", ...)``), which evaluates
the function's graph at the leaves' data and answers with its nodes (operation,
children, forward value); ``f`` builds them on :class:`JudgedValue`. A node's
``_backward`` closure knows its call and node numbers; the local gradients it
multiplies by (a *broken operation*'s wrong ones included) are the judge's, given
for that call only when ``backward()`` runs on it (or a closure is called). So
before the student's code has called ``f`` and run ``backward()``, the worker
holds no gradient of ``f`` at all: a checker cannot read one out of ``f``
instead of comparing the two sides. The judge (:mod:`.judged`) counts every
evaluation of ``f`` and every ``backward()``: a count the worker keeps is never
evidence.

The ``Value`` the student's checker uses is :class:`JudgedValue` (put in place
of the student's in ``engine``, ``gradcheck`` and the module its functions were
defined in), in hidden grading and in a self-check alike: forward arithmetic on
plain numbers, and a ``backward()`` that asks the judge in which order to call
the closures of what ``f`` made (each once, or once per path for the tests of a
``backward()`` without a visited set). So an engine bug costs no points here,
and the worker holds no working ``backward`` nor any local gradient. For the
test of a ``count_ops`` whose pass raises, the closure of one node the request
names raises :class:`ClosureRaised` instead (it computes nothing).

Probes measure, the judge decides: they return the verdicts, gradients and
counts as the student's functions give them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypedDict

from assignments.shared.probes.engine_probes import SYMBOL, describe_node, order_children
from assignments.shared.probes.nn_probes import rebound, swapped
from probekit import (
    Context,
    MalformedAnswer,
    Number,
    ProbeError,
    ask,
    count,
    flag,
    number,
    numbers,
    record,
    short_repr,
)

FUNCTIONS = ("numerical_grad", "analytic_grad", "gradcheck", "count_ops")
"""The functions of ``micrograd/gradcheck.py`` (Tasks 7.1 to 7.4)."""
LONGEST = 80
"""The longest function written as one expression in messages (a longer one is listed node by node)."""
MAX_COUNT = 10**9
"""The largest operation count an answer may hold (a wrong count may be large, never this large)."""


@contextmanager
def judged_engine(mg: Any) -> Iterator[type]:
    """While the block runs, :class:`JudgedValue` in place of the student's ``Value`` in ``engine``, ``gradcheck``
    and the module its functions were defined in (a notebook's code lives in one module); yields it."""
    with swapped(rebound(mg, mg.engine.Value, JudgedValue, "gradcheck", FUNCTIONS)):
        yield JudgedValue


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


class JudgedValue:
    """The ``Value`` of the student's checker: the handout's attributes (``data``, ``grad``, ``_prev``, ``_op``,
    ``_backward``), arithmetic whose values the judge computes, and a ``backward()`` that only the nodes ``f`` made can run:
    it asks the judge in which order to call their closures (:mod:`assignments.gradcheck.judged`), each of which asks
    the judge what to add to its children's grads. It holds no local gradient and no graph algorithm of its own."""

    def __init__(self, data: Any, _children: tuple[Any, ...] = (), _op: str = "") -> None:
        self.data = data
        self.grad = 0.0
        self._prev = set(_children)
        self._op = _op
        self._call: tuple[int, int, Call] | None = None
        """For a node ``f`` made: (the call, its index in the call's nodes, what the worker has of the call)."""

    def _backward(self) -> None:
        """A leaf's: nothing to pass on."""

    def _forward(self, op: str, *operands: Any) -> Any:
        """Arithmetic on the checker's Values (``Value(x) + h``): the judge computes the forward value too, so this
        class holds no operation of the engine (a copy of it would earn nothing)."""
        args = [o.data if isinstance(o, JudgedValue) else o for o in operands]
        if not all(isinstance(a, (int, float)) and not isinstance(a, bool) for a in args):
            return NotImplemented
        value = ask("forward", {"op": op, "args": [float(a) for a in args]})
        if not (value is None or type(value) in (int, float)):
            raise ProbeError("the grader's answer to an operation could not be used")
        return JudgedValue(math.nan if value is None else float(value),
                           tuple(o for o in operands if isinstance(o, JudgedValue)), op)

    def __add__(self, other: Any) -> Any:
        return self._forward("add", self, other)

    def __radd__(self, other: Any) -> Any:
        return self._forward("add", other, self)

    def __sub__(self, other: Any) -> Any:
        return self._forward("sub", self, other)

    def __rsub__(self, other: Any) -> Any:
        return self._forward("sub", other, self)

    def __mul__(self, other: Any) -> Any:
        return self._forward("mul", self, other)

    def __rmul__(self, other: Any) -> Any:
        return self._forward("mul", other, self)

    def __truediv__(self, other: Any) -> Any:
        return self._forward("truediv", self, other)

    def __rtruediv__(self, other: Any) -> Any:
        return self._forward("truediv", other, self)

    def __neg__(self) -> Any:
        return self._forward("neg", self)

    def __pow__(self, other: Any) -> Any:
        return self._forward("pow", self, other)

    def tanh(self) -> Any:
        return self._forward("tanh", self)

    def relu(self) -> Any:
        return self._forward("relu", self)

    def exp(self) -> Any:
        return self._forward("exp", self)

    def log(self) -> Any:
        return self._forward("log", self)

    def sigmoid(self) -> Any:
        return self._forward("sigmoid", self)

    def backward(self) -> None:
        """Seed ``self.grad = 1.0`` and call the closures of the nodes of ``self``'s call in the order the judge
        gives, with the local gradients it gives (only a node ``f`` made has them: the graph of ``f`` is the
        judge's, and each run of ``backward()`` is counted there)."""
        if self._call is None:
            raise ProbeError("backward() was called on a Value that f did not return: here backward() runs on what "
                             "the functions the grader gives return")
        number_, index, call = self._call
        got = ask("backward", {"call": number_, "node": index})
        order = got.get("order") if isinstance(got, dict) else None
        if type(order) is not list or not all(type(j) is int and 0 <= j < len(call.nodes) for j in order):
            raise ProbeError("the grader's answer to backward() could not be used")
        call.take(got.get("locals"))
        self.grad = 1.0
        for j in order:
            call.nodes[j]._backward()

    def __repr__(self) -> str:
        return f"Value(data={self.data}, grad={self.grad})"


class Call:
    """What the worker has of one call of ``f``: its nodes (leaves first) and, once ``backward()`` ran or a closure
    was called, the local gradients the judge gave for that call (each node's, per operand that is a node)."""

    def __init__(self, number_: int, nodes: list[Any]) -> None:
        self.number = number_
        self.nodes = nodes
        self.locals: dict[str, list[float]] | None = None

    def take(self, given: Any) -> None:
        """Keep the local gradients of the judge's answer, each checked."""
        if not isinstance(given, dict) or not all(
                isinstance(v, list) and all(g is None or type(g) in (int, float) for g in v) for v in given.values()):
            raise ProbeError("the grader's answer to backward() could not be used")
        self.locals = {str(k): [math.nan if g is None else float(g) for g in v] for k, v in given.items()}

    def of(self, index: int, count: int) -> list[float]:
        """Node ``index``'s local gradients (``count`` of them), asked of the judge if no ``backward()`` ran yet."""
        if self.locals is None:
            self.take(ask("locals", {"call": self.number}))
        got = (self.locals or {}).get(str(index))
        if got is None or len(got) != count:
            raise ProbeError("the grader's answer to a _backward() could not be used")
        return got


def _closure(call: Call, index: int, out: Any, children: list[Any]) -> Callable[[], None]:
    """The ``_backward`` of node ``index`` of ``call``: add each child's local gradient times ``out.grad`` to its
    grad (``children``: the node's operands that are nodes, in order, repeats kept; the numbers are the judge's)."""
    def _backward() -> None:
        for child, local in zip(children, call.of(index, len(children))):
            child.grad += local * out.grad
    return _backward


class ClosureRaised(Exception):
    """What the ``_backward`` closure of the node a ``gradcheck_count_raising`` request names raises (on purpose, as
    an operation's closure may fail, e.g. a math domain error): the test of a ``count_ops`` that restores the
    closures also when the pass raises."""


def _raising(index: int) -> Callable[[], None]:
    """The ``_backward`` of node ``index`` that raises :class:`ClosureRaised` (it adds nothing to any grad)."""
    def _backward() -> None:
        raise ClosureRaised(f"the _backward closure of node n{index} raised (the grader's, on purpose: the test of "
                            "count_ops when backward() raises)")
    return _backward


def function_of(index: int, n: int, ctx: Context, made: list[tuple[Any, Any]] | None = None,
                raising: int | None = None) -> Callable[..., Any]:
    """The function ``index`` of the request (``n`` leaves): each call asks the judge to evaluate it at the given
    ``Value``s' data and builds the nodes it answers on :class:`JudgedValue`.

    ``f`` holds its number and its leaves' count only: nothing of its program or its gradients, nothing the
    student's checker could read instead of calling it (each call is counted by the judge).

    Args:
        index: Which function of the request (its position in the specs the judge holds).
        n: How many leaves it takes.
        ctx: Says which function the student's code is evaluating.
        made: If given, each node ``f`` makes is appended with its closure, as ``(node, closure)``.
        raising: If given, the index of the node (leaves first) whose ``_backward`` raises :class:`ClosureRaised`.
    """
    def f(*leaves: Any) -> Any:
        if len(leaves) != n:
            raise ProbeError(f"f takes {n} Values, but it was called with {len(leaves)} arguments")
        values: list[float] = []
        for x in leaves:
            data = getattr(x, "data", None)
            if isinstance(x, (int, float)) or not isinstance(data, (int, float)) or isinstance(data, bool):
                raise ProbeError(f"f was called with {short_repr(x, 60)}: call it with Values, e.g. "
                                 "f(*[Value(x) for x in point])")
            values.append(float(data))
        got = ask("call", {"f": index, "at": values})
        if not isinstance(got, dict) or type(got.get("call")) is not int or type(got.get("nodes")) is not list:
            raise ProbeError("the grader's answer to f could not be used")
        call = Call(got["call"], list(leaves))
        nodes = call.nodes
        for i, item in enumerate(got["nodes"], start=n):
            op, children, value = item if type(item) is list and len(item) == 3 else ("", None, None)
            if type(children) is not list or not all(type(c) is int and 0 <= c < i for c in children) \
                    or not (value is None or type(value) in (int, float)):
                raise ProbeError("the grader's answer to f could not be used")
            parents = [nodes[c] for c in children]
            out = JudgedValue(math.nan if value is None else float(value), tuple(parents), str(op))
            order_children(out, parents)
            closure = _raising(i) if i == raising else _closure(call, i, out, parents)
            out._backward = closure  # type: ignore[method-assign]
            out._call = (call.number, i, call)
            if made is not None:
                made.append((out, out._backward))
            nodes.append(out)
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
    """Probe ``gradcheck_verdicts``: ``gradcheck(f, xs, atol, rtol)`` for the function of each spec at its point
    (the specs as the worker gets them: their points only)."""
    verdicts = []
    with judged_engine(mg):
        for i, spec in enumerate(specs):
            f = function_of(i, len(spec["leaves"]), ctx)
            xs = _point(spec, None)
            ctx.during = f"calling gradcheck(f, {xs!r}, {atol!r}, {rtol!r}) (function {i + 1} of {len(specs)})"
            got = mg.gradcheck.gradcheck(f, xs, atol, rtol)
            if type(got) is not bool:
                raise ProbeError(f"gradcheck returned {short_repr(got, 60)}, expected True or False")
            verdicts.append(got)
    return {"verdicts": verdicts}


def probe_numerical(mg: Any, ctx: Context, spec: dict[str, Any], h: float | None, as_values: bool) -> dict[str, Any]:
    """Probe ``gradcheck_numerical``: ``numerical_grad(f, xs, h)`` (``h`` None: the default step), and whether
    the caller's ``xs`` is left as it was."""
    with judged_engine(mg) as value_cls:
        f = function_of(0, len(spec["leaves"]), ctx)
        xs = _point(spec, value_cls if as_values else None)
        before = list(xs)
        ctx.during = f"calling numerical_grad(f, {list(spec['leaves'])!r}{'' if h is None else f', {h!r}'})"
        got = mg.gradcheck.numerical_grad(f, xs) if h is None else mg.gradcheck.numerical_grad(f, xs, h)
        grads = _floats(got, len(xs), "numerical_grad")
        return {"grads": grads, "unchanged": _unchanged(xs, before, spec, as_values)}


def probe_analytic(mg: Any, ctx: Context, spec: dict[str, Any], as_values: bool) -> dict[str, Any]:
    """Probe ``gradcheck_analytic``: ``analytic_grad(f, xs)`` twice on the same ``xs``, then the grads of the
    caller's ``Value``s (all 0.0 when ``xs`` holds numbers) and whether ``xs`` is left as it was."""
    with judged_engine(mg) as value_cls:
        f = function_of(0, len(spec["leaves"]), ctx)
        xs = _point(spec, value_cls if as_values else None)
        before, calls = list(xs), []
        for which in ("first", "second"):
            ctx.during = f"calling analytic_grad(f, {list(spec['leaves'])!r}) ({which} call)"
            calls.append(_floats(mg.gradcheck.analytic_grad(f, xs), len(xs), "analytic_grad"))
        ctx.during = "reading the grads of the Values passed as xs"
        caller = [number(x.grad) for x in xs] if as_values else [0.0] * len(xs)
        return {"first": calls[0], "second": calls[1], "caller_grads": caller,
                "unchanged": _unchanged(xs, before, spec, as_values)}


def _counts(got: Any) -> list[int]:
    if (not isinstance(got, (tuple, list)) or len(got) != 2
            or any(type(c) is not int or not 0 <= c <= MAX_COUNT for c in got)):
        raise ProbeError(f"count_ops returned {short_repr(got, 60)}, expected a tuple (forward, backward) of two "
                         "whole numbers")
    return [int(got[0]), int(got[1])]


def probe_count(mg: Any, ctx: Context, spec: dict[str, Any], engine: str) -> dict[str, Any]:
    """Probe ``gradcheck_count``: ``count_ops(f, xs)`` twice, and how many of the closures of the nodes ``f`` made
    are not the grader's any more after each call (not restored).

    ``engine``: ``"once"`` (``backward()`` calls each closure once) or ``"per_path"`` (as a ``backward()`` without
    a visited set would: once per path); the judge, which orders the calls, knows which.
    """
    with judged_engine(mg):
        calls, left = [], []
        for which in ("first", "second"):
            made: list[tuple[Any, Any]] = []
            f = function_of(0, len(spec["leaves"]), ctx, made)
            ctx.during = f"calling count_ops(f, {list(spec['leaves'])!r}) ({which} call)"
            calls.append(_counts(mg.gradcheck.count_ops(f, _point(spec, None))))
            ctx.during = "reading the _backward of the nodes f made"
            left.append(sum(1 for node, own in made if getattr(node, "_backward", None) is not own))
    return {"first": calls[0], "second": calls[1], "not_restored": left}


def probe_count_raising(mg: Any, ctx: Context, spec: dict[str, Any], node: int) -> dict[str, Any]:
    """Probe ``gradcheck_count_raising``: ``count_ops(f, xs)`` where the ``_backward`` closure of node ``node`` (one
    the output depends on) raises :class:`ClosureRaised`: whether that exception came out of ``count_ops`` (False:
    it returned; any other exception is the student's code's own), and how many of the closures of the nodes ``f``
    made are not the grader's any more afterwards (not restored)."""
    with judged_engine(mg):
        made: list[tuple[Any, Any]] = []
        f = function_of(0, len(spec["leaves"]), ctx, made, raising=node)
        ctx.during = f"calling count_ops(f, {list(spec['leaves'])!r}) (one _backward closure of f raises)"
        try:
            mg.gradcheck.count_ops(f, _point(spec, None))
            propagated = False
        except ClosureRaised:
            propagated = True
        ctx.during = "reading the _backward of the nodes f made"
        left = sum(1 for made_node, own in made if getattr(made_node, "_backward", None) is not own)
    return {"propagated": propagated, "not_restored": left}


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


class CountRaisingAnswer(TypedDict):
    """``gradcheck_count_raising``: whether the closure's exception came out of ``count_ops``; closures not
    restored."""

    propagated: bool
    not_restored: int


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


def parse_count_raising(value: Any, spec: Any, node: Any) -> CountRaisingAnswer:
    got = record(value, "gradcheck_count_raising", ("propagated", "not_restored"))
    return CountRaisingAnswer(propagated=flag(got["propagated"], "propagated"),
                              not_restored=count(got["not_restored"], "not_restored", _size(spec)[1]))


def public(args: list[Any]) -> list[Any]:
    """A request as the worker gets it: each spec reduced to its point (``{"leaves": [...]}``), the rest as it is
    (the judge keeps the program and the gradients: :mod:`assignments.gradcheck.judged`)."""
    def point_of(spec: Any) -> Any:
        return {"leaves": list(spec["leaves"])} if isinstance(spec, dict) else spec

    if args and isinstance(args[0], list):
        return [[point_of(s) for s in args[0]], *args[1:]]
    return [point_of(args[0]), *args[1:]] if args else args


PROBES = {
    "gradcheck_verdicts": lambda mg, ctx, specs, atol, rtol: probe_verdicts(mg, ctx, specs, atol, rtol),
    "gradcheck_numerical": lambda mg, ctx, spec, h, as_values: probe_numerical(mg, ctx, spec, h, as_values),
    "gradcheck_analytic": lambda mg, ctx, spec, as_values: probe_analytic(mg, ctx, spec, as_values),
    "gradcheck_count": lambda mg, ctx, spec, engine: probe_count(mg, ctx, spec, engine),
    "gradcheck_count_raising": lambda mg, ctx, spec, node: probe_count_raising(mg, ctx, spec, node),
}
"""This module's probes (see ``grader.sandbox.probes``)."""
NEEDS = {name: ("micrograd.engine", "micrograd.gradcheck") for name in PROBES}
ANSWERS = {
    "gradcheck_verdicts": parse_verdicts,
    "gradcheck_numerical": parse_numerical,
    "gradcheck_analytic": parse_analytic,
    "gradcheck_count": parse_count,
    "gradcheck_count_raising": parse_count_raising,
}
JUDGE_SIDE = "assignments.gradcheck.judged"
"""Where the judge answers these probes' asks (it holds the functions' programs and local gradients, and counts
their use): its ``JUDGED``, imported by the judge only (``grader.sandbox.probes``)."""
