"""The grader's own parts, standing in for the student's where a test is not about them.

Fault isolation for the network's tests: a test about ``Layer.__call__``
runs the student's ``Layer.__call__`` on neurons the grader made, and every
network test runs on the grader's own :class:`Value` (see
``assignments.shared.probes.nn_probes.grader_engine``), so a bug in ``tanh`` or in
``Neuron.parameters`` costs points only in the tests about those methods.

Each stand-in behaves as the handout describes its namesake and has the
attributes the handout names (``Value.data``/``grad``/``_prev``/``_op``,
``Neuron.w``/``b``/``nonlin``, ``Layer.neurons``, ``MLP.layers``). The
stand-ins also record how the student's code built them (``Neuron.nin``,
``Layer.nout``, ...), which the ``nn_structure`` probe reports.

The forward values come from the probes' table (``engine_probes.FORWARD``),
the local gradients from :data:`.local_gradients.LOCAL`, and the backward pass
walks :func:`topological_order`.

A stand-in earns a student nothing: :data:`GUARD` says which stand-ins may run
while the student's code does (a probe arms it with the parts it gave the
student's object, :meth:`Guard.only`), and any other stand-in refuses to run
and is reported, however the student's code found it (``sys.modules``, the
class of a part, ``gc``, ``__subclasses__``, a copy of its function): the check
is in the stand-in's own code, so it catches the use, not the finding.

A grader part (see ``grader.sandbox.own_parts``): a complete, correct engine
and network, so it is never released to students, and a sandbox worker holds
it only where its assignment names it (``grader_parts: [stand_ins]``).
"""

from __future__ import annotations

import random
import sys
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from types import FrameType
from typing import Any

from assignments.shared.probes.engine_probes import FORWARD
from probekit import ProbeError, text

from .local_gradients import LOCAL

_NUMBERS = (int, float)

KINDS = ("Value", "Neuron", "Layer", "MLP")
"""The stand-in classes :data:`GUARD` keeps apart."""


class Guard:
    """Which stand-ins may run while a probe runs the student's code (:meth:`only`); unarmed, all of them.

    Each guarded stand-in method calls :meth:`check` first. A stand-in that
    runs while the student's code runs, and is not one of the parts the
    grader gave that code (its ``Value`` where it stands in for the student's,
    the neurons of a ``Layer`` it made, ...), refuses: it records who called it
    and raises :class:`ProbeError`, and the probe reports the finding even if
    the student's code swallowed the exception.
    """

    def __init__(self) -> None:
        self.allowed: frozenset[str] | None = None
        """The kinds of :data:`KINDS` that may run now; None: the guard is not armed (the grader's own code)."""
        self.findings: list[str] = []
        """What ran that should not have, since the guard was armed."""

    def check(self, kind: str, name: str) -> None:
        """Let stand-in ``name`` (one of the ``kind`` stand-ins, see :data:`KINDS`) run, unless the guard is armed
        without ``kind``."""
        allowed = self.allowed
        if allowed is not None and kind not in allowed:
            self.refuse(name)

    def refuse(self, name: str) -> None:
        """Record that the student's code called stand-in ``name``, and raise."""
        finding = f"{_caller()} called the grader's own {name}"
        if len(self.findings) < 10:
            self.findings.append(finding)
        raise ProbeError(f"{finding}: {USED}")

    @contextmanager
    def only(self, kinds: Iterable[str]) -> Iterator[None]:
        """While the block runs (the student's code), only the stand-ins of ``kinds`` may run.

        Raises:
            ProbeError: If another stand-in ran (it raised at once; this raises even if that was caught).
        """
        saved, found = (self.allowed, self.findings)
        armed = self.allowed = frozenset(kinds)
        self.findings = []
        try:
            yield
        except Exception as exc:
            reported = f"{self.findings[0]}: {USED}" if self.findings else None
            if reported is not None and not (isinstance(exc, ProbeError) and exc.args[:1] == (reported,)):
                raise ProbeError(reported) from None  # the student's code caught the refusal, then failed otherwise
            raise
        else:
            if self.findings:
                raise ProbeError(f"{self.findings[0]}: {USED}")
            if self.allowed is not armed:
                raise ProbeError("your code changed which of the grader's own parts may run")
        finally:
            self.allowed, self.findings = saved, found


