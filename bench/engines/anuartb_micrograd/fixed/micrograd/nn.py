import abc
import random

from .engine import Value


class Module:
  def zero_grad(self):
    for p in self.parameters():
      p.grad = 0

  def parameters(self):
    return []


class Neuron(Module):
  def __init__(self, in_dim, nonlin=True):
    self.w = [Value(random.uniform(-1, 1)) for _ in range(in_dim)]
    self.b = Value(random.uniform(-1, 1))
    self.nonlin = nonlin

  def __call__(self, x):
    act = sum(wi * xi for wi, xi in zip(self.w, x)) + self.b
    out = act.tanh() if self.nonlin else act
    return out

  def parameters(self):
    return self.w + [self.b]


class Layer(Module, abc.ABC):
  @abc.abstractmethod
  def parameters(self):
    pass


class Linear(Layer):
  def __init__(self, in_dim, out_dim, **kwargs):
    self.neurons = [Neuron(in_dim, **kwargs) for _ in range(out_dim)]

  def __call__(self, x):
    # x should be an array of length `in_dim`.
    out = [n(x) for n in self.neurons]
    return out[0] if len(out) == 1 else out

  def parameters(self):
    params = []
    for n in self.neurons:
      params += n.parameters()
    return params


class Net(abc.ABC):
  @abc.abstractmethod
  def __init__(self):
    pass

  @abc.abstractmethod
  def forward(self, x):
    pass

  def __call__(self, x):
    return self.forward(x)

  def parameters(self):
    params = []
    for prop in self.__dict__.values():
      if isinstance(prop, Layer):
        params += prop.parameters()
    return params


class MLP(Net):
  def __init__(self, in_dim, out_dims):
    dims = [in_dim] + out_dims
    self.layers = [
      Linear(dims[i], dims[i + 1], nonlin=i != len(out_dims) - 1)
      for i in range(len(out_dims))
    ]

  def forward(self, x):
    for layer in self.layers:
      x = layer(x)
    return x

  def parameters(self):
    params = []
    for layer in self.layers:
      params += layer.parameters()
    return params

  def zero_grad(self):
    for p in self.parameters():
      p.grad = 0


# the handout's name for a fully connected layer
Layer = Linear
