"""A small neural-network library on top of :mod:`micrograd.engine`.

``Neuron`` computes ``tanh(w . x + b)`` (or ``w . x + b`` when linear),
``Layer`` is a list of neurons fed the same input, and ``MLP`` chains layers:
tanh hidden layers and a linear output layer. ``parameters()`` returns the
live ``Value`` objects in a fixed order (layer by layer, neuron by neuron,
each neuron's weights then its bias), so an optimiser can update them in
place: ``p.data -= lr * p.grad``.
"""

from __future__ import annotations

import random
from typing import Sequence, Union

from .engine import Value

Input = Sequence[Union[Value, float]]


class Module:
    """Base class of everything that has parameters."""

    def zero_grad(self) -> None:
        """Set the gradient of every parameter to 0.0, in place.

        Gradients accumulate, so this must run before each backward pass of
        a training step.
        """
        raise NotImplementedError("Task 3.4: implement Module.zero_grad")

    def parameters(self) -> list[Value]:
        """Return the live parameter objects (a module with none returns [])."""
        return []


class Neuron(Module):
    """One neuron: ``act(w . x + b)`` with ``nin`` weights and a bias.

    Args:
        nin: Number of inputs.
        nonlin: Apply tanh when True; stay linear when False.
    """

    def __init__(self, nin: int, nonlin: bool = True) -> None:
        raise NotImplementedError("Task 3.1: implement Neuron.__init__")

    def __call__(self, x: Input) -> Value:
        """Forward pass for one input vector of length ``nin``."""
        raise NotImplementedError("Task 3.1: implement Neuron.__call__")

    def parameters(self) -> list[Value]:
        """Return the weights, then the bias."""
        raise NotImplementedError("Task 3.1: implement Neuron.parameters")

    def __repr__(self) -> str:
        return f"{'Tanh' if self.nonlin else 'Linear'}Neuron({len(self.w)})"


class Layer(Module):
    """``nout`` neurons that each see the same ``nin`` inputs.

    Args:
        nin: Number of inputs.
        nout: Number of neurons (outputs).
        **kwargs: Passed to each :class:`Neuron` (e.g. ``nonlin=False``).
    """

    def __init__(self, nin: int, nout: int, **kwargs: bool) -> None:
        raise NotImplementedError("Task 3.2: implement Layer.__init__")

    def __call__(self, x: Input) -> Union[Value, list[Value]]:
        """Forward pass: a single Value when ``nout == 1``, else a list."""
        raise NotImplementedError("Task 3.2: implement Layer.__call__")

    def parameters(self) -> list[Value]:
        """Return every neuron's parameters, neuron by neuron."""
        raise NotImplementedError("Task 3.2: implement Layer.parameters")

    def __repr__(self) -> str:
        return f"Layer of [{', '.join(str(n) for n in self.neurons)}]"


class MLP(Module):
    """A multi-layer perceptron: tanh hidden layers and a linear output layer.

    Args:
        nin: Number of inputs.
        nouts: Width of each layer, the last one being the output layer;
            ``MLP(2, [4, 4, 1])`` has 2*4+4 + 4*4+4 + 4*1+1 = 37 parameters.
    """

    def __init__(self, nin: int, nouts: list[int]) -> None:
        raise NotImplementedError("Task 3.3: implement MLP.__init__")

    def __call__(self, x: Input) -> Union[Value, list[Value]]:
        """Forward pass through every layer in turn."""
        raise NotImplementedError("Task 3.3: implement MLP.__call__")

    def parameters(self) -> list[Value]:
        """Return every layer's parameters, layer by layer."""
        raise NotImplementedError("Task 3.3: implement MLP.parameters")

    def __repr__(self) -> str:
        return f"MLP of [{', '.join(str(layer) for layer in self.layers)}]"
