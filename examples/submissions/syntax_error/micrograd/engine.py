"""Scalar autograd engine for assignment 1.

Every Value remembers which Values produced it (_prev) and how to push
its gradient back to them (_backward). Calling backward() on the final
output walks the graph in reverse topological order.
"""
import math


class Value:

    def __init__(self, data, _children=(), _op=''):
        self.data = float(data)
        self.grad = 0.0
        # parents of this node, kept as a tuple so the order is stable
        self._prev = tuple(_children)
        self._op = _op
        # leaf nodes have nothing to propagate
        self._backward = lambda: None

    # ---------- basic arithmetic ----------

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other), '+')

        def _backward():
            # d(a+b)/da = 1, d(a+b)/db = 1
            self.grad += out.grad
            other.grad += out.grad
        out._backward = _backward
        return out

    def __mul__(self, other)
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data * other.data, (self, other), '*')

        def _backward():
            # product rule: each side gets the other side's value
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad
        out._backward = _backward
        return out

    def __pow__(self, exponent):
        # only constant exponents are supported
        assert isinstance(exponent, (int, float)), "exponent must be an int or float"
        out = Value(self.data ** exponent, (self,), f'**{exponent}')

        def _backward():
            self.grad += exponent * self.data ** (exponent - 1) * out.grad
        out._backward = _backward
        return out

    def __neg__(self):
        return self * -1

    def __sub__(self, other):
        return self + (-other)

    def __truediv__(self, other):
        return self * other ** -1

    # reflected versions so that e.g. 2 * v or 1 - v also work
    def __radd__(self, other):
        return self + other

    def __rsub__(self, other):
        return (-self) + other

    def __rmul__(self, other):
        return self * other

    def __rtruediv__(self, other):
        return other * self ** -1

    # ---------- activation functions / unary ops ----------

    def tanh(self):
        x = self.data
        # write tanh with exp(-2|x|) so that exp never gets a big positive
        # argument (math.exp(1000) would raise OverflowError)
        if x >= 0:
            e = math.exp(-2.0 * x)
            t = (1.0 - e) / (1.0 + e)
        else:
            e = math.exp(2.0 * x)
            t = (e - 1.0) / (e + 1.0)
        out = Value(t, (self,), 'tanh')

        def _backward():
            # d tanh(x)/dx = 1 - tanh(x)^2
            self.grad += (1.0 - t * t) * out.grad
        out._backward = _backward
        return out

    def relu(self):
        out = Value(self.data if self.data > 0 else 0.0, (self,), 'ReLU')

        def _backward():
            # gradient only flows where the input was positive
            mask = 1.0 if self.data > 0 else 0.0
            self.grad += mask * out.grad
        out._backward = _backward
        return out

    def exp(self):
        out = Value(math.exp(self.data), (self,), 'exp')

        def _backward():
            # derivative of e^x is e^x, which is already in out.data
            self.grad += out.data * out.grad
        out._backward = _backward
        return out

    def log(self):
        # natural log, only defined for positive inputs
        out = Value(math.log(self.data), (self,), 'log')

        def _backward():
            self.grad += (1.0 / self.data) * out.grad
        out._backward = _backward
        return out

    def sigmoid(self):
        x = self.data
        # same trick as tanh: only ever call exp on a non-positive number
        if x >= 0:
            s = 1.0 / (1.0 + math.exp(-x))
        else:
            e = math.exp(x)
            s = e / (1.0 + e)
        out = Value(s, (self,), 'sigmoid')

        def _backward():
            self.grad += s * (1.0 - s) * out.grad
        out._backward = _backward
        return out

    # ---------- backprop ----------

    def backward(self):
        # topological order: every node comes after all of its parents
        order = []
        seen = set()

        def build(v):
            if v in seen:
                return
            seen.add(v)
            for parent in v._prev:
                build(parent)
            order.append(v)

        build(self)

        # seed the output and go backwards through the graph
        self.grad = 1.0
        for node in reversed(order):
            node._backward()

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"
