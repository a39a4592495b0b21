# ruff: noqa
import math


def _lift(x):
    if isinstance(x, Value):
        return x
    return Value(x)


class Value:
    # every operation, derived ones included, has its own gradient rule

    def __init__(self, data, _children=(), _op=''):
        self.data = float(data)
        self.grad = 0.0
        self._backward = lambda: None
        self._prev = set(_children)
        self._op = _op

    def __add__(self, other):
        other = _lift(other)
        y = Value(self.data + other.data, (self, other), '+')

        def step():
            self.grad += y.grad
            other.grad += y.grad
        y._backward = step
        return y

    def __radd__(self, other):
        return _lift(other).__add__(self)

    def __sub__(self, other):
        other = _lift(other)
        y = Value(self.data - other.data, (self, other), '-')

        def step():
            self.grad += y.grad
            other.grad -= y.grad
        y._backward = step
        return y

    def __rsub__(self, other):
        return _lift(other).__sub__(self)

    def __mul__(self, other):
        other = _lift(other)
        y = Value(self.data * other.data, (self, other), '*')

        def step():
            self.grad += other.data * y.grad
            other.grad += self.data * y.grad
        y._backward = step
        return y

    def __rmul__(self, other):
        return _lift(other).__mul__(self)

    def __truediv__(self, other):
        other = _lift(other)
        y = Value(self.data / other.data, (self, other), '/')

        def step():
            self.grad += y.grad / other.data
            other.grad -= y.grad * self.data / other.data ** 2
        y._backward = step
        return y

    def __rtruediv__(self, other):
        return _lift(other).__truediv__(self)

    def __neg__(self):
        y = Value(-self.data, (self,), 'neg')

        def step():
            self.grad -= y.grad
        y._backward = step
        return y

    def __pow__(self, other):
        if not isinstance(other, (int, float)):
            raise TypeError('Value ** only supports int or float exponents')
        y = Value(self.data ** other, (self,), '**')

        def step():
            self.grad += other * self.data ** (other - 1) * y.grad
        y._backward = step
        return y

    def exp(self):
        y = Value(math.exp(self.data), (self,), 'exp')

        def step():
            self.grad += y.data * y.grad
        y._backward = step
        return y

    def log(self):
        y = Value(math.log(self.data), (self,), 'log')

        def step():
            self.grad += y.grad / self.data
        y._backward = step
        return y

    def tanh(self):
        y = Value(math.tanh(self.data), (self,), 'tanh')

        def step():
            self.grad += (1 - y.data * y.data) * y.grad
        y._backward = step
        return y

    def sigmoid(self):
        if self.data < 0:
            e = math.exp(self.data)
            y = Value(e / (1 + e), (self,), 'sigmoid')
        else:
            y = Value(1 / (1 + math.exp(-self.data)), (self,), 'sigmoid')

        def step():
            self.grad += y.data * (1 - y.data) * y.grad
        y._backward = step
        return y

    def relu(self):
        y = Value(self.data if self.data > 0 else 0.0, (self,), 'relu')

        def step():
            self.grad += y.grad if self.data > 0 else 0.0
        y._backward = step
        return y

    def backward(self):
        topo = []
        seen = set()

        def walk(v):
            if v not in seen:
                seen.add(v)
                for u in v._prev:
                    walk(u)
                topo.append(v)
        walk(self)
        for v in topo:
            v.grad = 0.0
        self.grad = 1.0
        for v in reversed(topo):
            v._backward()

    def __repr__(self):
        return f'Value(data={self.data}, grad={self.grad})'
