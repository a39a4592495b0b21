# ruff: noqa
import random

from micrograd.engine import Value


class Module:

    def zero_grad(self):
        for parameter in self.parameters():
            parameter.grad = 0.0

    def parameters(self):
        return []


class Neuron(Module):

    def __init__(self, nin, nonlin=True):
        self.nonlin = nonlin
        self.w = []
        i = 0
        while i < nin:
            self.w.append(Value(random.uniform(-1, 1)))
            i += 1
        self.b = Value(random.uniform(-1, 1))

    def __call__(self, x):
        if len(x) != len(self.w):
            raise ValueError('expected %d inputs, got %d' % (len(self.w), len(x)))
        activation = self.b
        for w_i, x_i in zip(self.w, x):
            activation += w_i * x_i
        return activation.tanh() if self.nonlin else activation

    def parameters(self):
        return self.w + [self.b]

    def __repr__(self):
        return '%sNeuron(%d)' % ('Tanh' if self.nonlin else 'Linear', len(self.w))


class Layer(Module):

    def __init__(self, nin, nout, **kwargs):
        self.nin = nin
        self.neurons = [Neuron(nin, **kwargs) for _ in range(nout)]

    def __call__(self, x):
        values = [neuron(x) for neuron in self.neurons]
        return values[0] if len(values) == 1 else values

    def parameters(self):
        return sum((neuron.parameters() for neuron in self.neurons), [])

    def __repr__(self):
        return 'Layer of [%s]' % ', '.join(str(n) for n in self.neurons)


class MLP(Module):

    def __init__(self, nin, nouts):
        self.layers = []
        sizes = [nin] + list(nouts)
        for idx in range(len(nouts)):
            self.layers.append(Layer(sizes[idx], sizes[idx + 1], nonlin=idx + 1 < len(nouts)))

    def __call__(self, x):
        out = x
        for layer in self.layers:
            out = layer(out)
        return out

    def parameters(self):
        return sum((layer.parameters() for layer in self.layers), [])

    def __repr__(self):
        return 'MLP of [%s]' % ', '.join(str(layer) for layer in self.layers)
