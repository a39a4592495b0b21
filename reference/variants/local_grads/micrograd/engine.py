"""Autograd where every node remembers its local derivatives.

An operation computes its result and, at the same time, the partial
derivative of the result with respect to each of its operands.  These are
stored on the output node as ``_local = ((operand, d out / d operand), ...)``.
The node's ``_backward`` is the same generic routine for every operation:
for each stored pair it adds ``d * out.grad`` to the operand's gradient.
"""

import math


class Value:

    __slots__ = ('data', 'grad', '_backward', '_prev', '_op', '_local')

    def __init__(self, data, _children=(), _op=''):
        self.data = float(data)
        self.grad = 0.0
        self._prev = set(_children)
        self._op = _op
        self._local = ()
        self._backward = self._apply_local

    def _apply_local(self):
        g = self.grad
        for operand, d in self._local:
            operand.grad += d * g

    @classmethod
    def _node(cls, data, op, *pairs):
        """Make an output node from (operand, local derivative) pairs."""
        out = cls(data, tuple(p for p, _ in pairs), op)
        out._local = pairs
        return out

    @staticmethod
    def _coerce(x):
        return x if isinstance(x, Value) else Value(x)

    # arithmetic

    def __add__(self, other):
        other = self._coerce(other)
        return self._node(self.data + other.data, '+', (self, 1.0), (other, 1.0))

    def __mul__(self, other):
        other = self._coerce(other)
        return self._node(self.data * other.data, '*', (self, other.data), (other, self.data))

    def __pow__(self, k):
        if not isinstance(k, (int, float)):
            raise TypeError(f"unsupported exponent type {type(k).__name__!r}: use an int or a float")
        x = self.data
        y = x ** k
        if k == 0:
            d = 0.0
        else:
            try:
                d = k * x ** (k - 1)
            except ZeroDivisionError:  # x == 0 with 0 < k < 1: vertical tangent
                d = math.inf
        return self._node(y, f'**{k}', (self, d))

    def __neg__(self):
        return self * -1

    def __radd__(self, other):
        return self + other

    def __sub__(self, other):
        return self + (-other)

    def __rsub__(self, other):
        return (-self) + other

    def __rmul__(self, other):
        return self * other

    def __truediv__(self, other):
        return self * other ** -1

    def __rtruediv__(self, other):
        return self ** -1 * other

    # nonlinearities

    def tanh(self):
        t = math.tanh(self.data)
        return self._node(t, 'tanh', (self, 1.0 - t * t))

    def relu(self):
        x = self.data
        return self._node(x if x > 0 else 0.0, 'relu', (self, 1.0 if x > 0 else 0.0))

    def exp(self):
        e = math.exp(self.data)
        return self._node(e, 'exp', (self, e))

    def log(self):
        x = self.data
        return self._node(math.log(x), 'log', (self, 1.0 / x))

    def sigmoid(self):
        # 0.5 * (1 + tanh(x / 2)) equals 1 / (1 + e^-x) and never overflows
        s = 0.5 * (1.0 + math.tanh(0.5 * self.data))
        return self._node(s, 'sigmoid', (self, s * (1.0 - s)))

    # backward pass

    def backward(self):
        order, done = [], set()
        stack = [(self, iter(self._prev))]
        done.add(self)
        while stack:
            node, children = stack[-1]
            for child in children:
                if child not in done:
                    done.add(child)
                    stack.append((child, iter(child._prev)))
                    break
            else:
                stack.pop()
                order.append(node)
        self.grad = 1.0
        for node in reversed(order):
            node._backward()

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad}, local={len(self._local)})"
