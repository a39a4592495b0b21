# ruff: noqa
"""Tiny neural net library for the XOR task."""
import math
import random

from micrograd.engine import Value


class Module:
    """Anything with trainable parameters."""

    def zero_grad(self):
        """Reset every gradient to zero."""
        for p in self.parameters():
            p.grad = 0.0

    def parameters(self):
        return []


class Neuron(Module):
    """w . x + b, optionally squashed by tanh."""

    def __init__(self, nin, nonlin=True):
        scale = 1 / math.sqrt(nin) if nin else 1.0
        self.w = [Value(random.gauss(0, scale)) for _ in range(nin)]
        self.b = Value(0.0)
        self.nonlin = nonlin

    def __call__(self, x):
        total = self.b
        for weight, inp in zip(self.w, x):
            total = total + weight * inp
        if not self.nonlin:
            return total
        return total.tanh()

    def parameters(self):
        params = list(self.w)
        params.append(self.b)
        return params

    def __repr__(self):
        kind = 'Tanh' if self.nonlin else 'Linear'
        return f'{kind}Neuron({len(self.w)})'


class Layer(Module):
    """A row of neurons with the same input."""

    def __init__(self, nin, nout, nonlin=True):
        self.neurons = [Neuron(nin, nonlin=nonlin) for _ in range(nout)]

    def __call__(self, x):
        result = [neuron(x) for neuron in self.neurons]
        if len(result) == 1:
            return result[0]
        return result

    def parameters(self):
        out = []
        for neuron in self.neurons:
            out.extend(neuron.parameters())
        return out

    def __repr__(self):
        return 'Layer of [' + ', '.join(repr(n) for n in self.neurons) + ']'


class MLP(Module):
    """Hidden tanh layers and a linear output."""

    def __init__(self, nin, nouts):
        self.layers = []
        prev = nin
        for i, width in enumerate(nouts):
            self.layers.append(Layer(prev, width, nonlin=i < len(nouts) - 1))
            prev = width

    def __call__(self, x):
        h = x
        for layer in self.layers:
            h = layer(h)
        return h

    def parameters(self):
        out = []
        for layer in self.layers:
            out.extend(layer.parameters())
        return out

    def __repr__(self):
        return 'MLP of [' + ', '.join(repr(layer) for layer in self.layers) + ']'
