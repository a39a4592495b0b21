# ruff: noqa
"""micrograd homework: Value with a node factory."""
import math


class Value:
    def __init__(self, data, _children=(), _op=''):
        self.data = float(data)
        self.grad = 0.0
        self._backward = lambda: None
        self._prev = set(_children)
        self._op = _op

    @classmethod
    def _make(cls, data, parents, op, backward_fn):
        """Create the output node; backward_fn(out) pushes out.grad to the parents."""
        out = cls(data, parents, op)
        out._backward = lambda: backward_fn(out)
        return out

    def __add__(self, other):
        o = other if isinstance(other, Value) else Value(other)

        def bw(out):
            self.grad += out.grad
            o.grad += out.grad
        return Value._make(self.data + o.data, (self, o), '+', bw)

    def __mul__(self, other):
        o = other if isinstance(other, Value) else Value(other)

        def bw(out):
            self.grad += o.data * out.grad
            o.grad += self.data * out.grad
        return Value._make(self.data * o.data, (self, o), '*', bw)

    def __pow__(self, e):
        if isinstance(e, bool) or not isinstance(e, (int, float)):
            raise TypeError('exponent must be int or float')

        def bw(out):
            self.grad += e * self.data ** (e - 1) * out.grad
        return Value._make(self.data ** e, (self,), '**', bw)

    def tanh(self):
        def bw(out):
            self.grad += (1 - out.data ** 2) * out.grad
        return Value._make(math.tanh(self.data), (self,), 'tanh', bw)

    def relu(self):
        def bw(out):
            self.grad += out.grad if out.data > 0 else 0.0
        return Value._make(max(self.data, 0.0), (self,), 'relu', bw)

    def exp(self):
        def bw(out):
            self.grad += out.data * out.grad
        return Value._make(math.exp(self.data), (self,), 'exp', bw)

    def log(self):
        def bw(out):
            self.grad += out.grad / self.data
        return Value._make(math.log(self.data), (self,), 'log', bw)

    def sigmoid(self):
        x = self.data
        z = math.exp(-abs(x))
        s = 1 / (1 + z) if x >= 0 else z / (1 + z)

        def bw(out):
            self.grad += out.data * (1 - out.data) * out.grad
        return Value._make(s, (self,), 'sigmoid', bw)

    def backward(self):
        nodes = []
        done = set()
        todo = [(self, 0)]
        while todo:
            node, state = todo.pop()
            if state == 1:
                nodes.append(node)
            elif node not in done:
                done.add(node)
                todo.append((node, 1))
                for p in node._prev:
                    todo.append((p, 0))
        self.grad = 1.0
        for node in reversed(nodes):
            node._backward()

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
        return other * self ** -1

    def __repr__(self):
        return f"Value({self.data})"
