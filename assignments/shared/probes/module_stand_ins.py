"""The grader's stand-ins of assignment ``modules``: what its probes give the student's code in place of its own.

* :class:`StandIn`: a small module that scales, shifts or reverses a vector (``Sequential``'s tests), also as a
  subclass of the student's ``Module`` (:func:`stand_ins`);
* :class:`StandInModel`, :class:`SoftSignStep` and :func:`stand_in_loss`: a model, an optimiser and a loss that are
  not ``Linear``, ``SGD`` or ``mse_loss`` (``train``'s tests);
* :func:`subclass`: a subclass of the student's class that can be instantiated when it is abstract.

None of them computes what a graded method computes. Standard library and ``probekit`` only: it runs in the sandbox
worker (next to the student's code) and in the judge.
"""

from __future__ import annotations

from typing import Any

MAX_EVENTS = 40
"""Most calls a stand-in notes (of a module, of ``zero_grad``, ``backward`` and ``step``): for hints only."""


class StandIn:
    """One of the grader's stand-in modules for ``Sequential``'s tests, with one parameter (a Value) or none.

    ``["scale", c]``: ``[c * x_i ...]``; ``["shift", c]``: ``[x_i + c ...]``; ``["reverse"]``: the items in reverse
    order, no parameter. Each call is noted (``calls``: the stand-in's index, in the order called).
    """

    def __init__(self, kind: str, value: float | None, index: int, calls: list[int], value_cls: Any) -> None:
        if kind not in ("scale", "shift", "reverse"):
            raise ValueError(f"unknown stand-in {kind!r}")
        self.kind, self.index, self.calls = kind, index, calls
        self.params = [] if kind == "reverse" else [value_cls(float(value or 0.0))]

    def __call__(self, x: Any) -> list[Any]:
        if len(self.calls) < MAX_EVENTS:
            self.calls.append(self.index)
        items = list(x)
        if self.kind == "reverse":
            return items[::-1]
        c = self.params[0]
        return [c * v for v in items] if self.kind == "scale" else [v + c for v in items]

    def forward(self, x: Any) -> list[Any]:
        return self(x)

    def parameters(self) -> list[Any]:
        return list(self.params)

    def __repr__(self) -> str:
        return f"{self.kind}({self.params[0].data if self.params else ''})"


def stand_ins(specs: list[list[Any]], calls: list[int], value_cls: Any, module: type | None = None) -> list[Any]:
    """The stand-in modules of ``specs`` (``[kind, number]`` each), instances of the student's ``module`` class too
    when it is given (a ``parameters()`` that walks a module's attributes for Values and modules finds them)."""
    cls = _as_module(module) if module is not None else StandIn
    return [cls(s[0], s[1] if len(s) > 1 else None, k, calls, value_cls) for k, s in enumerate(specs)]


def _as_module(module: type) -> type:
    """:class:`StandIn` as a subclass of the student's ``Module`` too (its own methods first), its ``__init__``
    running the student's ``Module.__init__()`` before its own (a ``__setattr__`` may need what that sets); plain
    :class:`StandIn` when the student's class cannot be subclassed."""
    def __init__(self: Any, *args: Any) -> None:
        try:
            module.__init__(self)
        except Exception:  # a Module.__init__ that needs arguments: the stand-in keeps its own state only
            pass
        StandIn.__init__(self, *args)
    try:
        return subclass((StandIn, module), "StandIn", {"__init__": __init__, "__module__": StandIn.__module__})
    except Exception:  # the student's metaclass or __init_subclass__ refuses: the plain stand-in
        return StandIn


def subclass(bases: tuple[type, ...], name: str, namespace: dict[str, Any]) -> type:
    """A class of ``bases`` (the last one the student's) and ``namespace``, that can be instantiated even when the
    student's class declares abstract methods (a ``Module(ABC)`` with ``forward`` or ``__call__`` abstract, as
    PyTorch-minded students write): each abstract method nothing defines gets a body saying the grader never calls
    it."""
    def unused(method: str) -> Any:
        def body(self: Any, *args: Any, **kwargs: Any) -> Any:
            raise NotImplementedError(f"the grader's {name}.{method} is not part of this test")
        body.__name__ = method
        return body
    for method in getattr(bases[-1], "__abstractmethods__", ()):
        if not any(method in vars(b) for b in bases[:-1]):
            namespace.setdefault(method, unused(method))
    return type(name, bases, namespace)


class StandInModel:
    """The grader's stand-in model for ``train``'s tests: ``[a * (x0 - x1) ** 2 + c * x0 + d]`` (not a ``Linear``)."""

    def __init__(self, weights: list[float], value_cls: Any) -> None:
        self.a, self.c, self.d = (value_cls(float(w)) for w in weights)
        self.called = 0

    def __call__(self, x: Any) -> list[Any]:
        self.called += 1
        return [self.a * (x[0] - x[1]) ** 2 + self.c * x[0] + self.d]

    def forward(self, x: Any) -> list[Any]:
        return self(x)

    def parameters(self) -> list[Any]:
        return [self.a, self.c, self.d]


class SoftSignStep:
    """The grader's stand-in optimiser for ``train``'s tests: ``step()`` moves each parameter by ``lr * g / (1 + |g|)``
    against its gradient ``g`` (not SGD); ``zero_grad()`` and ``step()`` are noted in ``events``."""

    def __init__(self, params: list[Any], lr: float, events: list[str]) -> None:
        self.params, self.lr, self.events = params, lr, events

    def _note(self, name: str) -> None:
        if len(self.events) < MAX_EVENTS:
            self.events.append(name)

    def zero_grad(self) -> None:
        self._note("zero_grad")
        for q in self.params:
            q.grad = 0.0

    def step(self) -> None:
        self._note("step")
        for q in self.params:
            q.data = q.data - self.lr * q.grad / (1.0 + abs(q.grad))


def stand_in_loss(calls: list[int]) -> Any:
    """The grader's stand-in for ``mse_loss`` while ``train`` is tested alone: half the summed squared errors (not
    the mean). Counts its calls."""
    def loss(preds: Any, targets: Any) -> Any:
        calls[0] += 1
        terms = [(p - t) ** 2 for p, t in zip(preds, targets)]
        total = terms[0]
        for term in terms[1:]:
            total = total + term
        return total * 0.5
    return loss


PROBES: dict[str, Any] = {}
"""None: a module of helpers for ``assignments/modules/probes.py``."""
ANSWERS: dict[str, Any] = {}
