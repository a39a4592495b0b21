# ruff: noqa
import random
from .engine import Value


class Module:

    def zero_grad(self):
        ps = self.parameters()
        for i in range(len(ps)):
            ps[i].grad = 0.0

    def parameters(self):
        return []


class Neuron(Module):

    def __init__(self, nin, nonlin=True):
        self.weights = [Value(random.random() * 2 - 1) for i in range(nin)]
        self.bias = Value(random.random() * 2 - 1)
        self.nonlin = nonlin

    @property
    def w(self):
        return self.weights

    @property
    def b(self):
        return self.bias

    def __call__(self, x):
        s = sum([self.weights[i] * x[i] for i in range(len(self.weights))]) + self.bias
        if self.nonlin:
            s = s.tanh()
        return s

    def parameters(self):
        return self.weights + [self.bias]

    def __repr__(self):
        return ('Tanh' if self.nonlin else 'Linear') + 'Neuron(' + str(len(self.weights)) + ')'


class Layer(Module):

    def __init__(self, nin, nout, **kwargs):
        self.neurons = [Neuron(nin, **kwargs) for i in range(nout)]

    def forward(self, x):
        return [neuron(x) for neuron in self.neurons]

    def __call__(self, x):
        outs = self.forward(x)
        if len(outs) > 1:
            return outs
        return outs[0]

    def parameters(self):
        ps = []
        for neuron in self.neurons:
            ps = ps + neuron.parameters()
        return ps

    def __repr__(self):
        return 'Layer of [' + ', '.join([str(n) for n in self.neurons]) + ']'


class MLP(Module):

    def __init__(self, nin, nouts):
        dims = [nin] + nouts
        self.layers = []
        for i in range(len(nouts)):
            is_last = (i == len(nouts) - 1)
            self.layers.append(Layer(dims[i], dims[i + 1], nonlin=not is_last))

    def __call__(self, x):
        for i in range(len(self.layers)):
            x = self.layers[i](x)
            if i < len(self.layers) - 1 and not isinstance(x, list):
                x = [x]
        return x

    def parameters(self):
        ps = []
        for layer in self.layers:
            ps = ps + layer.parameters()
        return ps

    def __repr__(self):
        return 'MLP of [' + ', '.join([str(l) for l in self.layers]) + ']'
