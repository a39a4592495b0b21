"""Contracts, checked first: what every other test of an assignment needs (e.g. from the constructors).

Every test builds ``Value`` objects and reads ``data``, ``grad`` and ``_prev``;
every network test builds neurons with ``nonlin`` and layers with keyword
arguments. When one of these does not hold, the tests that need it cannot
say anything about the method they are about. So each assignment reports its
contract first, in a test of its own (``test_value_contract``,
``test_network_contract``), and every other failing case of that
assignment is reported as *blocked* by the constructor at fault: no hint of
its own, and "Start here" names only the constructor.

Blocked cases still cost their points: the grader could not check the
method they are about, and a test it could not check earns nothing, so a
student cannot gain by breaking a contract on purpose. What one contract
fault costs in all is measured by ``grader validate`` (the catalogue's
``init_*`` bugs, whose ``max_cascade`` states it).

A course declares its contracts (:class:`Contract` objects, in
``assignments/shared/checks/contracts.py`` for this course), and a test module
opts in with ``pytestmark = pytest.mark.contract(VALUE)``; the plugin (:mod:`grader.judge.plugin`) gives its ``check`` a
:class:`Blocker` that runs the contract's probe once per submission and
assignment, only when a case fails.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from grader.testing.outcomes import Failure, StudentFault

CREATING = re.compile(r"^creating ([A-Za-z_]\w*)\(")
"""What a contract probe was doing when a constructor raised (its ``during``): which constructor is at fault."""

Fault = tuple[str, str, bool]
"""A contract that does not hold: the method at fault, what is wrong, and whether other tests cannot run without it
(*blocking*). A constructor whose parameters come in another order, or an ``_op`` label kept under another name,
blocks nothing: the grader makes its own nodes with ``Value(data)`` and reads ``_op`` only to describe a node."""

@dataclass(frozen=True)
class Contract:
    """One contract: the probe that measures it, the test that reports it, and how to read the probe's answer.

    Attributes:
        name: A short name (the key of its outcome, kept once per submission and assignment).
        probe: The probe that measures it (a course probe taking no arguments).
        method: The method blamed when the probe itself fails (a constructor that raises).
        test: The title of the test that reports the contract (named by blocked cases).
        faults: The faults the probe's answer shows, most basic first.
        hint: The hint of the contract test's case.
        extras: ``(key, probe)`` pairs: further measurements, each its own probe (one that may run code of the
            student's beyond the constructors), put in the answer under ``key`` before ``faults`` reads it; None
            there when that probe did not finish or raised, so it never costs the contract's own measurements.
    """

    name: str
    probe: str
    method: str
    test: str
    faults: Callable[[Any], list[Fault]]
    hint: str = ""
    extras: tuple[tuple[str, str], ...] = ()


def measure(contract: Contract, student: Callable[..., Any]) -> list[Fault]:
    """Run the contract's probe on the student's code and return its faults (a constructor that raised is one).

    Raises:
        StudentFault: If the submission could not be loaded, the probe did not finish, or a constructor is still the
            template's stub (``NotImplementedError``): none of them is a contract fault, each is reported where it
            happens.
    """
    try:
        answer = student(contract.probe)
        for key, probe in contract.extras:
            try:
                answer[key] = student(probe)
            except StudentFault:
                answer[key] = None
        return contract.faults(answer)
    except StudentFault as fault:
        if fault.kind != "raised" or fault.error.get("type") == "NotImplementedError":
            raise  # not loaded, did not finish, or not written yet: not a contract fault
        made = CREATING.search(str(fault.error.get("during", "")))
        return [(f"{made.group(1)}.__init__" if made else contract.method, fault.message, True)]


def check_contract(check: Any, student: Callable[..., Any], contract: Contract) -> None:
    """The body of a contract test: one case per fault, each under the method at fault with the contract's hint."""
    hint = contract.hint
    check.first = None  # the constructors alone: no engine operation runs here
    with check.case(contract.test, method=contract.method, hint=hint, uses=()):
        faults = measure(contract, student)
        if faults:
            blocking = [f for f in faults if f[2]]
            shown = blocking or faults
            text = "; ".join(f[1] for f in shown)
            if blocking:
                text += " (the other tests of this assignment that fail say \"blocked\" until this is fixed)"
            raise Failure(text, shown[0][0], hint)


class Blocker:
    """For :attr:`grader.testing.cases.Check.blocked`: the contract fault a failing case cannot run without.

    Args:
        contract: The contract the test module declared.
        student: The test's ``student`` fixture (runs the probe).
        memo: Where the outcome is kept for the other tests of the same submission and assignment.
    """

    def __init__(self, contract: Contract, student: Callable[..., Any], memo: dict[str, Any]) -> None:
        self.contract = contract
        self.student = student
        self.memo = memo

    def __call__(self) -> tuple[str, str] | None:
        """The method at fault and the contract test's title, or None when the contract holds (or cannot be
        measured: the case then reports its own failure)."""
        key = f"contract:{self.contract.name}"
        if key not in self.memo:
            try:
                faults = measure(self.contract, self.student)
            except StudentFault:
                faults = []
            blocking = [f for f in faults if f[2]]
            self.memo[key] = (blocking[0][0], self.contract.test) if blocking else None
        found: tuple[str, str] | None = self.memo[key]
        return found


SEEN = 400
"""The most characters of a blocked case's own failure shown under "This case saw" (whole lines)."""


def blocked_text(method: str, test: str, message: str) -> str:
    """A blocked case's message: what blocks it, where that is reported, and (briefly) what the case saw."""
    seen = message
    if len(seen) > SEEN:
        lines, kept = seen.splitlines(), ""
        for line in lines:
            if len(kept) + len(line) + 1 > SEEN:
                break
            kept += ("\n" if kept else "") + line
        seen = (kept or seen[: SEEN - 3]) + " ..."
    return f"blocked by {method} (see the test \"{test}\"): fix that first. This case saw: {seen}"


__all__ = ["Blocker", "Contract", "Fault", "blocked_text", "check_contract", "measure"]
