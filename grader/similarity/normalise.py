"""What a student can add to code for free, found and blanked in place before fingerprints are taken.

copydetect already ignores names, comments and white space. A copier can as cheaply add code that does nothing: a
``pass`` after every statement breaks every fingerprint of a copy without changing what it does. :func:`blank` turns
such code into spaces, as it does docstrings and type annotations:

* statements that do nothing: ``pass``, ``...``, a bare constant, name or attribute (``self.data``), ``-x``, or a
  tuple of them as a statement (docstrings included), ``x = x``, ``assert True``, a ``continue`` that ends a loop's
  body, a ``return`` that ends a function's, the ``None`` of ``return None``, and a statement separator ``;``;
* code that never runs: what follows ``return``, ``raise``, ``continue`` or ``break`` in the same block, the body of
  ``if False:`` and ``while False:`` (their ``else:`` kept) and the ``else:`` of ``if True:`` and ``while True:``;
* wrappers and clauses that change nothing: the ``if True:`` line (its body kept; an ``elif True:`` reads as
  ``else:``), an ``else:`` or ``finally:`` whose body does nothing (and the ``try:`` of a ``try``/``finally`` left
  without one), an ``if``/``elif`` on a bare name or constant whose branches do nothing;
* redundant parentheses (``return (x)``, ``(a) + (b * c)``, ``x = (a, b)``): a pair is blanked only if the
  expression or statement around it parses to the same syntax tree without it, and all of them together only if
  the whole module does (:mod:`~grader.similarity.parentheses`).

Everything is found on the syntax tree (:mod:`ast`) and blanked in the student's own text, which keeps its length
and its line breaks: copydetect's positions, and so the matched regions and line numbers of the evidence pages, still
point into the file the student wrote. (An :func:`ast.unparse` round trip would normalise more, but loses those
positions, and would make code that parses look unlike the same code with a syntax error elsewhere.) Code that does
not parse as a whole is parsed block by block (:func:`_by_blocks`): each top-level statement, and inside one that
does not parse each statement of its body, down to the lines around the error, which are compared as they are.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable

from grader.similarity.parentheses import redundant_parentheses
from grader.similarity.syntax import PARSE_ERRORS, Edit, Text, parents, parse

LINE_END = re.compile(r"[\r\n]")
JUMPS = (ast.Return, ast.Raise, ast.Continue, ast.Break)
"""Statements after which the rest of their block never runs."""
MAX_DEPTH = 8
"""Nesting levels :func:`_by_blocks` descends into a statement that does not parse."""
BUDGET = 8
"""Characters :func:`_by_blocks` parses in all, as a multiple of the text's length (hostile code stays fast)."""
MAX_PARSES = 1000
"""Blocks :func:`_by_blocks` parses at most (a file with an error on every line stays fast; the rest is compared as
it is)."""


def _constant(node: ast.expr) -> bool | None:
    """The truth of a constant test (``True``, ``0``, ``"x"``...), None for any other."""
    return bool(node.value) if isinstance(node, ast.Constant) else None


def _inert(node: ast.expr) -> bool:
    """Whether evaluating ``node`` as a statement does nothing: a constant, a name, ``a.b.c``, ``-x``, or a tuple of
    them."""
    if isinstance(node, (ast.Constant, ast.Name)):
        return True
    if isinstance(node, ast.Attribute):
        return _inert(node.value)
    if isinstance(node, ast.UnaryOp):
        return _inert(node.operand)
    return isinstance(node, (ast.Tuple, ast.List)) and all(_inert(e) for e in node.elts)


