"""Gradient checking and operation counts for :mod:`micrograd.engine`.

A *gradient check* compares the gradient that ``backward()`` computes (the
*analytic* gradient) with one computed from function values alone (the
*numerical* gradient, by central differences). Finite differences need no
``_backward`` closure, so they catch a wrong local gradient, a missing
``out.grad`` factor or a missing accumulation in any operation.

A function to check is a Python callable taking ``Value``s and returning a
``Value``, evaluated at a point given as numbers::

    f = lambda a, b: a * b + a.tanh()
    gradcheck(f, [0.5, -2.0])       # True for a correct engine

``count_ops`` counts the elementary operations of the forward and the
backward pass, which illustrates Griewank's cheap-gradient principle.
"""

from __future__ import annotations

from typing import Callable, Sequence, Union

from .engine import Value

Function = Callable[..., Value]
Point = Sequence[Union[float, Value]]


def _numbers(xs: Point) -> list[float]:
    """The point as plain floats (a ``Value``'s ``data`` is used, the ``Value`` itself never)."""
    return [float(x.data) if isinstance(x, Value) else float(x) for x in xs]


def numerical_grad(f: Function, xs: Point, h: float = 1e-6) -> list[float]:
    """The gradient of ``f`` at ``xs`` by central differences.

    For each input i, with every other input held at its value::

        df/dx_i ~ (f(x + h e_i) - f(x - h e_i)) / (2 h)

    The truncation error is O(h**2) (the h**2 f'''/6 term of the Taylor
    series; the even terms cancel), against O(h) for the forward difference
    (f(x + h e_i) - f(x)) / h (Nocedal & Wright, *Numerical Optimization*,
    2nd ed., Springer 2006, Section 8.1). Each evaluation builds fresh
    ``Value``s and reads only ``.data``: no ``_backward`` closure is used.

    Args:
        f: Takes ``len(xs)`` ``Value``s and returns a ``Value``.
        xs: The point, as numbers (or ``Value``s, whose ``data`` is used).
        h: The step.

    Returns:
        One partial derivative per input.
    """
    # BEGIN SOLUTION Task 7.1
    point = _numbers(xs)
    grads: list[float] = []
    for i in range(len(point)):
        original = point[i]
        point[i] = original + h
        f_plus = f(*[Value(p) for p in point]).data
        point[i] = original - h
        f_minus = f(*[Value(p) for p in point]).data
        grads.append((f_plus - f_minus) / (2 * h))
        point[i] = original  # restore before perturbing the next input
    return grads
    # END SOLUTION


def analytic_grad(f: Function, xs: Point) -> list[float]:
    """The gradient of ``f`` at ``xs`` by reverse mode: ``backward()``.

    Builds fresh leaf ``Value``s (so no gradient is left over from an earlier
    call and the caller's ``Value``s are never touched), evaluates
    ``out = f(*leaves)``, runs ``out.backward()`` and reads the leaves' grads.

    Args:
        f: Takes ``len(xs)`` ``Value``s and returns a ``Value``.
        xs: The point, as numbers (or ``Value``s, whose ``data`` is used).

    Returns:
        One partial derivative per input.
    """
    # BEGIN SOLUTION Task 7.2
    leaves = [Value(x) for x in _numbers(xs)]
    out = f(*leaves)
    out.backward()
    return [leaf.grad for leaf in leaves]
    # END SOLUTION


def gradcheck(f: Function, xs: Point, atol: float = 1e-5, rtol: float = 1e-3, h: float = 1e-6) -> bool:
    """Whether ``backward()`` agrees with central differences for ``f`` at ``xs``.

    Input i passes when ``|analytic_i - numeric_i| <= atol + rtol * |numeric_i|``,
    the rule of ``numpy.allclose(analytic, numeric, rtol, atol)`` (NumPy
    reference, ``numpy.isclose``): a relative tolerance for large gradients
    plus an absolute one for gradients near 0, where a relative error means
    nothing. The comparison is written so that NaN fails it (every comparison
    with NaN is False).

    Args:
        f: Takes ``len(xs)`` ``Value``s and returns a ``Value``.
        xs: The point, as numbers (or ``Value``s, whose ``data`` is used).
        atol: Absolute tolerance.
        rtol: Relative tolerance, relative to the numerical gradient.
        h: The step of the central differences.

    Returns:
        True when every input passes, False otherwise (also when an analytic
        or numerical gradient is NaN).
    """
    # BEGIN SOLUTION Task 7.3
    numeric = numerical_grad(f, xs, h)
    analytic = analytic_grad(f, xs)
    for a, n in zip(analytic, numeric):
        if not abs(a - n) <= atol + rtol * abs(n):
            return False  # input i fails (a NaN too: every comparison with NaN is False)
    return True
    # END SOLUTION


def count_ops(f: Function, xs: Point) -> tuple[int, int]:
    """Count the elementary operations of ``f``'s forward and backward passes at ``xs``.

    * forward: the non-leaf nodes of the graph that ``f`` builds, each the
      result of one primitive operation (``+``, ``*``, ``**``, ``tanh``, ...).
      Each node is counted once, however many paths lead to it from the
      output; the leaves (the inputs and wrapped constants) are not
      operations. Derived operations count their primitives: ``a - b`` is
      ``a + (b * -1)``, two operations.
    * backward: the ``_backward`` closures of non-leaf nodes that
      ``out.backward()`` calls. Each is wrapped in a counting closure for the
      pass and restored afterwards, so the engine is not changed; a correct
      engine calls each exactly once.

    The *cheap gradient principle* (Griewank & Walther, *Evaluating
    Derivatives*, 2nd ed., SIAM 2008): reverse mode computes the whole
    gradient, whatever the number of inputs, at a cost of at most a small
    constant times the cost of evaluating f. Here: one closure per
    operation, each doing a few multiply-adds.

    Args:
        f: Takes ``len(xs)`` ``Value``s and returns a ``Value``.
        xs: The point, as numbers (or ``Value``s, whose ``data`` is used).

    Returns:
        ``(forward, backward)``.
    """
    # BEGIN SOLUTION Task 7.4
    leaves = [Value(x) for x in _numbers(xs)]
    out = f(*leaves)

    reachable: list[Value] = []
    seen: set[int] = set()  # ids: a Value that defines __eq__ may not be hashable
    stack = [out]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        reachable.append(node)
        stack.extend(node._prev)
    ops = [node for node in reachable if node._prev]
    forward = len(ops)

    calls = [0]

    def counting(closure: Callable[[], None]) -> Callable[[], None]:
        def counted() -> None:
            calls[0] += 1
            closure()

        return counted

    originals = [(node, node._backward) for node in ops]
    for node, closure in originals:
        node._backward = counting(closure)
    try:
        out.backward()
    finally:
        for node, closure in originals:
            node._backward = closure
    return forward, calls[0]
    # END SOLUTION
