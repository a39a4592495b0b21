"""A correct classifier in a third style (for ``grader validate``).

Differences from the reference and ``classifier_styles``: the largest logit subtracted as a ``Value`` (so the graph
holds the shift, whose gradients cancel: softmax does not depend on it), the activation chosen from a table of
functions, layers built from pairs of sizes, the mean loss as a product with ``1 / n``, ``zero_grad`` before the
forward pass, the losses read before ``backward()``, and the predicted class from ``enumerate``.
"""

from __future__ import annotations

import math
import random

from .engine import Value

ACTIVATIONS = ("tanh", "relu", "sigmoid", "linear")
_APPLY = {
    "tanh": lambda v: v.tanh(),
    "relu": lambda v: v.relu(),
    "sigmoid": lambda v: v.sigmoid(),
    "linear": lambda v: v,
}


def make_spiral(
    n_per_class: int, n_classes: int = 3, noise: float = 0.2, seed: int = 0
) -> tuple[list[list[float]], list[int]]:
    """The given spiral (unchanged)."""
    rng = random.Random(seed)
    xs: list[list[float]] = []
    ys: list[int] = []
    for j in range(n_classes):
        for i in range(n_per_class):
            frac = i / (n_per_class - 1) if n_per_class > 1 else 0.0
            r = frac
            t = 4.0 * j + 4.0 * frac + rng.gauss(0.0, 1.0) * noise
            xs.append([r * math.sin(t), r * math.cos(t)])
            ys.append(j)
    return xs, ys


def _largest(logits):
    return max(logits, key=lambda v: v.data)


def softmax(logits):
    top = _largest(logits)
    exps = [(v - top).exp() for v in logits]
    total = sum(exps[1:], exps[0])
    return [e / total for e in exps]


def cross_entropy(logits, target):
    top = _largest(logits)
    total = sum([(v - top).exp() for v in logits[1:]], (logits[0] - top).exp())
    return total.log() + top - logits[target]


class Neuron:
    def __init__(self, nin, activation="tanh"):
        if activation not in _APPLY:
            raise ValueError(f"activation must be one of {', '.join(ACTIVATIONS)}, not {activation!r}")
        self.activation = activation
        self.w = [Value(random.uniform(-1, 1)) for _ in range(nin)]
        self.b = Value(random.uniform(-1, 1))

    def __call__(self, x):
        total = self.b
        for wi, xi in zip(self.w, x):
            total = total + wi * xi
        return _APPLY[self.activation](total)

    def parameters(self):
        return [*self.w, self.b]


class Layer:
    def __init__(self, nin, nout, activation="tanh"):
        self.neurons = [Neuron(nin, activation=activation) for _ in range(nout)]

    def __call__(self, x):
        return [neuron(x) for neuron in self.neurons]

    def parameters(self):
        params = []
        for neuron in self.neurons:
            params.extend(neuron.parameters())
        return params


class MLP:
    def __init__(self, nin, layer_sizes, activations=None):
        sizes = list(layer_sizes)
        if activations is None:
            activations = ["tanh" for _ in sizes[:-1]] + ["linear"]
        activations = list(activations)
        if len(activations) != len(sizes):
            raise ValueError(f"expected {len(sizes)} activations, one per layer, got {len(activations)}")
        unknown = [a for a in activations if a not in _APPLY]
        if unknown:
            raise ValueError(f"unknown activation {unknown[0]!r}")
        self.activations = activations
        self.layers = [Layer(a, b, act) for a, b, act in zip([nin] + sizes[:-1], sizes, activations)]

    def __call__(self, x):
        out = list(x)
        for layer in self.layers:
            out = layer(out)
        return out

    def parameters(self):
        return [p for layer in self.layers for p in layer.parameters()]


def zero_grad(params):
    for p in params:
        p.grad = 0.0


def sgd_step(params, lr):
    for p in params:
        p.data -= lr * p.grad


def train(model, xs, ys, steps, lr):
    params = model.parameters()
    history = []
    for _ in range(steps):
        zero_grad(params)
        losses = [cross_entropy(model(x), y) for x, y in zip(xs, ys)]
        loss = sum(losses[1:], losses[0]) * (1.0 / len(losses))
        history.append(loss.data)
        loss.backward()
        sgd_step(params, lr)
    return history


def accuracy(model, xs, ys):
    hits = 0
    for x, y in zip(xs, ys):
        best, _ = max(enumerate(model(x)), key=lambda pair: pair[1].data)
        hits += int(best == y)
    return hits / len(xs)
