# ruff: noqa
"""Neural network parts built on Value."""

import itertools
import random

from .engine import Value


class Module:

    def zero_grad(self):
        for p in self.parameters():
            p.grad = 0.0

    def parameters(self):
        return []


class Neuron(Module):

    def __init__(self, nin, nonlin=True):
        rng = random.uniform
        self.w = [Value(rng(-1.0, 1.0)) for _ in range(nin)]
        self.b = Value(rng(-1.0, 1.0))
        self.nonlin = nonlin

    def __call__(self, x):
        pre = sum(itertools.starmap(lambda w, v: w * v, zip(self.w, x))) + self.b
        return pre.tanh() if self.nonlin else pre

    def parameters(self):
        yield_all = list(itertools.chain(self.w, [self.b]))
        return yield_all

    def __repr__(self):
        return f"{'Tanh' if self.nonlin else 'Linear'}Neuron({len(self.w)})"


class Layer(Module):

    def __init__(self, nin, nout, **kwargs):
        self.neurons = [Neuron(nin, **kwargs) for _ in range(nout)]

    def __call__(self, x):
        out = [n(x) for n in self.neurons]
        return out if len(out) != 1 else out[0]

    def parameters(self):
        return list(itertools.chain.from_iterable(n.parameters() for n in self.neurons))

    def __repr__(self):
        return f"Layer of [{', '.join(map(str, self.neurons))}]"


class MLP(Module):

    def __init__(self, nin, nouts):
        sizes = [nin] + list(nouts)
        n = len(nouts)
        self.layers = [Layer(sizes[k], sizes[k + 1], nonlin=k < n - 1) for k in range(n)]

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x

    def parameters(self):
        return list(itertools.chain.from_iterable(layer.parameters() for layer in self.layers))

    def __repr__(self):
        return f"MLP of [{', '.join(map(str, self.layers))}]"
