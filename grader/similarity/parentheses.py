"""Redundant parentheses, for :mod:`~grader.similarity.normalise`: ``return (x)``, ``x = (a + b)``, ``f((a))``,
``x = (a, b)``, ``if (x > 0):``, ``(self.data)``, ``((a * b))``.

A copier can put every expression in parentheses for free, and each pair is a character of copydetect's filtered
code, so enough of them break most fingerprints. A pair is a candidate when it wraps an expression exactly (found
from the syntax tree: the nearest characters around the expression, past white space, are ``(`` and ``)``, and the
``(`` does not follow a name or a bracket, as a call's does), or is a tuple's own. It is redundant when the
expression or statement that holds it parses to the same tree without it (pairs checked inner first, so ``((q))``
loses both); and all the pairs found are blanked only if the whole module, without them, parses to the same tree.

Parentheses that make precedence explicit inside another operation (``a + (b * c)``, ``self + (-other)``) are kept:
honest students differ on them as a matter of style, and blanking them made honest engines more alike to each other
and to the public one (``bench/similarity.py``: the median honest similarity to karpathy's engine rose from 49% to
52%, and the least alike copies of it fell under the score threshold). The outer pair of doubled parentheses goes.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable

from grader.similarity.syntax import PARSE_ERRORS, Edit, Text, equal, parse

MAX_CHECKED = 4000
"""Longest expression or statement (in characters) re-parsed to check a pair, and most pairs checked per text."""
SIMPLE = (ast.Return, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.Raise, ast.Assert, ast.Delete)
"""Statements checked whole (they hold no block)."""
HEADER = {ast.If: "test", ast.While: "test", ast.For: "iter", ast.AsyncFor: "iter"}
"""Compound statements whose header is checked, and the field compared."""
SPACE = " \t\r\n\f"
OPERATIONS = (ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.IfExp, ast.Await)
"""An operation inside one of these keeps its own parentheses (``a + (b * c)``, ``self + (-other)``): style, where
honest students differ, not noise."""
ATOMS = (ast.Name, ast.Constant, ast.Attribute, ast.Subscript, ast.Call, ast.List, ast.Tuple, ast.Dict, ast.Set,
         ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.JoinedStr)
"""What is never grouped for precedence: parentheses around one of these are noise wherever they are."""
GROUPING_WORDS = frozenset({"if", "elif", "while", "for", "in", "return", "and", "or", "not", "is", "assert", "del",
                            "yield", "await", "else", "lambda", "raise", "from"})
"""Keywords after which a ``(`` groups (after any other name it calls)."""


def _only(module: ast.AST) -> ast.AST:
    body: list[ast.AST] = getattr(module, "body", [])
    if len(body) != 1:
        raise ValueError("not one statement")
    return body[0]


def _expression(tree: ast.AST) -> ast.AST:
    if not isinstance(tree, ast.Expression):
        raise ValueError("not an expression")
    return tree.body


def _same(parsed: Callable[[], object], node: object) -> bool:
    try:
        return equal(parsed(), node)
    except PARSE_ERRORS:
        return False


class _Pairs:
    """The candidate pairs of one parsed text, and the checks."""

    def __init__(self, t: Text, tree: ast.AST, parents: dict[ast.AST, ast.AST]) -> None:
        self.t, self.tree, self.parents = t, tree, parents
        self.accepted: set[int] = set()
        self.outer: set[tuple[int, int]] = set()

    def back(self, i: int) -> int:
        text = self.t.text
        i -= 1
        while i >= 0 and text[i] in SPACE:
            i -= 1
        return i

    def forward(self, i: int) -> int:
        text = self.t.text
        while i < len(text) and text[i] in SPACE:
            i += 1
        return i

    def grouping(self, left: int) -> bool:
        """Whether the ``(`` at ``left`` groups (not a call's, such as ``f(`` or ``x[0](``)."""
        text = self.t.text
        before = self.back(left)
        if before < 0 or text[before] in "([{,:;=+-*/%@&|^~<>!":
            return True
        m = re.search(r"[A-Za-z_][A-Za-z_0-9]*$", text[max(0, before - 20): before + 1])
        return m is not None and m.group() in GROUPING_WORDS

    def candidates(self) -> dict[tuple[int, int], ast.expr]:
        """Each pair that wraps an expression exactly (or is a tuple's own), with the expression."""
        text, found = self.t.text, dict[tuple[int, int], ast.expr]()
        inside_fstrings = {n for n, p in self.parents.items() if isinstance(p, ast.JoinedStr)}
        for node in self.parents:
            if not isinstance(node, ast.expr):
                continue
            s, e = self.t.start(node), self.t.end(node)
            if s < 0 or e <= s or self._in_fstring(node, inside_fstrings):
                continue
            if isinstance(node, ast.Tuple) and node.elts and text[s] == "(" and text[e - 1] == ")":
                found.setdefault((s, e - 1), node)
            while True:
                left, right = self.back(s), self.forward(e)
                if left < 0 or right >= len(text) or text[left] != "(" or text[right] != ")" or \
                        not self.grouping(left):
                    break
                if (s, e - 1) in found and text[s] == "(":
                    self.outer.add((left, right))
                found.setdefault((left, right), node)
                s, e = left, right + 1
        return found

    def _in_fstring(self, node: ast.AST, inside: set[ast.AST]) -> bool:
        while node is not None:
            if node in inside:
                return True
            node = self.parents.get(node)  # type: ignore[assignment]
        return False

    def blanked(self, a: int, b: int, trial: set[int]) -> str:
        """The text from ``a`` to ``b`` with the parentheses at ``trial`` as spaces."""
        return "".join(" " if a + i in trial else c for i, c in enumerate(self.t.text[a:b]))

    def redundant(self, pair: tuple[int, int], node: ast.expr) -> bool:
        """Whether what holds ``node`` (an expression, a simple statement, a header) parses alike without ``pair``."""
        trial = self.accepted | set(pair)
        holder = self.parents.get(node)
        if isinstance(holder, OPERATIONS) and not isinstance(node, ATOMS) and pair not in self.outer:
            return False  # precedence made explicit: kept (the outer of doubled parentheses is not)
        while holder is not None and not isinstance(holder, (ast.expr, ast.stmt)):
            holder = self.parents.get(holder)
        if holder is None:
            return False
        a, b = self.t.start(holder), self.t.end(holder)
        if not 0 <= a <= pair[0] < pair[1] or pair[1] - a > MAX_CHECKED:
            return False
        if isinstance(holder, ast.expr):
            if pair[1] >= b or b - a > MAX_CHECKED:
                return False
            return _same(lambda: _expression(parse("(" + self.blanked(a, b, trial) + "\n)", "eval")), holder)
        if isinstance(holder, SIMPLE):
            return b - a <= MAX_CHECKED and _same(lambda: _only(parse(self.blanked(a, b, trial))), holder)
        field = HEADER.get(type(holder))
        if field is None or self.parents.get(node) is not holder:
            return False
        header = self.blanked(a, max(pair[1] + 1, self.t.end(getattr(holder, field))), trial)
        header = header[2:] if header.startswith("elif") else header
        return _same(lambda: getattr(_only(parse(header + ":\n pass")), field), getattr(holder, field))


def redundant_parentheses(t: Text, tree: ast.AST, parents: dict[ast.AST, ast.AST]) -> list[Edit]:
    """The parentheses of ``t`` (parsed as ``tree``; ``parents`` from :func:`~grader.similarity.syntax.parents`)
    that change nothing, each as an edit that blanks it."""
    pairs = _Pairs(t, tree, parents)
    for pair, node in sorted(pairs.candidates().items(), key=lambda c: c[0][1] - c[0][0])[:MAX_CHECKED]:
        if pairs.redundant(pair, node):
            pairs.accepted |= set(pair)
    if not pairs.accepted or not _same(lambda: parse(pairs.blanked(0, len(t.text), pairs.accepted)), tree):
        return []
    return [(i, i + 1, "") for i in sorted(pairs.accepted)]
