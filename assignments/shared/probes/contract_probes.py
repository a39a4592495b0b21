"""Probes of the handout's contracts: what the grader's other probes assume about the student's classes.

The other probes make nodes and models the way the handout says they are
made and read them through the handout's attribute names: a ``Value`` has
``data``, ``grad`` (0.0 when made), ``_prev`` (its children), ``_op`` and a
``_backward`` that does nothing until an operation sets it; a ``Neuron`` keeps
``w``, ``b`` and ``nonlin``, a ``Layer`` its ``neurons`` and passes its keyword
arguments on to them, an ``MLP`` its ``layers``. These probes measure each
assumption on its own and return what they saw as plain data; the judge
(:mod:`grader.testing.contracts`) decides which assumption does not hold. A
constructor that raises ends the probe with that exception, as in any probe.
"""

from __future__ import annotations

import inspect
from typing import Any, TypedDict

from assignments.shared.probes.nn_probes import grader_engine
from probekit import Context, MalformedAnswer, Number, count, flag, number, read_number, read_text, record, text

MISSING = object()


def _attribute(obj: Any, name: str) -> Any:
    return getattr(obj, name, MISSING)


def _op(node: Any) -> str | None:
    label = _attribute(node, "_op")
    if label is MISSING:
        return None
    return label if type(label) is str else text(repr(label), 40)


def _node(node: Any, operands: list[Any], ctx: Context, what: str) -> dict[str, Any]:
    """What one ``Value`` holds: data, grad, how many children ``_prev`` has and how many of them are ``operands``
    (by identity), the ``_op`` label and whether ``_backward`` is callable and does nothing on a fresh node."""
    ctx.during = f"reading {what}.data and {what}.grad"
    data = number(_attribute(node, "data")) if hasattr(node, "data") else None
    grad = number(_attribute(node, "grad")) if hasattr(node, "grad") else None
    ctx.during = f"reading {what}._prev"
    prev = _attribute(node, "_prev")
    children = None if prev is MISSING else list(prev)
    backward = _attribute(node, "_backward")
    quiet = False
    if callable(backward):
        ctx.during = f"calling {what}._backward() on a node no operation has made"
        before = [number(getattr(o, "grad", None)) for o in operands]
        backward()
        quiet = [number(getattr(o, "grad", None)) for o in operands] == before
    return {
        "data": data,
        "grad": grad,
        "prev": None if children is None else min(len(children), 1000),
        "operands": None if children is None else sum(any(c is o for c in children) for o in operands),
        "op": _op(node),
        "backward": callable(backward) and quiet,
    }


def value_contract(mg: Any, ctx: Context) -> dict[str, Any]:
    """Probe ``value_contract``: ``Value(2.0)`` and ``Value(3.0, (a, b), "+")`` as the student's constructor makes them,
    ``a`` and ``b`` being two Values of equal data.

    Returns:
        ``{"leaf": {...}, "node": {...}, "equal": ..., "order": ...}``, each node ``{"data", "grad", "prev", "operands", "op",
        "backward"}``:
        the numbers (None where the attribute is missing), the size of ``_prev`` and how many of the operands
        ``a`` and ``b`` are in it (None without ``_prev``), the ``_op`` label (None without one; the capped
        ``repr`` of one that is not a text), and whether ``_backward`` is a callable that changes no gradient;
        ``equal``: whether ``a == b`` for the two distinct children with equal data (None if it is no bool);
        ``order``: where the constructor takes the children and the label when ``Value(3.0, (a, b), "+")`` did not
        keep ``a`` and ``b`` (:func:`_keyword_order`), else None.
    """
    value_cls = mg.engine.Value
    ctx.during = "creating Value(2.0)"
    leaf = value_cls(2.0)
    ctx.during = "creating a = Value(1.0) and b = Value(1.0)"
    a, b = value_cls(1.0), value_cls(1.0)  # two nodes with equal data: a set must keep both
    ctx.during = "creating Value(3.0, (a, b), '+'), the handout's constructor with children and a label"
    node = value_cls(3.0, (a, b), "+")
    ctx.during = "comparing a == b"
    try:
        equal: bool | None = bool(a == b)
    except Exception:  # noqa: BLE001 - an == that builds a node, say: not a comparison
        equal = None
    fresh = _node(leaf, [], ctx, "Value(2.0)")
    made = _node(node, [a, b], ctx, "Value(3.0, (a, b), '+')")
    order = None
    if made["operands"] != 2 or made["prev"] != 2:
        ctx.during = "calling Value(3.0, ...) with each of its parameters by name, to find where it takes the children"
        order = _keyword_order(value_cls, a, b)
    return {"leaf": fresh, "node": made, "equal": equal, "order": order}


def gradient_switch(mg: Any, ctx: Context) -> int | None:
    """Probe ``value_gradient_switch`` (:func:`_gradient_switch`): its own probe, so that a ``__mul__`` that hangs
    or crashes the worker costs the contract's other measurements nothing (the judge then reads None)."""
    ctx.during = "Value(2.0) * Value(3.0), backward through its _backward: do the leaves receive gradients?"
    return _gradient_switch(mg.engine.Value)


