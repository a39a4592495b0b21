"""Syntax trees of a student's text, for :mod:`~grader.similarity.normalise`: parsing quietly, mapping ``ast``
positions to offsets in the text, every node's parent, and comparing trees.

Nothing here runs the code: :func:`ast.parse` only reads it.
"""

from __future__ import annotations

import ast
import re
import warnings

Edit = tuple[int, int, str]
"""``(start, end, text)``: the characters ``start``..``end`` become ``text`` padded with spaces (line breaks kept)."""
PARSE_ERRORS = (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError)
"""What :func:`parse` raises for text that is not Python (or too deeply nested to parse)."""
LINE = re.compile(r"\r\n|\r|\n")
"""A line break as the parser counts them (not ``\\f`` nor ``\\u2028``, which :meth:`str.splitlines` also splits at)."""


def parse(source: str, mode: str = "exec") -> ast.AST:
    """:func:`ast.parse`, without warnings (an invalid escape in a student's string is not the grader's to report).

    Raises:
        SyntaxError: And the other :data:`PARSE_ERRORS`, for text that does not parse.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.parse(source, mode=mode)


class Text:
    """A text and its parsed positions: ``ast`` counts lines from 1 and columns in UTF-8 bytes.

    Attributes:
        text: The text.
        starts: The offset where each line starts.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0] + [m.end() for m in LINE.finditer(text)]

    def at(self, row: int | None, col: int | None) -> int:
        """The offset of ``(row, col)``; -1 if there is no such line."""
        if row is None or col is None or not 1 <= row <= len(self.starts):
            return -1
        start = self.starts[row - 1]
        if col == 0:
            return start
        line = self.text[start: self.starts[row] if row < len(self.starts) else len(self.text)]
        return start + (col if line.isascii() else len(line.encode("utf-8")[:col].decode("utf-8", "ignore")))

    def start(self, node: ast.AST) -> int:
        """Where ``node`` starts (-1 for a node without a position)."""
        return self.at(getattr(node, "lineno", None), getattr(node, "col_offset", None))

    def end(self, node: ast.AST) -> int:
        """Where ``node`` ends (-1 for a node without a position)."""
        return self.at(getattr(node, "end_lineno", None), getattr(node, "end_col_offset", None))


def parents(tree: ast.AST) -> dict[ast.AST, ast.AST]:
    """Every node of ``tree`` but the root, to its parent (one pass, faster than :func:`ast.walk`)."""
    found: dict[ast.AST, ast.AST] = {}
    pending = [tree]
    while pending:
        parent = pending.pop()
        for name in parent._fields:
            value = getattr(parent, name, None)
            for item in value if isinstance(value, list) else [value]:
                if isinstance(item, ast.AST):
                    found[item] = parent
                    pending.append(item)
    return found


def equal(a: object, b: object) -> bool:
    """Whether two trees are the same, positions aside (as their :func:`ast.dump` would be, but faster)."""
    pairs = [(a, b)]
    while pairs:
        x, y = pairs.pop()
        if type(x) is not type(y):
            return False
        if isinstance(x, ast.AST):
            pairs.extend((getattr(x, f, None), getattr(y, f, None)) for f in x._fields)
        elif isinstance(x, list):
            if len(x) != len(y):  # type: ignore[arg-type]
                return False
            pairs.extend(zip(x, y))  # type: ignore[call-overload]
        elif x != y:
            return False
    return True
