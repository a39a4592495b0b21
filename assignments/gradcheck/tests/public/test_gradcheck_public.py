"""Public tests of assignment 7 (students run them with ``grader check``; there is no reference here).

Every function given to your code is made by the grader node by node: its forward values with ``math``, its
``_backward`` closures with local gradients the grader computed at the point xs. A *broken* function is the same
one with a wrong local gradient somewhere, as a buggy operation would have. Your ``gradcheck`` must pass the right
ones and flag the broken ones; each case holds both, in an order only the grader knows. Expected values are central
differences the test computes with ``math``.
"""

from __future__ import annotations

import math
import random

import pytest

from assignments.gradcheck.checks import (
    Item,
    broken,
    central,
    check_counts,
    check_numerical,
    check_restores_when_raising,
    check_verdicts,
    correct,
    function,
    helpers_first,
    numbers_close,
    numbers_text,
    point,
)
from assignments.gradcheck.probes import expression
from assignments.shared.checks.graphs import const
from grader.testing import Failure

MUL_TANH = function([0.5, -2.0], [["mul", 0, 1], ["tanh", 0], ["add", 2, 3]])
"""a * b + a.tanh() at (0.5, -2.0): nodes n2 = x0 * x1, n3 = x0.tanh(), n4 = n2 + n3."""
COSH5 = function([0.0], [["mul", 0, const(5.0)], ["exp", 1], ["mul", 0, const(-5.0)], ["exp", 3], ["add", 2, 4]])
"""exp(5x) + exp(-5x) at 0: f' = 0, f'' = 50 (a forward difference with h = 1e-6 gives 2.5e-5 > atol)."""
LARGE = function([14.0, 1.5], [["exp", 0], ["mul", 2, 1]])
"""exp(x0) * x1 at (14, 1.5): gradients near 1.8e6 (only a relative tolerance works)."""
TINY = function([0.5, 0.001], [["mul", 0, 1]])
"""x0 * x1 at (0.5, 0.001): d/dx0 = 0.001 (only a small absolute tolerance sees a factor 2 on it)."""
SQUARE = function([1.5], [["mul", 0, 0], ["add", 1, 0]])
"""x0 * x0 + x0 at 1.5."""
SECOND = function([0.3, 0.7], [["mul", 0, const(2.0)], ["tanh", 1], ["add", 2, 3]])
"""x0 * 2 + x1.tanh() at (0.3, 0.7)."""

CASES = [
    ("a * b + a.tanh() with tanh's local gradient 1 - t instead of 1 - t**2", MUL_TANH,
     broken(MUL_TANH, 3, 0, 1 - math.tanh(0.5), "tanh's _backward uses 1 - t instead of 1 - t**2")),
    ("exp(5x) + exp(-5x) at its minimum (f' = 0, f'' = 50), with exp's local gradient x instead of exp(x)", COSH5,
     broken(COSH5, 5, 0, 0.0, "the second exp's _backward uses x (= 0 here) instead of exp(x)")),
    ("exp(x0) * x1 near 1.8e6, with exp's local gradient 1% too large", LARGE,
     broken(LARGE, 2, 0, math.exp(14.0) * 1.01, "exp's local gradient is 1% too large (10 times the tolerance)")),
    ("x0 * x1 with a gradient of 0.001, with a factor 2 on it", TINY,
     broken(TINY, 2, 0, 0.002, "the _backward of * passes 2 * x1 to x0")),
    ("x0 * x0 + x0 with a NaN local gradient", SQUARE,
     broken(SQUARE, 1, 0, math.nan, "the _backward of * passes NaN to x0")),
    ("x0 * 2 + x1.tanh() with a wrong sign on the second input only", SECOND,
     broken(SECOND, 3, 0, -(1 - math.tanh(0.7) ** 2), "tanh's _backward passes its gradient with the wrong sign")),
]
"""Each case: what it is, a correct function, and a broken version of it."""


