"""Correct modules in another style than the reference's (for ``grader validate``).

Differences: explicit loops and index arithmetic instead of comprehensions and
``sum()``, the weight matrix filled row by row with ``append``, ``Sequential``
keeping a tuple, ``SGD`` writing ``p.data = p.data - lr * p.grad``, the mean
squared error divided with ``/``, and the loss recorded before the backward pass.
"""

from __future__ import annotations

import math
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
        params = self.parameters()
        for i in range(len(params)):
            params[i].grad = 0.0


class Linear(Module):
    def __init__(self, nin: int, nout: int) -> None:
        self.nin = nin
        self.nout = nout
        bound = math.sqrt(1.0 / nin)
        self.weight = []
        for _ in range(nout):
            row = []
            for _ in range(nin):
                row.append(Value(random.uniform(-bound, bound)))
            self.weight.append(row)
        self.bias = []
        for _ in range(nout):
            self.bias.append(Value(random.uniform(-bound, bound)))

    def forward(self, x: Vector) -> list[Value]:
        out = []
        for i in range(len(self.weight)):
            total = self.bias[i]
            for j in range(len(self.weight[i])):
                total = total + self.weight[i][j] * x[j]
            out.append(total)
        return out

    def parameters(self) -> list[Value]:
        params = []
        for row in self.weight:
            params.extend(row)
        params.extend(self.bias)
        return params


class Tanh(Module):
    def forward(self, x: Vector) -> list[Value]:
        out = []
        for xi in x:
            out.append(xi.tanh())
        return out


class ReLU(Module):
    def forward(self, x: Vector) -> list[Value]:
        out = []
        for xi in x:
            out.append(xi.relu())
        return out


class Sequential(Module):
    def __init__(self, *modules: Module) -> None:
        self.modules = tuple(modules)

    def forward(self, x: Vector) -> list[Value]:
        out = x
        for i in range(len(self.modules)):
            out = self.modules[i](out)
        return out

    def parameters(self) -> list[Value]:
        params = []
        for module in self.modules:
            params.extend(module.parameters())
        return params


class SGD:
    def __init__(self, params: Sequence[Value], lr: float) -> None:
        self.params = [p for p in params]
        self.lr = lr

    def zero_grad(self) -> None:
        for i in range(len(self.params)):
            self.params[i].grad = 0.0

    def step(self) -> None:
        for p in self.params:
            p.data = p.data - self.lr * p.grad


def mse_loss(preds: Sequence[Value], targets: Sequence[float]) -> Value:
    total = (preds[0] - targets[0]) ** 2
    for k in range(1, len(preds)):
        total = total + (preds[k] - targets[k]) ** 2
    return total / len(preds)


def train(model: Module, xs: Sequence[Vector], ys: Sequence[float], optimizer: SGD, steps: int) -> list[float]:
    history = []
    for _ in range(steps):
        preds = []
        for x in xs:
            preds.append(model(x)[0])
        loss = mse_loss(preds, ys)
        history.append(float(loss.data))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return history
