"""A correct graph.py in a third style: a depth-first trace on a list, escaping with one regular expression, and a DOT text
that Graphviz reads as the handout's drawing in ways the other two styles do not use: a record shape for every node
by default (the op nodes set their own), edge chains ``child -> op -> value`` (a strict graph, so the arrow from
an op node is drawn once), attributes separated by ``;`` (DOT's grammar allows ``;`` or ``,``) and capital keywords."""

import math
import re

from .engine import Value

_RECORD_SPECIALS = re.compile(r'([\\"{}|<>])')
_PLAIN_SPECIALS = re.compile(r'([\\"])')


def trace(root):
    found, edges, todo = {}, set(), [root]
    while todo:  # depth first on a list of nodes to expand: no recursion, so a chain of any depth is traced
        v = todo.pop()
        if id(v) in found:
            continue
        found[id(v)] = v
        for child in v._prev:
            edges.add((child, v))
            todo.append(child)
    return set(found.values()), edges


def _escape(text, record=False):
    return (_RECORD_SPECIALS if record else _PLAIN_SPECIALS).sub(r"\\\1", text)


def to_dot(root, rankdir="LR"):
    if rankdir not in ("LR", "TB", "BT", "RL"):
        raise ValueError(f"rankdir {rankdir!r} is not LR, TB, BT or RL")
    nodes, edges = trace(root)
    lines = ["STRICT DIGRAPH {", f'  rankdir="{rankdir}";', "  NODE [shape=record];"]
    for v in nodes:
        fields = [f"data {v.data:.4f}", f"grad {v.grad:.4f}"]
        label = getattr(v, "label", "")
        if label:
            fields = [_escape(str(label), record=True)] + fields
        lines.append(f'  n{id(v)} [label="{{ {" | ".join(fields)} }}"];')
        if v._op:
            lines.append(f'  n{id(v)}_op [shape=ellipse; label="{_escape(v._op)}"; fontsize=10];')
            lines.append(f"  n{id(v)}_op -> n{id(v)};")
    for child, parent in edges:
        if parent._op:
            lines.append(f"  n{id(child)} -> n{id(parent)}_op -> n{id(parent)} [arrowsize=0.7; color=gray30];")
        else:
            lines.append(f"  n{id(child)} -> n{id(parent)};")
    lines.append("}")
    return "\n".join(lines)


def hand_gradients():
    x, y, z = 1.0, 2.0, -1.0
    # f = s * z + exp(m), s = x + y, m = x * z: each partial is the sum over the paths from the input to f
    return {
        "x": 1.0 * z + math.exp(x * z) * z,
        "y": 1.0 * z,
        "z": (x + y) + math.exp(x * z) * x,
    }
