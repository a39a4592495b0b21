"""Probes on the engine: build an expression graph from a plain-data spec.

A *graph spec* is plain data that the judge writes and the sandbox executes
with the student's ``Value`` (and the judge with the reference's)::

    {
      "leaves": [2.0, -3.0],                   # nodes 0 and 1: Value(2.0), Value(-3.0)
      "nodes": [["mul", 0, 1],                 # node 2 = node0 * node1
                ["add", {"const": 1}, 2],      # node 3 = 1 + node2  (__radd__)
                ["tanh", 3]],                  # node 4 = node3.tanh()
      "mode": "local" | "backward",
      "build": "student" | "probe" | [3],      # who makes the nodes: the student's operations (default),
                                               # the probe (every node), or the probe for the nodes listed
      "seed": 1.0,          # local mode: out.grad is set to this
      "output": -1,         # local mode: the node whose _backward chain is run
      "backward": [-1],     # backward mode: call .backward() on these, in order
      "locals": {"3": [1.0, 1.0]}  # the local gradients of each node the probe makes (added by the judge)
    }

An operand is a node index or ``{"const": number}``, a plain int/float passed
as is, so wrapping and reflected operations are exercised. ``pow`` takes its
exponent as a const.

Every node's ``_prev`` is iterated in the order the spec lists its operands
(:class:`Children`), not in the order of the objects' memory addresses, so a
``backward()`` that depends on that order gets the same gradients wherever
and however often it is graded.

``local`` mode tests the ``_backward`` closures only: the probe seeds
``out.grad`` and calls the ``_backward`` of each node reachable from it once,
newest node first (the order the nodes were made in, recorded while the
graph is built: :func:`creation_order`), so it does not depend on the
student's ``backward()``. ``backward`` mode calls the student's ``backward()``.

With ``"build": "probe"`` the student's operations are not called at all:
the probe computes each node's value with ``math``, makes it with
``Value(data)``, sets its ``_prev`` and ``_op`` (:func:`grader_node`) and attaches its own
``_backward`` closure (``parent.grad += local gradient * out.grad``), with
the local gradients the judge sends in ``"locals"``. A ``backward()`` test on
such a graph grades ``backward()`` alone: a missing or wrong ``tanh`` cannot
cost points there.

Nothing here computes a gradient: no table of local gradients and no
topological sort is in the sandbox (or in what students receive), so a
submission cannot borrow either from the process it runs in.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypedDict

from probekit import Context, Number, ProbeError, Watched, number, numbers, record, short_repr, watched

UNARY: dict[str, Callable[[Any], Any]] = {
    "neg": lambda a: -a,
    "tanh": lambda a: a.tanh(),
    "relu": lambda a: a.relu(),
    "exp": lambda a: a.exp(),
    "log": lambda a: a.log(),
    "sigmoid": lambda a: a.sigmoid(),
}
BINARY: dict[str, Callable[[Any, Any], Any]] = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "truediv": lambda a, b: a / b,
    "pow": lambda a, b: a**b,
}


def _sigmoid(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    z = math.exp(x)
    return z / (1.0 + z)


FORWARD: dict[str, Callable[..., float]] = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "truediv": lambda a, b: a / b,
    "pow": lambda a, b: a**b,
    "neg": lambda a: -a,
    "tanh": math.tanh,
    "relu": lambda a: a if a > 0 else 0.0,
    "exp": math.exp,
    "log": math.log,
    "sigmoid": _sigmoid,
    "sum": lambda *xs: math.fsum(xs),
}
"""What each operation of the vocabulary (:data:`UNARY`, :data:`BINARY`, ``sum``) computes on plain floats:
the forward value of the nodes the probe makes, and the judge's evaluator (``assignments.shared.checks.graphs``). The
local gradients are not here: the judge sends them for the nodes the probe makes (``"locals"``)."""

SYMBOL = {"add": "+", "sub": "-", "mul": "*", "truediv": "/", "pow": "**"}

RESULTS = ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__", "__rtruediv__",
           "__pow__", "__neg__", "tanh", "relu", "exp", "log", "sigmoid")
"""The handout's operations of ``Value``, each of which returns a new Value (``backward`` returns None)."""


