"""What a student's DOT text draws, in terms of the graph's nodes, and how two drawings compare (judge side).

:func:`drawing` reads a ``graph_dot`` answer (:mod:`assignments.graph.dot`)
and finds which DOT node is the record of which Value and which is its op
node by structure, whatever their labels say (:mod:`assignments.graph.roles`:
the names ``n<id(v)>`` and ``n<id(v)>_op``, or another name holding
``id(v)``, ...), what each shows, the arrows between them and ``rankdir``. Two
drawings compare aspect by aspect (:func:`check_records`, :func:`check_ops`,
:func:`check_edges`, :func:`check_nodes`, :func:`check_rankdir`), so the
order of statements, spacing, quoting and attribute order never matter;
each failure carries a hint true of what it found.

Drawings are kept (a bounded cache) under their text with the node ids
renamed to spec indices: a right answer has the same text, but for the ids,
for every student (the grader's stand-in for ``trace`` lists the nodes in
the spec's order), so pydot parses it once per judge process.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from assignments.graph.dot import PARSE_HINT, attributes, check_length, collect, label_of, parse, short
from assignments.graph.labels import MAX_GROUPS, dot_string, esc_string, record_fields, show_fields
from assignments.graph.roles import DIGITS, Point, find_roles, shape_of
from grader.testing import Failure

MARK = "_gr4d3r"
"""What the names hold in place of node k's ``id()``: ``<MARK>k`` (a text holding it is not renamed, nor cached)."""
RENAMED = re.compile(rf"{MARK}\d+(?!\d)")
"""Finds the renamed ids in a name."""
CACHE_SIZE = 256


@dataclass(frozen=True)
class Unreadable:
    """A Value's node that does not show a record: why, and its label's text."""

    why: str
    label: str


@dataclass
class Drawing:
    """What Graphviz would draw for a DOT text, in terms of the graph's nodes (spec indices).

    Attributes:
        records: Node index to what its record shows: the fields (``(("data 1.0000", "grad 0.0000"),)``), or
            :class:`Unreadable` when it is not a record (no ``shape=record``) or its label does not parse as one.
        ops: Node index to the text of its op node.
        edges: Every arrow, tail to head.
        strays: DOT nodes that stand for no Value and no op node (their names).
        rankdir: The graph's ``rankdir``, or None.
        reverse: Arrows drawn the other way (``dir=back``) or without a direction (``dir=none``, ``both``).
    """

    records: dict[int, Any] = field(default_factory=dict)
    ops: dict[int, str] = field(default_factory=dict)
    edges: set[tuple[Point, Point]] = field(default_factory=set)
    strays: list[str] = field(default_factory=list)
    rankdir: str | None = None
    reverse: int = 0


_cache: OrderedDict[tuple[str, tuple[str, ...], int], Drawing] = OrderedDict()


def data_field(x: float) -> str:
    """The record field that shows a node's data: ``data %.4f``."""
    return f"data {x:.4f}"


def drawing(answer: dict[str, Any], spec: dict[str, Any], most_chars: int, most_names: int) -> Drawing:
    """What the DOT text of a ``graph_dot`` answer draws, in terms of the nodes of ``spec``.

    Every whole run of digits that is a node's ``id()`` is renamed ``<MARK><index>`` first (``n140...`` and
    micrograd's ``140...+`` alike), so that the text of a drawing is the same for every student and run.

    Raises:
        Failure: If the text is too long, too large for its graph, does not parse, or is not a digraph.
    """
    text = check_length(answer, most_chars)
    ids = answer["ids"]
    datas = tuple(data_field(x) for x in spec["data"])
    if MARK in text:
        return _draw(text, [str(i) for i in ids], DIGITS, datas, most_names)
    index = {str(i): k for k, i in enumerate(ids)}
    renamed = DIGITS.sub(lambda m: f"{MARK}{index[m.group(0)]}" if m.group(0) in index else m.group(0), text)
    key = (renamed, datas, most_names)
    if key in _cache:
        _cache.move_to_end(key)
        return _cache[key]
    found = _draw(renamed, [f"{MARK}{k}" for k in range(len(ids))], RENAMED, datas, most_names)
    _cache[key] = found
    if len(_cache) > CACHE_SIZE:
        _cache.popitem(last=False)
    return found


