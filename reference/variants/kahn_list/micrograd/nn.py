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
        self.w = []
        for _ in range(nin):
            self.w.append(Value(random.uniform(-1, 1)))
        self.b = Value(random.uniform(-1, 1))
        self.nonlin = nonlin

    def __call__(self, x):
        act = self.b
        for i in range(len(self.w)):
            act = act + self.w[i] * x[i]
        if self.nonlin:
            return act.tanh()
        return act

    def parameters(self):
        params = []
        for w in self.w:
            params.append(w)
        params.append(self.b)
        return params

    def __repr__(self):
        return f"{'Tanh' if self.nonlin else 'Linear'}Neuron({len(self.w)})"


class Layer(Module):

    def __init__(self, nin, nout, **kwargs):
        self.neurons = []
        for _ in range(nout):
            self.neurons.append(Neuron(nin, **kwargs))

    def __call__(self, x):
        outs = []
        for n in self.neurons:
            outs.append(n(x))
        if len(outs) == 1:
            return outs[0]
        return outs

    def parameters(self):
        params = []
        for n in self.neurons:
            for p in n.parameters():
                params.append(p)
        return params

    def __repr__(self):
        return f"Layer of [{', '.join(str(n) for n in self.neurons)}]"


class MLP(Module):

    def __init__(self, nin, nouts):
        self.layers = []
        fan_in = nin
        for i in range(len(nouts)):
            last = i == len(nouts) - 1
            self.layers.append(Layer(fan_in, nouts[i], nonlin=not last))
            fan_in = nouts[i]

    def __call__(self, x):
        out = x
        for layer in self.layers:
            if not isinstance(out, (list, tuple)):
                out = [out]
            out = layer(out)
        return out

    def parameters(self):
        params = []
        for layer in self.layers:
            for p in layer.parameters():
                params.append(p)
        return params

    def __repr__(self):
        return f"MLP of [{', '.join(str(layer) for layer in self.layers)}]"