def _shape(node: ast.expr) -> object:
    """A name, ``a.b`` or a tuple of them, without its load or store context (None for anything else)."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _shape(node.value)
        return None if inner is None else (inner, node.attr)
    if isinstance(node, ast.Tuple):
        parts = [_shape(e) for e in node.elts]
        return None if None in parts else tuple(parts)
    return None


class _Statements:
    """The statements of a tree that do nothing or never run, and the clauses around them, as edits."""

    def __init__(self, text: Text) -> None:
        self.t = text
        self.edits: list[Edit] = []
        self.in_class = False  # in a class body, `x = x` copies a name into the class: not nothing

    def cut(self, a: int, b: int, new: str = "") -> None:
        if 0 <= a < b:
            self.edits.append((a, b, new))

    def first(self, s: ast.stmt) -> int:
        """Where ``s`` starts, its decorators included."""
        decorators = getattr(s, "decorator_list", None)
        if decorators:
            return self.t.text.rfind("@", 0, self.t.start(decorators[0]))
        return self.t.start(s)

    def semicolon(self, s: ast.stmt) -> None:
        end = self.t.end(s)
        text = self.t.text
        while 0 <= end < len(text) and text[end] in " \t":
            end += 1
        if 0 <= end < len(text) and text[end] == ";":
            self.cut(end, end + 1)

    def colon(self, pos: int) -> int:
        """The ``:`` ending a clause's header, from ``pos`` (after its last expression or keyword); -1 if not there."""
        text = self.t.text
        while 0 <= pos < len(text):
            c = text[pos]
            if c == ":":
                return pos
            if c == "#":
                end = LINE_END.search(text, pos)
                pos = end.start() if end else -1
                continue
            if c not in " \t\r\n\f\\)":
                return -1
            pos += 1
        return -1

    def keyword(self, lo: int, hi: int, word: str) -> tuple[int, int]:
        """The span of ``word:`` between two clauses (only white space, comments and the keyword are there)."""
        between = re.sub(r"#[^\r\n]*", lambda m: " " * len(m.group()), self.t.text[lo:hi])
        m = re.search(rf"\b{word}\s*:", between)
        return (lo + m.start(), lo + m.end()) if m else (-1, -1)

    def block(self, stmts: list[ast.stmt], loop: bool = False, function: bool = False) -> bool:
        """Find what does nothing in a block (blanked); whether the whole block does nothing."""
        quiet = True
        for i, s in enumerate(stmts):
            self.semicolon(s)
            quiet = self.statement(s) and quiet
            if isinstance(s, JUMPS) and i + 1 < len(stmts):  # the rest never runs
                self.cut(self.first(stmts[i + 1]), self.t.end(stmts[-1]))
                self.semicolon(stmts[-1])
                return quiet
        last = stmts[-1] if stmts else None
        if (loop and isinstance(last, ast.Continue)) or (function and isinstance(last, ast.Return) and (
                last.value is None or isinstance(last.value, ast.Constant) and last.value.value is None)):
            self.cut(self.t.start(last), self.t.end(last))
        return quiet

    def statement(self, s: ast.stmt) -> bool:
        """Find what does nothing in ``s``; whether all of it does nothing (then it is blanked whole)."""
        if isinstance(s, ast.Pass) or (isinstance(s, ast.Expr) and _inert(s.value)) or \
                (isinstance(s, ast.Assert) and _constant(s.test) is True) or \
                (isinstance(s, ast.Assign) and len(s.targets) == 1 and not self.in_class
                 and _shape(s.targets[0]) is not None and _shape(s.targets[0]) == _shape(s.value)):
            self.cut(self.t.start(s), self.t.end(s))
            return True
        if isinstance(s, ast.If):
            return self.if_(s, False)
        if isinstance(s, ast.While):
            return self.while_(s)
        if isinstance(s, (ast.For, ast.AsyncFor)):
            self.block(s.body, loop=True)
            self.else_(s, s.body, s.orelse)
        elif isinstance(s, ast.Try) or type(s).__name__ == "TryStar":
            return self.try_(s)  # type: ignore[arg-type]
        elif isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            outer, self.in_class = self.in_class, isinstance(s, ast.ClassDef)
            self.block(s.body, function=not self.in_class)
            self.in_class = outer
        elif isinstance(s, (ast.With, ast.AsyncWith)):
            self.block(s.body)
        elif isinstance(s, ast.Match):
            for case in s.cases:
                self.block(case.body)
        elif isinstance(s, ast.Return) and isinstance(s.value, ast.Constant) and s.value.value is None:
            self.cut(self.t.start(s.value), self.t.end(s.value))  # return None: return
        return False

    def else_(self, s: ast.stmt, before: list[ast.stmt], orelse: list[ast.stmt]) -> None:
        """Blank a trailing ``else:`` whose body does nothing."""
        if orelse and self.block(orelse):
            self.cut(self.t.end(before[-1]), self.t.end(s))

    def if_(self, s: ast.If, elif_: bool) -> bool:
        t = self.t
        a, e, body_end = t.start(s), t.end(s), t.end(s.body[-1])
        first = s.orelse[0] if len(s.orelse) == 1 else None
        nxt = first if isinstance(first, ast.If) and t.text.startswith("elif", t.start(first)) else None
        truth = _constant(s.test)
        if truth is True:
            colon = self.colon(t.end(s.test))
            if colon < 0:
                return False
            self.cut(a, colon + (0 if elif_ else 1), "else" if elif_ else "")
            quiet = self.block(s.body)
            if s.orelse:
                self.cut(body_end, e)  # never runs
            return quiet
        if truth is False:
            if not s.orelse:
                self.cut(a, e)
                return True
            if nxt is not None:  # `if False: ... elif b:` reads `if b:`; `elif False: ... elif b:` reads `elif b:`
                self.cut(a, t.start(nxt) + (0 if elif_ else 2))
                return self.if_(nxt, elif_)
            if elif_:  # the `else:` that follows is the chain's
                self.cut(a, body_end)
            else:
                _, keyword_end = self.keyword(body_end, t.start(s.orelse[0]), "else")
                self.cut(a, keyword_end)
            return self.block(s.orelse)
        quiet = self.block(s.body)
        rest = self.if_(nxt, True) if nxt is not None else self.block(s.orelse)
        if s.orelse and rest:
            self.cut(body_end, e)
        if quiet and rest and _inert(s.test):
            self.cut(a, e)
            return True
        return False

    def while_(self, s: ast.While) -> bool:
        t = self.t
        truth = _constant(s.test)
        if truth is False:
            if not s.orelse:
                self.cut(t.start(s), t.end(s))
                return True
            _, keyword_end = self.keyword(t.end(s.body[-1]), t.start(s.orelse[0]), "else")
            self.cut(t.start(s), keyword_end)
            return self.block(s.orelse)
        self.block(s.body, loop=True)
        if truth is True and s.orelse:
            self.cut(t.end(s.body[-1]), t.end(s))  # never runs
        else:
            self.else_(s, s.body, s.orelse)
        return False

    def try_(self, s: ast.Try) -> bool:
        t = self.t
        quiet = self.block(s.body)
        for handler in s.handlers:
            self.block(handler.body)
        before = t.end(s.handlers[-1]) if s.handlers else t.end(s.body[-1])
        if s.orelse:
            if self.block(s.orelse):
                self.cut(before, t.end(s.orelse[-1]))
            before = t.end(s.orelse[-1])
        if s.finalbody and self.block(s.finalbody):
            self.cut(before, t.end(s))
            if not s.handlers and not s.orelse:  # try: X / finally: pass is X
                colon = self.colon(t.start(s) + 3)
                self.cut(t.start(s), colon + 1 if colon >= 0 else -1)
                return quiet
        return False