def _draw(text: str, tokens: list[str], token: re.Pattern[str], datas: tuple[str, ...], most_names: int) -> Drawing:
    """The drawing of ``text``, whose names hold ``tokens[k]`` for node k's ``id()`` (found by ``token``)."""
    graph = parse(text, most_names)
    if graph.get_type() != "digraph":
        raise Failure(f"to_dot's text is a {short(str(graph.get_type()), 20)}, expected a digraph (arrows, ->)",
                      hint=PARSE_HINT)
    nodes: dict[str, dict[str, str]] = {}
    edges: list[tuple[Any, Any, dict[str, str]]] = []
    defaults: dict[str, dict[str, str]] = {}
    collect(graph, nodes, edges, defaults)
    for tail, head, _ in edges:  # a name used only in an edge is a node too, with default attributes
        for end in (tail, head):
            if end is not None:
                nodes.setdefault(end, {})
    out = Drawing()
    rankdir = attributes(graph).get("rankdir") or defaults.get("graph", {}).get("rankdir")
    out.rankdir = dot_string(rankdir) if rankdir is not None else None

    node_defaults = defaults.get("node", {})
    role = find_roles(nodes, edges, tokens, token, datas, node_defaults)

    for name, attrs in nodes.items():
        merged = {**node_defaults, **attrs}
        kind, k = role.get(name, ("?", name))
        label = label_of(merged, name)
        if kind == "v":
            if label is None:
                out.records[k] = Unreadable("has an HTML label <...>", "")
            elif shape_of(merged, node_defaults) != "record":
                out.records[k] = Unreadable(f"has shape={shape_of(merged, node_defaults)}, so Graphviz shows its label as plain text",
                                            label)
            else:
                fields = record_fields(label)
                out.records[k] = fields if fields is not None else Unreadable(
                    "has a label Graphviz cannot split into record fields (an unescaped { } | < > or an unbalanced "
                    f"brace), or that nests braces more than {MAX_GROUPS} deep", label)
        elif kind == "op":
            out.ops[k] = _op_text(label, shape_of(merged, node_defaults) == "record")
        else:
            out.strays.append(name)
    edge_defaults = defaults.get("edge", {})
    for tail, head, attrs in edges:
        direction = dot_string(attrs.get("dir", edge_defaults.get("dir", "forward")) or "") or "forward"
        a = role.get(tail, ("?", tail)) if tail is not None else ("?", "a subgraph")
        b = role.get(head, ("?", head)) if head is not None else ("?", "a subgraph")
        if direction == "back":
            a, b = b, a
        if direction != "forward":
            out.reverse += 1
        out.edges.add((a, b))
    return out


def _op_text(label: str | None, is_record: bool) -> str:
    """What an op node shows: its label's text (a record of one field: that field)."""
    if label is None:
        return "an HTML label"
    if not is_record:
        return esc_string(label)
    fields = record_fields(label)
    return fields[0] if fields is not None and len(fields) == 1 and isinstance(fields[0], str) else f"a record {label}"


# --- what a drawing should show ------------------------------------------------------------------------------------

def expected_drawing(spec: dict[str, Any], rankdir: str = "LR") -> Drawing:
    """The drawing the handout describes for the graph ``spec`` (every node reachable from its root): a record
    ``{ [label |] data D | grad G }`` per node, an op node per node with an op, ``op -> value``, and
    ``child -> op of parent`` (or ``-> parent`` when the parent has no op)."""
    out = Drawing(rankdir=rankdir)
    labels = spec.get("label") or {}
    for k, (data, grad, op) in enumerate(zip(spec["data"], spec["grad"], spec["op"])):
        fields = ([labels[str(k)]] if labels.get(str(k)) else []) + [data_field(data), f"grad {grad:.4f}"]
        out.records[k] = (tuple(fields),)
        if op:
            out.ops[k] = op
            out.edges.add((("op", k), ("v", k)))
    for parent, children in enumerate(spec["prev"]):
        for child in children:
            out.edges.add((("v", child), ("op", parent) if spec["op"][parent] else ("v", parent)))
    return out


