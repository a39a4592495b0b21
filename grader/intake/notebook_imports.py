"""Imports that only make sense in a package, made to work in a notebook's one generated module.

A student may paste a whole ``engine.py`` and ``nn.py`` into a notebook. In
the module the grader generates from the cells (see :mod:`grader.intake.notebook`):

* ``from __future__ import ...`` must be the module's first statement, so
  each one at the top level of a cell is moved to the top of the module
  (the grader records where it came from) and replaced by ``pass``;
* an import of the engine (or ``nn``) must give the names the notebook itself
  defines, never re-import the module being run: ``from .engine import Value``,
  ``from micrograd.engine import *`` and ``from engine import Value`` become
  ``pass`` (the names are the module's own), an alias ``... import Value as V``
  becomes ``V = Value``, and ``import micrograd.engine as eng``, ``import
  engine``, ``from micrograd import engine`` or ``from . import engine`` bind
  the name to the module itself.

Every replacement keeps the statement's first line (at the same indentation)
and blanks its continuation lines, so the cell keeps its line numbers.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass, field

from grader.course.config import Assignment

IMPORT_START = re.compile(r"^\s*(from|import)\s")
SELF = '__import__("sys").modules[__name__]'
"""An expression for the module being run (the generated module)."""


@dataclass(frozen=True)
class OwnCode:
    """What a notebook's code stands for: the module it is staged as, and the names its imports may give it by.

    Attributes:
        staged: The package path the notebook's code is staged as: the assignment's first file
            (``micrograd/engine.py``).
        modules: The short names of the modules the notebook stands for (``engine``, ``nn``...;
            :attr:`~grader.course.config.Assignment.own_modules`): their imports are rewritten.
    """

    staged: str
    modules: frozenset[str]

    @property
    def package(self) -> str:
        """The student's package (``micrograd``)."""
        return self.staged.split("/", 1)[0]

    @property
    def namespace(self) -> str:
        """What ``import micrograd.engine`` binds ``micrograd`` to: every own module is the module being run."""
        return f'__import__("types").SimpleNamespace({", ".join(f"{m}={SELF}" for m in sorted(self.modules))})'

    @classmethod
    def of(cls, assignment: Assignment) -> OwnCode:
        """What a notebook graded for ``assignment`` stands for."""
        return cls(assignment.files[0], frozenset(assignment.own_modules))


MAX_STATEMENT_LINES = 100
"""Longest statement (in lines) whose end is looked for; a longer one is taken to stay open to the cell's end.

Deciding whether a line continues a statement means tokenizing that statement
so far; the bound keeps a cell's processing linear in its length, whatever it
holds (20,000 magic lines, or one bracket left open for 20,000 lines)."""


def open_statement(lines: list[str]) -> int | None:
    """Where the statement still open at the end of ``lines`` starts (an index into ``lines``), or None if none is.

    A statement is open when the code ends inside a bracket, a string or after
    a backslash, so that the next line continues it instead of starting one.
    """
    closed = 0  # index just past the last line that ended a statement
    depth = 0
    try:
        for token in tokenize.generate_tokens(io.StringIO("\n".join(lines) + "\n").readline):
            if token.type == tokenize.OP and token.string in "([{":
                depth += 1
            elif token.type == tokenize.OP and token.string in ")]}":
                depth = max(0, depth - 1)
            elif token.type == tokenize.NEWLINE or (token.type == tokenize.NL and depth == 0):
                closed = token.end[0]
    except IndentationError:
        return None
    except (tokenize.TokenError, SyntaxError):
        return min(closed, len(lines) - 1) if lines else None  # "EOF in multi-line statement/string"
    return None


def continues(lines: list[str]) -> bool:
    """Whether the code in ``lines`` ends inside a bracket, a string or after a backslash,
    so that the next line continues a statement instead of starting one."""
    return open_statement(lines) is not None


class StatementTracker:
    """Whether a statement is open at the end of ``lines`` (a list the caller appends to), in linear time overall.

    Each question tokenizes only the lines since the last point known to end a
    statement, and a statement open for more than :data:`MAX_STATEMENT_LINES`
    lines is taken to stay open (its lines are kept as they are).
    """

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.start = 0
        self.stuck = False

    def is_open(self) -> bool:
        """Whether the next line would continue a statement."""
        if self.stuck:
            return True
        begin = open_statement(self.lines[self.start:])
        if begin is None:
            self.start = len(self.lines)
            return False
        self.start += begin
        self.stuck = len(self.lines) - self.start > MAX_STATEMENT_LINES
        return True


