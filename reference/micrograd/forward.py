"""Forward-mode automatic differentiation with dual numbers.

A :class:`Dual` carries a number ``val`` together with its *tangent* ``dot``,
the derivative of ``val`` along one chosen input direction. Arithmetic on the
pair follows the algebra of dual numbers ``v + v' * eps`` with ``eps**2 = 0``:
expanding any operation and dropping ``eps**2`` leaves the value in the real
part and the chain rule in the ``eps`` part. For a function ``g`` of one
argument, ``g(u + u' eps) = g(u) + g'(u) u' eps`` (Taylor's theorem), so every
operation computes its value and its tangent in the *same* forward pass; there
is no graph and no backward pass.

Seeding one input with ``dot = 1`` (and every other input with 0) makes the
output's ``dot`` the partial derivative with respect to that input. A gradient
of ``n`` inputs therefore takes ``n`` forward passes, whereas reverse mode
(:meth:`micrograd.engine.Value.backward`) gets all ``n`` partial derivatives
of a scalar output from one forward and one backward pass.

Sources: A. Griewank and A. Walther, *Evaluating Derivatives* (2nd ed., SIAM,
2008), chapter 3 (the tangent propagation rules); A. G. Baydin, B. A.
Pearlmutter, A. A. Radul and J. M. Siskind, "Automatic differentiation in
machine learning: a survey", JMLR 18(153), 2018, section 3.1 (dual numbers).
The layout follows Andrej Karpathy's micrograd (``micrograd/engine.py``):
one method per primitive operation, derived operations as one-liners.
"""

from __future__ import annotations

import math
from typing import Callable, Union

Number = Union[int, float]


class Dual:
    """A dual number ``val + dot * eps`` with ``eps**2 = 0``.

    Args:
        val: The value (stored as a float).
        dot: The tangent, d(val)/dt along the seeded direction (stored as a
            float). 0.0 for a constant.

    Attributes:
        val: The forward value.
        dot: The tangent of the value.
    """

    def __init__(self, val: Number, dot: Number = 0.0) -> None:
        self.val = float(val)
        self.dot = float(dot)

    # Primitive operations: each returns a new Dual holding the value and the
    # tangent, given by the rule in its docstring.

    def __add__(self, other: Union["Dual", Number]) -> "Dual":
        """Return ``self + other``.

        Tangent (sum rule): (u + v)' = u' + v', from
        (u + u' eps) + (v + v' eps) = (u + v) + (u' + v') eps.
        A plain number is a constant: its tangent is 0.
        """
        # BEGIN SOLUTION Task 4.1
        other = other if isinstance(other, Dual) else Dual(other)
        return Dual(self.val + other.val, self.dot + other.dot)
        # END SOLUTION

    def __neg__(self) -> "Dual":
        """Return ``-self``.

        Tangent: (-u)' = -u'.
        """
        # BEGIN SOLUTION Task 4.1
        return Dual(-self.val, -self.dot)
        # END SOLUTION

    def __mul__(self, other: Union["Dual", Number]) -> "Dual":
        """Return ``self * other``.

        Tangent (product rule): (u v)' = u' v + u v', from
        (u + u' eps)(v + v' eps) = u v + (u' v + u v') eps + u' v' eps**2
        and eps**2 = 0.
        """
        # BEGIN SOLUTION Task 4.2
        other = other if isinstance(other, Dual) else Dual(other)
        return Dual(self.val * other.val, self.dot * other.val + self.val * other.dot)
        # END SOLUTION

    def __truediv__(self, other: Union["Dual", Number]) -> "Dual":
        """Return ``self / other``.

        Tangent (quotient rule): (u / v)' = (u' v - u v') / v**2, from
        1 / (v + v' eps) = 1/v - (v' / v**2) eps.

        Raises:
            ZeroDivisionError: If other's value is 0.
        """
        # BEGIN SOLUTION Task 4.2
        other = other if isinstance(other, Dual) else Dual(other)
        return Dual(
            self.val / other.val,
            (self.dot * other.val - self.val * other.dot) / other.val**2,
        )
        # END SOLUTION

    def __pow__(self, other: Number) -> "Dual":
        """Return ``self ** other`` for a constant int or float exponent.

        Tangent (power rule with the chain rule): (u ** n)' = n u**(n - 1) u'.
        As with floats, a fractional exponent needs a positive value.

        Raises:
            TypeError: If the exponent is not an int or a float (a Dual
                exponent is not supported).
        """
        # BEGIN SOLUTION Task 4.3
        if not isinstance(other, (int, float)):
            raise TypeError("only int/float exponents are supported")
        return Dual(self.val**other, other * self.val ** (other - 1) * self.dot)
        # END SOLUTION

    # Elementary functions: g(u + u' eps) = g(u) + g'(u) u' eps, so each
    # tangent is the derivative of g at the value times the input's tangent.

    def sin(self) -> "Dual":
        """Return sin(self). Tangent: (sin u)' = cos(u) u'."""
        # BEGIN SOLUTION Task 4.4
        return Dual(math.sin(self.val), math.cos(self.val) * self.dot)
        # END SOLUTION

    def cos(self) -> "Dual":
        """Return cos(self). Tangent: (cos u)' = -sin(u) u'."""
        # BEGIN SOLUTION Task 4.4
        return Dual(math.cos(self.val), -math.sin(self.val) * self.dot)
        # END SOLUTION

    def exp(self) -> "Dual":
        """Return e ** self. Tangent: (e**u)' = e**u u', from the value itself.

        Raises:
            OverflowError: If the result is larger than the largest float
                (self.val > ~709.78).
        """
        # BEGIN SOLUTION Task 4.4
        e = math.exp(self.val)
        return Dual(e, e * self.dot)
        # END SOLUTION

    def log(self) -> "Dual":
        """Return the natural logarithm of self. Tangent: (ln u)' = u' / u.

        Raises:
            ValueError: If self.val <= 0.
        """
        # BEGIN SOLUTION Task 4.4
        return Dual(math.log(self.val), self.dot / self.val)
        # END SOLUTION

    def tanh(self) -> "Dual":
        """Return t = tanh(self). Tangent: (tanh u)' = (1 - t**2) u'.

        ``math.tanh`` is finite for every input, so no overflow is possible.
        """
        # BEGIN SOLUTION Task 4.4
        t = math.tanh(self.val)
        return Dual(t, (1.0 - t * t) * self.dot)
        # END SOLUTION

    # Derived operations: compositions of the primitives above, so their
    # tangents follow from the primitives' rules.

    def __radd__(self, other: Number) -> "Dual":
        """Return ``other + self`` (lets ``sum()`` and ``2 + a`` work)."""
        # BEGIN SOLUTION Task 4.1
        return self + other
        # END SOLUTION

    def __sub__(self, other: Union["Dual", Number]) -> "Dual":
        """Return ``self - other``, as ``self + (-other)``."""
        # BEGIN SOLUTION Task 4.1
        return self + (-other)
        # END SOLUTION

    def __rsub__(self, other: Number) -> "Dual":
        """Return ``other - self``, as ``other + (-self)``."""
        # BEGIN SOLUTION Task 4.1
        return other + (-self)
        # END SOLUTION

    def __rmul__(self, other: Number) -> "Dual":
        """Return ``other * self``."""
        # BEGIN SOLUTION Task 4.2
        return self * other
        # END SOLUTION

    def __rtruediv__(self, other: Number) -> "Dual":
        """Return ``other / self``, as ``Dual(other) / self`` (a constant over self)."""
        # BEGIN SOLUTION Task 4.2
        return Dual(other) / self
        # END SOLUTION

    def __repr__(self) -> str:
        return f"Dual(val={self.val}, dot={self.dot})"


