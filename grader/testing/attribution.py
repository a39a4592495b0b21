"""Which of the student's methods a failure belongs to: the one whose own code failed.

A case declares the method it is about (``check.case(..., method="Value.backward")``),
but the code that failed may be another one: an exception raised inside
``__add__``'s ``_backward`` closure while ``backward()`` runs, an
``AttributeError`` because ``tanh`` does not exist, a stub of ``exp`` that
``sigmoid`` calls. :func:`culprit` reads the sandbox's description of the
exception (plain data, see :func:`grader.sandbox.plain.exception_info`) and
names the method at fault, or None when the description does not say more than
the case does. The feedback then names that method, shows a hint about it
(:data:`HINTS`, not the case's own), and "Start here" counts it.

Nothing here trusts the description: every name it returns is one of the
handout's (:data:`HANDOUT`) or built from the class and method names of a
qualified name the sandbox reported, checked against a strict pattern.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping
from typing import Any

from grader.testing.outcomes import RETURNED_NONE

HANDOUT: dict[str, tuple[str, ...]] = {
    "Value": ("__init__", "__add__", "__mul__", "__pow__", "tanh", "relu", "exp", "log", "sigmoid", "backward",
              "__neg__", "__radd__", "__sub__", "__rsub__", "__rmul__", "__truediv__", "__rtruediv__", "__repr__"),
    "Module": ("zero_grad", "parameters"),
    "Neuron": ("__init__", "__call__", "parameters", "__repr__"),
    "Layer": ("__init__", "__call__", "parameters", "__repr__"),
    "MLP": ("__init__", "__call__", "parameters", "__repr__"),
}
"""The handout's classes and the methods students write or may call (``micrograd/engine.py``, ``micrograd/nn.py``)."""

FILES = {"engine.py": ("Value",), "nn.py": ("Module", "Neuron", "Layer", "MLP")}
"""Which classes each student file holds (to tell ``Value.__init__`` from ``Neuron.__init__``)."""

ATTRIBUTES = {"data", "grad", "_prev", "_op", "_backward", "w", "b", "nonlin", "neurons", "layers"}
"""Attributes the handout's constructors set: a missing one is ``__init__``'s fault."""

OPERATORS = {"+": ("__add__", "__radd__"), "-": ("__sub__", "__rsub__"), "*": ("__mul__", "__rmul__"),
             "/": ("__truediv__", "__rtruediv__"), "**": ("__pow__", "")}
"""Python's operator symbol to the method ``a OP b`` calls on ``a`` and the reflected one it tries on ``b``."""

CLOSURE_OPS = {"+": "__add__", "*": "__mul__", "-": "__sub__", "/": "__truediv__", "neg": "__neg__",
               "tanh": "tanh", "relu": "relu", "exp": "exp", "log": "log", "sigmoid": "sigmoid"}
"""A node's ``_op`` label (the handout's) to the operation whose ``_backward`` closure it got."""

HINTS: dict[str, str] = {
    "Value.__init__": "store data, set grad = 0.0, keep the children in _prev and the label in _op, and start "
                      "_backward as a function that does nothing",
    "Value.__add__": "wrap a plain number in a Value; the output holds the sum, with both operands as its children, "
                     "and its _backward adds out.grad to both operands' grad (+=)",
    "Value.__mul__": "wrap a plain number in a Value; the _backward adds other.data * out.grad to self.grad and "
                     "self.data * out.grad to other.grad (+=)",
    "Value.__pow__": "the exponent is a plain int or float n; the _backward adds n * self.data**(n-1) * out.grad "
                     "to self.grad",
    "Value.tanh": "the output t is math.tanh(x) (it never overflows); the _backward adds (1 - t**2) * out.grad to "
                  "self.grad",
    "Value.relu": "the output is x if x > 0, else 0; the _backward passes out.grad on only where x > 0",
    "Value.exp": "e = math.exp(x); the _backward adds e * out.grad to self.grad",
    "Value.log": "math.log(x); the _backward adds out.grad / x to self.grad",
    "Value.sigmoid": "s = 1 / (1 + e**-x); the _backward adds s * (1 - s) * out.grad to self.grad",
    "Value.backward": "order the nodes topologically (each once, with a visited set), set self.grad = 1.0, then "
                      "call each node's _backward in reverse order",
    "Value.__neg__": "-a is a * -1",
    "Value.__radd__": "other + self is self + other",
    "Value.__sub__": "a - b is a + (-b)",
    "Value.__rsub__": "other - self is other + (-self)",
    "Value.__rmul__": "other * self is self * other",
    "Value.__truediv__": "a / b is a * b**-1",
    "Value.__rtruediv__": "other / self is other * self**-1",
    "Module.zero_grad": "set p.grad = 0.0 for every p in self.parameters()",
    "Neuron.__init__": "nin weights and a bias, each Value(random.uniform(-1, 1)), and keep nonlin",
    "Neuron.__call__": "sum w_i * x_i with Value operations, add the bias, then tanh() only if nonlin",
    "Neuron.parameters": "the weights, then the bias",
    "Layer.__init__": "nout Neurons of nin inputs each, passing **kwargs on to them",
    "Layer.__call__": "one output per neuron, in order; a single Value when there is one neuron",
    "Layer.parameters": "every neuron's parameters, neuron by neuron",
    "MLP.__init__": "one Layer per size in nouts: tanh in every layer but the last, which is linear (nonlin=False)",
    "MLP.__call__": "feed x through each layer in turn",
    "MLP.parameters": "every layer's parameters, layer by layer",
}
"""A hint about each method, shown when a failure is attributed to a method other than the one its case is about
(the case's own hint is about its own method)."""

