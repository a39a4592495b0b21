"""``Module``, ``Linear``, ``Sequential`` and ``SGD``: composing networks the way PyTorch does, on ``Value``.

Assignment 3 built an MLP from ``Neuron`` and ``Layer``. PyTorch composes the
same network from smaller, reusable pieces, and this module rebuilds that
design on micrograd's ``Value``::

    model = Sequential(Linear(2, 4), Tanh(), Linear(4, 1))
    optimizer = SGD(model.parameters(), lr=0.1)
    losses = train(model, xs, ys, optimizer, steps=100)

* A :class:`Module` is anything with parameters that maps a vector (a list
  of ``Value``) to a vector: calling it runs its :meth:`Module.forward`, as
  ``torch.nn.Module.__call__`` does.
* :class:`Linear` computes ``y = W x + b`` with a weight matrix ``W`` of
  ``nout`` rows of ``nin`` weights (``weight[i][j]`` connects input ``j`` to
  output ``i``, PyTorch's layout) and a bias ``b`` of ``nout`` values; its
  ``parameters()`` are the weights row by row, then the bias (PyTorch's order:
  ``weight``, then ``bias``).
* :class:`Tanh` and :class:`ReLU` apply an activation to each item; they have
  no parameters.
* :class:`Sequential` feeds each module's output to the next; its parameters
  are its modules' in order.
* :class:`SGD` updates the parameters it was given: ``p.data -= lr * p.grad``.

Sources: the API follows PyTorch's ``torch.nn.Module``, ``nn.Linear``,
``nn.Sequential`` and ``torch.optim.SGD`` (https://pytorch.org/docs/stable/nn.html);
the initialisation U(-1/sqrt(nin), 1/sqrt(nin)) is ``nn.Linear``'s default.
"""

from __future__ import annotations

import math
import random
from typing import Sequence, Union

from .engine import Value

Vector = Sequence[Union[Value, float]]
"""A module's input: Values, or plain numbers for a network's first layer."""


class Module:
    """Base class of every layer and network: call it on a vector, ask it for its parameters.

    Every subclass defines ``forward(x)``, its forward pass.
    """

    def __call__(self, x: Vector) -> list[Value]:
        """Run the forward pass: ``module(x)`` is ``module.forward(x)``, as in PyTorch."""
        return self.forward(x)  # type: ignore[attr-defined]  # each subclass defines forward

    def parameters(self) -> list[Value]:
        """Return the live parameter objects, in a fixed order (a module without parameters returns [])."""
        return []

    def zero_grad(self) -> None:
        """Set the gradient of every parameter to 0.0, in place.

        Gradients accumulate (``+=``) in ``backward()``, so every training step
        zeroes them before its backward pass.
        """
        raise NotImplementedError("Task 9.1: implement Module.zero_grad")


class Linear(Module):
    """A fully connected layer without activation: ``y_i = sum_j weight[i][j] * x_j + bias[i]``.

    Args:
        nin: Length of the input vector.
        nout: Length of the output vector.

    Attributes:
        nin, nout: The sizes given.
        weight: ``nout`` lists of ``nin`` Values, each drawn from
            ``random.uniform(-k, k)`` with ``k = 1 / math.sqrt(nin)``, row by row.
        bias: ``nout`` Values drawn the same way, after the weights.
    """

    def __init__(self, nin: int, nout: int) -> None:
        raise NotImplementedError("Task 9.2: implement Linear.__init__")

    def forward(self, x: Vector) -> list[Value]:
        """Return the ``nout`` outputs ``W x + b`` (always a list, also when ``nout == 1``)."""
        raise NotImplementedError("Task 9.2: implement Linear.forward")

    def parameters(self) -> list[Value]:
        """Return the weights row by row (``weight[0][0], weight[0][1], ...``), then the bias."""
        raise NotImplementedError("Task 9.2: implement Linear.parameters")

    def __repr__(self) -> str:
        return f"Linear({len(self.weight[0]) if self.weight else 0}, {len(self.weight)})"


class Tanh(Module):
    """The activation ``tanh`` applied to each item of the input."""

    def forward(self, x: Vector) -> list[Value]:
        """Return ``[tanh(x_0), tanh(x_1), ...]``."""
        raise NotImplementedError("Task 9.3: implement Tanh.forward")

    def __repr__(self) -> str:
        return "Tanh()"


class ReLU(Module):
    """The activation ``relu`` (``max(0, x)``) applied to each item of the input."""

    def forward(self, x: Vector) -> list[Value]:
        """Return ``[relu(x_0), relu(x_1), ...]``."""
        raise NotImplementedError("Task 9.3: implement ReLU.forward")

    def __repr__(self) -> str:
        return "ReLU()"


class Sequential(Module):
    """Modules applied one after the other: ``Sequential(a, b, c)(x)`` is ``c(b(a(x)))``.

    Args:
        *modules: The modules, in the order they run.

    Attributes:
        modules: The list of the modules given, in order.
    """

    def __init__(self, *modules: Module) -> None:
        raise NotImplementedError("Task 9.4: implement Sequential.__init__")

    def forward(self, x: Vector) -> list[Value]:
        """Feed ``x`` to the first module, its output to the second, and so on; return the last output."""
        raise NotImplementedError("Task 9.4: implement Sequential.forward")

    def parameters(self) -> list[Value]:
        """Return every module's parameters, module by module."""
        raise NotImplementedError("Task 9.4: implement Sequential.parameters")

    def __repr__(self) -> str:
        return f"Sequential({', '.join(map(repr, self.modules))})"


class SGD:
    """Plain stochastic gradient descent on the parameters it was given.

    Args:
        params: The parameters to update (usually ``model.parameters()``).
        lr: The learning rate.
    """

    def __init__(self, params: Sequence[Value], lr: float) -> None:
        raise NotImplementedError("Task 9.5: implement SGD.__init__")

    def zero_grad(self) -> None:
        """Set every parameter's gradient to 0.0."""
        raise NotImplementedError("Task 9.5: implement SGD.zero_grad")

    def step(self) -> None:
        """Move every parameter against its gradient: ``p.data -= lr * p.grad``."""
        raise NotImplementedError("Task 9.5: implement SGD.step")


def mse_loss(preds: Sequence[Value], targets: Sequence[float]) -> Value:
    """Return the mean squared error ``sum_k (preds[k] - targets[k])**2 / n`` as a Value (n = ``len(preds)``)."""
    raise NotImplementedError("Task 9.6: implement mse_loss")


def train(model: Module, xs: Sequence[Vector], ys: Sequence[float], optimizer: SGD, steps: int) -> list[float]:
    """Full-batch gradient descent of ``mse_loss`` on the model's first output; return each step's loss.

    Each step: the predictions ``model(x)[0]`` of every point, ``loss =
    mse_loss(preds, ys)``, ``optimizer.zero_grad()``, ``loss.backward()``,
    ``optimizer.step()``.

    Returns:
        ``steps`` floats: the loss of each step, before its update.
    """
    raise NotImplementedError("Task 9.6: implement train")
