"""A correct forward.py in another style than the reference (a variant ``grader validate`` must give full marks).

Every operation written out directly (no derived one-liners), plain numbers handled by their own branch,
``__slots__``, ``tanh`` from ``cosh``, division through ``__pow__``, and ``gradient`` built on ``derivative``
with the other inputs passed as plain numbers (constants: tangent 0).
"""

import math


class Dual:
    __slots__ = ("val", "dot")

    def __init__(self, val, dot=0.0):
        self.val = float(val)
        self.dot = float(dot)

    def __add__(self, other):
        if isinstance(other, (int, float)):
            return Dual(self.val + other, self.dot)
        return Dual(self.val + other.val, self.dot + other.dot)

    __radd__ = __add__

    def __neg__(self):
        return Dual(-self.val, -self.dot)

    def __sub__(self, other):
        if isinstance(other, (int, float)):
            return Dual(self.val - other, self.dot)
        return Dual(self.val - other.val, self.dot - other.dot)

    def __rsub__(self, other):
        return Dual(other - self.val, -self.dot)

    def __mul__(self, other):
        if isinstance(other, (int, float)):
            return Dual(self.val * other, self.dot * other)
        return Dual(self.val * other.val, self.val * other.dot + other.val * self.dot)

    def __rmul__(self, other):
        return Dual(other * self.val, other * self.dot)

    def __truediv__(self, other):
        if isinstance(other, (int, float)):
            return Dual(self.val / other, self.dot / other)
        return self * other**-1

    def __rtruediv__(self, other):
        return other * self**-1

    def __pow__(self, n):
        if isinstance(n, bool) or not isinstance(n, (int, float)):
            raise TypeError(f"unsupported exponent type {type(n).__name__}")
        if n == 0:
            return Dual(1.0, 0.0)
        return Dual(self.val**n, n * self.val ** (n - 1) * self.dot)

    def sin(self):
        return Dual(math.sin(self.val), self.dot * math.cos(self.val))

    def cos(self):
        return Dual(math.cos(self.val), -self.dot * math.sin(self.val))

    def exp(self):
        return Dual(math.exp(self.val), math.exp(self.val) * self.dot)

    def log(self):
        return Dual(math.log(self.val), self.dot * (1.0 / self.val))

    def tanh(self):
        return Dual(math.tanh(self.val), self.dot * (1 - math.tanh(self.val) ** 2))

    def __repr__(self):
        return f"Dual({self.val}, {self.dot})"


def sin(x):
    return x.sin() if isinstance(x, Dual) else math.sin(x)


def cos(x):
    return x.cos() if isinstance(x, Dual) else math.cos(x)


def exp(x):
    return x.exp() if isinstance(x, Dual) else math.exp(x)


def log(x):
    return x.log() if isinstance(x, Dual) else math.log(x)


def tanh(x):
    return x.tanh() if isinstance(x, Dual) else math.tanh(x)


def derivative(f, x):
    y = f(Dual(x, 1))
    return float(y.dot) if isinstance(y, Dual) else 0.0


def gradient(f, *xs):
    def partial(i):
        return lambda t: f(*xs[:i], t, *xs[i + 1:])
    return tuple(derivative(partial(i), x) for i, x in enumerate(xs))
