"""micrograd engine, matrix_layer edition.

Backward pass: a recursive post-order walk over ``_prev`` that remembers the
``id()`` of every node it has already placed, then the closures in reverse.
"""

import math


class Value:

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

        def backward_add():
            self.grad += 1.0 * out.grad
            other.grad += 1.0 * out.grad

        out._backward = backward_add
        return out

    def __mul__(self, other):
        if not isinstance(other, Value):
            other = Value(other)
        out = Value(self.data * other.data, (self, other), '*')

        def backward_mul():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad

        out._backward = backward_mul
        return out

    def __pow__(self, p):
        if not isinstance(p, (int, float)):
            raise TypeError("exponent must be a number (int or float), not %s" % type(p).__name__)
        out = Value(self.data ** p, (self,), 'pow')

        def backward_pow():
            self.grad += p * self.data ** (p - 1) * out.grad

        out._backward = backward_pow
        return out

    def __neg__(self):
        return self * -1

    def __radd__(self, other):
        return self + other

    def __sub__(self, other):
        return self + (-other)

    def __rsub__(self, other):
        return -self + other

    def __rmul__(self, other):
        return self * other

    def __truediv__(self, other):
        return self * other ** -1

    def __rtruediv__(self, other):
        return self ** -1 * other

    def tanh(self):
        out = Value(math.tanh(self.data), (self,), 'tanh')

        def backward_tanh():
            self.grad += (1.0 - out.data * out.data) * out.grad

        out._backward = backward_tanh
        return out

    def relu(self):
        out = Value(max(0.0, self.data), (self,), 'relu')

        def backward_relu():
            self.grad += (self.data > 0) * out.grad

        out._backward = backward_relu
        return out

    def exp(self):
        out = Value(math.exp(self.data), (self,), 'exp')

        def backward_exp():
            self.grad += out.data * out.grad

        out._backward = backward_exp
        return out

    def log(self):
        out = Value(math.log(self.data), (self,), 'log')

        def backward_log():
            self.grad += out.grad / self.data

        out._backward = backward_log
        return out

    def sigmoid(self):
        x = self.data
        # e**-|x| <= 1 never overflows; pick the form that uses it
        z = math.exp(-abs(x))
        s = 1.0 / (1.0 + z) if x >= 0 else z / (1.0 + z)
        out = Value(s, (self,), 'sigmoid')

        def backward_sigmoid():
            self.grad += out.data * (1.0 - out.data) * out.grad

        out._backward = backward_sigmoid
        return out

    def backward(self):
        seen = set()
        post = []

        def walk(node):
            seen.add(id(node))
            for parent in node._prev:
                if id(parent) not in seen:
                    walk(parent)
            post.append(node)

        walk(self)
        self.grad = 1.0
        for node in reversed(post):
            node._backward()

    def __repr__(self):
        return "Value(%g | grad %g)" % (self.data, self.grad)
