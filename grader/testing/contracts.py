"""The handout's contracts, checked first: what every other test of an assignment needs from the constructors.

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

A test module opts in with ``pytestmark = pytest.mark.contract("value")``;
the plugin (:mod:`grader.judge.plugin`) gives its ``check`` a
:class:`Blocker` that runs the contract's probe once per submission and
assignment, only when a case fails.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from grader.judge.answers import NetworkContractAnswer, NodeContract, ValueContractAnswer
from grader.testing.outcomes import Failure, StudentFault

CREATING = re.compile(r"^creating (Value|Neuron|Layer|MLP)\(")
"""What a contract probe was doing when a constructor raised (its ``during``): which constructor is at fault."""

Fault = tuple[str, str, bool]
"""A contract that does not hold: the method at fault, what is wrong, and whether other tests cannot run without it
(*blocking*). A constructor whose parameters come in another order, or an ``_op`` label kept under another name,
blocks nothing: the grader makes its own nodes with ``Value(data)`` and reads ``_op`` only to describe a node."""

VALUE_HINT = ("the handout's constructor is Value(data, _children=(), _op=''): keep data, start grad at 0.0, keep "
              "set(_children) in self._prev and the label in self._op, and start _backward as a function that does "
              "nothing")
NETWORK_HINT = ("Neuron(nin, nonlin=True) keeps self.w, self.b and self.nonlin; Layer(nin, nout, **kwargs) passes "
                "its keyword arguments on to each Neuron(nin, **kwargs)")


@dataclass(frozen=True)
class Contract:
    """One contract: the probe that measures it, the test that reports it, and how to read the probe's answer.

    Attributes:
        name: The name test modules use in ``pytest.mark.contract(name)``.
        probe: The probe (:mod:`grader.sandbox.contract_probes`).
        method: The method blamed when the probe itself fails (a constructor that raises).
        test: The title of the test that reports the contract (named by blocked cases).
        faults: The faults the probe's answer shows, most basic first.
    """

    name: str
    probe: str
    method: str
    test: str
    faults: Callable[[Any], list[Fault]]


def _show(x: Any) -> str:
    return "missing" if x is None else repr(x)


def value_faults(answer: ValueContractAnswer) -> list[Fault]:
    """What ``Value(2.0)`` and ``Value(3.0, (a, b), "+")`` got wrong, most basic first: ``Value.__init__``'s, or
    ``Value.__eq__``'s when two nodes of equal data are merged because they compare equal."""
    leaf, node = answer["leaf"], answer["node"]
    if answer["equal"] and node["prev"] == 1:
        return [("Value.__eq__", "two different Values with the same data compare equal (a = Value(1.0), "
                                 "b = Value(1.0): a == b is True), so Value(3.0, (a, b), '+')._prev kept only one of "
                                 "them; every set of nodes (_prev, backward()'s visited set) merges them too: leave "
                                 "__eq__ and __hash__ to Python, which compares nodes by identity", True)]
    found: list[tuple[str, bool]] = []
    swapped = node["op"] is not None and node["operands"] != 2 and "Value" in node["op"]
    if swapped:
        found.append((f"Value(3.0, (a, b), '+') kept the children in _op ({node['op']}): the parameters are in "
                      "another order than the handout's Value(data, _children=(), _op='') (the grader's tests do not "
                      "depend on the order, the course's later code may)", False))
    elif leaf["prev"] is None or node["prev"] is None:
        found.append(("a Value has no _prev: keep the children in self._prev = set(_children)", True))
    elif node["operands"] != 2 or node["prev"] != 2:
        found.append((f"Value(3.0, (a, b), '+')._prev holds {node['prev']} objects, {node['operands']} of them a and "
                      "b: expected exactly a and b", True))
    elif leaf["prev"] != 0:
        found.append((f"Value(2.0)._prev holds {leaf['prev']} objects, expected none", True))
    for what, got, want in (("Value(2.0)", leaf, 2.0), ("Value(3.0, (a, b), '+')", node, 3.0)):
        if got["data"] != want:
            found.append((f"{what}.data is {_show(got['data'])}, expected {want!r}", True))
        if got["grad"] != 0.0:
            found.append((f"{what}.grad is {_show(got['grad'])} when it is made, expected 0.0: gradients start at "
                          "0, and backward() sets only the output's to 1", True))
    if node["op"] != "+" and not swapped:
        found.append((f"Value(3.0, (a, b), '+')._op is {_show(node['op'])}, expected '+' (a label for display)", False))
    if not (leaf["backward"] and node["backward"]):
        found.append(("a new Value's _backward must be a function that does nothing (an operation replaces it)", True))
    return [("Value.__init__", text, blocking) for text, blocking in dict.fromkeys(found)]


