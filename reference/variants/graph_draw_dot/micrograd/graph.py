"""A correct graph.py whose to_dot is micrograd's draw_dot written as text: each record named str(id(v)) and each
op node str(id(v)) + v._op (quoted: an op may hold any character), a record's label "{ label | data D | grad G }"
with the label field only for a labelled value. The grader finds the records and op nodes by the ids in their
names, as it does for the handout's n<id(v)> and n<id(v)>_op."""

import math

from .engine import Value


def trace(root):
    nodes, edges = set(), set()

    def build(v):
        todo = [v]
        while todo:
            v = todo.pop()
            if v not in nodes:
                nodes.add(v)
                for child in v._prev:
                    edges.add((child, v))
                    todo.append(child)

    build(root)
    return nodes, edges


def _escape(text, record=False):
    text = text.replace("\\", "\\\\").replace('"', '\\"')
    if record:
        for c in "{}|<>":
            text = text.replace(c, "\\" + c)
    return text


def to_dot(root, rankdir="LR"):
    if rankdir not in ("TB", "LR", "BT", "RL"):
        raise ValueError(f"rankdir must be TB, LR, BT or RL, not {rankdir!r}")
    nodes, edges = trace(root)
    lines = ["digraph {", f"\tgraph [rankdir={rankdir}]"]
    for n in nodes:
        uid = str(id(n))
        label = getattr(n, "label", "")
        fields = (f"{_escape(str(label), record=True)} | " if label else "") + "data %.4f | grad %.4f" % (n.data, n.grad)
        lines.append(f'\t{uid} [label="{{ {fields} }}" shape=record]')
        if n._op:
            op = f'"{uid}{_escape(n._op)}"'
            lines.append(f'\t{op} [label="{_escape(n._op)}"]')
            lines.append(f"\t{op} -> {uid}")
    for n1, n2 in edges:
        lines.append(f'\t{id(n1)} -> "{id(n2)}{_escape(n2._op)}"' if n2._op else f"\t{id(n1)} -> {id(n2)}")
    lines.append("}")
    return "\n".join(lines)


def hand_gradients():
    e = math.exp(-1.0)
    return {"x": -1.0 - e, "y": -1.0, "z": 3.0 + e}
