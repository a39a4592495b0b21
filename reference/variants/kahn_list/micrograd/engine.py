"""Reverse-mode autodiff on scalars.

The backward pass uses Kahn's algorithm: first count, for every node reachable
from the output, how many reachable nodes consume it; then start from the
output and release a node once all of its consumers have passed their
gradient on to it.
"""

import math


def _as_value(x):
    if isinstance(x, Value):
        return x
    return Value(x)


def _stable_tanh(x):
    # tanh(x) = (1 - e^{-2|x|}) / (1 + e^{-2|x|}) * sign(x); with expm1 for
    # accuracy near 0.  e^{-2|x|} <= 1, so nothing can overflow.
    u = math.expm1(-2.0 * abs(x))  # in (-1, 0]
    t = -u / (2.0 + u)
    return t if x >= 0 else -t


class Value:

    def __init__(self, data, _children=(), _op=''):
        self.data = float(data)
        self.grad = 0.0
        self._backward = lambda: None
        self._prev = list(_children)
        self._op = _op

    def __add__(self, other):
        other = _as_value(other)
        out = Value(self.data + other.data, [self, other], 'add')

        def _backward():
            g = out.grad
            self.grad += g
            other.grad += g
        out._backward = _backward
        return out

    def __mul__(self, other):
        other = _as_value(other)
        out = Value(self.data * other.data, [self, other], 'mul')

        def _backward():
            g = out.grad
            self.grad += other.data * g
            other.grad += self.data * g
        out._backward = _backward
        return out

    def __pow__(self, n):
        if not isinstance(n, (int, float)):
            raise TypeError(f"exponent must be an int or a float, not {type(n).__name__}")
        out = Value(self.data ** n, [self], 'pow')

        def _backward():
            self.grad += n * (self.data ** (n - 1)) * out.grad
        out._backward = _backward
        return out

    def tanh(self):
        out = Value(_stable_tanh(self.data), [self], 'tanh')

        def _backward():
            self.grad += (1.0 - out.data ** 2) * out.grad
        out._backward = _backward
        return out

    def relu(self):
        out = Value(max(self.data, 0.0), [self], 'relu')

        def _backward():
            # mask taken from the output: it is positive exactly where x > 0
            if out.data > 0:
                self.grad += out.grad
        out._backward = _backward
        return out

    def exp(self):
        out = Value(math.exp(self.data), [self], 'exp')

        def _backward():
            self.grad += out.data * out.grad
        out._backward = _backward
        return out

    def log(self):
        if self.data <= 0:
            raise ValueError(f"log of a non-positive number ({self.data})")
        out = Value(math.log(self.data), [self], 'log')

        def _backward():
            self.grad += out.grad / self.data
        out._backward = _backward
        return out

    def sigmoid(self):
        x = self.data
        if x >= 0:
            s = 1.0 / (1.0 + math.exp(-x))
        else:
            ex = math.exp(x)
            s = ex / (1.0 + ex)
        out = Value(s, [self], 'sigmoid')

        def _backward():
            s_ = out.data
            self.grad += s_ * (1.0 - s_) * out.grad
        out._backward = _backward
        return out

    def backward(self):
        # 1. collect the reachable nodes and count their consumers
        consumers = {id(self): 0}
        nodes = {id(self): self}
        todo = [self]
        while todo:
            node = todo.pop()
            for parent in node._prev:
                key = id(parent)
                if key not in consumers:
                    consumers[key] = 0
                    nodes[key] = parent
                    todo.append(parent)
                consumers[key] += 1

        # 2. process from the output; a node is ready when all consumers are done
        self.grad = 1.0
        ready = [self]
        while ready:
            node = ready.pop()
            node._backward()
            for parent in node._prev:
                key = id(parent)
                consumers[key] -= 1
                if consumers[key] == 0:
                    ready.append(parent)

    def __neg__(self):
        return self * -1

    def __radd__(self, other):
        return self + other

    def __sub__(self, other):
        return self + (-other)

    def __rsub__(self, other):
        return other + (-self)

    def __rmul__(self, other):
        return self * other

    def __truediv__(self, other):
        return self * other ** -1

    def __rtruediv__(self, other):
        return other * self ** -1

    def __repr__(self):
        return f"<Value {self.data:.6g} (grad {self.grad:.6g}, {self._op or 'leaf'})>"
