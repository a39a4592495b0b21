"""Short math expressions (``3*x**2 - exp(-x)``) read as data and evaluated in the judge, never run as Python.

A student's answer to an expression question, and an answer key's formula over a question's parameters, are
parsed with the standard library's :mod:`ast` into a tree of a few allowed kinds (numbers, the question's
variables, ``pi`` and ``e``, ``+ - * / **``, unary minus and plus, calls of :data:`FUNCTIONS` and of the functions a
questions file defines)
and evaluated on floats by walking that tree: nothing is compiled, imported or looked up as an attribute. The text
is bounded before :func:`ast.parse` sees it (:data:`MAX_CHARS` characters, :data:`MAX_DEPTH` nested brackets)
and the tree after (:data:`MAX_NODES` nodes), so a hostile answer costs at most a few milliseconds.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from grader.questions.forms import expression_example

MAX_CHARS = 400
"""The longest expression read, in characters (an answer is one line of math)."""
MAX_DEPTH = 20
"""The most brackets open at once (``ast.parse`` recurses on nesting)."""
MAX_NODES = 200
"""The most nodes of the parsed tree."""


Function = Callable[[float], float]
UNSAFE = frozenset({"factorial"})
"""One-argument functions of :mod:`math` left out: ``factorial`` of a large whole number runs for minutes."""


def _one_argument(name: str) -> bool:
    function = getattr(math, name)
    try:
        result = function(0.5)
    except TypeError:
        return False  # takes other arguments (or whole numbers only)
    except (ValueError, OverflowError):
        return True
    return isinstance(result, (int, float)) and not isinstance(result, bool)  # (not frexp's or modf's pairs)


FUNCTIONS: dict[str, Function] = {
    **{name: getattr(math, name) for name in dir(math)
       if not name.startswith("_") and name not in UNSAFE and callable(getattr(math, name)) and _one_argument(name)},
    "abs": abs,
}
"""The functions every expression may call: :mod:`math`'s functions of one number (``log`` is the natural logarithm)
and ``abs``. A questions file adds its own, as formulas in ``x`` (:func:`course_function`)."""
CONSTANTS = {"pi": math.pi, "e": math.e}
"""Names every expression knows beside its variables."""

_OPERATORS: dict[type[ast.operator], Callable[[float, float], float]] = {
    ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b, ast.Pow: lambda a, b: math.pow(a, b),
}


class ExpressionError(ValueError):
    """An expression that is not one this module reads, or has no finite value at a point (the message says which,
    for the person who wrote it)."""


@dataclass(frozen=True)
class Expression:
    """A parsed expression over ``variables``.

    Attributes:
        text: The expression as written (at most :data:`MAX_CHARS` characters).
        variables: The names it may use beside :data:`CONSTANTS`.
    """

    text: str
    variables: tuple[str, ...]
    _tree: ast.expr
    _functions: Mapping[str, Function]

    @property
    def used(self) -> frozenset[str]:
        """The variables it reads (its value depends on no other)."""
        return frozenset(n.id for n in ast.walk(self._tree) if isinstance(n, ast.Name) and n.id in self.variables)

    def __call__(self, values: Mapping[str, float]) -> float:
        """The expression's value at ``values`` (every variable's value, a float).

        Raises:
            ExpressionError: If it has no finite value there (a division by 0, ``log`` of a negative number, an
                overflow).
        """
        try:
            result = _evaluate(self._tree, values, self._functions)
        except (ZeroDivisionError, OverflowError, ValueError) as exc:
            raise ExpressionError(f"{self.text} has no value at {_point(values)} ({_reason(exc)})") from None
        if not math.isfinite(result):
            raise ExpressionError(f"{self.text} is {result} at {_point(values)}")
        return result


def parse_expression(text: str, variables: tuple[str, ...] = (),
                     functions: Mapping[str, Function] | None = None) -> Expression:
    """Read ``text`` as an expression over ``variables`` that may call :data:`FUNCTIONS` and ``functions`` (a
    course's own, by name).

    ``^`` is refused with a pointer to ``**``; ``2x`` (implicit multiplication) does not parse.

    Raises:
        ExpressionError: If it is too long or too nested, does not parse, or holds anything but numbers,
            ``variables``, :data:`CONSTANTS`, ``+ - * / **``, unary signs and one-argument calls of
            the functions. The message names what is wrong, for the student who wrote it.
    """
    if not isinstance(text, str):
        raise ExpressionError(f"expected an expression as text, got {type(text).__name__}")
    text = text.strip()
    if not text:
        raise ExpressionError("the expression is empty")
    if len(text) > MAX_CHARS:
        raise ExpressionError(f"the expression is {len(text)} characters long, more than the {MAX_CHARS} read")
    depth = deepest = 0
    for char in text:
        depth += char in "([{"
        depth -= char in ")]}"
        deepest = max(deepest, depth)
    if deepest > MAX_DEPTH:
        raise ExpressionError(f"the expression nests brackets {deepest} deep, more than the {MAX_DEPTH} read")
    try:
        tree = ast.parse(text, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        raise ExpressionError(f"{text!r} is not an expression (write products with *, powers with **, such as "
                              f"`{expression_example(variables)}`)") from None
    nodes = sum(1 for _ in ast.walk(tree))
    if nodes > MAX_NODES:
        raise ExpressionError(f"the expression has {nodes} parts, more than the {MAX_NODES} read")
    known = {**FUNCTIONS, **(functions or {})}
    _check(tree, variables, known)
    return Expression(text, variables, tree, known)


def _check(node: ast.expr, variables: tuple[str, ...], functions: Mapping[str, Function]) -> None:
    for child in ast.walk(node):
        if isinstance(child, (ast.expr_context, ast.operator, ast.unaryop)):
            if isinstance(child, ast.BitXor):
                raise ExpressionError("^ is not a power here: write x**2 for x squared")
            if isinstance(child, (ast.operator, ast.unaryop)) and type(child) not in _OPERATORS \
                    and not isinstance(child, (ast.USub, ast.UAdd)):
                raise ExpressionError(f"the operator {_symbol(child)} is not allowed: use + - * / **")
            continue
        if isinstance(child, ast.Constant):
            if isinstance(child.value, bool) or not isinstance(child.value, (int, float)):
                raise ExpressionError(f"{child.value!r} is not a number")
        elif isinstance(child, ast.Name):
            if child.id not in variables and child.id not in CONSTANTS and child.id not in functions:
                known = ", ".join((*variables, *CONSTANTS)) or "none"
                raise ExpressionError(f"unknown name {child.id!r} (the names here: {known})")
        elif isinstance(child, ast.Call):
            if not isinstance(child.func, ast.Name) or child.func.id not in functions:
                raise ExpressionError("only functions of one number may be called, such as exp, log or sqrt")
            if len(child.args) != 1 or child.keywords or isinstance(child.args[0], ast.Starred):
                raise ExpressionError(f"{child.func.id}() takes one argument")
        elif not isinstance(child, (ast.BinOp, ast.UnaryOp)):
            raise ExpressionError(f"{type(child).__name__} is not allowed in an expression: numbers, names, "
                                  "+ - * / ** and function calls only")
    for child in ast.walk(node):
        if isinstance(child, ast.Name) and child.id in functions and not _called(node, child):
            raise ExpressionError(f"{child.id} is a function: write {child.id}(...)")


def _called(root: ast.expr, name: ast.Name) -> bool:
    return any(isinstance(c, ast.Call) and c.func is name for c in ast.walk(root))


def _evaluate(node: ast.expr, values: Mapping[str, float], functions: Mapping[str, Function]) -> float:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
        return float(node.value)
    if isinstance(node, ast.Name):
        return float(values[node.id]) if node.id in values else CONSTANTS[node.id]
    if isinstance(node, ast.UnaryOp):
        operand = _evaluate(node.operand, values, functions)
        return -operand if isinstance(node.op, ast.USub) else operand
    if isinstance(node, ast.BinOp):
        return _OPERATORS[type(node.op)](_evaluate(node.left, values, functions),
                                         _evaluate(node.right, values, functions))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return float(functions[node.func.id](_evaluate(node.args[0], values, functions)))
    raise ExpressionError(f"cannot evaluate {type(node).__name__}")  # (refused by _check before)


def _symbol(op: ast.AST) -> str:
    return {ast.FloorDiv: "//", ast.Mod: "%", ast.MatMult: "@", ast.BitAnd: "&", ast.BitOr: "|", ast.LShift: "<<",
            ast.RShift: ">>", ast.Invert: "~", ast.Not: "not"}.get(type(op), type(op).__name__)


def _point(values: Mapping[str, float]) -> str:
    return ", ".join(f"{k} = {v:.6g}" for k, v in values.items()) or "no variables"


def _reason(exc: Exception) -> str:
    if isinstance(exc, ZeroDivisionError):
        return "a division by zero"
    if isinstance(exc, OverflowError):
        return "too large a number"
    return "outside a function's domain"


def course_function(name: str, formula: str) -> Function:
    """A function a questions file defines as a formula in ``x`` (``1/(1 + exp(-x))``), callable like :data:`FUNCTIONS`.

    Raises:
        ExpressionError: If the formula does not read (when defined), or has no value at a point (when called).
    """
    expression = parse_expression(formula, ("x",))

    def function(x: float) -> float:
        return expression({"x": x})

    function.__name__ = name
    return function
