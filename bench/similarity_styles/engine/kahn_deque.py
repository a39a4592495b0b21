# ruff: noqa
from collections import deque
import math


class Value:
    """Autograd scalar. backward() uses Kahn's algorithm with a deque."""

    def __init__(self, data, _children=(), _op=''):
        self.data = float(data)
        self.grad = 0.0
        self._backward = lambda: None
        self._prev = set(_children)
        self._op = _op

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        node = Value(self.data + other.data, {self, other}, 'add')

        def propagate():
            self.grad += node.grad
            other.grad += node.grad
        node._backward = propagate
        return node

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        node = Value(self.data * other.data, {self, other}, 'mul')

        def propagate():
            self.grad += node.grad * other.data
            other.grad += node.grad * self.data
        node._backward = propagate
        return node

    def __pow__(self, k):
        if type(k) not in (int, float):
            raise TypeError('only numeric exponents')
        node = Value(self.data ** k, {self}, 'pow')

        def propagate():
            self.grad += node.grad * k * self.data ** (k - 1)
        node._backward = propagate
        return node

    def relu(self):
        node = Value(self.data * (self.data > 0), {self}, 'relu')

        def propagate():
            self.grad += node.grad * (node.data > 0)
        node._backward = propagate
        return node

    def tanh(self):
        node = Value(math.tanh(self.data), {self}, 'tanh')

        def propagate():
            self.grad += node.grad * (1 - node.data ** 2)
        node._backward = propagate
        return node

    def sigmoid(self):
        node = Value(0.5 * (math.tanh(self.data / 2) + 1), {self}, 'sigmoid')

        def propagate():
            self.grad += node.grad * node.data * (1 - node.data)
        node._backward = propagate
        return node

    def exp(self):
        node = Value(math.exp(self.data), {self}, 'exp')

        def propagate():
            self.grad += node.grad * node.data
        node._backward = propagate
        return node

    def log(self):
        node = Value(math.log(self.data), {self}, 'log')

        def propagate():
            self.grad += node.grad / self.data
        node._backward = propagate
        return node

    def backward(self):
        indegree = {}
        queue = deque([self])
        seen = {self}
        while queue:
            v = queue.popleft()
            for p in v._prev:
                indegree[p] = indegree.get(p, 0) + 1
                if p not in seen:
                    seen.add(p)
                    queue.append(p)
        self.grad = 1.0
        ready = deque([self])
        while ready:
            v = ready.popleft()
            v._backward()
            for p in v._prev:
                indegree[p] -= 1
                if indegree[p] == 0:
                    ready.append(p)

    def __neg__(self):
        return self * -1.0

    def __radd__(self, other):
        return self + other

    def __sub__(self, other):
        return self + -other

    def __rsub__(self, other):
        return -self + other

    def __rmul__(self, other):
        return self * other

    def __truediv__(self, other):
        return self * other ** -1.0

    def __rtruediv__(self, other):
        return self ** -1.0 * other

    def __repr__(self):
        return 'Value(%r)' % self.data
