"""Which DOT node of a student's drawing stands for which Value, found by structure (judge side).

A node's role is decided by what the drawing is built from, never by what its
label says, so that a label written otherwise (``value 2.0000``,
``data=2.0000``) costs points in the label's own case only. In order:

1. the handout's names: ``n<id(v)>`` is ``v``'s record, ``n<id(v)>_op`` its op node;
2. any other name holding ``id(v)`` and no other node's id (micrograd's
   ``draw_dot`` names a record ``str(id(v))`` and its op node
   ``str(id(v)) + v._op``): the one of them with ``shape=record`` (else the
   bare id) is the record, and one other node of that id is the op node;
3. a record named after no id: the one record whose label shows a node's data;
4. an op node named after no id: the one node whose arrows all go to the
   record of a node that has no op node yet.

The ids reach this module as tokens (:func:`find_roles`): the text a
drawing's names hold for each node's ``id()``, the same for every student
once :mod:`assignments.graph.drawings` renamed them.
"""

from __future__ import annotations

import re
from typing import Any

from assignments.graph.dot import label_of
from assignments.graph.labels import dot_string, record_fields

Point = tuple[str, Any]
"""One end of an arrow: ``("v", i)`` the record of node i, ``("op", i)`` its op node, ``("?", name)`` another."""

DIGITS = re.compile(r"(?<![\d.])\d+(?![\d.])")
"""A whole number in a name (not part of a decimal, as ``1.0000`` in a label): an ``id()`` as the student wrote
it."""


def shape_of(attrs: dict[str, str], node_defaults: dict[str, str]) -> str:
    """A node's shape, lower case: ``"record"`` for ``Mrecord`` too (the same fields, rounded corners)."""
    raw = (dot_string(attrs.get("shape", node_defaults.get("shape", "ellipse"))) or "").lower()
    return "record" if raw == "mrecord" else raw


def find_roles(nodes: dict[str, dict[str, str]], edges: list[tuple[Any, Any, dict[str, str]]], tokens: list[str],
               token: re.Pattern[str], datas: tuple[str, ...], node_defaults: dict[str, str]) -> dict[str, Point]:
    """The role of each DOT node that stands for a Value's record or op node (the steps of this module's doc).

    Args:
        nodes: Every DOT node's merged attributes, by name.
        edges: Every arrow, tail and head names.
        tokens: The text standing for node k's ``id()`` in the names, by spec index.
        token: Finds the candidate tokens in a name (each whole).
        datas: The data field each node's record shows (``data %.4f``), by spec index.
        node_defaults: The attributes of ``node [...]``.
    """
    role: dict[str, Point] = {}
    exact = {f"n{t}": ("v", k) for k, t in enumerate(tokens)} | {f"n{t}_op": ("op", k) for k, t in enumerate(tokens)}
    for name in nodes:
        if name in exact:
            role[name] = exact[name]
    _by_id(nodes, tokens, token, node_defaults, role)
    _by_data(nodes, datas, node_defaults, role)
    _by_arrows(nodes, edges, node_defaults, role)
    return role


def _by_id(nodes: dict[str, dict[str, str]], tokens: list[str], token: re.Pattern[str],
           node_defaults: dict[str, str], role: dict[str, Point]) -> None:
    """Step 2: nodes named otherwise after one Value's id."""
    index = {t: k for k, t in enumerate(tokens)}
    owned: dict[int, list[str]] = {}
    for name in nodes:
        if name not in role:
            owners = {index[t] for t in token.findall(name) if t in index}
            if len(owners) == 1:
                owned.setdefault(owners.pop(), []).append(name)
    has = {r for r in role.values()}
    for k, names in owned.items():
        if ("v", k) not in has:
            records = [n for n in names if shape_of(nodes[n], node_defaults) == "record"]
            records = records if len(records) == 1 else [n for n in names if n == tokens[k]]
            if len(records) == 1:
                role[records[0]] = ("v", k)
                names.remove(records[0])
        if ("op", k) not in has and len(names) == 1 and shape_of(nodes[names[0]], node_defaults) != "record":
            role[names[0]] = ("op", k)


def _by_data(nodes: dict[str, dict[str, str]], datas: tuple[str, ...], node_defaults: dict[str, str],
             role: dict[str, Point]) -> None:
    """Step 3: a record named after no id, matched by the one data field its label shows."""
    have = {r[1] for r in role.values() if r[0] == "v"}
    by_data: dict[str, list[int]] = {}
    for k, d in enumerate(datas):
        by_data.setdefault(d, []).append(k)
    for name, attrs in nodes.items():
        if name in role:
            continue
        label = label_of({**node_defaults, **attrs}, name)
        fields = record_fields(label) if label is not None else None
        flat = flatten(fields) if fields is not None else []
        hits = {k for f in flat for k in by_data.get(f, []) if len(by_data[f]) == 1 and k not in have}
        if len(hits) == 1:
            k = hits.pop()
            role[name] = ("v", k)
            have.add(k)


def _by_arrows(nodes: dict[str, dict[str, str]], edges: list[tuple[Any, Any, dict[str, str]]],
               node_defaults: dict[str, str], role: dict[str, Point]) -> None:
    """Step 4: an op node named after no id, the one node whose arrows all go to one record without an op node."""
    heads: dict[str, set[Point]] = {}
    for tail, head, _ in edges:
        if tail is not None and tail not in role:
            heads.setdefault(tail, set()).add(role.get(head, ("?", head)) if head is not None else ("?", None))
    with_op = {r[1] for r in role.values() if r[0] == "op"}
    candidates: dict[int, list[str]] = {}
    for name, targets in heads.items():
        if len(targets) == 1:
            (kind, k), = targets
            if kind == "v" and k not in with_op and shape_of(nodes.get(name, {}), node_defaults) != "record":
                candidates.setdefault(k, []).append(name)
    for k, found in candidates.items():
        if len(found) == 1:
            role[found[0]] = ("op", k)


def flatten(fields: Any) -> list[str]:
    """Every field text of a record's fields, groups opened."""
    if isinstance(fields, tuple):
        return [t for f in fields for t in flatten(f)]
    return [fields]