@pytest.mark.points(4)
@pytest.mark.task("7.3")
def test_gradcheck_public(student, check):
    """gradcheck passes correct functions and flags broken ones"""
    check.first = helpers_first(student)
    for k, (title, spec, wrong) in enumerate(CASES):
        with check.case(f"{title}: f = {expression(spec)} at xs = {point(spec)}", method="gradcheck",
                        hint="compare every input's analytic and numerical gradient with abs(a - n) <= atol + "
                             "rtol * abs(n)"):
            check_verdicts(student, [correct(spec), wrong], random.Random(f"public-{k}"))


@pytest.mark.points(2)
@pytest.mark.task("7.1")
def test_numerical_grad_public(student, check):
    """numerical_grad gives central differences, one input at a time"""
    three = function([0.5, -1.5, 2.0], [["mul", 0, 1], ["mul", 1, 2], ["add", 3, 4], ["tanh", 5]])
    for title, spec, h, as_values in (("a * b + a.tanh(), h = 1e-3", MUL_TANH, 1e-3, False),
                                      ("exp(5x) + exp(-5x) at 0, h = 1e-3", COSH5, 1e-3, False),
                                      ("(a * b + b * c).tanh(), h = 1e-2", three, 1e-2, False),
                                      ("a * b + a.tanh() with xs given as Values", MUL_TANH, 1e-4, True)):
        with check.case(f"numerical_grad on {title}", method="numerical_grad",
                        hint="move one input at a time by +h and -h, and divide the difference by 2 * h"):
            check_numerical(student, spec, h, as_values)


@pytest.mark.points(2)
@pytest.mark.task("7.2")
def test_analytic_grad_public(student, check):
    """analytic_grad gives what backward() gives, on fresh leaves"""
    for title, spec, as_values in (("a * b + a.tanh()", MUL_TANH, False), ("x0 * x0 + x0", SQUARE, False),
                                   ("a * b + a.tanh(), the same Values twice", MUL_TANH, True)):
        with check.case(f"analytic_grad on {title} at {point(spec)}", method="analytic_grad",
                        hint="fresh leaves [Value(x) for x in the point], out = f(*leaves), out.backward(), "
                             "[leaf.grad for leaf in leaves]"):
            got = student("gradcheck_analytic", spec, as_values)
            want = central(spec)
            for which in ("first", "second"):
                if not numbers_close(got[which], want, 1e-6, 1e-7):
                    raise Failure(f"analytic_grad(f, {point(spec)}) ({which} call) gave {numbers_text(got[which])}, "
                                  f"expected {numbers_text(want)}")
            if any(g != 0.0 for g in got["caller_grads"]):
                raise Failure(f"analytic_grad(f, xs) with xs holding Values changed their grads to "
                              f"{numbers_text(got['caller_grads'])}: expected them left at 0.0",
                              hint="use fresh leaves: gradients accumulate in the Values you call backward() through")


@pytest.mark.points(2)
@pytest.mark.task("7.4")
def test_count_ops_public(student, check):
    """count_ops counts each operation once, forward and backward, and restores the closures, even if the pass raises"""
    chain = function([0.3], [["tanh", i] for i in range(5)])
    shared = function([0.7], [["mul", 0, 0], ["mul", 1, 1], ["add", 2, 1]])  # y = x * x; y * y + y
    for title, spec in (("a chain of 5 tanh", chain), ("y * y + y with y = x * x", shared),
                        ("a * b + a.tanh()", MUL_TANH)):
        with check.case(f"count_ops on {title}", method="count_ops",
                        hint="forward: the nodes with children reachable from the output, each once; backward: the "
                             "calls of their wrapped _backward closures during out.backward()"):
            check_counts(student, spec)
            if any(student("gradcheck_count", spec, "once")["not_restored"]):
                raise Failure(f"count_ops(f, {point(spec)}) left counting wrappers in the graph's _backward: "
                              "expected every original closure back", hint="restore the closures in a finally: block")
    with check.case("count_ops on a chain of 5 tanh whose third tanh has a _backward that raises", method="count_ops",
                    hint="put the original closures back in a finally: block, and let the exception go on"):
        check_restores_when_raising(student, chain, 3)
