"""Correct modules in a functional style (for ``grader validate``).

Differences: ``functools.reduce`` for ``Sequential``'s forward pass, ``sum(..., [])``
for its parameters, ``map`` for the activations, ``itertools.chain`` for
``Linear``'s parameters, the weights drawn one flat list then cut into rows,
a mean computed as a product with ``len(preds) ** -1``, and gradients zeroed by the
model's ``zero_grad`` through the optimiser's list.
"""

from __future__ import annotations

import functools
import itertools
import random
from typing import Sequence, Union

from .engine import Value

Vector = Sequence[Union[Value, float]]


class Module:
    def __call__(self, x: Vector) -> list[Value]:
        return self.forward(x)

    def parameters(self) -> list[Value]:
        return []

    def zero_grad(self) -> None:
        for p in self.parameters():
            p.grad = 0


class Linear(Module):
    def __init__(self, nin: int, nout: int) -> None:
        self.nin, self.nout = nin, nout
        k = nin ** -0.5
        flat = [Value(random.uniform(-k, k)) for _ in range(nin * nout)]
        self.weight = [flat[i * nin:(i + 1) * nin] for i in range(nout)]
        self.bias = [Value(random.uniform(-k, k)) for _ in range(nout)]

    def forward(self, x: Vector) -> list[Value]:
        def unit(row: list[Value], b: Value) -> Value:
            return functools.reduce(lambda acc, wx: acc + wx[0] * wx[1], zip(row, x), b)
        return list(map(unit, self.weight, self.bias))

    def parameters(self) -> list[Value]:
        return list(itertools.chain(*self.weight, self.bias))


class Tanh(Module):
    def forward(self, x: Vector) -> list[Value]:
        return list(map(Value.tanh, x))


class ReLU(Module):
    def forward(self, x: Vector) -> list[Value]:
        return list(map(lambda v: v.relu(), x))


class Sequential(Module):
    def __init__(self, *modules: Module) -> None:
        self.modules = [*modules]

    def forward(self, x: Vector) -> list[Value]:
        return functools.reduce(lambda acc, m: m(acc), self.modules, x)

    def parameters(self) -> list[Value]:
        return sum((m.parameters() for m in self.modules), [])


class SGD:
    def __init__(self, params: Sequence[Value], lr: float) -> None:
        self.params, self.lr = list(params), lr

    def zero_grad(self) -> None:
        for p in self.params:
            p.grad = 0.0

    def step(self) -> None:
        for p in self.params:
            p.data += -self.lr * p.grad


def mse_loss(preds: Sequence[Value], targets: Sequence[float]) -> Value:
    squares = [(p - t) ** 2 for p, t in zip(preds, targets)]
    return functools.reduce(lambda a, b: a + b, squares) * len(preds) ** -1


def train(model: Module, xs: Sequence[Vector], ys: Sequence[float], optimizer: SGD, steps: int) -> list[float]:
    def one_step() -> float:
        optimizer.zero_grad()
        loss = mse_loss([model(x)[0] for x in xs], ys)
        loss.backward()
        optimizer.step()
        return loss.data
    return [one_step() for _ in range(steps)]
