"""The probes of assignment ``graph``: ``trace``, ``to_dot``, ``_escape`` and ``hand_gradients`` of the student's
``micrograd/graph.py``, run in the sandbox.

Every graph a probe hands to the student's code is made by the probe itself
(:func:`build`): each node is ``Value(data)`` with ``_prev``, ``_op``,
``grad`` (and sometimes ``label``) set as the request says
(:func:`~assignments.shared.probes.engine_probes.grader_node`), so none of
the student's operations or ``backward()`` runs, and a bug in the engine costs
no points here. A *DOT graph spec* is plain data, one entry per node::

    {
      "data": [1.0, 2.0, 3.0],          # node i is Value(data[i])
      "grad": [0.5, 0.5, 1.0],          # ... with grad[i]
      "op": ["", "", "+"],              # ... _op
      "prev": [[], [], [0, 1]],         # ... _prev: indices of earlier nodes
      "label": {"0": "x"},              # optional: node.label for some nodes
      "root": 2                         # optional: the node handed to trace/to_dot (default: the last)
    }

``to_dot`` runs with the module's ``trace`` replaced by a stand-in that
returns the spec's own nodes and edges (it does not walk the graph), so a bug
in ``trace`` costs points only in ``trace``'s tests. The stand-in's sets
iterate in the spec's order, so the text of a DOT that follows them is the
same in every run but for the ``id()`` numbers in the node names.

The answers are plain data: ``trace``'s nodes and edges as spec indices (an
object that is no node of the graph is ``-1``), ``to_dot``'s text cut to the
length the request allows (with its full length) and the ``id()`` of every
node, so the judge can tell which DOT node stands for which Value.
"""

from __future__ import annotations

from typing import Any, TypedDict

from assignments.shared.probes.call_probes import global_set, refers_to
from assignments.shared.probes.engine_probes import Children, creation_order, grader_node, order_children
from probekit import (
    Context,
    MalformedAnswer,
    Number,
    ProbeError,
    count,
    flag,
    number,
    read_number,
    read_text,
    record,
    short_repr,
)

MAX_NODES = 10_000
"""Most nodes a request's graph may have."""
MAX_ID = 2**64
"""Largest ``id()`` the answer may report."""
MAX_DOT_CHARS = 1 << 20
"""Longest DOT text a request may allow."""


def node_count(spec: dict[str, Any]) -> int:
    """The number of nodes of a DOT graph spec."""
    return len(spec["data"])


def root_of(spec: dict[str, Any]) -> int:
    """The index of the node handed to ``trace``/``to_dot``."""
    return int(spec.get("root", node_count(spec) - 1)) % node_count(spec)


def edge_list(spec: dict[str, Any]) -> list[tuple[int, int]]:
    """Every ``(child, parent)`` pair of the spec, each once, parent by parent in the order the spec lists them."""
    pairs: list[tuple[int, int]] = []
    for parent, children in enumerate(spec["prev"]):
        for child in dict.fromkeys(children):
            pairs.append((child, parent))
    return pairs


def build(value_cls: type, spec: dict[str, Any], ctx: Context) -> list[Any]:
    """Make every node of ``spec`` with ``value_cls`` (the constructor and attribute writes only); return them."""
    nodes: list[Any] = []
    labels = spec.get("label") or {}
    for i, (data, grad, op, prev) in enumerate(zip(spec["data"], spec["grad"], spec["op"], spec["prev"])):
        ctx.during = f"creating Value({data!r}) for n{i} (a node the grader makes)"
        children = [nodes[c] for c in prev]
        node = grader_node(value_cls, data, children, op)
        order_children(node, children)
        if str(i) in labels:
            ctx.during = f"setting n{i}.label"
            try:
                node.label = labels[str(i)]
            except (AttributeError, TypeError):  # __slots__ without label: a subclass of the student's Value has one
                node = grader_node(labelled(value_cls), data, children, op)
                order_children(node, children)
                node.label = labels[str(i)]
        ctx.during = f"setting n{i}.grad = {grad!r}"
        node.grad = grad
        nodes.append(node)
    return nodes


def labelled(value_cls: type) -> type:
    """A subclass of ``value_cls`` whose instances take a ``label`` (``value_cls`` may have ``__slots__`` without
    one: a label is optional in the handout's ``Value``)."""
    return type(value_cls.__name__, (value_cls,), {"__module__": value_cls.__module__})