def network_faults(answer: NetworkContractAnswer) -> list[Fault]:
    """What ``Neuron(3)``, ``Neuron(3, nonlin=False)`` and ``Layer(3, 2, nonlin=False)`` got wrong.

    Only what the grader's network probes read: a neuron's ``w``, ``b`` and ``nonlin``. A layer or an MLP of
    another design (a weight matrix instead of neurons) is measured through ``parameters()`` and is no fault.
    """
    neuron, linear = answer["neuron"], answer["linear"]
    found: list[Fault] = []
    if neuron["w"] is None or not neuron["b"]:
        missing = " and ".join(n for n, ok in (("w", neuron["w"] is not None), ("b", neuron["b"])) if not ok)
        found.append(("Neuron.__init__", f"Neuron(3) has no {missing}: keep the weights in self.w (a list of Values) "
                                         "and the bias in self.b", True))
    for call, got, want in (("Neuron(3)", neuron["nonlin"], True), ("Neuron(3, nonlin=False)", linear["nonlin"], False)):
        if got == "missing":
            found.append(("Neuron.__init__", f"{call} has no nonlin: keep the argument in self.nonlin (the grader's "
                                             "tests build neurons with nonlin=False and read it back)", True))
            break
        if got == "other":
            found.append(("Neuron.__init__", f"{call}.nonlin is neither True nor False: keep the argument as given",
                          True))
            break
        if got is not want:
            found.append(("Neuron.__init__", f"{call}.nonlin is {got}, expected {want}", True))
    return found


CONTRACTS: dict[str, Contract] = {
    "value": Contract("value", "value_contract", "Value.__init__",
                      "Value(data, children, op) keeps data, grad = 0, _prev and _op", value_faults),
    "network": Contract("network", "nn_contract", "Neuron.__init__",
                        "Neuron(nin, nonlin) keeps w, b and nonlin; Layer(nin, nout, **kwargs) accepts nonlin",
                        network_faults),
}
"""Contract name to its contract."""


def measure(contract: Contract, student: Callable[..., Any]) -> list[Fault]:
    """Run the contract's probe on the student's code and return its faults (a constructor that raised is one).

    Raises:
        StudentFault: If the submission could not be loaded, the probe did not finish, or a constructor is still the
            template's stub (``NotImplementedError``): none of them is a contract fault, each is reported where it
            happens.
    """
    try:
        return contract.faults(student(contract.probe))
    except StudentFault as fault:
        if fault.kind != "raised" or fault.error.get("type") == "NotImplementedError":
            raise  # not loaded, did not finish, or not written yet: not a contract fault
        made = CREATING.search(str(fault.error.get("during", "")))
        return [(f"{made.group(1)}.__init__" if made else contract.method, fault.message, True)]


def check_contract(check: Any, student: Callable[..., Any], name: str) -> None:
    """The body of a contract test: one case per fault, each under the method at fault with the contract's hint."""
    contract = CONTRACTS[name]
    hint = VALUE_HINT if name == "value" else NETWORK_HINT
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


__all__ = ["CONTRACTS", "Blocker", "Contract", "NodeContract", "blocked_text", "check_contract", "measure"]
