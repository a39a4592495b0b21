"""A multi-class classifier on top of :mod:`micrograd.engine`: softmax, cross-entropy, SGD.

The data set is the CS231n spiral (three interleaved arms in the plane, one
class per arm); the model is a configurable multi-layer perceptron whose last
layer outputs one *logit* per class; the loss is the mean cross-entropy of
the softmax of the logits, minimised by full-batch gradient descent.

Everything is built from ``Value`` operations (``+ - * / **``, ``exp``,
``log``, ``tanh``, ``relu``, ``sigmoid``), so ``loss.backward()`` gives the
gradient of every weight. This module does not use :mod:`micrograd.nn`: its
``Neuron``, ``Layer`` and ``MLP`` take an activation per layer.

Sources: the spiral and the training loop follow the CS231n notes "Putting it
together: Minimal Neural Network Case Study" (Karpathy, Stanford CS231n,
https://cs231n.github.io/neural-networks-case-study/); the neuron/layer/MLP
structure follows Karpathy's micrograd (``micrograd/nn.py``).
"""

from __future__ import annotations

import math
import random
from typing import Optional, Sequence, Union

from .engine import Value

Input = Sequence[Union[Value, float]]

ACTIVATIONS = ("tanh", "relu", "sigmoid", "linear")
"""The activation names a layer accepts; ``"linear"`` applies none."""


def make_spiral(
    n_per_class: int, n_classes: int = 3, noise: float = 0.2, seed: int = 0
) -> tuple[list[list[float]], list[int]]:
    """Return the CS231n spiral data set: ``n_classes`` arms of ``n_per_class`` points.

    For class j and i = 0 .. n-1 (n = ``n_per_class``)::

        r = i / (n - 1)                                    # radius, 0 .. 1
        t = 4 j + 4 i / (n - 1) + N(0, 1) * noise           # angle, with Gaussian noise
        x = (r sin t, r cos t)

    as in the CS231n case study (``np.linspace`` for r and t, ``np.random.randn``
    for the noise). The noise comes from ``random.Random(seed)``, so the data
    depend only on the arguments, never on the global ``random`` state.

    Args:
        n_per_class: Points per class (the radius of a single point is 0).
        n_classes: Number of classes (arms).
        noise: Standard deviation of the noise added to the angle.
        seed: Seed of the private random generator.

    Returns:
        ``(xs, ys)``: ``n_per_class * n_classes`` points ``[x0, x1]`` and their
        class labels ``0 .. n_classes - 1``, class by class.
    """
    rng = random.Random(seed)
    xs: list[list[float]] = []
    ys: list[int] = []
    for j in range(n_classes):
        for i in range(n_per_class):
            frac = i / (n_per_class - 1) if n_per_class > 1 else 0.0
            r = frac
            t = 4.0 * j + 4.0 * frac + rng.gauss(0.0, 1.0) * noise
            xs.append([r * math.sin(t), r * math.cos(t)])
            ys.append(j)
    return xs, ys


def softmax(logits: list[Value]) -> list[Value]:
    """Return the softmax of ``logits``: p_k = exp(l_k) / sum_j exp(l_j).

    Numerically stable: the largest logit m (a plain float, ``max(l.data)``)
    is subtracted first, p_k = exp(l_k - m) / sum_j exp(l_j - m). This is the
    same function (the factor exp(-m) cancels), but every exponent is <= 0, so
    ``exp`` cannot overflow (``math.exp(1000)`` raises ``OverflowError``) and
    the largest term is exactly 1, so the sum cannot underflow to 0 (Goodfellow,
    Bengio & Courville, *Deep Learning*, MIT Press 2016, Section 4.1). m is a
    constant, so no gradient flows through it; none needs to, since the result
    does not depend on m.

    Args:
        logits: One ``Value`` per class.

    Returns:
        The probabilities, as ``Value``s in the graph (they sum to 1).
    """
    raise NotImplementedError("Task 6.1: implement softmax")


def cross_entropy(logits: list[Value], target: int) -> Value:
    """Return the cross-entropy loss -log softmax(logits)[target].

    Computed stably with the log-sum-exp trick (m = ``max(l.data)``, a
    constant)::

        lse  = m + log(sum_j exp(l_j - m))     # = log(sum_j exp(l_j))
        loss = lse - l_target

    which never forms a probability that could round to 0 (log(0) fails). Its
    gradient is the classic dloss/dl_k = softmax(l)_k - [k == target]
    (Bishop, *Pattern Recognition and Machine Learning*, Springer 2006,
    Section 4.3.4, eq. 4.109; CS231n notes, "Softmax classifier").

    Args:
        logits: One ``Value`` per class.
        target: The index of the true class, ``0 <= target < len(logits)``.

    Returns:
        The loss, a ``Value`` >= 0.
    """
    raise NotImplementedError("Task 6.2: implement cross_entropy")