def own(mg: Any, name: str) -> Any:
    """The student's function ``name`` of ``graph.py``.

    A notebook's code is staged as ``micrograd/engine.py`` and ``graph.py``
    re-exports it with ``import *``, which leaves out names that start with
    ``_`` (``_escape``): those are looked up in the engine module then.
    """
    if hasattr(mg.graph, name) or not hasattr(mg.engine, name):
        return getattr(mg.graph, name)  # the AttributeError, if any, names graph.py's missing function
    return getattr(mg.engine, name)


def _pair(obj: Any) -> tuple[Any, Any] | None:
    """``obj`` as a pair when it is a tuple or list of two items, else None."""
    if isinstance(obj, (tuple, list)) and len(obj) == 2:
        return obj[0], obj[1]
    return None


def run_trace(mg: Any, ctx: Context, spec: dict[str, Any]) -> dict[str, Any]:
    """Probe ``graph_trace``: ``trace(root)`` on a graph the probe makes.

    Returns:
        ``{"nodes": [index, ...], "edges": [[child, parent], ...], "more": [bool, bool], "kinds": [str, str]}``:
        each item as the spec index of the node it is (``-1``: no node of the graph; an edge that is not a pair
        is ``[-2, -2]``), at most :func:`item_limits` of each (``more`` says there were more), and the type names
        of the two collections.
    """
    nodes = build(mg.engine.Value, spec, ctx)
    index = {id(v): i for i, v in enumerate(nodes)}
    ctx.during = f"calling trace(n{root_of(spec)})"
    result = own(mg, "trace")(nodes[root_of(spec)])
    ctx.during = "reading what trace returned"
    pair = _pair(result)
    if pair is None:
        raise ProbeError(f"trace(root) returned {short_repr(result, 60)}, expected a pair (nodes, edges)")
    most_nodes, most_edges = item_limits(spec)
    found: list[int] = []
    more_nodes = False
    for k, obj in enumerate(pair[0]):
        if k >= most_nodes:
            more_nodes = True
            break
        found.append(index.get(id(obj), -1))
    edges: list[list[int]] = []
    more_edges = False
    for k, obj in enumerate(pair[1]):
        if k >= most_edges:
            more_edges = True
            break
        ends = _pair(obj)
        edges.append([-2, -2] if ends is None else [index.get(id(ends[0]), -1), index.get(id(ends[1]), -1)])
    kinds = [type(pair[0]).__name__[:40], type(pair[1]).__name__[:40]]
    return {"nodes": found, "edges": edges, "more": [more_nodes, more_edges], "kinds": kinds}


def item_limits(spec: dict[str, Any]) -> tuple[int, int]:
    """How many nodes and edges of ``trace``'s answer the probe reads: more than a right answer has."""
    n = node_count(spec)
    return 2 * n + 2, 4 * n + 4


def stand_in(nodes: list[Any], spec: dict[str, Any], theirs: Any) -> Any:
    """A ``trace`` for ``to_dot``: the spec's nodes and edges for the spec's root (not a walk of the graph).

    Called with another node, it calls the student's own ``trace`` (``theirs``), if there is one.
    """
    root = nodes[root_of(spec)]

    def trace(node: Any) -> tuple[set[Any], set[tuple[Any, Any]]]:
        if node is not root:
            if theirs is None:
                raise ProbeError("to_dot called trace on a node other than its root")
            return theirs(node)
        return Children(nodes), Children([(nodes[c], nodes[p]) for c, p in edge_list(spec)])

    return trace


def scope_of(mg: Any, fn: Any) -> dict[str, Any]:
    """The globals the student's ``fn`` finds names in (``graph.py``'s, or a staged notebook's engine module's)."""
    scope = getattr(fn, "__globals__", None)
    return scope if isinstance(scope, dict) else vars(mg.graph)


def call_dot(mg: Any, ctx: Context, spec: dict[str, Any], rankdir: str | None) -> tuple[Any, list[Any]]:
    """``to_dot(root)`` (or with ``rankdir``) on the graph ``spec``, with the stand-in ``trace``; its result and the
    nodes."""
    nodes = build(mg.engine.Value, spec, ctx)
    to_dot = own(mg, "to_dot")
    scope = scope_of(mg, to_dot)
    with global_set(scope, "trace", stand_in(nodes, spec, scope.get("trace"))):
        root = nodes[root_of(spec)]
        if rankdir is None:
            ctx.during = "calling to_dot(root)"
            return to_dot(root), nodes
        ctx.during = f"calling to_dot(root, rankdir={rankdir!r})"
        return to_dot(root, rankdir=rankdir), nodes


