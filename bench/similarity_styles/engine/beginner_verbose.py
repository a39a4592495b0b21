# ruff: noqa
import math


class Value:

    def __init__(self, data, _children=(), _op=''):
        self.data = float(data)
        self.grad = 0.0
        self._backward = lambda: None
        self._prev = set(_children)
        self._op = _op

    def __add__(self, other):
        if isinstance(other, Value):
            other_value = other
        else:
            other_value = Value(other)
        new_data = self.data + other_value.data
        out = Value(new_data, (self, other_value), '+')

        def _backward():
            # d(a+b)/da = 1 and d(a+b)/db = 1
            local_a = 1.0
            local_b = 1.0
            self.grad = self.grad + local_a * out.grad
            other_value.grad = other_value.grad + local_b * out.grad

        out._backward = _backward
        return out

    def __mul__(self, other):
        if isinstance(other, Value):
            other_value = other
        else:
            other_value = Value(other)
        new_data = self.data * other_value.data
        out = Value(new_data, (self, other_value), '*')

        def _backward():
            local_a = other_value.data
            local_b = self.data
            self.grad = self.grad + local_a * out.grad
            other_value.grad = other_value.grad + local_b * out.grad

        out._backward = _backward
        return out

    def __pow__(self, other):
        if isinstance(other, int) or isinstance(other, float):
            new_data = self.data ** other
        else:
            raise TypeError('the exponent must be a number')
        out = Value(new_data, (self,), '**' + str(other))

        def _backward():
            local = other * (self.data ** (other - 1))
            self.grad = self.grad + local * out.grad

        out._backward = _backward
        return out

    def tanh(self):
        x = self.data
        new_data = math.tanh(x)
        out = Value(new_data, (self,), 'tanh')

        def _backward():
            local = 1 - new_data ** 2
            self.grad = self.grad + local * out.grad

        out._backward = _backward
        return out

    def relu(self):
        if self.data > 0:
            new_data = self.data
        else:
            new_data = 0.0
        out = Value(new_data, (self,), 'relu')

        def _backward():
            if self.data > 0:
                local = 1.0
            else:
                local = 0.0
            self.grad = self.grad + local * out.grad

        out._backward = _backward
        return out

    def exp(self):
        new_data = math.exp(self.data)
        out = Value(new_data, (self,), 'exp')

        def _backward():
            local = new_data
            self.grad = self.grad + local * out.grad

        out._backward = _backward
        return out

    def log(self):
        new_data = math.log(self.data)
        out = Value(new_data, (self,), 'log')

        def _backward():
            local = 1.0 / self.data
            self.grad = self.grad + local * out.grad

        out._backward = _backward
        return out

    def sigmoid(self):
        x = self.data
        if x >= 0:
            new_data = 1.0 / (1.0 + math.exp(-x))
        else:
            new_data = math.exp(x) / (1.0 + math.exp(x))
        out = Value(new_data, (self,), 'sigmoid')

        def _backward():
            local = new_data * (1.0 - new_data)
            self.grad = self.grad + local * out.grad

        out._backward = _backward
        return out

    def backward(self):
        # build the topological order
        topo = []
        visited = []
        stack = [self]
        while len(stack) > 0:
            node = stack[len(stack) - 1]
            all_done = True
            for child in node._prev:
                if child not in visited:
                    all_done = False
                    visited.append(child)
                    stack.append(child)
            if all_done:
                stack.pop()
                if node not in topo:
                    topo.append(node)
        # apply the chain rule backwards
        self.grad = 1.0
        i = len(topo) - 1
        while i >= 0:
            topo[i]._backward()
            i = i - 1

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
        return self * (other ** -1)

    def __rtruediv__(self, other):
        return other * (self ** -1)

    def __repr__(self):
        return 'Value(data=' + str(self.data) + ', grad=' + str(self.grad) + ')'
