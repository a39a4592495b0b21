"""Which of the student's methods a failure belongs to: the one whose own code failed.

A case declares the method it is about (``check.case(..., method="Value.backward")``),
but the code that failed may be another one: an exception raised inside
``__add__``'s ``_backward`` closure while ``backward()`` runs, an
``AttributeError`` because ``tanh`` does not exist, a stub of ``exp`` that
``sigmoid`` calls. :func:`culprit` reads the sandbox's description of the
exception (plain data, see :func:`grader.sandbox.plain.exception_info`) and
names the method at fault, or None when the description does not say more than
the case does. The feedback then names that method, shows a hint about it
(the handout's ``hints``, not the case's own), and "Start here" counts it.

Nothing here trusts the description: every name it returns is one of the
handout's (:class:`~grader.course.handout.Handout`, the course's tables: :func:`use`) or built from the class and method names of a
qualified name the sandbox reported, checked against a strict pattern.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping
from typing import Any

from grader.course.handout import Handout
from grader.testing.outcomes import RETURNED_NONE

OPERATORS = {"+": ("__add__", "__radd__"), "-": ("__sub__", "__rsub__"), "*": ("__mul__", "__rmul__"),
             "/": ("__truediv__", "__rtruediv__"), "**": ("__pow__", "")}
"""Python's operator symbol to the method ``a OP b`` calls on ``a`` and the reflected one it tries on ``b``."""

_HANDOUT: list[Handout] = [Handout()]
"""The handout in use (:func:`use`): the course's, loaded by the judge; empty until then."""


def use(handout: Handout) -> None:
    """Name failures by ``handout``'s tables from now on (the judge calls it with its course's handout)."""
    _HANDOUT[0] = handout


def handout() -> Handout:
    """The handout in use (:func:`use`)."""
    return _HANDOUT[0]


MISSING_ATTRIBUTE = re.compile(r"(?:type object )?'(\w+)'(?: object)? has no attribute '(\w+)'")
UNSUPPORTED = re.compile(r"unsupported operand type\(s\) for (\*\*|[-+*/]).*?: '(\w+)' and '(\w+)'")
UNARY_MINUS = re.compile(r"bad operand type for unary -: '(\w+)'")
QUALNAME = re.compile(r"([A-Za-z]\w*)\.([A-Za-z_]\w{0,39})(?:\.<locals>\..*)?", re.ASCII)
"""A qualified name ``Class.method`` (of a closure or nested function inside it, too): the method's name is the
student's own when it is a helper, so only a short ASCII identifier is taken."""
SIGNATURE = re.compile(r"\b(\w+)\.__init__\(\) got an unexpected keyword argument '(\w+)'")
"""A handout constructor refusing one of the handout's own parameters: its signature is at fault (a call that
leaves out a required argument is the caller's: that falls to the frame that made it)."""
NODE_OP = re.compile(r"calling _backward of a node made by '([^']*)'")
FORGOT_RETURN = re.compile(r"did you forget (?:`return out`|a `return`) at the end of `([A-Za-z]\w*)\.(\w{1,40})`\?$",
                           re.ASCII)
"""The end of a probe's finding that a method returned None (:data:`~grader.testing.outcomes.RETURNED_NONE`)."""


def culprit(error: Mapping[str, Any], declared: str | None = None, uses: tuple[str, ...] = ()) -> str | None:
    """The method whose own code raised the exception ``error`` describes, or None if the description cannot tell.

    In order: a method the probe saw return None names itself (it forgot its
    ``return``, and what failed after it only used the None); a missing attribute names the method (or, for an attribute the
    constructor sets, that class's ``__init__``); an operator Python could not
    apply names the operator's method; otherwise the innermost frame of the
    student's code names it, by its qualified name when the sandbox reports one
    (``Value.__add__.<locals>._backward`` is ``Value.__add__``), else by its
    function name when that is one of the handout's methods (the declared
    method and ``uses`` first), or, for a ``_backward`` closure, by the label of
    the node whose closure was running.

    Args:
        error: The sandbox's exception description (``type``, ``message``, ``where``, ``during``).
        declared: The method the case is about, e.g. ``"Value.backward"``.
        uses: The methods the declared one is built from (they win an ambiguous function name).
    """
    etype, message = str(error.get("type", "")), str(error.get("message", ""))
    if etype == RETURNED_NONE:
        found = _forgot_return(message)
        if found:
            return found
    if etype == "AttributeError":
        found = _missing_attribute(message)
        if found:
            return found
    if etype == "TypeError":
        found = _operator(message) or _signature(message)
        if found:
            return found
    where = error.get("where")
    if not isinstance(where, Mapping):
        return None
    file = "" if "notebook" in where else str(where.get("file", ""))  # a notebook is one module: any class
    qualname = where.get("qualname")
    if isinstance(qualname, str):
        match = QUALNAME.fullmatch(qualname)
        if match and match.group(1) in handout().classes:
            return f"{match.group(1)}.{match.group(2)}"
        own = qualname.split(".<locals>", 1)[0]
        if own and (own in (declared, *uses) or (file and not _first_files(file) and (match or "." not in own))):
            return own  # a later assignment's own class or function (Dual.__mul__, softmax), named as it is
    function = str(where.get("function", ""))
    if function == "_backward":
        op = NODE_OP.search(str(error.get("during", "")))
        label = op.group(1) if op else ""
        tables = handout()
        name = tables.closures.get(label) or next(
            (m for prefix, m in tables.label_prefixes.items() if label.startswith(prefix)), "")
        return f"{tables.node_class}.{name}" if name and tables.node_class else None
    return _by_function(function, file, declared, uses)


