# ruff: noqa
import random
from functools import reduce

from .engine import Value


class Module:
    def parameters(self):
        return []

    def zero_grad(self):
        for param in self.parameters():
            param.grad = 0


class Neuron(Module):
    def __init__(self, nin, nonlin=True):
        self.w = list(map(lambda _: Value(random.uniform(-1, 1)), range(nin)))
        self.b = Value(random.uniform(-1, 1))
        self.nonlin = nonlin

    def __call__(self, x):
        z = reduce(lambda acc, pair: acc + pair[0] * pair[1], zip(self.w, x), self.b)
        return z.tanh() if self.nonlin else z

    def parameters(self):
        return [*self.w, self.b]

    def __repr__(self):
        return ('Tanh' if self.nonlin else 'Linear') + f'Neuron({len(self.w)})'


class Layer(Module):
    def __init__(self, nin, nout, **kwargs):
        self.neurons = list(map(lambda _: Neuron(nin, **kwargs), range(nout)))

    def __call__(self, x):
        ys = list(map(lambda n: n(x), self.neurons))
        return ys[0] if len(ys) == 1 else ys

    def parameters(self):
        return reduce(lambda acc, n: acc + n.parameters(), self.neurons, [])

    def __repr__(self):
        return 'Layer of [' + ', '.join(map(str, self.neurons)) + ']'


class MLP(Module):
    def __init__(self, nin, nouts):
        sizes = [nin, *nouts]
        last = len(nouts) - 1
        self.layers = [Layer(a, b, nonlin=(i != last)) for i, (a, b) in enumerate(zip(sizes, sizes[1:]))]

    def __call__(self, x):
        return reduce(lambda h, layer: layer(h), self.layers, x)

    def parameters(self):
        return reduce(lambda acc, layer: acc + layer.parameters(), self.layers, [])

    def __repr__(self):
        return 'MLP of [' + ', '.join(map(str, self.layers)) + ']'