# Module-level functions: math on a float, the Dual method on a Dual, so that
# one function body works both on plain numbers and in a forward pass.


def sin(x: Union[Dual, Number]) -> Union[Dual, float]:
    """Return sin(x) for a Dual (with its tangent) or a plain number."""
    return x.sin() if isinstance(x, Dual) else math.sin(x)


def cos(x: Union[Dual, Number]) -> Union[Dual, float]:
    """Return cos(x) for a Dual (with its tangent) or a plain number."""
    return x.cos() if isinstance(x, Dual) else math.cos(x)


def exp(x: Union[Dual, Number]) -> Union[Dual, float]:
    """Return e ** x for a Dual (with its tangent) or a plain number."""
    return x.exp() if isinstance(x, Dual) else math.exp(x)


def log(x: Union[Dual, Number]) -> Union[Dual, float]:
    """Return ln(x) for a Dual (with its tangent) or a plain number."""
    return x.log() if isinstance(x, Dual) else math.log(x)


def tanh(x: Union[Dual, Number]) -> Union[Dual, float]:
    """Return tanh(x) for a Dual (with its tangent) or a plain number."""
    return x.tanh() if isinstance(x, Dual) else math.tanh(x)


def derivative(f: Callable[[Dual], Union[Dual, Number]], x: Number) -> float:
    """Return f'(x) with one forward pass.

    The input is seeded with the tangent 1 (dx/dx = 1), so the output's
    tangent is df/dx. A function that returns a plain number (a constant)
    has derivative 0.0.

    Args:
        f: A function of one argument built from Dual operations and the
            module-level functions (``sin``, ``exp``, ...).
        x: The point.

    Returns:
        df/dx at x.
    """
    # BEGIN SOLUTION Task 4.5
    out = f(Dual(x, 1.0))
    return out.dot if isinstance(out, Dual) else 0.0
    # END SOLUTION


def gradient(f: Callable[..., Union[Dual, Number]], *xs: Number) -> list[float]:
    """Return the gradient [df/dx_0, ..., df/dx_(n-1)] at xs.

    Pass ``i`` seeds input ``i`` with the tangent 1 and every other input
    with 0, so the output's tangent is the partial derivative df/dx_i. Each
    pass starts from fresh Dual inputs.

    Cost: one forward pass *per input*, n passes for n inputs. Reverse mode
    (``Value.backward()``) gets all n partial derivatives of a scalar output
    from one forward and one backward pass, which is why neural networks,
    with many parameters and one loss, are trained in reverse mode. Forward
    mode wins when there are few inputs and many outputs.

    Args:
        f: A function of ``len(xs)`` arguments built from Dual operations.
        *xs: The point, one number per argument.

    Returns:
        The n partial derivatives, in the order of the arguments (0.0 for
        an output that is a plain number).
    """
    # BEGIN SOLUTION Task 4.6
    grads: list[float] = []
    for i in range(len(xs)):
        inputs = [Dual(x, 1.0 if j == i else 0.0) for j, x in enumerate(xs)]
        out = f(*inputs)
        grads.append(out.dot if isinstance(out, Dual) else 0.0)
    return grads
    # END SOLUTION