def value_results(value_cls: Any) -> Watched:
    """The operations of ``value_cls`` that must not return None, for :func:`probekit.watched`: a failure one of
    them explains (it forgot ``return out``) is reported under it, with the ``return`` to add."""
    return [(value_cls, name, f"Value.{name}") for name in RESULTS]


def operand_label(spec: dict[str, Any], operand: Any) -> str:
    """Human-readable name of an operand: ``x0``, ``n3`` or the constant."""
    if isinstance(operand, dict):
        return repr(operand.get("const"))
    return f"x{operand}" if operand < len(spec["leaves"]) else f"n{operand}"


def describe_node(spec: dict[str, Any], index: int) -> str:
    """Return the expression of node ``index``, e.g. ``x0 * 2``."""
    leaves = spec["leaves"]
    if index < len(leaves):
        return f"x{index}"
    op, *operands = spec["nodes"][index - len(leaves)]
    names = [operand_label(spec, o) for o in operands]
    if op in SYMBOL:
        return f"{names[0]} {SYMBOL[op]} {names[1]}"
    if op == "neg":
        return f"-{names[0]}"
    if op == "sum":
        return f"sum([{', '.join(names)}])"
    return f"{names[0]}.{op}()"


class Children(set):
    """A node's ``_prev``: the set the student's constructor made, iterated in the order the spec lists the
    operands instead of by memory address.

    Python iterates a set of objects in the order of their hashes, which for
    objects are their addresses; addresses depend on everything the process
    did before, down to the length of the folder the grader runs in. A
    ``backward()`` whose gradients depend on that order (a topological sort in
    pre-order, say) would then score differently in different runs of the same
    submission. Iterated in the spec's order, its gradients depend only on its
    code and the graph, and a test can put a shared node first or last on
    purpose. Membership, ``len`` and every other set operation are the set's own.
    """

    __slots__ = ("_order",)

    def __init__(self, order: list[Any]) -> None:
        super().__init__(order)
        self._order = tuple(order)

    def __iter__(self) -> Any:
        ordered = [c for c in self._order if c in self]  # the student's code may have removed some
        if len(ordered) != len(self):  # ... or added some: those follow, in the set's own order
            ordered += [c for c in set.__iter__(self) if not any(c is o for o in ordered)]
        return iter(ordered)


def order_children(node: Any, children: list[Any]) -> None:
    """Make ``node._prev`` iterate in the order of ``children`` (operands, in spec order), when it is a plain set
    of exactly those objects (by identity); anything else (a tuple, a set that merged equal Values, a node the
    student's ``sum`` made through intermediate nodes) is left as the student's code made it."""
    unique = list({id(c): c for c in children}.values())
    prev = getattr(node, "_prev", None)
    if len(unique) < 2 or type(prev) is not set or len(prev) != len(unique):
        return
    if {id(c) for c in prev} != {id(c) for c in unique}:
        return
    try:
        node._prev = Children(unique)
    except (AttributeError, TypeError):  # __slots__ without _prev, a read-only property: leave it
        pass


def _check_value(obj: Any, value_cls: type, what: str) -> None:
    if not isinstance(obj, value_cls):
        raise ProbeError(f"{what} returned {type(obj).__name__} {short_repr(obj)}, expected a Value")


def probe_made(spec: dict[str, Any]) -> set[int]:
    """The nodes the probe makes itself: ``"build": "probe"`` (every node) or a list of node indices."""
    how = spec.get("build", "student")
    if how == "probe":
        return set(range(len(spec["leaves"]), len(spec["leaves"]) + len(spec["nodes"])))
    return set(how) if isinstance(how, list) else set()


def forward_value(op: str, args: list[float]) -> float:
    """The forward value of ``op`` on plain floats (NaN outside its domain): the nodes the probe makes, and the
    judge's own evaluation of them (:func:`assignments.shared.checks.graphs.with_local_gradients`)."""
    try:
        value = FORWARD[op](*args)
    except (ArithmeticError, ValueError, TypeError):
        return math.nan
    return math.nan if isinstance(value, complex) else float(value)  # (-2.0) ** 0.5