@dataclass
class Rewritten:
    """A cell's lines with its package-only imports rewritten.

    Attributes:
        lines: The cell's lines, as many as it had.
        futures: ``(line in the cell, statement)`` of each ``from __future__``
            import moved out of the cell; the statement is one line.
    """

    lines: list[str]
    futures: list[tuple[int, str]] = field(default_factory=list)


def _own_module(module: str | None, level: int, own: OwnCode) -> bool:
    """``from <module> import`` names the notebook itself (``.engine``, ``micrograd.nn``, ``engine``)."""
    if module is None:
        return False
    if level == 1:
        return module in own.modules
    return level == 0 and (module in own.modules or module in {f"{own.package}.{m}" for m in own.modules})


def _own_package(module: str | None, level: int, own: OwnCode) -> bool:
    """``from <module> import engine`` names the package (``from micrograd import engine``, ``from . import nn``)."""
    return (level == 1 and module is None) or (level == 0 and module == own.package)


def replacement(node: ast.stmt, own: OwnCode) -> str | None:
    """The one-line statement that replaces an import of the notebook's own modules, or None to keep ``node`` as
    it is."""
    if isinstance(node, ast.ImportFrom) and _own_module(node.module, node.level, own):
        aliases = [f"{a.asname} = {a.name}" for a in node.names if a.asname and a.asname != a.name and a.name != "*"]
        return "; ".join(aliases) or "pass"
    if isinstance(node, ast.ImportFrom) and _own_package(node.module, node.level, own):
        if not all(a.name in own.modules for a in node.names):
            return None
        return "; ".join(f"{a.asname or a.name} = {SELF}" for a in node.names)
    if isinstance(node, ast.Import):
        names = set(own.modules) | {f"{own.package}.{m}" for m in own.modules}
        if not any(a.name in names for a in node.names):
            return None
        statements = []
        for a in node.names:
            if a.name not in names:
                statements.append(f"import {a.name}" + (f" as {a.asname}" if a.asname else ""))
            elif a.asname:
                statements.append(f"{a.asname} = {SELF}")
            elif "." in a.name:
                statements.append(f"{own.package} = {own.namespace}")
            else:
                statements.append(f"{a.name} = {SELF}")
        return "; ".join(statements)
    return None


def _statement(lines: list[str], start: int) -> int:
    """Index just past the statement starting at ``lines[start]`` (its continuation lines included).

    A statement longer than :data:`MAX_STATEMENT_LINES` lines counts as its first line only.
    """
    window = lines[start:start + MAX_STATEMENT_LINES]
    try:
        for token in tokenize.generate_tokens(io.StringIO("\n".join(window) + "\n").readline):
            if token.type == tokenize.NEWLINE:
                return start + token.end[0]
    except (tokenize.TokenError, SyntaxError):
        pass
    return start + 1


def _parse(lines: list[str]) -> ast.stmt | None:
    """The single import statement ``lines`` hold, or None (several statements, not an import, invalid)."""
    try:
        body = ast.parse("\n".join([lines[0].lstrip(), *lines[1:]])).body
    except (SyntaxError, ValueError):
        return None
    if len(body) == 1 and isinstance(body[0], (ast.Import, ast.ImportFrom)):
        return body[0]
    return None


def rewrite_imports(lines: list[str], own: OwnCode) -> Rewritten:
    """Rewrite the package-only imports of one cell's ``lines`` (see the module docstring).

    Args:
        lines: The cell's lines, IPython syntax already replaced (:func:`grader.intake.notebook.strip_ipython`).
        own: What the notebook stands for (its imports of these modules are rewritten).

    Returns:
        The rewritten lines (as many) and the ``from __future__`` imports moved out.
    """
    out = Rewritten([])
    tracker = StatementTracker(out.lines)
    i = 0
    while i < len(lines):
        line = lines[i]
        if not IMPORT_START.match(line) or tracker.is_open():
            out.lines.append(line)
            i += 1
            continue
        end = _statement(lines, i)
        node = _parse(lines[i:end])
        indent = line[: len(line) - len(line.lstrip())]
        if isinstance(node, ast.ImportFrom) and node.module == "__future__" and node.level == 0 and not indent:
            statement = f"from __future__ import {', '.join(a.name for a in node.names)}"
            out.futures.append((i + 1, statement))
            new = "pass  # moved to the top of the module by the grader: " + statement
        else:
            rewritten = replacement(node, own) if node is not None else None
            if rewritten is None:
                out.lines.extend(lines[i:end])
                i = end
                continue
            new = rewritten + f"  # the grader made this import use the notebook's own code: {line.strip()[:60]}"
        out.lines.append(indent + new)
        out.lines.extend("" for _ in range(i + 1, end))
        i = end
    return out
