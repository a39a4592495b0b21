"""Small neural network library built on top of the Value class."""
import random

from micrograd.engine import Value


class Module:

    def zero_grad(self):
        # reset gradients before the next backward pass
        for p in self.parameters():
            p.grad = 0.0

    def parameters(self):
        return []


class Neuron(Module):

    def __init__(self, nin, nonlin=True):
        self.w = [Value(random.uniform(-1, 1)) for _ in range(nin)]
        # bias starts at zero, only the weights are random
        self.b = Value(0.0)
        self.nonlin = nonlin

    def __call__(self, x):
        # weighted sum w . x + b
        act = self.b
        for wi, xi in zip(self.w, x):
            act = act + wi * xi
        if self.nonlin:
            return act.tanh()
        return act

    def parameters(self):
        return self.w + [self.b]

    def __repr__(self):
        kind = 'Tanh' if self.nonlin else 'Linear'
        return f"{kind}Neuron({len(self.w)})"


class Layer(Module):

    def __init__(self, nin, nout, **kwargs):
        self.neurons = [Neuron(nin, **kwargs) for _ in range(nout)]

    def __call__(self, x):
        outs = [n(x) for n in self.neurons]
        # a layer with one neuron gives back the Value itself
        if len(outs) == 1:
            return outs[0]
        return outs

    def parameters(self):
        params = []
        for n in self.neurons:
            params.extend(n.parameters())
        return params

    def __repr__(self):
        return f"Layer of [{', '.join(str(n) for n in self.neurons)}]"


class MLP(Module):

    def __init__(self, nin, nouts):
        sizes = [nin] + list(nouts)
        self.layers = []
        for i in range(len(nouts)):
            # tanh everywhere except the output layer
            last = (i == len(nouts) - 1)
            self.layers.append(Layer(sizes[i], sizes[i + 1], nonlin=not last))

    def __call__(self, x):
        for layer in self.layers:
            # a 1-neuron hidden layer returns a bare Value, wrap it again
            if isinstance(x, Value):
                x = [x]
            x = layer(x)
        return x

    def parameters(self):
        params = []
        for layer in self.layers:
            params.extend(layer.parameters())
        return params

    def __repr__(self):
        return f"MLP of [{', '.join(str(l) for l in self.layers)}]"