def given_locals(spec: dict[str, Any], index: int, count: int) -> list[float]:
    """The local gradients the judge sent for node ``index`` (``spec["locals"][str(index)]``): ``count`` numbers.

    Raises:
        ProbeError: If the spec has none for that node (a request the judge did not complete).
    """
    given = (spec.get("locals") or {}).get(str(index))
    if not isinstance(given, list) or len(given) != count:
        raise ProbeError(f"the request gives no local gradients for n{index}, a node the grader makes")
    return [math.nan if g is None else float(g) for g in given]


def build(value_cls: type, spec: dict[str, Any], ctx: Context) -> list[Any]:
    """Run the forward pass of ``spec`` with ``value_cls``; return every node.

    A node the probe makes itself (:func:`probe_made`) calls only the constructor
    ``Value(data, children, op)`` and gets the probe's own ``_backward`` closure,
    with the local gradients the judge computed (:func:`given_locals`).
    """
    by_probe = probe_made(spec)
    results = value_results(value_cls)
    nodes: list[Any] = []
    values: list[float] = []  # the probe's own forward values, kept only when it makes some nodes
    for x in spec["leaves"]:
        ctx.during = f"creating Value({x!r})"
        nodes.append(value_cls(x))
        values.append(float(x))
    for i, (op, *operands) in enumerate(spec["nodes"], start=len(spec["leaves"])):
        what = describe_node(spec, i)
        if by_probe:
            values.append(forward_value(op, [float(o["const"]) if isinstance(o, dict) else values[o] for o in operands]))
            value = values[-1]
        if i in by_probe:
            gradients = given_locals(spec, i, len(operands))
            parents = [(nodes[o], g) for o, g in zip(operands, gradients) if not isinstance(o, dict)]
            ctx.during = f"creating Value({value!r}) for n{i} = {what} (a node the grader makes)"
            out = grader_node(value_cls, value, [p for p, _ in parents], op)
            out._backward = closure(out, parents)
        else:
            args = [o["const"] if isinstance(o, dict) else nodes[o] for o in operands]
            ctx.during = f"forward pass: n{i} = {what}"
            out = watched(functools.partial(apply, op, args), what, results)
            _check_value(out, value_cls, what)
        ctx.during = f"reading n{i}._prev"
        order_children(out, [nodes[o] for o in operands if not isinstance(o, dict)])
        nodes.append(out)
    return nodes


def apply(op: str, args: list[Any]) -> Any:
    """Run the operation ``op`` of the spec's vocabulary on its operands (Values or plain numbers)."""
    if op == "sum":
        return sum(args)
    if op in UNARY:
        return UNARY[op](args[0])
    return BINARY[op](args[0], args[1])


def grader_node(value_cls: type, value: float, children: list[Any], op: str) -> Any:
    """A node the probe makes: ``Value(value)``, then its ``_prev`` and ``_op`` set as the handout names them.

    Only the one-argument constructor is called, so a constructor that takes its
    other arguments in another order (``Value(data, _op, _children)``) costs
    points only in the contract test (:func:`value_contract`), not in every
    test that has a node the grader makes. Where the attributes cannot be set
    (``__slots__`` without them, a read-only property), the handout's
    constructor ``Value(data, children, op)`` makes the node instead.
    """
    out = value_cls(value)
    try:
        out._prev = set(children)
        out._op = op
    except (AttributeError, TypeError):
        out = value_cls(value, tuple(children), op)
    return out


def closure(out: Any, parents: list[tuple[Any, float]]) -> Callable[[], None]:
    """A ``_backward`` for ``out``: add each parent's local gradient times ``out.grad`` to the parent's grad."""
    def _backward() -> None:
        for parent, local in parents:
            parent.grad += local * out.grad
    return _backward