USED = ("a stand-in, there only so that a test of another method does not depend on yours; a method earns its "
        "points with its own code")
"""What a finding of :class:`Guard` says next to it."""


def _caller() -> str:
    """The function that called the stand-in now refusing (e.g. ``Neuron.__call__``): the first frame outside this
    module; ``your code`` when it cannot tell."""
    try:
        frame: FrameType | None = sys._getframe(1)
        while frame is not None and frame.f_globals is globals():
            frame = frame.f_back
        if frame is None:
            return "your code"
        code = frame.f_code
        name = getattr(code, "co_qualname", "") or code.co_name  # (co_qualname: Python 3.11+)
        if "." not in name and "self" in frame.f_locals:
            name = f"{type(frame.f_locals['self']).__name__}.{name}"
        return text(name.split(".<locals>", 1)[0], 60) or "your code"
    except Exception:  # noqa: BLE001 - only the message depends on it
        return "your code"


GUARD = Guard()
"""The one guard of this process's stand-ins (armed by the probes, :meth:`Guard.only`)."""


class Value:
    """The grader's scalar: forward values with ``math``, local gradients from :data:`LOCAL`."""

    def __init__(self, data: float, _children: tuple[Any, ...] = (), _op: str = "") -> None:
        if GUARD.allowed is not None and "Value" not in GUARD.allowed:  # (inline: every node of training comes here)
            GUARD.refuse("Value")
        self.data = data
        self.grad = 0.0
        self._prev = set(_children)
        self._op = _op
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
        GUARD.check("Value", "Value.backward")
        self.grad = 1.0
        for node in reversed(topological_order(self)):  # every _backward is the grader's: nothing to attribute
            node._backward()

    def __repr__(self) -> str:
        return f"Value(data={self.data}, grad={self.grad})"


def topological_order(out: Any) -> list[Any]:
    """Every node reachable from ``out`` through ``_prev``, each after its children (iterative DFS keyed by ``id``)."""
    GUARD.check("Value", "topological_order")
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
        GUARD.check("Neuron", "Neuron.__init__")
        self.nin, self.nonlin = nin, nonlin
        self.w = [Value(random.uniform(-1, 1)) for _ in range(nin)]
        self.b = Value(random.uniform(-1, 1))

    def __call__(self, x: Sequence[Any]) -> Any:
        GUARD.check("Neuron", "Neuron.__call__")
        act = sum((wi * xi for wi, xi in zip(self.w, x)), self.b)
        return act.tanh() if self.nonlin else act

    def parameters(self) -> list[Value]:
        GUARD.check("Neuron", "Neuron.parameters")
        return self.w + [self.b]


class Layer:
    """The grader's layer; as a stand-in it records ``nin``, ``nout`` and ``nonlin`` (keyword or third argument)."""

    def __init__(self, nin: int, nout: int, *args: Any, **kwargs: Any) -> None:
        GUARD.check("Layer", "Layer.__init__")
        self.nin, self.nout = nin, nout
        self.nonlin = args[0] if args else kwargs.get("nonlin", True)
        self.neurons = [Neuron(nin, self.nonlin) for _ in range(nout)]

    def __call__(self, x: Sequence[Any]) -> Any:
        GUARD.check("Layer", "Layer.__call__")
        outs = [n(x) for n in self.neurons]
        return outs[0] if len(outs) == 1 else outs

    def parameters(self) -> list[Value]:
        GUARD.check("Layer", "Layer.parameters")
        return [p for n in self.neurons for p in n.parameters()]


class MLP:
    """The grader's network of stand-in layers (what ``zero_grad()`` is tested on)."""

    def __init__(self, layers: list[Layer]) -> None:
        GUARD.check("MLP", "MLP.__init__")
        self.layers = layers

    def __call__(self, x: Sequence[Any]) -> Any:
        GUARD.check("MLP", "MLP.__call__")
        for layer in self.layers:
            x = layer(x)
        return x

    def parameters(self) -> list[Value]:
        GUARD.check("MLP", "MLP.parameters")
        return [p for layer in self.layers for p in layer.parameters()]


def pin(params: list[Value], weights: Sequence[float]) -> None:
    """Set each parameter's data to its weight, in order."""
    for p, w in zip(params, weights, strict=True):
        p.data = w