def _product_grads(value_cls: Any, **kwargs: Any) -> bool:
    """Whether ``Value(2.0, **kwargs) * Value(3.0, **kwargs)``'s own ``_backward`` (with ``out.grad = 1``) gives the
    leaves the gradients 3 and 2 (False also when anything raises: that is the operation's own fault)."""
    try:
        a, b = value_cls(2.0, **kwargs), value_cls(3.0, **kwargs)
        out = a * b
        out.grad = 1.0
        out._backward()
        return bool(a.grad == 3.0 and b.grad == 2.0)
    except Exception:  # noqa: BLE001 - the student's __mul__ or constructor: not this measurement's to report
        return False


def _gradient_switch(value_cls: Any) -> int | None:
    """The parameter of the constructor whose default ``False`` keeps gradients from the leaves: where
    ``Value(2.0) * Value(3.0)`` gives its leaves no right gradient but the same product of leaves made with that
    parameter ``True`` does (so the multiplication is right, and the constructor's default is at fault).

    Returns:
        Its 1-based position after ``data``, or None (the product is right, or no such parameter makes it right).
    """
    if _product_grads(value_cls):
        return None
    return next((k for k, p in enumerate(_parameters(value_cls), 1)
                 if p.default is False and _product_grads(value_cls, **{p.name: True})), None)


MAX_PARAMETERS = 8
"""Parameters of a constructor tried by name (:func:`_keyword_order`, :func:`_gradient_switch`)."""


def _parameters(value_cls: Any) -> list[inspect.Parameter]:
    """The constructor's parameters after ``data`` that a call can name (at most :data:`MAX_PARAMETERS`; none when
    its signature cannot be read)."""
    try:
        params = inspect.signature(value_cls).parameters.values()
    except (TypeError, ValueError):
        return []
    return [p for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)][1:MAX_PARAMETERS + 1]


def _keyword_order(value_cls: Any, a: Any, b: Any) -> dict[str, int | None] | None:
    """Where a constructor that did not keep ``(a, b)`` as its second argument takes the children and the label:
    ``Value(3.0, **{name: (a, b)})`` for each of its parameters after ``data``, the one after which ``_prev`` holds
    exactly ``a`` and ``b``, then the one that puts ``"+"`` in ``_op``. Found by what the constructor does, not by
    the names (which are the student's and are not reported).

    Returns:
        ``{"children": k, "op": k or None}``, 1-based positions after ``data`` (the handout's: 1 and 2), or None.
    """
    names = [p.name for p in _parameters(value_cls)]

    def made(**kwargs: Any) -> Any:
        try:
            return value_cls(3.0, **kwargs)
        except Exception:  # noqa: BLE001 - a parameter that takes no tuple: not the children
            return None

    for k, name in enumerate(names, 1):
        node = made(**{name: (a, b)})
        prev = _attribute(node, "_prev")
        try:
            children = list(prev) if prev is not MISSING and node is not None else []
        except TypeError:
            continue
        if len(children) == 2 and any(c is a for c in children) and any(c is b for c in children):
            op = next((j for j, other in enumerate(names, 1)
                       if other != name and _attribute(made(**{name: (a, b), other: "+"}), "_op") == "+"), None)
            return {"children": k, "op": op}
    return None


def _flag(model: Any) -> bool | str:
    nonlin = _attribute(model, "nonlin")
    if nonlin is MISSING:
        return "missing"
    return bool(nonlin) if type(nonlin) in (bool, int) else "other"


def _count(model: Any, name: str) -> int | None:
    found = _attribute(model, name)
    try:
        return None if found is MISSING else min(len(found), 1000)
    except TypeError:
        return -1


def network_contract(mg: Any, ctx: Context) -> dict[str, Any]:
    """Probe ``nn_contract``: ``Neuron(3)``, ``Neuron(3, nonlin=False)``, ``Layer(3, 2, nonlin=False)`` and
    ``MLP(2, [3, 1])`` as the student's constructors make them (on the grader's ``Value`` where the course has it).

    Returns:
        ``{"neuron": {"w", "b", "nonlin"}, "linear": {"nonlin"}, "layer": {"neurons"}, "mlp": {"layers"}}``: the
        number of weights (None without ``w``), whether ``b`` exists, ``nonlin`` as a bool (``"missing"``, or
        ``"other"`` for a value that is neither a bool nor an int), and the sizes of ``neurons`` and ``layers``
        (None when missing, -1 when they have no length).
    """
    nn = mg.nn
    with grader_engine(mg, {"engine": "grader"}):
        ctx.during = "creating Neuron(3)"
        neuron = nn.Neuron(3)
        ctx.during = "reading Neuron(3).w, .b and .nonlin"
        seen: dict[str, Any] = {"neuron": {"w": _count(neuron, "w"), "b": hasattr(neuron, "b"),
                                           "nonlin": _flag(neuron)}}
        ctx.during = "creating Neuron(3, nonlin=False)"
        seen["linear"] = {"nonlin": _flag(nn.Neuron(3, nonlin=False))}
        ctx.during = "creating Layer(3, 2, nonlin=False): a Layer passes its keyword arguments on to its neurons"
        seen["layer"] = {"neurons": _count(nn.Layer(3, 2, nonlin=False), "neurons")}
        ctx.during = "creating MLP(2, [3, 1])"
        seen["mlp"] = {"layers": _count(nn.MLP(2, [3, 1]), "layers")}
    return seen


