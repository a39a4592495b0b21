"""The grader's own engine and network, in the judge: what the worker's handles stand for.

The network's tests run the student's ``Neuron``, ``Layer`` and ``MLP`` on the
grader's ``Value``, and a method under test on parts the grader made, so a bug
in ``tanh`` or in ``Neuron.parameters`` costs points only in the tests about
those methods. The worker holds none of this: its ``Value`` records the graph
and its parts are handles (the part :mod:`.recording`); the judge answers them
with this module (:mod:`.network_judge`): the forward pass of the grader's
parts, and the backward pass of a graph the worker sends. The probes run on
the reference in the judge with this module in place of the worker's handles
(:func:`network`, :func:`composed`, :func:`wrapping`), and the hidden tests use
it to replay training from a student's weights.

The forward values come from the probes' table (``engine_probes.FORWARD``),
the local gradients from :data:`.local_gradients.LOCAL`, and the backward pass
walks :func:`topological_order`. Each node keeps its operands in order,
numbers included (``_args``), so a forward pass can be sent to the worker node
by node.

A grader part (see ``grader.sandbox.own_parts``): a complete, correct engine
and network, so it is never released to students, and never in a worker
(``judge_parts: [stand_ins]``).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from assignments.shared.probes.engine_probes import FORWARD
from probekit import ask

from .local_gradients import LOCAL

_NUMBERS = (int, float)


class Value:
    """The grader's scalar: forward values with ``math``, local gradients from :data:`LOCAL`."""

    def __init__(self, data: float, _children: tuple[Any, ...] = (), _op: str = "") -> None:
        self.data = data
        self.grad = 0.0
        self._prev = set(_children)
        self._op = _op
        self._args: tuple[Any, ...] = tuple(_children)
        """Each operand in order, numbers included."""
        self._parents: list[tuple[Value, float]] = []
        """Each operand that is a Value, with its local gradient: what :meth:`_backward` passes the gradient to."""

    def _backward(self) -> None:
        """The chain rule, as the probe's own closures do it (``engine_probes.closure``): add each
        parent's local gradient times ``self.grad`` to the parent's grad.

        A method, not a closure per node: a closure would hold its node and make every node of a training
        step a reference cycle, left for the garbage collector instead of freed at once.
        """
        for parent, local in self._parents:
            parent.grad += local * self.grad

    def _apply(self, op: str, *operands: Any) -> Any:
        # The training loop of the XOR tests spends most of its time here: one pass over the operands, no
        # generator expressions (the arithmetic is exactly FORWARD's and LOCAL's).
        args = []
        for o in operands:
            if isinstance(o, Value):
                args.append(o.data)
            elif isinstance(o, _NUMBERS):
                args.append(o)
            else:
                return NotImplemented
        data = FORWARD[op](*args)
        parents = [(o, g) for o, g in zip(operands, LOCAL[op](*args, data)) if isinstance(o, Value)]
        out = Value(data, tuple([p for p, _ in parents]), op)
        out._parents = parents
        out._args = operands
        return out

    def __add__(self, other: Any) -> Any:
        if isinstance(other, Value):  # the fast path of the network's sums: FORWARD["add"], LOCAL["add"]
            out = Value(self.data + other.data, (self, other), "add")
            out._parents = [(self, 1.0), (other, 1.0)]
            return out
        return self._apply("add", self, other)

    def __radd__(self, other: Any) -> Any:
        return self._apply("add", other, self)

    def __sub__(self, other: Any) -> Any:
        return self._apply("sub", self, other)

    def __rsub__(self, other: Any) -> Any:
        return self._apply("sub", other, self)

    def __mul__(self, other: Any) -> Any:
        if isinstance(other, Value):  # the fast path of the network's products: FORWARD["mul"], LOCAL["mul"]
            out = Value(self.data * other.data, (self, other), "mul")
            out._parents = [(self, other.data), (other, self.data)]
            return out
        return self._apply("mul", self, other)

    def __rmul__(self, other: Any) -> Any:
        return self._apply("mul", other, self)

    def __truediv__(self, other: Any) -> Any:
        return self._apply("truediv", self, other)

    def __rtruediv__(self, other: Any) -> Any:
        return self._apply("truediv", other, self)

    def __neg__(self) -> Any:
        return self._apply("neg", self)

    def __pow__(self, other: Any) -> Any:
        if not isinstance(other, (int, float)):
            raise TypeError("the grader's Value supports int/float exponents only")
        return self._apply("pow", self, other)

    def tanh(self) -> Any:
        return self._apply("tanh", self)

    def relu(self) -> Any:
        return self._apply("relu", self)

    def exp(self) -> Any:
        return self._apply("exp", self)

    def log(self) -> Any:
        return self._apply("log", self)

    def sigmoid(self) -> Any:
        return self._apply("sigmoid", self)

    def backward(self) -> None:
        self.grad = 1.0
        for node in reversed(topological_order(self)):  # every _backward is the grader's: nothing to attribute
            node._backward()

    def __repr__(self) -> str:
        return f"Value(data={self.data}, grad={self.grad})"


