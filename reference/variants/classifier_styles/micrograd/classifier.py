"""A correct classifier in other styles than the reference's (for ``grader validate``).

Differences: explicit loops instead of ``sum()``, division as a power, the
cross-entropy as a negated log-probability, activations looked up by name,
the loss scaled by ``1 / n``, ``zero_grad`` at the top of each step, the
prediction found with ``list.index``.
"""

from __future__ import annotations

import math
import random
from typing import Optional, Sequence, Union

from .engine import Value

Input = Sequence[Union[Value, float]]

ACTIVATIONS = ("tanh", "relu", "sigmoid", "linear")


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


def _shifted_exps(logits: list[Value]) -> tuple[float, list[Value], Value]:
    top = max(v.data for v in logits)
    exps = [(v + (-top)).exp() for v in logits]
    total = exps[0]
    for e in exps[1:]:
        total = total + e
    return top, exps, total


def softmax(logits: list[Value]) -> list[Value]:
    """Stable softmax."""
    _, exps, total = _shifted_exps(logits)
    inverse = total ** -1
    return [e * inverse for e in exps]


def cross_entropy(logits: list[Value], target: int) -> Value:
    """-(log p_target) = -(l_target - logsumexp(l))."""
    top, _, total = _shifted_exps(logits)
    log_prob = logits[target] - (total.log() + top)
    return -log_prob


class Neuron:
    def __init__(self, nin: int, activation: str = "tanh") -> None:
        if activation not in ACTIVATIONS:
            raise ValueError(f"activation {activation!r} is not one of {ACTIVATIONS}")
        self.w = []
        for _ in range(nin):
            self.w.append(Value(random.uniform(-1, 1)))
        self.b = Value(random.uniform(-1, 1))
        self.activation = activation

    def __call__(self, x: Input) -> Value:
        act = self.b
        for wi, xi in zip(self.w, x):
            act = act + wi * xi
        return act if self.activation == "linear" else getattr(act, self.activation)()

    def parameters(self) -> list[Value]:
        return [*self.w, self.b]

    def __repr__(self) -> str:
        return f"{self.activation.capitalize()}Neuron({len(self.w)})"


class Layer:
    def __init__(self, nin: int, nout: int, activation: str = "tanh") -> None:
        self.neurons = [Neuron(nin, activation=activation) for _ in range(nout)]

    def __call__(self, x: Input) -> list[Value]:
        outs = []
        for neuron in self.neurons:
            outs.append(neuron(x))
        return outs

    def parameters(self) -> list[Value]:
        params = []
        for neuron in self.neurons:
            params.extend(neuron.parameters())
        return params

    def __repr__(self) -> str:
        return f"Layer of [{', '.join(str(n) for n in self.neurons)}]"


class MLP:
    def __init__(self, nin: int, layer_sizes: list[int], activations: Optional[list[str]] = None) -> None:
        n = len(layer_sizes)
        acts = list(activations) if activations is not None else ["tanh"] * (n - 1) + ["linear"]
        if len(acts) != n:
            raise ValueError(f"expected {n} activations, one per layer, got {len(acts)}")
        bad = [a for a in acts if a not in ACTIVATIONS]
        if bad:
            raise ValueError(f"unknown activation {bad[0]!r}")
        self.activations = acts
        self.layers = []
        for size_in, size_out, act in zip([nin, *layer_sizes], layer_sizes, acts):
            self.layers.append(Layer(size_in, size_out, act))

    def __call__(self, x: Input) -> list[Value]:
        out = x
        for layer in self.layers:
            out = layer(out)
        return out

    def parameters(self) -> list[Value]:
        params = []
        for layer in self.layers:
            params += layer.parameters()
        return params

    def __repr__(self) -> str:
        return f"MLP of [{', '.join(str(layer) for layer in self.layers)}]"


def zero_grad(params: list[Value]) -> None:
    """Given."""
    for p in params:
        p.grad = 0.0


def sgd_step(params: list[Value], lr: float) -> None:
    """Given."""
    for p in params:
        p.data -= lr * p.grad


def train(model: MLP, xs: list[list[float]], ys: list[int], steps: int, lr: float) -> list[float]:
    params = model.parameters()
    history = []
    for _ in range(steps):
        zero_grad(params)
        total = cross_entropy(model(xs[0]), ys[0])
        for x, y in zip(xs[1:], ys[1:]):
            total = total + cross_entropy(model(x), y)
        loss = total * (1.0 / len(xs))
        loss.backward()
        sgd_step(params, lr)
        history.append(float(loss.data))
    return history


def accuracy(model: MLP, xs: list[list[float]], ys: list[int]) -> float:
    hits = 0
    for x, y in zip(xs, ys):
        logits = model(x)
        best = max(logits, key=lambda v: v.data)
        if logits.index(best) == y:
            hits += 1
    return hits / len(ys)
