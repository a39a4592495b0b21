"""A correct graph.py in another style: breadth-first trace, a DOT text that differs from the reference's in
every way the handout leaves open (quoted names, attribute order, defaults, comments, several statements on a
line, edges before nodes, ``graph [rankdir=...]``), escaping character by character."""

import math
from collections import deque

from .engine import Value

_DIRECTIONS = {"TB", "LR", "BT", "RL"}


def trace(root):
    seen = {id(root): root}
    edges = set()
    queue = deque([root])
    while queue:
        node = queue.popleft()
        for child in node._prev:
            edges.add((child, node))
            if id(child) not in seen:
                seen[id(child)] = child
                queue.append(child)
    return set(seen.values()), edges


_PLAIN = {"\\": "\\\\", '"': '\\"'}
_RECORD = {**_PLAIN, "{": "\\{", "}": "\\}", "|": "\\|", "<": "\\<", ">": "\\>"}


def _escape(text, record=False):
    table = _RECORD if record else _PLAIN
    return "".join(table.get(c, c) for c in text)


def to_dot(root, rankdir="LR"):
    if rankdir not in _DIRECTIONS:
        raise ValueError("unknown rankdir " + repr(rankdir))
    nodes, edges = trace(root)
    out = ["strict digraph computation {", "  // made by to_dot", f'  graph [rankdir="{rankdir}"]',
           '  node [fontname="Helvetica"]; edge [arrowsize=0.8]']
    for child, parent in sorted(edges, key=lambda e: (id(e[0]), id(e[1]))):
        head = f'"n{id(parent)}_op"' if parent._op else f'"n{id(parent)}"'
        out.append(f'  "n{id(child)}" -> {head} /* child -> op */')
    for v in nodes:
        name = f'"n{id(v)}"'
        fields = ["data {:.4f}".format(v.data), "grad {:.4f}".format(v.grad)]
        if getattr(v, "label", None):
            fields.insert(0, _escape(str(v.label), record=True))
        out.append(f'  {name} [label="{{{"|".join(fields)}}}" shape="record"]')
        if v._op:
            out.append(f'  "n{id(v)}_op" [shape=circle label="{_escape(v._op)}"]; "n{id(v)}_op" -> {name}')
    return "\n".join(out + ["}"])


def hand_gradients():
    x, y, z = 1.0, 2.0, -1.0
    e = math.exp(x * z)  # de/dm, with m = x * z
    return {"x": z + z * e, "y": z, "z": (x + y) + x * e}