# --- comparisons -------------------------------------------------------------------------------------------------

def name_of(point: Point, spec: dict[str, Any]) -> str:
    """How a message names one end of an arrow."""
    kind, k = point
    if kind == "v":
        return node_name(spec, k)
    if kind == "op":
        return f"the op node of {node_name(spec, k)}"
    return f"a node named {short(str(k), 30)}"


def node_name(spec: dict[str, Any], k: int) -> str:
    """``x0`` for a leaf, ``n3`` for a node made by an operation."""
    return f"x{k}" if not spec["prev"][k] and not spec["op"][k] else f"n{k}"


def _listing(items: list[str], most: int = 3) -> str:
    return "; ".join(items[:most]) + (f"; and {len(items) - most} more" if len(items) > most else "")


RECORD_HINT = 'n<id(v)> [shape=record, label="{ data %.4f | grad %.4f }"] for each node of trace'
SHAPE_HINT = "give every value's node shape=record: only then does Graphviz split its label into fields"
FIELDS_HINT = ("escape the label text with _escape(text, record=True), and write the fields as "
               '"{ field | field }": the outer braces put them side by side')
BRACES_HINT = ('put the fields inside one pair of braces, label="{ data ... | grad ... }": with rankdir=LR the '
               "braces set them side by side")
FORMAT_HINT = 'the record\'s label is "{ data %.4f | grad %.4f }" % (v.data, v.grad): four decimals, data first'
LABEL_HINT = "when getattr(v, 'label', '') is not empty, it is the record's first field"
ESCAPE_HINT = "escape the label's text with _escape(label, record=True): its { } | < > \\ and \" must show as they are"


def _record_hint(got: Any, want: tuple[Any, ...]) -> str:
    """The hint that is true of one record that differs."""
    if isinstance(got, Unreadable):
        return SHAPE_HINT if got.why.startswith("has shape") else FIELDS_HINT
    inner = want[0] if len(want) == 1 and isinstance(want[0], tuple) else want
    seen = got[0] if len(got) == 1 and isinstance(got[0], tuple) else None
    if seen is None:
        return BRACES_HINT if got == inner else FIELDS_HINT
    if len(inner) == 3 and len(seen) == 2:
        return LABEL_HINT
    if len(inner) == 3 and len(seen) == 3 and seen[0] != inner[0]:
        return ESCAPE_HINT
    return FORMAT_HINT


def check_records(got: Drawing, want: Drawing, spec: dict[str, Any]) -> None:
    """Every Value has its record, showing what it should.

    Raises:
        Failure: Naming the first few records that differ, with a hint about the first.
    """
    wrong, hint = [], None
    for k, fields in sorted(want.records.items()):
        if k not in got.records:
            wrong.append(f"{node_name(spec, k)} has no record node (a node n<id(v)> with shape=record)")
            hint = hint or RECORD_HINT
        elif got.records[k] != fields:
            shown = got.records[k]
            if isinstance(shown, Unreadable):
                wrong.append(f"{node_name(spec, k)}'s node {shown.why} ({short(shown.label, 50)}), expected a record "
                             f"showing {short(show_fields(fields), 50)}")
            else:
                wrong.append(f"{node_name(spec, k)}'s record shows {short(show_fields(shown), 70)}, expected "
                             f"{short(show_fields(fields), 70)}")
            hint = hint or _record_hint(shown, fields)
    if wrong:
        raise Failure("the records differ: " + _listing(wrong), hint=hint)


OP_HINT = ('n<id(v)>_op [label="<op>"] for each value whose _op is not empty: its own op node, named after the '
           "value, not after the op")