def run_dot(mg: Any, ctx: Context, spec: dict[str, Any], rankdir: str | None, max_chars: int) -> dict[str, Any]:
    """Probe ``graph_dot``: ``to_dot(root)`` (or ``to_dot(root, rankdir=...)``) on a graph the probe makes.

    Returns:
        ``{"dot": text, "length": int, "ids": [id(node), ...]}``: the text cut to ``max_chars`` characters, its
        full length, and the ``id()`` of every node of the spec (the DOT names its nodes after them).
    """
    out, nodes = call_dot(mg, ctx, spec, rankdir)
    if not isinstance(out, str):
        raise ProbeError(f"to_dot returned {type(out).__name__} {short_repr(out, 60)}, expected a str")
    dot = str.__str__(out)
    return {"dot": dot[:max_chars], "length": min(len(dot), MAX_DOT_CHARS + 1), "ids": [id(v) for v in nodes]}


def run_dot_uses(mg: Any, ctx: Context, spec: dict[str, Any]) -> dict[str, Any]:
    """Probe ``graph_dot_uses``: ``{"calls": int, "named": bool}``, how often the student's ``to_dot`` called their
    ``_escape`` while it drew ``spec`` (returning or raising), and whether its code names ``_escape`` (a missing one)."""
    to_dot = own(mg, "to_dot")
    scope = scope_of(mg, to_dot)
    named = refers_to(to_dot, "_escape", scope)
    calls = [0]
    escape = scope.get("_escape")
    if not callable(escape):
        return {"calls": 0, "named": named}

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        return escape(*args, **kwargs)

    with global_set(scope, "_escape", counted):
        try:
            call_dot(mg, ctx, spec, None)
        except Exception:  # noqa: BLE001 - what to_dot did before it raised is the answer; its tests report the error
            pass
    return {"calls": min(calls[0], 10**6), "named": named}


def escape_limit(text: str) -> int:
    """Longest escaped text the answer may hold for ``text``: more than any sensible escaping makes."""
    return 4 * len(text) + 16


def run_escape(mg: Any, ctx: Context, texts: list[str], in_record: bool) -> dict[str, Any]:
    """Probe ``graph_escape``: ``_escape(text, record=in_record)`` for each text.

    Returns:
        ``{"escaped": [text, ...]}``, each cut to :func:`escape_limit` characters.
    """
    escaped = []
    escape = own(mg, "_escape")
    for t in texts:
        ctx.during = f"calling _escape({short_repr(t, 40)}, record={in_record})"
        out = escape(t, record=in_record)
        if not isinstance(out, str):
            raise ProbeError(f"_escape returned {type(out).__name__} {short_repr(out, 60)}, expected a str")
        escaped.append(str.__str__(out)[:escape_limit(t)])
    return {"escaped": escaped}


def run_hand(mg: Any, ctx: Context) -> dict[str, Any]:
    """Probe ``graph_hand``: ``hand_gradients()``, and how many Values it made while it ran.

    Returns:
        ``{"x": number, "y": number, "z": number, "made": int}``.
    """
    with creation_order(mg.engine.Value) as tape:
        ctx.during = "calling hand_gradients()"
        got = own(mg, "hand_gradients")()
        made = len(tape) if tape is not None else 0
    if not isinstance(got, dict):
        raise ProbeError(f"hand_gradients() returned {short_repr(got, 60)}, expected a dict with x, y and z")
    out: dict[str, Any] = {}
    for key in ("x", "y", "z"):
        ctx.during = f"reading hand_gradients()[{key!r}]"
        if key not in got:
            raise ProbeError(f"hand_gradients() returned a dict without {key!r}: {short_repr(got, 60)}")
        out[key] = number(got[key])
    out["made"] = min(made, 10**6)
    return out


# --- the answers' schemas (judge side) ---------------------------------------------------------------------------

class TraceAnswer(TypedDict):
    """``graph_trace``: trace's nodes and edges as spec indices."""

    nodes: list[int]
    edges: list[tuple[int, int]]
    more: tuple[bool, bool]
    kinds: tuple[str, str]


class DotAnswer(TypedDict):
    """``graph_dot``: the DOT text (cut), its full length and the nodes' ``id()``."""

    dot: str
    length: int
    ids: list[int]


