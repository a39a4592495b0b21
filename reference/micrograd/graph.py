"""Drawing the computation graph of a :class:`~micrograd.engine.Value`.

:func:`trace` collects every node and edge reachable from an output through
``_prev``, and :func:`to_dot` writes them as Graphviz DOT text, the
``draw_dot`` of Andrej Karpathy's micrograd notebook ``trace_graph.ipynb``,
without its dependency on the ``graphviz`` package: one record-shaped node
``{ data ... | grad ... }`` per value and, for every value made by an
operation, a small node labelled with the operation, so the picture reads
``inputs -> op -> result``. Render the text with any Graphviz, for example
in a notebook: ``graphviz.Source(to_dot(f))``.

The DOT language and its escapes are those of the Graphviz documentation
("The DOT Language" and "Node Shapes: Record-based Nodes",
https://graphviz.org/doc/info/lang.html and
https://graphviz.org/doc/info/shapes.html#record).
"""

from __future__ import annotations

import math

from .engine import Value

RANKDIRS = ("TB", "LR", "BT", "RL")
"""The layout directions Graphviz accepts for ``rankdir``."""


def trace(root: Value) -> tuple[set[Value], set[tuple[Value, Value]]]:
    """Return every node reachable from ``root`` and every edge between them.

    An edge ``(child, parent)`` means that ``child`` is in ``parent._prev``:
    the child's value was used to compute the parent. ``root`` and the
    leaves (nodes with an empty ``_prev``) are nodes too. Each node is
    expanded once, however many paths lead to it (a visited check), so a
    graph whose nodes are reused many times is traced in linear time; the
    search uses an explicit stack, so deep graphs do not hit Python's
    recursion limit.

    Args:
        root: The output node.

    Returns:
        ``(nodes, edges)``: a set of Values and a set of (child, parent) pairs.
    """
    # BEGIN SOLUTION Task 5.1
    nodes: set[Value] = set()
    edges: set[tuple[Value, Value]] = set()
    stack = [root]
    while stack:
        v = stack.pop()
        if v in nodes:
            continue
        nodes.add(v)
        for child in v._prev:
            edges.add((child, v))
            stack.append(child)
    return nodes, edges
    # END SOLUTION


def _escape(text: str, record: bool = False) -> str:
    """Escape ``text`` for the inside of a double-quoted DOT label.

    A backslash becomes ``\\\\`` and a double quote ``\\"`` (Graphviz reads
    ``\\\\`` in a label as one backslash). In a record label the characters
    ``{ } | < >`` structure the fields, so a literal one is escaped with a
    backslash too. Backslashes are escaped first, so that the backslashes
    added for the other characters are not escaped again.

    Args:
        text: The literal text to show.
        record: Whether the text goes into a field of a record label.
    """
    # BEGIN SOLUTION Task 5.2
    text = text.replace("\\", "\\\\").replace('"', '\\"')
    if record:
        for c in "{}|<>":
            text = text.replace(c, "\\" + c)
    return text
    # END SOLUTION


def to_dot(root: Value, rankdir: str = "LR") -> str:
    """Return the computation graph of ``root`` as Graphviz DOT text.

    The text is ``digraph { rankdir=LR; ... }`` with, for every node ``v``
    of :func:`trace`:

    * a record node ``n<id(v)> [shape=record, label="{ data D | grad G }"]``,
      D and G formatted with ``%.4f``; if ``v`` has a non-empty ``label``
      attribute (as in the lecture version of micrograd), it is the first
      field: ``"{ x | data D | grad G }"``, escaped for a record;
    * if ``v._op`` is not empty, an op node ``n<id(v)>_op [label="<op>"]``
      and the edge ``n<id(v)>_op -> n<id(v)>``;

    and for every edge ``(child, parent)`` the edge
    ``n<id(child)> -> n<id(parent)>_op`` (or ``-> n<id(parent)>`` when the
    parent has no op). Labels are double-quoted and escaped (:func:`_escape`).

    Args:
        root: The output node.
        rankdir: The layout direction: "LR" (left to right, the default),
            "TB", "BT" or "RL".

    Returns:
        The DOT text, one statement per line.

    Raises:
        ValueError: If ``rankdir`` is not one of the four directions.
    """
    # BEGIN SOLUTION Task 5.2
    if rankdir not in RANKDIRS:
        raise ValueError(f"rankdir must be one of {RANKDIRS}, got {rankdir!r}")
    nodes, edges = trace(root)
    lines = ["digraph {", f"  rankdir={rankdir};"]
    for v in nodes:
        uid = f"n{id(v)}"
        fields = "data %.4f | grad %.4f" % (v.data, v.grad)
        label = getattr(v, "label", "")
        if label:
            fields = _escape(str(label), record=True) + " | " + fields
        lines.append(f'  {uid} [shape=record, label="{{ {fields} }}"];')
        if v._op:
            op_id = uid + "_op"
            lines.append(f'  {op_id} [label="{_escape(v._op)}"];')
            lines.append(f"  {op_id} -> {uid};")
    for child, parent in edges:
        target = f"n{id(parent)}_op" if parent._op else f"n{id(parent)}"
        lines.append(f"  n{id(child)} -> {target};")
    return "\n".join([*lines, "}", ""])
    # END SOLUTION


def hand_gradients() -> dict[str, float]:
    """Return df/dx, df/dy, df/dz of f = (x + y) * z + exp(x * z) at (1, 2, -1), worked out by hand.

    Work backward through the graph (s = x + y, a = s * z, m = x * z,
    e = exp(m), f = a + e) with the chain rule, writing each gradient as a
    numeric expression (``math.exp`` allowed); do not call ``backward()``.

    Returns:
        ``{"x": df/dx, "y": df/dy, "z": df/dz}``.
    """
    # BEGIN SOLUTION Task 5.3
    # Forward: s = 3, a = -3, m = -1, e = exp(-1), f = -3 + exp(-1).
    # Backward: df/da = df/de = 1; df/dm = exp(-1); df/ds = z = -1;
    # x feeds s (grad -1) and m (grad z * exp(-1)); y feeds s only;
    # z feeds a (grad s = 3) and m (grad x * exp(-1)).
    return {
        "x": -1.0 + (-1.0) * math.exp(-1.0),
        "y": -1.0,
        "z": 3.0 + 1.0 * math.exp(-1.0),
    }
    # END SOLUTION
