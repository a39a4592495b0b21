# ruff: noqa
"""Value with a generic chain rule.

Each operation lists (parent, local derivative function) pairs; one shared
backward routine multiplies each local derivative by the upstream gradient.
"""

import math


class Value:
    def __init__(self, data, _children=(), _op=''):
        self.data = float(data)
        self.grad = 0.0
        self._backward = lambda: None
        self._prev = set(_children)
        self._op = _op

    def _chain(self, data, op, parents, locals_):
        out = Value(data, parents, op)

        def _backward():
            for parent, local in zip(parents, locals_):
                parent.grad += local() * out.grad

        out._backward = _backward
        return out

    @staticmethod
    def _wrap(other):
        if isinstance(other, Value):
            return other
        return Value(other)

    def __add__(self, other):
        other = Value._wrap(other)
        return self._chain(self.data + other.data, '+', (self, other), (lambda: 1.0, lambda: 1.0))

    def __mul__(self, other):
        other = Value._wrap(other)
        return self._chain(self.data * other.data, '*', (self, other),
                           (lambda: other.data, lambda: self.data))

    def __pow__(self, power):
        if not isinstance(power, (int, float)):
            raise TypeError(f'cannot raise a Value to {type(power).__name__}')
        return self._chain(self.data ** power, f'**{power}', (self,),
                           (lambda: power * self.data ** (power - 1),))

    def tanh(self):
        t = math.tanh(self.data)
        return self._chain(t, 'tanh', (self,), (lambda: 1 - t * t,))

    def relu(self):
        positive = self.data > 0
        return self._chain(self.data if positive else 0.0, 'relu', (self,),
                           (lambda: 1.0 if positive else 0.0,))

    def exp(self):
        e = math.exp(self.data)
        return self._chain(e, 'exp', (self,), (lambda: e,))

    def log(self):
        x = self.data
        return self._chain(math.log(x), 'log', (self,), (lambda: 1 / x,))

    def sigmoid(self):
        x = self.data
        if x < 0:
            ex = math.exp(x)
            s = ex / (1 + ex)
        else:
            s = 1 / (1 + math.exp(-x))
        return self._chain(s, 'sigmoid', (self,), (lambda: s * (1 - s),))

    def backward(self):
        order = []
        marked = set()

        def dfs(v):
            marked.add(v)
            for p in v._prev:
                if p not in marked:
                    dfs(p)
            order.append(v)

        dfs(self)
        self.grad = 1.0
        while order:
            order.pop()._backward()

    def __neg__(self):
        return self * (-1)

    def __radd__(self, other):
        return self + other

    def __sub__(self, other):
        return self + other * -1

    def __rsub__(self, other):
        return self * -1 + other

    def __rmul__(self, other):
        return self * other

    def __truediv__(self, other):
        return self * (other ** -1)

    def __rtruediv__(self, other):
        return (self ** -1) * other

    def __repr__(self):
        return f'Value(data={self.data}, grad={self.grad}, op={self._op!r})'
