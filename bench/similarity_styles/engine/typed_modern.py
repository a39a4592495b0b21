# ruff: noqa
"""Scalar autodiff engine."""

from __future__ import annotations

import math
from typing import Callable, Iterable


class Value:
    """A scalar with a gradient."""

    def __init__(self, data: float, _children: Iterable[Value] = (), _op: str = '') -> None:
        self.data = float(data)
        self.grad = 0.0
        self._backward: Callable[[], None] = lambda: None
        self._prev = set(_children)
        self._op = _op

    @staticmethod
    def ensure(x: Value | float) -> Value:
        return x if isinstance(x, Value) else Value(x)

    def __add__(self, other: Value | float) -> Value:
        other = Value.ensure(other)
        res = Value(self.data + other.data, (self, other), '+')

        def _bw() -> None:
            for v in (self, other):
                v.grad += res.grad

        res._backward = _bw
        return res

    def __mul__(self, other: Value | float) -> Value:
        other = Value.ensure(other)
        res = Value(self.data * other.data, (self, other), '*')

        def _bw() -> None:
            self.grad, other.grad = self.grad + other.data * res.grad, other.grad + self.data * res.grad

        res._backward = _bw
        return res

    def __pow__(self, p: float) -> Value:
        if not isinstance(p, (int, float)):
            raise TypeError(f'unsupported exponent {p!r}')
        res = Value(self.data ** p, (self,), f'**{p}')

        def _bw() -> None:
            self.grad += p * self.data ** (p - 1) * res.grad

        res._backward = _bw
        return res

    def __neg__(self) -> Value:
        return self * -1

    def __sub__(self, other: Value | float) -> Value:
        return self + -Value.ensure(other)

    def __rsub__(self, other: float) -> Value:
        return Value.ensure(other) + -self

    def __radd__(self, other: float) -> Value:
        return self + other

    def __rmul__(self, other: float) -> Value:
        return self * other

    def __truediv__(self, other: Value | float) -> Value:
        return self * Value.ensure(other) ** -1

    def __rtruediv__(self, other: float) -> Value:
        return Value.ensure(other) * self ** -1

    def tanh(self) -> Value:
        t = math.tanh(self.data)
        res = Value(t, (self,), 'tanh')

        def _bw() -> None:
            self.grad += (1 - t) * (1 + t) * res.grad

        res._backward = _bw
        return res

    def relu(self) -> Value:
        res = Value(self.data if self.data > 0 else 0.0, (self,), 'relu')

        def _bw() -> None:
            self.grad += res.grad * float(self.data > 0)

        res._backward = _bw
        return res

    def exp(self) -> Value:
        res = Value(math.exp(self.data), (self,), 'exp')

        def _bw() -> None:
            self.grad += res.data * res.grad

        res._backward = _bw
        return res

    def log(self) -> Value:
        res = Value(math.log(self.data), (self,), 'log')

        def _bw() -> None:
            self.grad += res.grad / self.data

        res._backward = _bw
        return res

    def sigmoid(self) -> Value:
        x = self.data
        s = 1.0 / (1.0 + math.exp(-x)) if x >= 0 else 1.0 - 1.0 / (1.0 + math.exp(x))
        res = Value(s, (self,), 'sigmoid')

        def _bw() -> None:
            self.grad += s * (1.0 - s) * res.grad

        res._backward = _bw
        return res

    def backward(self) -> None:
        topo: list[Value] = []
        visited: set[int] = set()

        def build(v: Value) -> None:
            if id(v) in visited:
                return
            visited.add(id(v))
            for child in v._prev:
                build(child)
            topo.append(v)

        build(self)
        self.grad = 1.0
        for v in reversed(topo):
            v._backward()

    def __repr__(self) -> str:
        return f'Value(data={self.data!r}, grad={self.grad!r})'