class NodeContract(TypedDict):
    """``value_contract``: one ``Value`` as the student's constructor made it (see :func:`value_contract`)."""

    data: Number | None
    grad: Number | None
    prev: int | None
    operands: int | None
    op: str | None
    backward: bool


class ValueContractAnswer(TypedDict):
    """``value_contract`` (see :func:`value_contract`); ``order``: where the constructor takes the children and the
    label when not in the handout's order (:func:`_keyword_order`), else None; ``switch``: the parameter whose
    default keeps gradients from the leaves (the ``value_gradient_switch`` probe's answer, which the contract adds:
    :attr:`grader.testing.contracts.Contract.extras`), else None."""

    leaf: NodeContract
    node: NodeContract
    equal: bool | None
    order: dict[str, int | None] | None
    switch: int | None


class NetworkContractAnswer(TypedDict):
    """``nn_contract`` (see :func:`network_contract`)."""

    neuron: dict[str, Any]
    linear: dict[str, Any]
    layer: dict[str, Any]
    mlp: dict[str, Any]


def _node_contract(value: Any, where: str) -> NodeContract:
    got = record(value, where, ("data", "grad", "prev", "operands", "op", "backward"))
    prev = None if got["prev"] is None else count(got["prev"], f"{where}.prev", 1000)
    return NodeContract(data=None if got["data"] is None else read_number(got["data"], f"{where}.data"),
                        grad=None if got["grad"] is None else read_number(got["grad"], f"{where}.grad"),
                        prev=prev,
                        operands=None if got["operands"] is None else count(got["operands"], f"{where}.operands", 2),
                        op=None if got["op"] is None else read_text(got["op"], f"{where}.op"),
                        backward=flag(got["backward"], f"{where}.backward"))


def parse_value_contract(value: Any) -> ValueContractAnswer:
    """The answer of ``value_contract``."""
    got = record(value, "value_contract", ("leaf", "node", "equal", "order"))
    order = None
    if got["order"] is not None:
        found = record(got["order"], "order", ("children", "op"))
        order = {"children": count(found["children"], "order.children", MAX_PARAMETERS, 1),
                 "op": None if found["op"] is None else count(found["op"], "order.op", MAX_PARAMETERS, 1)}
    return ValueContractAnswer(leaf=_node_contract(got["leaf"], "leaf"), node=_node_contract(got["node"], "node"),
                               equal=None if got["equal"] is None else flag(got["equal"], "equal"), order=order,
                               switch=None)


def parse_gradient_switch(value: Any) -> int | None:
    """The answer of ``value_gradient_switch``: a parameter's 1-based position after ``data``, or None."""
    return None if value is None else count(value, "value_gradient_switch", MAX_PARAMETERS, 1)


def _nonlin(value: Any, where: str) -> bool | str:
    if type(value) is bool:
        return value
    if value in ("missing", "other"):
        return str(value)
    raise MalformedAnswer(f"{where}: expected true, false, \"missing\" or \"other\"")


def _size_or_none(value: Any, where: str) -> int | None:
    return None if value is None else count(value, where, 1000, -1)


def parse_network_contract(value: Any) -> NetworkContractAnswer:
    """The answer of ``nn_contract``."""
    got = record(value, "nn_contract", ("neuron", "linear", "layer", "mlp"))
    neuron = record(got["neuron"], "neuron", ("w", "b", "nonlin"))
    linear = record(got["linear"], "linear", ("nonlin",))
    layer = record(got["layer"], "layer", ("neurons",))
    mlp = record(got["mlp"], "mlp", ("layers",))
    return NetworkContractAnswer(
        neuron={"w": _size_or_none(neuron["w"], "neuron.w"), "b": flag(neuron["b"], "neuron.b"),
                "nonlin": _nonlin(neuron["nonlin"], "neuron.nonlin")},
        linear={"nonlin": _nonlin(linear["nonlin"], "linear.nonlin")},
        layer={"neurons": _size_or_none(layer["neurons"], "layer.neurons")},
        mlp={"layers": _size_or_none(mlp["layers"], "mlp.layers")})


PROBES = {
    "value_contract": lambda mg, ctx: value_contract(mg, ctx),
    "value_gradient_switch": lambda mg, ctx: gradient_switch(mg, ctx),
    "nn_contract": lambda mg, ctx: network_contract(mg, ctx),
}
"""This module's probes (see ``grader.sandbox.probes``)."""
NEEDS = {"value_contract": ("micrograd.engine",), "value_gradient_switch": ("micrograd.engine",),
         "nn_contract": ("micrograd.engine", "micrograd.nn")}
ANSWERS = {"value_contract": parse_value_contract, "value_gradient_switch": parse_gradient_switch,
           "nn_contract": parse_network_contract}
