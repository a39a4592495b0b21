"""Correct modules in a third style (for ``grader validate``).

Differences from the reference and the other two variants: ``Sequential`` keeps the tuple ``*modules`` gives it,
each output of ``Linear`` is the bias plus ``sum()`` of the products (``sum`` starts from the number 0), the
activations share one base class that calls the ``Value`` method it names, the loss sums from a ``Value(0.0)`` of
the module's own import, ``SGD`` keeps a tuple and writes ``p.data = p.data - lr * p.grad``, and ``train`` appends
``float(loss.data)`` after the step.
"""

from __future__ import annotations

import math
import random

from .engine import Value


class Module:
    def __call__(self, x):
        return self.forward(x)

    def parameters(self):
        return []

    def zero_grad(self):
        for p in self.parameters():
            p.grad = 0.0


class Linear(Module):
    def __init__(self, nin, nout):
        self.nin = nin
        self.nout = nout
        bound = 1 / math.sqrt(nin)
        self.weight = [[Value(random.uniform(-bound, bound)) for _ in range(nin)] for _ in range(nout)]
        self.bias = [Value(random.uniform(-bound, bound)) for _ in range(nout)]

    def forward(self, x):
        return [b + sum(w * xi for w, xi in zip(row, x)) for row, b in zip(self.weight, self.bias)]

    def parameters(self):
        params = [w for row in self.weight for w in row]
        params += self.bias
        return params


class _Elementwise(Module):
    method = ""

    def forward(self, x):
        return [getattr(xi, self.method)() for xi in x]


class Tanh(_Elementwise):
    method = "tanh"


class ReLU(_Elementwise):
    method = "relu"


class Sequential(Module):
    def __init__(self, *modules):
        self.modules = modules

    def forward(self, x):
        for module in self.modules:
            x = module(x)
        return x

    def parameters(self):
        return [p for module in self.modules for p in module.parameters()]


class SGD:
    def __init__(self, params, lr):
        self.params = tuple(params)
        self.lr = lr

    def zero_grad(self):
        for p in self.params:
            p.grad = 0.0

    def step(self):
        for p in self.params:
            p.data = p.data - self.lr * p.grad


def mse_loss(preds, targets):
    total = Value(0.0)
    for p, t in zip(preds, targets):
        total = total + (p - t) ** 2
    return total / len(preds)


def train(model, xs, ys, optimizer, steps):
    history = []
    for _ in range(steps):
        loss = mse_loss([model(x)[0] for x in xs], ys)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        history.append(float(loss.data))
    return history
