"""The local gradient of each operation: the answer key of assignment 1's ``_backward`` closures.

A grader part (see ``grader.sandbox.own_parts``): never released to students.
The judge uses it for the graph nodes it makes itself (``"build": "probe"``,
whose local gradients it sends to the sandbox as plain numbers), and the
grader's own ``Value`` (:mod:`.stand_ins`) for its backward pass.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from assignments.shared.probes.engine_probes import FORWARD

LOCAL: dict[str, Callable[..., list[float]]] = {
    # op: (operand values..., output value) -> the local gradient d out / d operand of each operand
    "add": lambda a, b, out: [1.0, 1.0],
    "sub": lambda a, b, out: [1.0, -1.0],
    "mul": lambda a, b, out: [b, a],
    "truediv": lambda a, b, out: [1.0 / b, -a / (b * b)],
    "pow": lambda a, b, out: [b * a ** (b - 1), 0.0],
    "neg": lambda a, out: [-1.0],
    "tanh": lambda a, out: [1.0 - out * out],
    "relu": lambda a, out: [1.0 if a > 0 else 0.0],
    "exp": lambda a, out: [out],
    "log": lambda a, out: [1.0 / a],
    "sigmoid": lambda a, out: [out * (1.0 - out)],
    "sum": lambda *xs: [1.0] * (len(xs) - 1),
}
"""The local gradients of each operation of the probes' vocabulary, on plain floats."""


def local_gradients(op: str, args: list[float]) -> tuple[float, list[float]]:
    """The forward value of ``op`` on ``args`` and its local gradient w.r.t. each operand (NaN outside its domain)."""
    try:
        value = FORWARD[op](*args)
        gradients = LOCAL[op](*args, value)
    except (ArithmeticError, ValueError, TypeError):
        return math.nan, [math.nan] * len(args)
    if isinstance(value, complex) or any(isinstance(g, complex) for g in gradients):  # (-2.0) ** 0.5
        return math.nan, [math.nan] * len(args)
    return value, gradients