def _first_files(file: str) -> bool:
    """Whether ``file`` is one of the files the handout's classes live in (``engine.py``, ``nn.py``)."""
    return any(file.replace("\\", "/").endswith(name) for name in handout().files)


def _forgot_return(message: str) -> str | None:
    """The handout method a probe found returning None (it forgot its ``return``), or None."""
    match = FORGOT_RETURN.search(message)
    if match is None:
        return None
    cls, name = match.groups()
    return f"{cls}.{name}" if handout().has(f"{cls}.{name}") else None


def _missing_attribute(message: str) -> str | None:
    match = MISSING_ATTRIBUTE.search(message)
    if match is None:
        return None
    cls, attr = match.groups()
    tables = handout()
    if cls not in tables.classes:
        return None
    if attr in tables.classes[cls]:
        return f"{cls}.{attr}"
    base = tables.bases.get(cls)
    if base is not None and attr in tables.classes.get(base, ()):
        return f"{base}.{attr}"
    return f"{cls}.__init__" if attr in tables.attributes else None


def _signature(message: str) -> str | None:
    """A handout constructor that refuses a parameter the handout gives it (``Neuron.__init__() got an unexpected
    keyword argument 'nonlin'``): that constructor's signature is at fault, not its caller."""
    match = SIGNATURE.search(message)
    if match is None:
        return None
    cls, parameter = match.groups()
    return f"{cls}.__init__" if cls in handout().classes and parameter in handout().parameters else None


def _operator(message: str) -> str | None:
    match = UNSUPPORTED.search(message)
    if match is not None:
        symbol, left, right = match.groups()
        method, reflected = OPERATORS[symbol]
        if handout().has(f"{left}.{method}"):
            return f"{left}.{method}"
        if reflected and handout().has(f"{right}.{reflected}"):
            return f"{right}.{reflected}"
        return None
    match = UNARY_MINUS.search(message)
    return f"{match.group(1)}.__neg__" if match and handout().has(f"{match.group(1)}.__neg__") else None


def _by_function(function: str, file: str, declared: str | None, uses: tuple[str, ...]) -> str | None:
    """The handout method named ``function`` in ``file``: the declared method or one it uses first, else the only
    one of that name (None when several classes have one and the case does not say which)."""
    tables = handout()
    classes = next((c for name, c in tables.files.items() if file.replace("\\", "/").endswith(name)),
                   () if file else tuple(tables.classes))  # another file holds none of the handout's classes
    for method in (declared, *uses):
        if method and method.rpartition(".")[2] == function and (method.partition(".")[0] in classes or not classes):
            return method
    candidates = [f"{c}.{function}" for c in classes if function in tables.classes.get(c, ())]
    return candidates[0] if len(candidates) == 1 else None


def hint_for(method: str | None) -> str | None:
    """The hint about ``method`` (the handout's ``hints``), or None."""
    return handout().hints.get(method or "")


def overflow_hint(method: str | None, error: Mapping[str, Any]) -> str | None:
    """The stability hint (the handout's ``overflow_hints``) when ``error`` is an ``OverflowError`` raised in
    ``method``."""
    return handout().overflow_hints.get(method or "") if error.get("type") == "OverflowError" else None


UNDEFINED_NAME = re.compile(r"name '(\w+)' is not defined")


def error_hint(error: Mapping[str, Any]) -> str | None:
    """A hint about what the code raised when that is a slip of Python rather than of the method's rule (a name
    never defined or imported, a local used before it is assigned), else None: the case's hint about the rule
    would not be about this failure. The only text taken from ``error`` is a standard-library module's name."""
    kind = error.get("type")
    if kind == "UnboundLocalError":
        return "a local variable is read before it is assigned on this path: assign it first, in every branch"
    if kind != "NameError":
        return None
    match = UNDEFINED_NAME.search(str(error.get("message", "")))
    if match is not None and match.group(1) in sys.stdlib_module_names:
        return f"{match.group(1)} is a module of the standard library: add import {match.group(1)} at the top of the file"
    return "a name used here is not defined: check its spelling, and that it is assigned or imported before it is used"


def missing_hint(method: str | None, error: Mapping[str, Any]) -> str | None:
    """How to add ``method`` when ``error`` is the ``AttributeError`` saying it does not exist, else None."""
    match = MISSING_ATTRIBUTE.search(str(error.get("message", ""))) if error.get("type") == "AttributeError" else None
    if match is None or not method or not method.endswith(f".{match.group(2)}") or match.group(2) in handout().attributes:
        return None
    return f"{method} does not exist: define it in class {method.partition('.')[0]}, with the handout's name"