class HandAnswer(TypedDict):
    """``graph_hand``: the three gradients and the number of Values made."""

    x: Number
    y: Number
    z: Number
    made: int


def _list(value: Any, where: str, most: int) -> list[Any]:
    if type(value) is not list or len(value) > most:
        raise MalformedAnswer(f"{where}: expected a list of at most {most} items")
    return value


def _long_text(value: Any, where: str, most: int) -> str:
    if type(value) is not str or len(value) > most:
        raise MalformedAnswer(f"{where}: expected a text of at most {most} characters")
    return value


def parse_trace(value: Any, spec: dict[str, Any]) -> TraceAnswer:
    """The answer of ``graph_trace``, every index within the request's graph."""
    n = min(node_count(spec), MAX_NODES)
    most_nodes, most_edges = item_limits(spec)
    got = record(value, "graph_trace", ("nodes", "edges", "more", "kinds"))
    nodes = [count(x, "nodes[]", n - 1, -1) for x in _list(got["nodes"], "nodes", most_nodes)]
    edges = []
    for pair in _list(got["edges"], "edges", most_edges):
        ends = _list(pair, "edges[]", 2)
        if len(ends) != 2:
            raise MalformedAnswer("edges[]: expected pairs")
        edges.append((count(ends[0], "edges[]", n - 1, -2), count(ends[1], "edges[]", n - 1, -2)))
    more = _list(got["more"], "more", 2)
    kinds = _list(got["kinds"], "kinds", 2)
    if len(more) != 2 or len(kinds) != 2:
        raise MalformedAnswer("graph_trace: expected two flags and two type names")
    return TraceAnswer(nodes=nodes, edges=edges, more=(flag(more[0], "more"), flag(more[1], "more")),
                       kinds=(read_text(kinds[0], "kinds"), read_text(kinds[1], "kinds")))


def parse_dot(value: Any, spec: dict[str, Any], rankdir: str | None, max_chars: int) -> DotAnswer:
    """The answer of ``graph_dot``: a text of at most ``max_chars`` characters and one ``id()`` per node."""
    n = node_count(spec)
    got = record(value, "graph_dot", ("dot", "length", "ids"))
    ids = _list(got["ids"], "ids", n)
    if len(ids) != n:
        raise MalformedAnswer(f"ids: expected {n} numbers")
    return DotAnswer(dot=_long_text(got["dot"], "dot", max_chars), length=count(got["length"], "length", MAX_DOT_CHARS + 1),
                     ids=[count(i, "ids[]", MAX_ID) for i in ids])


def parse_dot_uses(value: Any, spec: dict[str, Any]) -> dict[str, Any]:
    """The answer of ``graph_dot_uses``."""
    got = record(value, "graph_dot_uses", ("calls", "named"))
    return {"calls": count(got["calls"], "calls", 10**6), "named": flag(got["named"], "named")}


def parse_escape(value: Any, texts: list[str], in_record: bool) -> list[str]:
    """The answer of ``graph_escape``: one text per request text, each within :func:`escape_limit`."""
    got = record(value, "graph_escape", ("escaped",))
    escaped = _list(got["escaped"], "escaped", len(texts))
    if len(escaped) != len(texts):
        raise MalformedAnswer(f"escaped: expected {len(texts)} texts")
    return [_long_text(e, "escaped[]", escape_limit(t)) for e, t in zip(escaped, texts)]


def parse_hand(value: Any) -> HandAnswer:
    """The answer of ``graph_hand``."""
    got = record(value, "graph_hand", ("x", "y", "z", "made"))
    return HandAnswer(x=read_number(got["x"], "x"), y=read_number(got["y"], "y"), z=read_number(got["z"], "z"),
                      made=count(got["made"], "made", 10**6))


PROBES = {
    "graph_trace": run_trace,
    "graph_dot": run_dot,
    "graph_dot_uses": run_dot_uses,
    "graph_escape": run_escape,
    "graph_hand": run_hand,
}
"""This module's probes (see ``grader.sandbox.probes``)."""
NEEDS = {name: ("micrograd.engine", "micrograd.graph") for name in PROBES}
ANSWERS = {"graph_trace": parse_trace, "graph_dot": parse_dot, "graph_dot_uses": parse_dot_uses,
           "graph_escape": parse_escape, "graph_hand": parse_hand}