OP_TEXT_HINT = 'the op node\'s label is the op itself, escaped with _escape(v._op), in double quotes: label="+"'
EDGE_HINT = ("n<id(v)>_op -> n<id(v)>, and for each (child, parent) of trace n<id(child)> -> n<id(parent)>_op "
             "(-> n<id(parent)> when the parent has no op)")


def check_ops(got: Drawing, want: Drawing, spec: dict[str, Any]) -> None:
    """Every Value made by an operation has its own op node showing the op, and no other node has one.

    Raises:
        Failure: Naming the first few op nodes that differ.
    """
    wrong = []
    for k, op in sorted(want.ops.items()):
        if k not in got.ops:
            wrong.append(f"{node_name(spec, k)} (op {short(op, 20)}) has no op node n<id(v)>_op")
        elif got.ops[k] != op:
            wrong.append(f"the op node of {node_name(spec, k)} shows {short(got.ops[k], 30)}, expected {short(op, 30)}")
    for k in sorted(set(got.ops) - set(want.ops)):
        wrong.append(f"{node_name(spec, k)} has an op node, but it was made by no operation (its _op is empty)")
    strays = [name for name in got.strays if name not in ("node", "edge", "graph")]
    if strays and not wrong:
        wrong.append(f"{len(strays)} node(s) stand for no Value and no op: {', '.join(short(s, 30) for s in strays[:3])}")
    if wrong:
        shows = all(k in got.ops for k in want.ops) and set(got.ops) <= set(want.ops) and not strays
        raise Failure("the op nodes differ: " + _listing(wrong), hint=OP_TEXT_HINT if shows else OP_HINT)


def check_edges(got: Drawing, want: Drawing, spec: dict[str, Any]) -> None:
    """The arrows are exactly the expected ones, in the expected direction.

    Raises:
        Failure: Naming the first few missing and extra arrows.
    """
    missing = sorted(want.edges - got.edges, key=str)
    extra = sorted(got.edges - want.edges, key=str)
    if not missing and not extra and not got.reverse:
        return
    parts = []
    if missing:
        parts.append(f"{len(missing)} arrow(s) missing: "
                     + _listing([f"{name_of(a, spec)} -> {name_of(b, spec)}" for a, b in missing]))
    if extra:
        parts.append(f"{len(extra)} arrow(s) not expected: "
                     + _listing([f"{name_of(a, spec)} -> {name_of(b, spec)}" for a, b in extra]))
    if got.reverse:
        parts.append(f"{got.reverse} arrow(s) have a dir attribute: draw every arrow forward, from input to result")
    raise Failure("the arrows differ: " + "; ".join(parts), hint=EDGE_HINT)


def check_nodes(got: Drawing, want: Drawing, spec: dict[str, Any]) -> None:
    """Every Value has its record and, if made by an operation, its op node (whatever their labels show).

    Raises:
        Failure: Naming the first few that are missing.
    """
    missing = [f"{node_name(spec, k)}'s record" for k in sorted(set(want.records) - set(got.records))]
    missing += [f"{node_name(spec, k)}'s op node" for k in sorted(set(want.ops) - set(got.ops))]
    if missing:
        raise Failure(f"{len(missing)} node(s) missing from the drawing: {_listing(missing)}; expected n<id(v)> for "
                      "each value and n<id(v)>_op for each value made by an operation",
                      hint='one n<id(v)> [shape=record, label="..."] per node of trace, and n<id(v)>_op [label="<op>"] '
                           "per value whose _op is not empty")


def check_rankdir(got: Drawing, rankdir: str) -> None:
    """The graph's ``rankdir`` is ``rankdir``.

    Raises:
        Failure: Showing the one it has.
    """
    if got.rankdir != rankdir:
        has = "no rankdir" if got.rankdir is None else f"rankdir={short(got.rankdir, 20)}"
        raise Failure(f"the graph has {has}, expected rankdir={rankdir}",
                      hint="write the argument into the graph as its first statement: rankdir=<rankdir>;")
