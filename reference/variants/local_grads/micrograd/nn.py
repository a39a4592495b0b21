import random

from .engine import Value


class Module:

    def zero_grad(self):
        for param in self.parameters():
            param.grad = 0.0

    def parameters(self):
        return []


class Neuron(Module):

    def __init__(self, nin, nonlin=True):
        self.w = [Value(random.uniform(-1.0, 1.0)) for _ in range(nin)]
        self.b = Value(0.0)
        self.nonlin = nonlin

    def __call__(self, x):
        products = [wi * xi for wi, xi in zip(self.w, x)]
        act = sum(products) + self.b
        return act.tanh() if self.nonlin else act

    def parameters(self):
        return list(self.w) + [self.b]

    def __repr__(self):
        return f"{'Tanh' if self.nonlin else 'Linear'}Neuron({len(self.w)})"


class Layer(Module):

    def __init__(self, nin, nout, **kwargs):
        self.neurons = [Neuron(nin, **kwargs) for _ in range(nout)]

    def __call__(self, x):
        outs = [neuron(x) for neuron in self.neurons]
        if len(outs) == 1:
            return outs[0]
        return outs

    def parameters(self):
        out = []
        for neuron in self.neurons:
            out.extend(neuron.parameters())
        return out

    def __repr__(self):
        return f"Layer of [{', '.join(str(n) for n in self.neurons)}]"


class MLP(Module):

    def __init__(self, nin, nouts):
        sizes = [nin] + list(nouts)
        self.layers = []
        for i in range(len(nouts)):
            hidden = i + 1 < len(nouts)
            self.layers.append(Layer(sizes[i], sizes[i + 1], nonlin=hidden))

    def __call__(self, x):
        for layer in self.layers:
            if isinstance(x, Value):
                x = [x]
            x = layer(x)
        return x

    def parameters(self):
        out = []
        for layer in self.layers:
            out.extend(layer.parameters())
        return out

    def __repr__(self):
        return f"MLP of [{', '.join(str(layer) for layer in self.layers)}]"
