"""This course's contracts (see :mod:`grader.testing.contracts`): what every test needs from the constructors.

Every test builds ``Value`` objects and reads ``data``, ``grad`` and ``_prev``;
every network test builds neurons with ``nonlin`` and layers with keyword
arguments. A test module declares the contract its tests need with
``pytestmark = pytest.mark.contract(VALUE)`` (or ``NETWORK``), and its first
test reports it with ``check_contract(check, student, VALUE)``.
"""

from __future__ import annotations

from typing import Any

from assignments.shared.probes.contract_probes import NetworkContractAnswer, ValueContractAnswer
from grader.testing.contracts import Contract, Fault

VALUE_HINT = ("the handout's constructor is Value(data, _children=(), _op=''): keep data, start grad at 0.0, keep "
              "set(_children) in self._prev and the label in self._op, and start _backward as a function that does "
              "nothing; every Value receives gradients (no flag that switches them off by default)")
NETWORK_HINT = ("Neuron(nin, nonlin=True) keeps self.w, self.b and self.nonlin; Layer(nin, nout, **kwargs) passes "
                "its keyword arguments on to each Neuron(nin, **kwargs) and keeps them in self.neurons; MLP keeps its "
                "layers in self.layers")


def _show(x: Any) -> str:
    return "missing" if x is None else repr(x)


def ordinal(n: int) -> str:
    """``2`` as ``second``, up to the tenth; ``11`` as ``11th``."""
    words = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")
    return words[n - 1] if 1 <= n <= len(words) else f"{n}th"


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
    order = answer["order"]
    swapped = node["op"] is not None and node["operands"] != 2 and "Value" in node["op"]
    if order is not None and order["children"] != 1:
        label = "" if order["op"] is None else f" and the label as its {ordinal(order['op'] + 1)}"
        found.append((f"Value(3.0, (a, b), '+') did not keep a and b in _prev: your constructor takes the children "
                      f"as its {ordinal(order['children'] + 1)} argument{label}, in another order than the handout's "
                      "Value(data, _children=(), _op='') (the grader's tests do not depend on the order, the course's "
                      "later code may)", False))
        swapped = True
    elif swapped:
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
    if answer["switch"] is not None:
        found.append((f"Value(2.0) * Value(3.0) gives its leaves no gradient, but the same product of leaves made with "
                      f"your constructor's {ordinal(answer['switch'] + 1)} argument True gives the right ones: its "
                      "default False keeps gradients from every Value made as Value(data), which is how the handout "
                      "(and the grader) makes leaves; every Value must receive its gradient", True))
    if not (leaf["backward"] and node["backward"]):
        found.append(("a new Value's _backward must be a function that does nothing (an operation replaces it)", True))
    return [("Value.__init__", text, blocking) for text, blocking in dict.fromkeys(found)]


def network_faults(answer: NetworkContractAnswer) -> list[Fault]:
    """What ``Neuron(3)``, ``Neuron(3, nonlin=False)`` and ``Layer(3, 2, nonlin=False)`` got wrong.

    Only what the grader's network probes read: a neuron's ``w``, ``b`` and ``nonlin``. A layer or an MLP of
    another design (a weight matrix instead of neurons) is measured through ``parameters()`` and is no fault; one
    that has the handout's attribute for its parts holding something else than a list of them (``self.neurons =
    nout``, the neurons in ``self.layer``) is measured the same way, and told so (a fault that blocks nothing).
    """
    neuron, linear = answer["neuron"], answer["linear"]
    found: list[Fault] = []
    for call, got, name, parts in (("Layer(3, 2, nonlin=False)", answer["layer"]["neurons"], "neurons", "neurons"),
                                   ("MLP(2, [3, 1])", answer["mlp"]["layers"], "layers", "layers")):
        if got == -1:
            found.append((f"{call.partition('(')[0]}.__init__",
                          f"{call}.{name} is not a list: the handout keeps the {parts} in self.{name}, and the "
                          f"given __repr__ and the course's later code read them there; the grader's tests measured "
                          "your model through parameters() and its output instead", False))
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


VALUE = Contract("value", "value_contract", "Value.__init__",
                 "Value(data, children, op) keeps data, grad = 0, _prev and _op", value_faults, VALUE_HINT,
                 extras=(("switch", "value_gradient_switch"),))
"""The engine's contract (assignments 1 and 2): ``Value(data, _children, _op)``."""
NETWORK = Contract("network", "nn_contract", "Neuron.__init__",
                   "Neuron(nin, nonlin) keeps w, b and nonlin; Layer(nin, nout, **kwargs) accepts nonlin",
                   network_faults, NETWORK_HINT)
"""The network's contract (assignment 3): ``Neuron(nin, nonlin)`` and ``Layer(nin, nout, **kwargs)``."""
