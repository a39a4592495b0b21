import math
from dataclasses import dataclass
import queue


def scalar_to_value(func):
  """All Value operations can accept scalar values.

  Casts any scalar values that are used in operations with
  Value to Value type.
  """

  def wrapper(*args):
    if isinstance(args[1], (float, int)):
      return func(args[0], Value(args[1]))
    else:
      return func(*args)

  return wrapper


class Value(object):
  def __init__(self, data, _children=(), _op=''):
    self.data = data
    self.operands = []  # list[Operand]
    self.grad = 0
    self.is_enqueued = False
    self.op = _op
    self._op = _op
    self._prev = set(_children)

  @property
  def operands(self):
    return self._operands

  @operands.setter
  def operands(self, operands):
    # the graph the handout's API reads: children in _prev, and a _backward
    # closure that pushes this node's grad to each operand through the local
    # derivative stored at forward time
    self._operands = operands
    self._prev = set(operand.val for operand in operands)

    def _backward():
      for operand in operands:
        operand.val.grad += self.grad * operand.deriv

    self._backward = _backward

  def __repr__(self):
    return f'val={self.data}'

  @scalar_to_value
  def __add__(self, other):
    out = Value(self.data + other.data)
    out.operands = [Operand(self, 1), Operand(other, 1)]
    out.op = '+'
    return out

  @scalar_to_value
  def __sub__(self, other):
    out = Value(self.data - other.data)
    out.operands = [Operand(self, 1), Operand(other, -1)]
    out.op = '-'
    return out

  @scalar_to_value
  def __mul__(self, other):
    out = Value(self.data * other.data)
    out.operands = [Operand(self, other.data), Operand(other, self.data)]
    out.op = '*'
    return out

  @scalar_to_value
  def __truediv__(self, other):
    out = Value(self.data / other.data)
    out.operands = [
      Operand(self, 1 / other.data),
      Operand(other, -self.data / (other.data**2)),
    ]
    out.op = '/'
    return out

  def __pow__(self, other):
    if not isinstance(other, (int, float)):
      raise TypeError('the exponent must be an int or a float')
    out = Value(self.data**other)
    out.operands = [
      Operand(self, other * (self.data ** (other - 1))),
    ]
    out.op = '^'
    return out

  def tanh(self):
    out = Value(math.tanh(self.data))
    out.operands = [Operand(self, 1 - (out.data**2))]
    out.op = 'tanh'
    return out

  def exp(self):
    out = Value(math.exp(self.data))
    out.operands = [Operand(self, out.data)]
    out.op = 'exp'
    return out

  def log(self):
    out = Value(math.log(self.data))
    out.operands = [Operand(self, 1.0 / self.data)]
    out.op = 'log'
    return out

  def relu(self):
    out = Value(self.data if self.data > 0 else 0.0)
    out.operands = [Operand(self, 1.0 if self.data > 0 else 0.0)]
    out.op = 'relu'
    return out

  def sigmoid(self):
    x = self.data
    s = 1 / (1 + math.exp(-x)) if x >= 0 else math.exp(x) / (1 + math.exp(x))
    out = Value(s)
    out.operands = [Operand(self, s * (1 - s))]
    out.op = 'sigmoid'
    return out

  def __neg__(self):
    return self * -1

  def __rmul__(self, other):
    return self * other

  def __radd__(self, other):
    return self + other

  def __rsub__(self, other):
    return Value(other) - self

  def __rtruediv__(self, other):
    return Value(other) / self

  def __rpow__(self, other):
    return Value(other) ** self

  def backward(self):
    topo = []
    visited = set()

    def build_topo(v):
      if v not in visited:
        visited.add(v)
        for child in v._prev:
          build_topo(child)
        topo.append(v)

    build_topo(self)

    self.grad = 1
    for v in reversed(topo):
      v._backward()

  def zero_grad(self):
    self.grad = 0
    self.is_enqueued = False
    for operand in self.operands:
      operand.val.zero_grad()


@dataclass
class Operand:
  val: Value
  deriv: float