OVERFLOW_HINTS: dict[str, str] = {
    "Value.tanh": "the gradient formula is not the problem: computing tanh from math.exp overflows for large |x| "
                  "((e**2x - 1)/(e**2x + 1) does above x = 354); use math.tanh(x), which is finite for every x",
    "Value.sigmoid": "computing 1 / (1 + math.exp(-x)) overflows for x below -709: for x < 0 use "
                     "math.exp(x) / (1 + math.exp(x)), so that exp never gets a large positive argument",
    "Value.exp": "math.exp(x) is finite up to x = 709.78 and raises OverflowError above it; compute e**x with "
                 "math.exp(self.data) once, not through another formula",
}
"""The hint for an ``OverflowError`` raised in an operation: a stability problem, not a wrong gradient (every other
hint of these operations is about the gradient, and would not be true for the failure)."""

MISSING_ATTRIBUTE = re.compile(r"(?:type object )?'(\w+)'(?: object)? has no attribute '(\w+)'")
UNSUPPORTED = re.compile(r"unsupported operand type\(s\) for (\*\*|[-+*/]).*?: '(\w+)' and '(\w+)'")
UNARY_MINUS = re.compile(r"bad operand type for unary -: '(\w+)'")
QUALNAME = re.compile(r"([A-Za-z]\w*)\.([A-Za-z_]\w{0,39})(?:\.<locals>\..*)?", re.ASCII)
"""A qualified name ``Class.method`` (of a closure or nested function inside it, too): the method's name is the
student's own when it is a helper, so only a short ASCII identifier is taken."""
SIGNATURE = re.compile(r"\b(\w+)\.__init__\(\) got an unexpected keyword argument '(nonlin|_children|_op)'")
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
        if match and match.group(1) in HANDOUT:
            return f"{match.group(1)}.{match.group(2)}"
        own = qualname.split(".<locals>", 1)[0]
        if own and (own in (declared, *uses) or (file and not _first_files(file) and (match or "." not in own))):
            return own  # a later assignment's own class or function (Dual.__mul__, softmax), named as it is
    function = str(where.get("function", ""))
    if function == "_backward":
        op = NODE_OP.search(str(error.get("during", "")))
        label = op.group(1) if op else ""
        name = CLOSURE_OPS.get(label) or ("__pow__" if label.startswith("**") else "")
        return f"Value.{name}" if name else None
    return _by_function(function, file, declared, uses)


def _first_files(file: str) -> bool:
    """Whether ``file`` is one of the files :data:`HANDOUT`'s classes live in (``engine.py``, ``nn.py``)."""
    return any(file.replace("\\", "/").endswith(name) for name in FILES)


def _forgot_return(message: str) -> str | None:
    """The handout method a probe found returning None (it forgot its ``return``), or None."""
    match = FORGOT_RETURN.search(message)
    if match is None:
        return None
    cls, name = match.groups()
    return f"{cls}.{name}" if name in HANDOUT.get(cls, ()) else None


def _missing_attribute(message: str) -> str | None:
    match = MISSING_ATTRIBUTE.search(message)
    if match is None:
        return None
    cls, attr = match.groups()
    if cls not in HANDOUT:
        return None
    if attr in HANDOUT[cls]:
        return f"{cls}.{attr}"
    if cls != "Value" and attr in HANDOUT["Module"]:
        return f"Module.{attr}"
    return f"{cls}.__init__" if attr in ATTRIBUTES else None


def _signature(message: str) -> str | None:
    """A handout constructor that refuses a parameter the handout gives it (``Neuron.__init__() got an unexpected
    keyword argument 'nonlin'``): that constructor's signature is at fault, not its caller."""
    match = SIGNATURE.search(message)
    return f"{match.group(1)}.__init__" if match and match.group(1) in HANDOUT else None


def _operator(message: str) -> str | None:
    match = UNSUPPORTED.search(message)
    if match is not None:
        symbol, left, right = match.groups()
        method, reflected = OPERATORS[symbol]
        if left == "Value":
            return f"Value.{method}"
        if right == "Value" and reflected:
            return f"Value.{reflected}"
        return None
    match = UNARY_MINUS.search(message)
    return "Value.__neg__" if match and match.group(1) == "Value" else None


def _by_function(function: str, file: str, declared: str | None, uses: tuple[str, ...]) -> str | None:
    """The handout method named ``function`` in ``file``: the declared method or one it uses first, else the only
    one of that name (None when several classes have one and the case does not say which)."""
    classes = next((c for name, c in FILES.items() if file.replace("\\", "/").endswith(name)),
                   () if file else tuple(HANDOUT))  # another file holds none of the handout's classes
    for method in (declared, *uses):
        if method and method.rpartition(".")[2] == function and (method.partition(".")[0] in classes or not classes):
            return method
    candidates = [f"{c}.{function}" for c in classes if function in HANDOUT.get(c, ())]
    return candidates[0] if len(candidates) == 1 else None


def hint_for(method: str | None) -> str | None:
    """The hint about ``method`` (:data:`HINTS`), or None."""
    return HINTS.get(method or "")


def overflow_hint(method: str | None, error: Mapping[str, Any]) -> str | None:
    """The stability hint (:data:`OVERFLOW_HINTS`) when ``error`` is an ``OverflowError`` raised in ``method``."""
    return OVERFLOW_HINTS.get(method or "") if error.get("type") == "OverflowError" else None


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
    if match is None or not method or not method.endswith(f".{match.group(2)}") or match.group(2) in ATTRIBUTES:
        return None
    return f"{method} does not exist: define it in class {method.partition('.')[0]}, with the handout's name"