class Neuron:
    """One neuron: ``act(w . x + b)`` with ``nin`` weights and a bias.

    Args:
        nin: Number of inputs.
        activation: One of ``"tanh"``, ``"relu"``, ``"sigmoid"``, ``"linear"``.

    Raises:
        ValueError: If ``activation`` is not one of those names.
    """

    def __init__(self, nin: int, activation: str = "tanh") -> None:
        raise NotImplementedError("Task 6.3: implement Neuron.__init__")

    def __call__(self, x: Input) -> Value:
        """Forward pass for one input vector of length ``nin``."""
        raise NotImplementedError("Task 6.3: implement Neuron.__call__")

    def parameters(self) -> list[Value]:
        """Return the weights, then the bias."""
        raise NotImplementedError("Task 6.3: implement Neuron.parameters")

    def __repr__(self) -> str:
        return f"{self.activation.capitalize()}Neuron({len(self.w)})"


class Layer:
    """``nout`` neurons with the same activation that each see the same ``nin`` inputs.

    Args:
        nin: Number of inputs.
        nout: Number of neurons (outputs).
        activation: The activation of every neuron (see :class:`Neuron`).
    """

    def __init__(self, nin: int, nout: int, activation: str = "tanh") -> None:
        raise NotImplementedError("Task 6.3: implement Layer.__init__")

    def __call__(self, x: Input) -> list[Value]:
        """Forward pass: the outputs of the neurons, in order (always a list)."""
        raise NotImplementedError("Task 6.3: implement Layer.__call__")

    def parameters(self) -> list[Value]:
        """Return every neuron's parameters, neuron by neuron."""
        raise NotImplementedError("Task 6.3: implement Layer.parameters")

    def __repr__(self) -> str:
        return f"Layer of [{', '.join(str(n) for n in self.neurons)}]"


class MLP:
    """A multi-layer perceptron with one activation per layer.

    Args:
        nin: Number of inputs.
        layer_sizes: Width of each layer, the last one being the output layer
            (one logit per class): ``MLP(2, [16, 16, 3])`` has
            2*16+16 + 16*16+16 + 16*3+3 = 371 parameters.
        activations: One name per layer from ``"tanh"``, ``"relu"``,
            ``"sigmoid"``, ``"linear"``. ``None`` means tanh for every hidden
            layer and linear for the output layer, whose logits must be free
            to leave (-1, 1).

    Raises:
        ValueError: If ``activations`` does not have one entry per layer, or
            names an unknown activation.
    """

    def __init__(self, nin: int, layer_sizes: list[int], activations: Optional[list[str]] = None) -> None:
        raise NotImplementedError("Task 6.3: implement MLP.__init__")

    def __call__(self, x: Input) -> list[Value]:
        """Forward pass through every layer in turn: the logits, a list of ``Value``s."""
        raise NotImplementedError("Task 6.3: implement MLP.__call__")

    def parameters(self) -> list[Value]:
        """Return every layer's parameters, layer by layer."""
        raise NotImplementedError("Task 6.3: implement MLP.parameters")

    def __repr__(self) -> str:
        return f"MLP of [{', '.join(str(layer) for layer in self.layers)}]"


def zero_grad(params: list[Value]) -> None:
    """Set the gradient of every parameter to 0.0, in place.

    ``_backward`` closures accumulate (``+=``), so a training step must clear
    the gradients of the previous step before its ``backward()``. (Given.)
    """
    for p in params:
        p.grad = 0.0


def sgd_step(params: list[Value], lr: float) -> None:
    """One step of gradient descent, in place: ``p.data -= lr * p.grad``.

    The gradient points uphill, so the step goes against it (Cauchy's method
    of steepest descent). (Given.)
    """
    for p in params:
        p.data -= lr * p.grad


def train(model: MLP, xs: list[list[float]], ys: list[int], steps: int, lr: float) -> list[float]:
    """Full-batch gradient descent on the mean cross-entropy of ``model`` over ``(xs, ys)``.

    The model's parameters once; then each step: the loss of every
    point with ``cross_entropy(model(x), y)`` (called by that name: the grader
    tests ``train`` with a stand-in loss in its place), loss = their mean,
    ``zero_grad(params)``, ``loss.backward()``, ``sgd_step(params, lr)``.

    Args:
        model: The network; its parameters are updated in place.
        xs: The input points.
        ys: Their class labels.
        steps: Number of gradient steps.
        lr: Learning rate.

    Returns:
        The loss of each step (before that step's update), as floats.
    """
    raise NotImplementedError("Task 6.4: implement train")


def accuracy(model: MLP, xs: list[list[float]], ys: list[int]) -> float:
    """The fraction of points whose largest logit is the one of their class.

    Ties go to the first largest logit (as ``numpy.argmax``).
    """
    raise NotImplementedError("Task 6.5: implement accuracy")
