"""Neural-network modules; a Layer holds a weight matrix instead of neurons."""

import random

from micrograd.engine import Value


class Module:

    def zero_grad(self):
        for p in self.parameters():
            p.grad = 0.0

    def parameters(self):
        return []


class Neuron(Module):
    """A single unit, act(w . x + b); usable on its own."""

    def __init__(self, nin, nonlin=True):
        self.w = [Value(random.uniform(-1, 1)) for _ in range(nin)]
        self.b = Value(0.0)
        self.nonlin = nonlin

    def __call__(self, x):
        act = self.b + sum(wi * xi for wi, xi in zip(self.w, x))
        return act.tanh() if self.nonlin else act

    def parameters(self):
        return self.w + [self.b]

    def __repr__(self):
        return f"{'Tanh' if self.nonlin else 'Linear'}Neuron({len(self.w)})"


class Layer(Module):
    """nout units sharing the input: W is nout rows of nin weights, b has nout biases."""

    def __init__(self, nin, nout, nonlin=True):
        self.nin, self.nout, self.nonlin = nin, nout, nonlin
        self.W = [[Value(random.uniform(-1, 1)) for _ in range(nin)] for _ in range(nout)]
        self.b = [Value(0.0) for _ in range(nout)]

    def __call__(self, x):
        x = list(x)
        outs = []
        for row, bias in zip(self.W, self.b):
            act = bias
            for w, xi in zip(row, x):
                act = act + w * xi
            outs.append(act.tanh() if self.nonlin else act)
        return outs[0] if self.nout == 1 else outs

    def parameters(self):
        params = []
        for row, bias in zip(self.W, self.b):
            params.extend(row)
            params.append(bias)
        return params

    def __repr__(self):
        kind = 'Tanh' if self.nonlin else 'Linear'
        return f"Layer of {self.nout} {kind} units ({self.nin} -> {self.nout})"


class MLP(Module):

    def __init__(self, nin, nouts):
        sizes = [nin] + list(nouts)
        self.layers = [Layer(sizes[i], sizes[i + 1], nonlin=(i < len(nouts) - 1))
                       for i in range(len(nouts))]

    def __call__(self, x):
        for layer in self.layers:
            if isinstance(x, Value):
                x = [x]
            x = layer(x)
        return x

    def parameters(self):
        return [p for layer in self.layers for p in layer.parameters()]

    def __repr__(self):
        return f"MLP of [{', '.join(str(layer) for layer in self.layers)}]"
