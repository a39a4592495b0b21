"""Which base operation a failing derived operation is wrong because of, from the calls it was seen to make.

The handout builds ``-a`` as ``a * -1``, ``a - b`` as ``a + (-b)``, ``a / b``
as ``a * b**-1`` and the reflected operations (``1 + x``, ``2 * x``, ``3 - x``,
``1 / x``) from the others, so a broken ``__pow__`` makes the division tests
fail too. Guessing from the handout would blame ``__pow__`` for a division
that does not use it; so when a case about a derived operation fails on a
wrong number, :class:`BaseCalls` asks the sandbox which of the student's
operations that node really called (the probe ``derived_calls``), then runs
each call on its own, on the same operands, against ``math``. The failure
belongs to the first call that is wrong (looked at one level further down,
for a call that is itself derived: ``__sub__`` calls ``__neg__``, which
calls ``__mul__``); when every call is right, it stays with the derived
operation.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from assignments.shared.checks import graphs
from assignments.shared.checks.graph_checks import compare_graph
from grader.testing.outcomes import Failure, StudentFault

SPEC_OP = {"__add__": "add", "__radd__": "add", "__sub__": "sub", "__rsub__": "sub", "__mul__": "mul",
           "__rmul__": "mul", "__truediv__": "truediv", "__rtruediv__": "truediv", "__pow__": "pow", "__neg__": "neg"}
"""A recorded method to the spec operation that calls it (a reflected one with the plain number first)."""
SYMBOL = {"add": "+", "sub": "-", "mul": "*", "truediv": "/", "pow": "**"}
TOL = 1e-5
"""Relative and absolute tolerance against central differences."""
MAX_LOOKS = 4
"""Failing cases of one test whose calls are looked at (each costs a few probe calls); later ones reuse the finding."""


def derived_nodes(spec: dict[str, Any]) -> list[int]:
    """The nodes of ``spec`` the student's operations make with a derived or reflected operation."""
    leaves = len(spec["leaves"])
    how = spec.get("build", "student")
    by_probe = set(range(leaves, leaves + len(spec["nodes"]))) if how == "probe" else set(how) if isinstance(how, list) else set()
    found = []
    for i, (op, *operands) in enumerate(spec["nodes"], start=leaves):
        reflected = op in ("add", "mul", "sub", "truediv") and bool(operands) and isinstance(operands[0], dict)
        if i not in by_probe and (op in ("sub", "truediv", "neg") or reflected):
            found.append(i)
    return found


def _operand(x: dict[str, float] | None) -> Any:
    if x is None:
        return None
    return graphs.const(x["const"]) if "const" in x else x["value"]


def call_spec(call: list[Any]) -> dict[str, Any] | None:
    """A one-node local-mode graph of a recorded call, or None when an operand is neither a Value nor a number."""
    name, *args = call
    op = SPEC_OP[name]
    operands = [_operand(a) for a in args]
    if any(o is None for o in operands) or not operands or isinstance(operands[0], dict):
        return None
    if op == "neg":
        return graphs.unary("neg", operands[0])
    if len(operands) != 2:
        return None
    first, second = operands
    return graphs.binary(op, second, first) if name.startswith("__r") else graphs.binary(op, first, second)


def call_text(call: list[Any]) -> str:
    """A recorded call as the student wrote it, e.g. ``__pow__(2.0, -1.0)``."""
    name, *args = call
    shown = [repr(a["value"]) if "value" in a else repr(a["const"]) for a in args if a is not None]
    return f"{name}({', '.join(shown)})"


class BaseCalls:
    """For :attr:`grader.testing.cases.Check.base_of`: the base operation whose call made a derived one fail.

    Args:
        student: The test's ``student`` fixture.
    """

    def __init__(self, student: Callable[..., Any]) -> None:
        self.student = student
        self.looks = 0
        self.found: dict[str, tuple[str, str]] = {}

    def __call__(self, spec: dict[str, Any], declared: str | None) -> tuple[str, str] | None:
        """The base method at fault and what its call got wrong, or None (the failure stays where it is)."""
        nodes = derived_nodes(spec)
        if not nodes:
            return None
        if self.looks >= MAX_LOOKS:
            return self.found.get(declared or "")
        self.looks += 1
        for index in nodes[:3]:
            found = self._look(spec, index, depth=2)
            if found is not None:
                self.found.setdefault(declared or "", found)
                return found
        return None

    def _look(self, spec: dict[str, Any], index: int, depth: int) -> tuple[str, str] | None:
        try:
            calls = self.student("derived_calls", {k: v for k, v in spec.items() if k != "locals"}, index)["calls"]
        except StudentFault:
            return None  # the failure itself says what raised
        for call in calls:
            single = call_spec(call)
            if single is None:
                continue
            try:
                compare_graph(self.student("graph", single), graphs.expected_from_math(single), single,
                              rel=TOL, abs_tol=TOL)
            except Failure as wrong:
                if isinstance(wrong, StudentFault) and wrong.kind != "raised":
                    return None  # did not finish: not a finding about the call
                deeper = self._look(single, len(single["leaves"]), depth - 1) if depth > 1 and derived_nodes(single) else None
                if deeper is not None:
                    return deeper
                method = f"Value.{call[0]}"
                return method, f"this operation calls {call_text(call)}, and that call alone is wrong: {wrong.message}"
            except (ArithmeticError, ValueError):
                continue  # outside the domain of math: nothing to compare with
        return None
