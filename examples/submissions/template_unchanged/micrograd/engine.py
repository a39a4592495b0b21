"""A scalar-valued reverse-mode automatic differentiation engine.

Each :class:`Value` holds a number (``data``) and, after ``backward()``, the
derivative of the final output with respect to it (``grad``). Every operation
builds a new node of the computation graph during the *forward pass* and
attaches a ``_backward`` closure to it. During the *backward pass* each
closure receives the *upstream gradient* ``out.grad`` and multiplies it by the
operation's *local gradient* (the chain rule), then *accumulates* (``+=``) the
result into each parent's ``grad``: a node used twice receives the sum of the
gradients that flow along both uses.

The design follows Andrej Karpathy's micrograd (``micrograd/engine.py``):
one closure per primitive operation, derived operations as one-liners.
"""

from __future__ import annotations

import math
from typing import Callable, Iterable, Union

Number = Union[int, float]


class Value:
    """A scalar node of the computation graph.

    Args:
        data: The number this node holds (stored as a float).
        _children: The nodes this one was computed from (its parents in the
            backward pass). Internal: set by the operations.
        _op: A label of the operation that produced this node, for display.

    Attributes:
        data: The forward value.
        grad: d(output)/d(this node); 0.0 until a backward pass reaches it.
    """

    def __init__(self, data: Number, _children: Iterable["Value"] = (), _op: str = "") -> None:
        self.data = float(data)
        self.grad = 0.0
        self._backward: Callable[[], None] = lambda: None
        self._prev = set(_children)
        self._op = _op

    def __add__(self, other: Union["Value", Number]) -> "Value":
        """Return ``self + other``.

        Local gradients: d(a + b)/da = 1 and d(a + b)/db = 1.
        """
        raise NotImplementedError("Task 1.1: implement Value.__add__")

    def __mul__(self, other: Union["Value", Number]) -> "Value":
        """Return ``self * other``.

        Local gradients: d(a * b)/da = b and d(a * b)/db = a.
        """
        raise NotImplementedError("Task 1.2: implement Value.__mul__")

    def __pow__(self, other: Number) -> "Value":
        """Return ``self ** other`` for a constant int or float exponent.

        Local gradient (power rule): d(a ** n)/da = n * a ** (n - 1).

        Raises:
            TypeError: If the exponent is not an int or a float.
        """
        raise NotImplementedError("Task 1.3: implement Value.__pow__")

    def tanh(self) -> "Value":
        """Return the hyperbolic tangent t = tanh(self).

        Local gradient: d tanh(x)/dx = 1 - t**2, computed from the output t.
        ``math.tanh`` is finite for every input, so no overflow is possible.
        """
        raise NotImplementedError("Task 2.1: implement Value.tanh")

    def relu(self) -> "Value":
        """Return max(0, self).

        Local gradient: 1 where the input is positive, 0 elsewhere (the
        subgradient 0 is used at the kink x = 0).
        """
        raise NotImplementedError("Task 2.2: implement Value.relu")

    def exp(self) -> "Value":
        """Return e ** self.

        Local gradient: d e**x/dx = e**x, the output itself.

        Raises:
            OverflowError: If the result is larger than the largest float
                (self.data > ~709.78).
        """
        raise NotImplementedError("Task 2.3: implement Value.exp")

    def log(self) -> "Value":
        """Return the natural logarithm of self (defined for self > 0).

        Local gradient: d ln(x)/dx = 1 / x, computed from the input.

        Raises:
            ValueError: If self.data <= 0.
        """
        raise NotImplementedError("Task 2.4: implement Value.log")

    def sigmoid(self) -> "Value":
        """Return the logistic sigmoid s = 1 / (1 + e**-self).

        Local gradient: ds/dx = s * (1 - s), computed from the output s.
        For x < 0 the equivalent form e**x / (1 + e**x) is used so that
        e**-x never overflows.
        """
        raise NotImplementedError("Task 2.5: implement Value.sigmoid")

    def backward(self) -> None:
        """Run the backward pass from this node.

        Orders the graph topologically (every node after all the nodes it was
        computed from), seeds d(self)/d(self) = 1, then calls each node's
        ``_backward`` once, in reverse topological order, so a node's
        gradient is complete before it is passed on to its parents.

        The depth-first search is iterative (an explicit stack), so a chain
        of 100,000 operations does not hit Python's recursion limit, and it
        keeps a visited set, so each node is ordered once however many paths
        lead to it.
        """
        raise NotImplementedError("Task 2.6: implement Value.backward")

    # Derived operations: compositions of the primitives above, so their
    # gradients follow from the chain rule with no closure of their own.

    def __neg__(self) -> "Value":
        """Return ``-self``, as ``self * -1``."""
        raise NotImplementedError("Task 1.4: implement Value.__neg__")

    def __radd__(self, other: Number) -> "Value":
        """Return ``other + self`` (lets ``sum()`` and ``2 + a`` work)."""
        raise NotImplementedError("Task 1.4: implement Value.__radd__")

    def __sub__(self, other: Union["Value", Number]) -> "Value":
        """Return ``self - other``, as ``self + (-other)``."""
        raise NotImplementedError("Task 1.4: implement Value.__sub__")

    def __rsub__(self, other: Number) -> "Value":
        """Return ``other - self``, as ``other + (-self)``."""
        raise NotImplementedError("Task 1.4: implement Value.__rsub__")

    def __rmul__(self, other: Number) -> "Value":
        """Return ``other * self``."""
        raise NotImplementedError("Task 1.4: implement Value.__rmul__")

    def __truediv__(self, other: Union["Value", Number]) -> "Value":
        """Return ``self / other``, as ``self * other ** -1``."""
        raise NotImplementedError("Task 1.4: implement Value.__truediv__")

    def __rtruediv__(self, other: Number) -> "Value":
        """Return ``other / self``, as ``other * self ** -1``."""
        raise NotImplementedError("Task 1.4: implement Value.__rtruediv__")

    def __repr__(self) -> str:
        return f"Value(data={self.data}, grad={self.grad})"