def topological_order(out: Any) -> list[Any]:
    """Every node reachable from ``out`` through ``_prev``, each after its children (iterative DFS keyed by ``id``)."""
    order: list[Any] = []
    seen: set[int] = set()
    stack: list[tuple[Any, bool]] = [(out, False)]
    pop, push = stack.pop, stack.append
    while stack:
        node, done = pop()
        if done:
            order.append(node)
            continue
        key = id(node)
        if key in seen:
            continue
        seen.add(key)
        push((node, True))
        for child in list(node._prev):
            if id(child) not in seen:
                push((child, False))
    return order


class Neuron:
    """The grader's neuron; as a stand-in for the student's class it records ``nin`` and ``nonlin``."""

    def __init__(self, nin: int, nonlin: Any = True, **kwargs: Any) -> None:
        self.nin, self.nonlin = nin, nonlin
        self.w = [Value(random.uniform(-1, 1)) for _ in range(nin)]
        self.b = Value(random.uniform(-1, 1))

    def __call__(self, x: Sequence[Any]) -> Any:
        act = sum((wi * xi for wi, xi in zip(self.w, x)), self.b)
        return act.tanh() if self.nonlin else act

    def parameters(self) -> list[Value]:
        return self.w + [self.b]


class Layer:
    """The grader's layer; as a stand-in it records ``nin``, ``nout`` and ``nonlin`` (keyword or third argument)."""

    def __init__(self, nin: int, nout: int, *args: Any, **kwargs: Any) -> None:
        self.nin, self.nout = nin, nout
        self.nonlin = args[0] if args else kwargs.get("nonlin", True)
        self.neurons = [Neuron(nin, self.nonlin) for _ in range(nout)]

    def __call__(self, x: Sequence[Any]) -> Any:
        outs = [n(x) for n in self.neurons]
        return outs[0] if len(outs) == 1 else outs

    def parameters(self) -> list[Value]:
        return [p for n in self.neurons for p in n.parameters()]


class MLP:
    """The grader's network of stand-in layers (what ``zero_grad()`` is tested on)."""

    def __init__(self, layers: list[Layer]) -> None:
        self.layers = layers

    def __call__(self, x: Sequence[Any]) -> Any:
        for layer in self.layers:
            x = layer(x)
        return x

    def parameters(self) -> list[Value]:
        return [p for layer in self.layers for p in layer.parameters()]


def pin(params: list[Value], weights: Sequence[float]) -> None:
    """Set each parameter's data to its weight, in order."""
    for p, w in zip(params, weights, strict=True):
        p.data = w


# --- the reference's side of the network's probes, in the judge ---------------------------------------------------
# The probes run on the reference in the judge's own process too. There the grader's engine is at hand, so they use
# it directly, with the same names as the worker's handles (the part ``recording``): what the student's run asks the
# judge for, the reference's computes here, on the same weights.

def network() -> MLP:
    """The grader's network of the probe's model spec, pinned to its weights: the judge's side of the probe makes it
    (``network_judge``, asked in this process), as it makes the worker's."""
    made = ask("network", {})
    layers = []
    for shape in made["layers"]:
        layer = Layer.__new__(Layer)
        layer.nonlin = shape["nonlin"]
        layer.neurons = [wrapping([Value(d) for d in n["data"][:-1]], Value(n["data"][-1]), shape["nonlin"])
                         for n in shape["neurons"]]
        layer.nin, layer.nout = len(layer.neurons[0].w) if layer.neurons else 0, len(layer.neurons)
        layers.append(layer)
    return MLP(layers)


def composed(kind: str, parts: Sequence[Any]) -> Any:
    """A ``Layer`` of the neurons ``parts``, or an ``MLP`` of the layers ``parts``."""
    if kind == "MLP":
        return MLP(list(parts))
    layer = Layer.__new__(Layer)
    layer.neurons = list(parts)
    return layer


def wrapping(w: Sequence[Any], b: Any, nonlin: Any) -> Neuron:
    """A neuron on the weights ``w`` and bias ``b`` (made by a constructor under test)."""
    neuron = Neuron.__new__(Neuron)
    neuron.nin, neuron.nonlin, neuron.w, neuron.b = len(w), nonlin, list(w), b
    return neuron
