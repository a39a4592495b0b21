"""Probe ``derived_calls``: which of the student's operations a derived operation calls, observed while it runs.

The handout builds ``a - b`` as ``a + (-b)``, ``a / b`` as ``a * b**-1`` and
``-a`` as ``a * -1``, but a student may build them otherwise, or not at all
from other operations. When a test of a derived operation fails, the judge
asks this probe what the operation really called on the failing inputs, then
tests each of those calls on its own (``assignments.shared.checks.derived``): the
failure is the base operation's only when a call it made is wrong.

The probe rebuilds the graph of the spec up to the node asked about (the
student's operations, forward pass only) and, while that node's operation
runs, records every call of an arithmetic method of ``Value`` one level
below it: the method's name and its operands (a Value's data, or a plain number as given).
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from contextlib import contextmanager
from types import CodeType
from typing import Any, TypedDict

from assignments.shared.probes.engine_probes import BINARY, UNARY, build
from probekit import Context, MalformedAnswer, number, record

METHODS = ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__", "__rtruediv__",
           "__pow__", "__neg__")
"""The methods whose calls are recorded."""
MAX_CALLS = 8
"""Calls kept per node: a derived operation makes two or three."""


def _operand(x: Any, value_cls: type) -> Any:
    """``{"value": data}`` for a Value, ``{"const": x}`` for a plain number, None for anything else."""
    if isinstance(x, value_cls):
        data = number(getattr(x, "data", None))
        return {"value": data} if type(data) is float else None
    return {"const": number(x)} if type(x) in (int, float) else None


OUTER = {"add": ("__add__", "__radd__"), "sub": ("__sub__", "__rsub__"), "mul": ("__mul__", "__rmul__"),
         "truediv": ("__truediv__", "__rtruediv__"), "pow": ("__pow__", "__pow__"), "neg": ("__neg__", "__neg__")}
"""A spec operation to the method Python calls for it: on a Value, or reflected when a plain number comes first."""


@contextmanager
def recording(value_cls: type, outer: str) -> Iterator[list[list[Any]]]:
    """While the block runs, record the calls of :data:`METHODS` made inside the operation's own method ``outer``
    (one level below it), or, when the class does not define ``outer`` itself, the outermost calls."""
    calls: list[list[Any]] = []
    saved = {name: value_cls.__dict__[name] for name in METHODS if callable(value_cls.__dict__.get(name))}
    depth = [0]
    target = 1 if outer in saved else 0

    def wrap(name: str, method: Any) -> Any:
        @functools.wraps(method)
        def recorded(self: Any, *args: Any) -> Any:
            if depth[0] == target and len(calls) < MAX_CALLS:
                calls.append([name, _operand(self, value_cls), *(_operand(a, value_cls) for a in args[:1])])
            depth[0] += 1
            try:
                return method(self, *args)
            finally:
                depth[0] -= 1
        return recorded

    wrapped = []
    try:
        for name, method in saved.items():
            setattr(value_cls, name, wrap(name, method))
            wrapped.append(name)
    except (AttributeError, TypeError):  # a class whose methods cannot all be replaced: nothing is recorded
        target = -1
    try:
        yield calls
    finally:
        for name in wrapped:
            setattr(value_cls, name, saved[name])


def derived_calls(mg: Any, spec: dict[str, Any], index: int, ctx: Context) -> dict[str, Any]:
    """Probe ``derived_calls``: the calls node ``index`` of ``spec`` made while its operation ran.

    Returns:
        ``{"calls": [[method, self, other], ...]}``: at most :data:`MAX_CALLS`, ``other`` left out for a unary
        method; each operand ``{"value": data}`` (a Value), ``{"const": x}`` (a plain number) or None (anything
        else).
    """
    value_cls = mg.engine.Value
    leaves = len(spec["leaves"])
    before = {**spec, "nodes": spec["nodes"][: index - leaves], "build": "student", "locals": {}}
    nodes = build(value_cls, before, ctx)
    op, *operands = spec["nodes"][index - leaves]
    args = [o["const"] if isinstance(o, dict) else nodes[o] for o in operands]
    outer = OUTER.get(op, ("", ""))[1 if operands and isinstance(operands[0], dict) else 0]
    ctx.during = f"forward pass of {op} while recording the operations it calls"
    with recording(value_cls, outer) as calls:
        (UNARY[op] if op in UNARY else BINARY[op])(*args)
    return {"calls": calls}


class CallsAnswer(TypedDict):
    """``derived_calls``: each call as ``[method, self, other]`` (``other`` absent for a unary method), each operand
    ``{"value": data}``, ``{"const": x}`` or None (see :func:`derived_calls`)."""

    calls: list[list[Any]]


def _call_operand(value: Any, where: str) -> dict[str, float] | None:
    if value is None:
        return None
    if type(value) is dict and len(value) == 1 and set(value) <= {"value", "const"}:
        key = next(iter(value))
        got = value[key]
        if type(got) is not float:
            raise MalformedAnswer(f"{where}: expected a float operand")
        return {key: got}
    raise MalformedAnswer(f"{where}: expected {{\"value\": x}}, {{\"const\": x}} or null")


def parse_calls(value: Any, spec: dict[str, Any], index: int) -> CallsAnswer:
    """The answer of ``derived_calls``: at most :data:`MAX_CALLS` calls of :data:`METHODS`."""
    got = record(value, "derived_calls", ("calls",))
    calls = got["calls"]
    if type(calls) is not list or len(calls) > MAX_CALLS:
        raise MalformedAnswer(f"calls: expected a list of at most {MAX_CALLS} calls")
    parsed: list[list[Any]] = []
    for k, call in enumerate(calls):
        if type(call) is not list or len(call) not in (2, 3) or call[0] not in METHODS:
            raise MalformedAnswer(f"calls[{k}]: expected [method, self_data, other]")
        parsed.append([call[0], *(_call_operand(a, f"calls[{k}]") for a in call[1:])])
    return CallsAnswer(calls=parsed)


# --- which functions a student's function uses (for other probes) ---------------------------------------------

@contextmanager
def global_set(scope: dict[str, Any], name: str, value: Any) -> Iterator[None]:
    """``scope[name]`` is ``value`` inside the block, and what it was (or nothing) after it."""
    had, old = name in scope, scope.get(name)
    scope[name] = value
    try:
        yield
    finally:
        if had:
            scope[name] = old
        else:
            scope.pop(name, None)


def refers_to(fn: Any, name: str, scope: dict[str, Any], most: int = 64) -> bool:
    """Whether the code of ``fn`` (with the functions defined in it), or of a function of its module that it refers
    to (and so on), names ``name``."""
    todo, seen = [getattr(fn, "__code__", None)], set()
    while todo and len(seen) < most:
        code = todo.pop()
        if not isinstance(code, CodeType) or code in seen:
            continue
        seen.add(code)
        if name in code.co_names:
            return True
        todo += [c for c in code.co_consts if isinstance(c, CodeType)]
        todo += [getattr(scope[n], "__code__", None) for n in code.co_names
                 if n in scope and getattr(scope[n], "__globals__", None) is scope]
    return False


PROBES = {"derived_calls": lambda mg, ctx, spec, index: derived_calls(mg, spec, index, ctx)}
"""This module's probes (see ``grader.sandbox.probes``)."""
NEEDS = {"derived_calls": ("micrograd.engine",)}
ANSWERS = {"derived_calls": parse_calls}