@contextmanager
def creation_order(value_cls: type) -> Iterator[list[Any] | None]:
    """While the block runs, record every object of ``value_cls`` whose ``__init__`` completes, in that order.

    A node is made after its children (they are its constructor's arguments),
    so the reverse of this order visits each node before its children: what
    calling the ``_backward`` closures needs, without walking the graph. Yields
    None (records nothing) for a class whose ``__init__`` cannot be replaced.
    """
    tape: list[Any] = []
    own = value_cls.__dict__.get("__init__")
    init = getattr(value_cls, "__init__")  # noqa: B009 - the class's own attribute, not an instance's

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        tape.append(self)

    try:
        value_cls.__init__ = __init__  # type: ignore[misc]
    except (AttributeError, TypeError):
        yield None
        return
    try:
        yield tape
    finally:
        if own is None:
            del value_cls.__init__  # type: ignore[misc]
        else:
            value_cls.__init__ = own  # type: ignore[misc]


def _reachable(out: Any) -> list[Any]:
    """The nodes reachable from ``out`` through ``_prev`` (by identity), in the order they were found."""
    found = [out]
    seen = {id(out)}
    for node in found:
        for child in list(node._prev):
            if id(child) not in seen:
                seen.add(id(child))
                found.append(child)
    return found


def walk_backward(out: Any, tape: list[Any] | None, ctx: Context) -> None:
    """Call the ``_backward`` of every node reachable from ``out`` once, newest node first.

    ``tape`` is the order the nodes were made in (:func:`creation_order`), so
    only the student's closures and ``_prev`` are exercised, never their
    ``backward()``. A reachable node the tape did not see (made before the
    probe started, or without the class's ``__init__``) comes after the others.
    ``ctx`` names the node whose closure is running.
    """
    ctx.during = "listing the graph through _prev"
    reachable = {id(n): n for n in _reachable(out)}
    ordered = []
    for node in reversed(tape or []):
        if reachable.pop(id(node), None) is not None:
            ordered.append(node)
    ordered += reachable.values()
    for node in ordered:
        ctx.during = f"calling _backward of a node made by {short_repr(getattr(node, '_op', '?'), 20)}"
        node._backward()


def run_graph(mg: Any, spec: dict[str, Any], ctx: Context) -> dict[str, Any]:
    """Probe ``graph``: forward pass, then a local or full backward pass.

    Returns:
        ``{"data": [...], "grad": [...]}``, one number (or non-number marker)
        per node, leaves first.
    """
    value_cls = mg.engine.Value
    if spec.get("mode", "backward") == "local":
        with creation_order(value_cls) as tape:
            nodes = build(value_cls, spec, ctx)
        out = nodes[spec.get("output", -1)]
        ctx.during = "setting out.grad"
        out.grad = spec.get("seed", 1.0)
        walk_backward(out, tape, ctx)
    else:
        nodes = build(value_cls, spec, ctx)
        for i in spec.get("backward", [-1]):
            ctx.during = f"calling backward() on {describe_node(spec, i % len(nodes))}"
            nodes[i].backward()
    ctx.during = "reading data and grad"
    return {"data": [number(n.data) for n in nodes], "grad": [number(n.grad) for n in nodes]}


class GraphAnswer(TypedDict):
    """``graph``: forward value and gradient of every node, leaves first."""

    data: list[Number]
    grad: list[Number]


def parse_graph(value: Any, spec: dict[str, Any]) -> GraphAnswer:
    """The answer of ``graph``: one number per node of the request's spec, in each of data and grad."""
    n = len(spec["leaves"]) + len(spec["nodes"])
    got = record(value, "graph", ("data", "grad"))
    return GraphAnswer(data=numbers(got["data"], "data", n), grad=numbers(got["grad"], "grad", n))


PROBES = {"graph": lambda mg, ctx, spec: run_graph(mg, spec, ctx)}
"""This module's probes (see ``grader.sandbox.probes``)."""
NEEDS = {"graph": ("micrograd.engine",)}
ANSWERS = {"graph": parse_graph}
JUDGE_SIDE = "assignments.shared.checks.graphs"
"""Where the judge completes a ``graph`` request (the local gradients of the nodes the probe makes): its
``REQUESTS``, imported by the judge only (``grader.sandbox.probes``)."""
