"""Correct modules whose activations build their own nodes (for ``grader validate``).

Differences: ``Tanh`` and ``ReLU`` make each output node themselves, ``Value(data, (x,), op)`` with operation names
the engine does not have, and give it a ``_backward`` closure with its input and output bound as default arguments
(micrograd's ``Value.tanh``, written in the module): their gradients are those closures', not the engine's.
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
        for p in self.parameters():
            p.grad = 0.0


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
        self.nin, self.nout = nin, nout
        k = 1.0 / math.sqrt(nin)
        self.weight = [[Value(random.uniform(-k, k)) for _ in range(nin)] for _ in range(nout)]
        self.bias = [Value(random.uniform(-k, k)) for _ in range(nout)]

    def forward(self, x: Vector) -> list[Value]:
        """Return the ``nout`` outputs ``W x + b`` (always a list, also when ``nout == 1``)."""
        return [sum((w * xj for w, xj in zip(row, x)), b) for row, b in zip(self.weight, self.bias)]

    def parameters(self) -> list[Value]:
        """Return the weights row by row (``weight[0][0], weight[0][1], ...``), then the bias."""
        return [w for row in self.weight for w in row] + list(self.bias)

    def __repr__(self) -> str:
        return f"Linear({len(self.weight[0]) if self.weight else 0}, {len(self.weight)})"


class Tanh(Module):
    """The activation ``tanh`` applied to each item of the input."""

    def forward(self, x: Vector) -> list[Value]:
        """Return ``[tanh(x_0), tanh(x_1), ...]``."""
        outs = []
        for xi in x:
            out = Value(math.tanh(xi.data), (xi,), "Tanh")

            def _backward(xi: Value = xi, out: Value = out) -> None:
                xi.grad += (1 - out.data ** 2) * out.grad

            out._backward = _backward
            outs.append(out)
        return outs

    def __repr__(self) -> str:
        return "Tanh()"


class ReLU(Module):
    """The activation ``relu`` (``max(0, x)``) applied to each item of the input."""

    def forward(self, x: Vector) -> list[Value]:
        """Return ``[relu(x_0), relu(x_1), ...]``."""
        outs = []
        for xi in x:
            out = Value(max(0.0, xi.data), (xi,), "ReLU")

            def _backward(xi: Value = xi, out: Value = out) -> None:
                xi.grad += (1.0 if out.data > 0 else 0.0) * out.grad

            out._backward = _backward
            outs.append(out)
        return outs

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
        self.modules = list(modules)

    def forward(self, x: Vector) -> list[Value]:
        """Feed ``x`` to the first module, its output to the second, and so on; return the last output."""
        for module in self.modules:
            x = module(x)
        return list(x)

    def parameters(self) -> list[Value]:
        """Return every module's parameters, module by module."""
        return [p for module in self.modules for p in module.parameters()]

    def __repr__(self) -> str:
        return f"Sequential({', '.join(map(repr, self.modules))})"


class SGD:
    """Plain stochastic gradient descent on the parameters it was given.

    Args:
        params: The parameters to update (usually ``model.parameters()``).
        lr: The learning rate.
    """

    def __init__(self, params: Sequence[Value], lr: float) -> None:
        self.params = list(params)
        self.lr = lr

    def zero_grad(self) -> None:
        """Set every parameter's gradient to 0.0."""
        for param in self.params:
            param.grad = 0.0

    def step(self) -> None:
        """Move every parameter against its gradient: ``p.data -= lr * p.grad``."""
        for param in self.params:
            param.data -= self.lr * param.grad


def mse_loss(preds: Sequence[Value], targets: Sequence[float]) -> Value:
    """Return the mean squared error ``sum_k (preds[k] - targets[k])**2 / n`` as a Value (n = ``len(preds)``)."""
    return sum(((p - t) ** 2 for p, t in zip(preds, targets)), Value(0.0)) * (1.0 / len(preds))


def train(model: Module, xs: Sequence[Vector], ys: Sequence[float], optimizer: SGD, steps: int) -> list[float]:
    """Full-batch gradient descent of ``mse_loss`` on the model's first output; return each step's loss.

    Each step: the predictions ``model(x)[0]`` of every point, ``loss =
    mse_loss(preds, ys)``, ``optimizer.zero_grad()``, ``loss.backward()``,
    ``optimizer.step()``.

    Returns:
        ``steps`` floats: the loss of each step, before its update.
    """
    losses = []
    for _ in range(steps):
        loss = mse_loss([model(x)[0] for x in xs], ys)
        optimizer.zero_grad()  # gradients accumulate: clear the last step's first
        loss.backward()
        optimizer.step()
        losses.append(loss.data)  # a float: the loss before this step's update
    return losses
