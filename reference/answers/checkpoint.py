"""The checkpoint's answers that the reference engine computes: a number question's key may name one of these
(``{reference: chain_rule}`` in ``reference/answers/checkpoint.yaml``), and the judge calls it with the student's own
numbers, so the expected gradient is what the reference's ``backward()`` gives.

The judge loads this module inside the reference solution's package (so ``.engine`` is ``reference/micrograd/engine.py``):
:func:`grader.judge.reference.load_answers_module`. It lives beside the key, never in ``reference/micrograd/``, whose
modules become the student template.
"""

from __future__ import annotations

from .engine import Value


def chain_rule(a: float, b: float, c: float) -> float:
    """df/da for f = (a*b + c)**2 (by hand: 2*(a*b + c)*b)."""
    x = Value(a)
    f = (x * b + c) ** 2
    f.backward()
    return x.grad


def sanity_check(a: float, b: float) -> float:
    """a.grad after micrograd's sanity check (its ``README.md``, ``test/test_engine.py``) run from ``a`` and ``b``
    (the original's a = -4, b = 2 gives 138.8338)."""
    x, y = Value(a), Value(b)
    c = x + y
    d = x * y + y**3
    c += c + 1
    c += 1 + c + (-x)
    d += d * 2 + (y + x).relu()
    d += 3 * d + (y - x).relu()
    e = c - d
    f = e**2
    g = f / 2.0
    g += 10.0 / f
    g.backward()
    return x.grad
