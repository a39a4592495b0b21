# ruff: noqa
"""Scalar reverse-mode autodiff (my version for the course).

Every operation wraps plain numbers first, then records a closure that
pushes the output's gradient back to its inputs.
"""

import math


def to_value(x):
    """Return x as a Value (numbers are wrapped)."""
    return x if isinstance(x, Value) else Value(x)


class Value:

    def __init__(self, data, _children=(), _op=''):
        self.data = float(data)
        self.grad = 0.0
        self._backward = lambda: None
        self._prev = set(_children)
        self._op = _op

    def __add__(self, other):
        rhs = to_value(other)
        result = Value(self.data + rhs.data, (self, rhs), '+')

        def grad_fn():
            self.grad += result.grad
            rhs.grad += result.grad

        result._backward = grad_fn
        return result

    def __mul__(self, other):
        rhs = to_value(other)
        result = Value(self.data * rhs.data, (self, rhs), '*')

        def grad_fn():
            self.grad += rhs.data * result.grad
            rhs.grad += self.data * result.grad

        result._backward = grad_fn
        return result

    def __pow__(self, exponent):
        if not isinstance(exponent, (int, float)):
            raise TypeError('exponent has to be an int or a float')
        result = Value(math.pow(self.data, exponent), (self,), 'pow')

        def grad_fn():
            self.grad += exponent * math.pow(self.data, exponent - 1) * result.grad

        result._backward = grad_fn
        return result

    def tanh(self):
        x = self.data
        if x > 20:
            t = 1.0
        elif x < -20:
            t = -1.0
        else:
            e2 = math.exp(2 * x)
            t = (e2 - 1) / (e2 + 1)
        result = Value(t, (self,), 'tanh')

        def grad_fn():
            self.grad += (1 - t ** 2) * result.grad

        result._backward = grad_fn
        return result

    def relu(self):
        result = Value(max(0.0, self.data), (self,), 'relu')

        def grad_fn():
            self.grad += (self.data > 0) * result.grad

        result._backward = grad_fn
        return result

    def exp(self):
        value = math.exp(self.data)
        result = Value(value, (self,), 'exp')

        def grad_fn():
            self.grad += value * result.grad

        result._backward = grad_fn
        return result

    def log(self):
        if self.data <= 0:
            raise ValueError('log is only defined for positive numbers')
        result = Value(math.log(self.data), (self,), 'log')

        def grad_fn():
            self.grad += result.grad * (1 / self.data)

        result._backward = grad_fn
        return result

    def sigmoid(self):
        x = self.data
        s = 1 / (1 + math.exp(-x)) if x >= 0 else math.exp(x) / (1 + math.exp(x))
        result = Value(s, (self,), 'sigmoid')

        def grad_fn():
            self.grad += s * (1 - s) * result.grad

        result._backward = grad_fn
        return result

    def backward(self):
        ordering = []
        seen = set()

        def visit(node):
            if node in seen:
                return
            seen.add(node)
            for parent in node._prev:
                visit(parent)
            ordering.append(node)

        visit(self)
        self.grad = 1.0
        for node in ordering[::-1]:
            node._backward()

    def __neg__(self):
        return self * Value(-1.0)

    def __radd__(self, other):
        return to_value(other) + self

    def __sub__(self, other):
        return self + (-to_value(other))

    def __rsub__(self, other):
        return to_value(other) - self

    def __rmul__(self, other):
        return to_value(other) * self

    def __truediv__(self, other):
        return self * to_value(other) ** -1

    def __rtruediv__(self, other):
        return to_value(other) * self ** -1

    def __repr__(self):
        return 'Value(data=%s, grad=%s)' % (self.data, self.grad)
