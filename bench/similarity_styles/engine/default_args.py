# ruff: noqa
import math


class Value:
    """A number that remembers how it was computed."""

    def __init__(self, data, _children=(), _op=''):
        self.data = float(data)
        self.grad = 0.0
        self._backward = lambda: None
        self._prev = set(_children)
        self._op = _op

    def __add__(self, other):
        if not isinstance(other, Value):
            other = Value(other)
        out = Value(self.data + other.data, (self, other), '+')

        def back(a=self, b=other, o=out):
            a.grad += o.grad
            b.grad += o.grad
        out._backward = back
        return out

    def __mul__(self, other):
        if not isinstance(other, Value):
            other = Value(other)
        out = Value(self.data * other.data, (self, other), '*')

        def back(a=self, b=other, o=out):
            a.grad += b.data * o.grad
            b.grad += a.data * o.grad
        out._backward = back
        return out

    def __pow__(self, n):
        assert isinstance(n, (int, float)), 'power must be int or float'
        if not isinstance(n, (int, float)):
            raise TypeError('power must be int or float')
        out = Value(self.data ** n, (self,), '**')

        def back(a=self, o=out, n=n):
            a.grad += n * (a.data ** (n - 1)) * o.grad
        out._backward = back
        return out

    def __neg__(self):
        return -1 * self

    def __sub__(self, other):
        return self + (-1 * other)

    def __rsub__(self, other):
        return (-1 * self) + other

    def __radd__(self, other):
        return self.__add__(other)

    def __rmul__(self, other):
        return self.__mul__(other)

    def __truediv__(self, other):
        return self.__mul__(other ** -1 if isinstance(other, Value) else 1.0 / other)

    def __rtruediv__(self, other):
        return self.__pow__(-1).__mul__(other)

    def exp(self):
        out = Value(math.exp(self.data), (self,), 'exp')

        def back(a=self, o=out):
            a.grad += o.data * o.grad
        out._backward = back
        return out

    def log(self):
        out = Value(math.log(self.data), (self,), 'log')

        def back(a=self, o=out):
            a.grad += o.grad / a.data
        out._backward = back
        return out

    def relu(self):
        out = Value(self.data if self.data > 0 else 0.0, (self,), 'relu')

        def back(a=self, o=out):
            if a.data > 0:
                a.grad += o.grad
        out._backward = back
        return out

    def tanh(self):
        out = Value(math.tanh(self.data), (self,), 'tanh')

        def back(a=self, o=out):
            a.grad += (1.0 - o.data * o.data) * o.grad
        out._backward = back
        return out

    def sigmoid(self):
        if self.data >= 0:
            val = 1.0 / (1.0 + math.exp(-self.data))
        else:
            val = 1.0 - 1.0 / (1.0 + math.exp(self.data))
        out = Value(val, (self,), 'sigmoid')

        def back(a=self, o=out):
            a.grad += o.data * (1.0 - o.data) * o.grad
        out._backward = back
        return out

    def backward(self):
        topo, visited, stack = [], set(), [self]
        post = []
        while stack:
            v = stack[-1]
            if v not in visited:
                visited.add(v)
                for c in v._prev:
                    if c not in visited:
                        stack.append(c)
            else:
                stack.pop()
                if v not in post:
                    post.append(v)
        topo = post
        self.grad = 1.0
        for v in reversed(topo):
            v._backward()

    def __repr__(self):
        return f'Value({self.data:.4f}, grad={self.grad:.4f})'