def _annotations(t: Text, nodes: Iterable[ast.AST]) -> list[Edit]:
    """Type annotations (docstrings are statements that do nothing)."""
    spans = []
    for node in nodes:
        if isinstance(node, ast.arg) and node.annotation is not None:
            spans.append((t.start(node) + len(node.arg), t.end(node.annotation)))
        elif isinstance(node, ast.AnnAssign):
            spans.append((t.end(node.target), t.end(node.annotation)))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.returns is not None:
            spans.append((t.text.rfind("->", 0, t.start(node.returns)), t.end(node.returns)))
    return [(a, b, "") for a, b in spans if 0 <= a < b]


def _noise(text: str) -> list[Edit] | None:
    """The edits of a text that parses; None if it does not."""
    try:
        tree = parse(text)
    except PARSE_ERRORS:
        return None
    t, family = Text(text), parents(tree)
    statements = _Statements(t)
    try:
        statements.block(getattr(tree, "body", []))
        return _annotations(t, family) + statements.edits + redundant_parentheses(t, tree, family)
    except RecursionError:  # an expression nested deeper than Python's recursion: compared as it is
        return []


def _by_blocks(text: str) -> list[Edit]:
    """The edits of a text that does not parse, block by block: a statement that does not parse is split into the
    statements of its body (parsed inside ``if 1:`` lines at its indentation), and so on down."""
    lines = [m.group() for m in re.finditer(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$", text)]
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    budget = [BUDGET * len(text) + 10_000, MAX_PARSES]
    edits: list[Edit] = []

    def indent(row: int) -> str:
        return lines[row][: len(lines[row]) - len(lines[row].lstrip(" \t"))]

    def code(row: int) -> bool:
        stripped = lines[row].strip()
        return bool(stripped) and not stripped.startswith("#")

    def statements(first: int, last: int, at: str) -> list[tuple[int, int]]:
        cuts = [first]
        for row in range(first + 1, last):
            words = lines[row].split(None, 1)
            if code(row) and indent(row) == at and lines[row].lstrip()[:1] not in ")]}" and \
                    words[0].rstrip(":") not in ("elif", "else", "except", "finally") and \
                    any(code(r) and not lines[r].lstrip().startswith("@") for r in range(cuts[-1], row)):
                cuts.append(row)
        return list(zip(cuts, cuts[1:] + [last]))

    def visit(first: int, last: int, heads: list[str], parsed: bool) -> None:
        prefix = "".join(f"{h}if 1:\n" for h in heads)
        body = text[starts[first]: starts[last]]
        if not parsed:
            budget[0] -= len(prefix) + len(body)
            budget[1] -= 1
            if budget[0] < 0 or budget[1] < 0:
                return
            found = _noise(prefix + body)
            if found is not None:
                shift = starts[first] - len(prefix)
                edits.extend((a + shift, b + shift, new) for a, b, new in found if a >= len(prefix))
                return
        rows = [r for r in range(first, last) if code(r)]
        if not rows or len(heads) >= MAX_DEPTH:
            return
        parts = statements(rows[0], last, indent(rows[0]))
        if len(parts) > 1:
            for a, b in parts:
                visit(a, b, heads, False)
            return
        inner = [r for r in rows[1:] if len(indent(r)) > len(indent(rows[0]))]
        if inner:  # one statement that does not parse: its body, statement by statement
            visit(inner[0], last, heads + [indent(rows[0])], False)

    visit(0, len(lines), [], True)
    return edits


def noise(text: str) -> list[Edit]:
    """Where ``text`` holds what :func:`blank` turns into spaces (docstrings, annotations, code that does nothing),
    as edits of its characters."""
    if text.startswith("\ufeff"):  # a byte order mark the file was read with: not Python, and one character long
        return [(a + 1, b + 1, new) for a, b, new in noise(text[1:])]
    found = _noise(text)
    return _by_blocks(text) if found is None else found


def blank(text: str) -> str:
    """``text`` with its docstrings, type annotations and code that does nothing turned into spaces, line breaks kept
    (an ``elif True:`` reads ``else:``).

    The text keeps its length, so copydetect's positions still point into the student's own text, but a docstring
    rewritten or dropped, a signature with or without annotations (the template's have them), or a ``pass`` after
    every statement no longer changes a fingerprint.
    """
    edits = noise(text)
    if not edits:
        return text
    chars = list(text)
    for a, b, new in edits:
        for i in range(max(a, 0), min(b, len(chars))):
            if chars[i] not in "\r\n":
                chars[i] = new[i - a] if i - a < len(new) else " "
    return "".join(chars)
