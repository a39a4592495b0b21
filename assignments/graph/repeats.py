"""A student's DOT text with its repeated statements counted once (judge side, before :mod:`assignments.graph.dot`
bounds and parses it).

A drawer that writes the same arrow once per path, or once per node, draws
what it would draw writing it once, as the judge reads a drawing (arrows as
a set, a node's attributes merged); the text is only longer. The bounds of
:mod:`assignments.graph.dot` are about what pydot must parse, so they count
each such statement once: :func:`distinct_lines` keeps one of each line
that is a whole statement, the last (where a node's attributes end up).
"""

from __future__ import annotations

import re

SPANS = re.compile(r'"(?:[^"\\]|\\.)*(?:"|\Z)|/\*.*?(?:\*/|\Z)|<|\{|\}', re.S)
"""What makes a line other than a whole statement: a quoted string or a comment (a line is whole only when each
it holds ends on it), an HTML string ``<``, or a brace of a group."""


def distinct_lines(text: str) -> str:
    """``text`` with each line that is a whole statement (:data:`SPANS`), repeated word for word, kept only where it
    last appears: what Graphviz draws for the text, as the judge reads it (a node's attributes merge, the last
    winning; an arrow is an arrow, however often written), so a drawing's size counts each statement once.

    A quoted string or a comment that starts on a line and ends on another makes both lines, and those between,
    not whole: they are kept as they are.
    """
    lines = text.split("\n")
    whole = [True] * len(lines)
    starts, offset = [], 0
    for line in lines:
        starts.append(offset)
        offset += len(line) + 1
    row = 0
    for m in SPANS.finditer(text):
        while row + 1 < len(lines) and starts[row + 1] <= m.start():
            row += 1
        last = row
        while last + 1 < len(lines) and starts[last + 1] < m.end():
            last += 1
        if last > row or m.group(0) in ("<", "{", "}"):
            for k in range(row, last + 1):
                whole[k] = False
    seen: set[str] = set()
    kept: list[str] = []
    for line, ok in zip(reversed(lines), reversed(whole)):
        key = line.strip()
        if ok and key:
            if key in seen:
                continue
            seen.add(key)
        kept.append(line)
    return "\n".join(reversed(kept))
