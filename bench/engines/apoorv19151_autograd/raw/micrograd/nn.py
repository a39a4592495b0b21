import logging
import math
import random
from abc import ABC, abstractmethod
from typing import List, Dict, Tuple, Optional, Union

# Import Value from autograd
from micrograd.engine import Value

# Configure logging
logging.basicConfig(level = logging.INFO)
logger = logging.getLogger(__name__)

# Weight Initialization
class WeightInitializer:

  @staticmethod
  def xavier_uniform(nin : int, nout : int) -> float:
    limit = math.sqrt(6.0 / (nin + nout))
    return random.uniform(-limit, limit)

  @staticmethod
  def he_uniform(nin : int) -> float:
    limit = math.sqrt(6.0 / nin)
    return random.uniform(-limit, limit)

  @staticmethod
  def he_normal(nin : int) -> float:
    std = math.sqrt(2.0 / nin)
    return random.gauss(0, std)

  @staticmethod
  def normal(mean : float = 0.0, std : float = 0.01) -> float:
    return random.gauss(mean, std)

# Neural Network Component
class Module(ABC):
  """Base class for all neural network modules."""

  @abstractmethod
  def __call__(self, x : List[Value]) -> Union[Value, List[Value]]:
    pass

  @abstractmethod
  def parameters(self) -> List[Value]:
    pass

  def zero_grad(self):
    """Zero out gradients of all parameters."""
    for p in self.parameters():
      p.grad = 0.0

class Neuron:
  def __init__(self, nin : int, activation : str = 'relu', init_method : str = 'he'):
    self.nin = nin
    self.activation = activation

    if init_method == 'he':
      self.w = [Value(WeightInitializer.he_uniform(nin)) for _ in range(nin)]
    elif init_method == 'xavier':
      self.w = [Value(WeightInitializer.xavier_uniform(nin)) for _ in range(nin)]
    elif init_method == 'he_normal':
      self.w = [Value(WeightInitializer.he_normal(nin)) for _ in range(nin)]
    else:
      self.w = [Value(WeightInitializer.normal()) for _ in range(nin)]

    self.b = Value(0.0)

  def __call__(self, x : List[Value]) -> Value:
    assert len(x) == self.nin, f"Expected {self.nin} inputs, got {len(x)}"

    # Linear transformation
    act = sum((wi * xi for wi, xi in zip(self.w, x)), self.b)

    # Apply activation
    if self.activation == 'relu':
      return act.relu()
    elif self.activation == 'tanh':
      return act.tanh()
    elif self.activation == 'sigmoid':
      return act.sigmoid()
    elif self.activation == 'linear':
      return act
    else:
      raise ValueError(f"Unknown activation: {self.activation}")

  def parameters(self) -> List[Value]:
    return self.w + [self.b]

class Layer(Module):
  def __init__(self, nin : int, nout : int, activation : str = 'relu', init_method : str = 'he'):
    self.nin = nin
    self.nout = nout
    self.neurons = [Neuron(nin, activation, init_method) for _ in range(nout)]

  def __call__(self, x : List[Value]) -> List[Value]:
    outputs = [neuron(x) for neuron in self.neurons]
    return outputs

  def parameters(self) -> List[Value]:
    return [p for neuron in self.neurons for p in neuron.parameters()]

class MLP(Module):
  def __init__(self, nin : int, architecture : List[int], activations : Optional[List[str]] = None, init_method : str = 'he'):
    self.nin = nin
    self.architecture = architecture

    if activations is None:
      activations = ['relu'] * (len(architecture) - 1) + ['linear']
    self.activations = activations

    assert len(activations) == len(architecture), "Number of activations must match the number of layers"

    layer_sizes = [nin] + architecture
    self.layers = []

    for i in range(len(architecture)):
      layer = Layer(layer_sizes[i], layer_sizes[i+1], activations[i], init_method)
      self.layers.append(layer)

    logger.info(f"Created MLP with architecture: {nin} -> {' -> '.join(map(str, architecture))}")

  def __call__(self, x : List[Value]) -> List[Value]:
    for layer in self.layers:
      x = layer(x)
    return x

  def parameters(self) -> List[Value]:
    return [p for layer in self.layers for p in layer.parameters()]
