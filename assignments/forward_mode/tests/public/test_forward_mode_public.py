"""Public tests for assignment 4 (shipped to students): each operation at a few points, derivative() and the
handout's worked example with gradient().

Expected values come from ``math``: the value of each operation, and its tangent as the central finite
difference of that value along the inputs' tangents (``assignments.forward_mode.checks.expected``), so
these tests check the derivative itself and run without any solution. ``derivative`` and ``gradient``
get functions the grader builds itself (only your ``Dual(val, dot)`` constructor runs inside them), so a
wrong operation costs nothing there.
"""

import math

import pytest

from assignments.forward_mode import checks, derived, domains
from assignments.forward_mode.checks import HINTS, const, expr, function
from assignments.shared.probes.engine_probes import describe_node


def one_op(check, student, leaves, node, method=None):
    """One operation on the leaves, compared with math (derived operations: their base operations named)."""
    spec = expr(leaves, [node])
    method = method or checks.method_of(spec, len(leaves))
    with check.case(f"{describe_node(spec, len(leaves))} with {checks.leaves_text(spec)}", method=method,
                    hint=HINTS[method]):
        got = checks.ask(student, "forward_mode_expr", spec, method)
        want = checks.expected(spec)
        derived.compare_derived(student, checks.expected, spec, got, want, checks.MATH_REL, checks.MATH_ABS)


def outside_domain(check, student, inside, outside):
    """One case: the operation just inside its domain, compared with math, and the exception its docstring promises
    outside it (a divisor of value 0, exp above 709.78, log of a value <= 0)."""
    inside = expr(*inside)
    outside = [expr(*spec) for spec in outside]
    method = checks.method_of(inside, len(inside["leaves"]))
    with check.case(domains.domain_title(inside, outside), method=method, hint=domains.DOMAIN_HINTS[method]):
        domains.domain_case(student, checks.expected, inside, outside, checks.MATH_REL, checks.MATH_ABS)


@pytest.mark.points(1.5)
@pytest.mark.task("4.1")
def test_add_neg(student, check):
    """Dual.__add__ and Dual.__neg__: value and tangent"""
    one_op(check, student, [(2.0, 0.5), (-3.0, 1.5)], ["add", 0, 1])
    one_op(check, student, [(2.0, 0.5)], ["add", 0, const(3)])
    one_op(check, student, [(-1.5, 2.0)], ["add", 0, const(0.25)])
    one_op(check, student, [(2.0, 0.5)], ["neg", 0])


@pytest.mark.points(1.5)
@pytest.mark.task("4.1")
def test_sub_and_reflected(student, check):
    """Dual.__sub__, __radd__, __rsub__: x - y, x - 3, 3 + x, sum([...]), 3 - x"""
    one_op(check, student, [(2.0, 0.5), (-3.0, 1.5)], ["sub", 0, 1])
    one_op(check, student, [(2.0, 0.5)], ["sub", 0, const(3)])
    one_op(check, student, [(2.0, 0.5)], ["add", const(3), 0])
    one_op(check, student, [(2.0, 0.5), (-3.0, 1.5), (1.0, -1.0)], ["sum", 0, 1, 2])
    one_op(check, student, [(2.0, 0.5)], ["sub", const(3), 0])


@pytest.mark.points(2)
@pytest.mark.task("4.2")
def test_mul_div(student, check):
    """Dual.__mul__, __truediv__ and their reflected forms: x * y, x * x, 3 * x, x / y, 3 / x, x / 0 raises"""
    one_op(check, student, [(2.0, 0.5), (-3.0, 1.5)], ["mul", 0, 1])
    one_op(check, student, [(3.0, 0.5)], ["mul", 0, 0])
    one_op(check, student, [(2.0, 0.5)], ["mul", 0, const(3)])
    one_op(check, student, [(2.0, 0.5)], ["mul", const(3), 0])
    one_op(check, student, [(3.0, 0.5), (2.0, -1.5)], ["truediv", 0, 1])
    one_op(check, student, [(3.0, 0.5)], ["truediv", 0, const(4)])
    one_op(check, student, [(2.0, 0.5)], ["truediv", const(3), 0])
    outside_domain(check, student, ([(3.0, 0.5), (0.125, -1.5)], [["truediv", 0, 1]]),
                   [([(3.0, 0.5), (0.0, -1.5)], [["truediv", 0, 1]])])


@pytest.mark.points(1)
@pytest.mark.task("4.3")
def test_pow(student, check):
    """Dual.__pow__: x ** 2, x ** -1, x ** 0.5, and a Dual exponent raises TypeError"""
    one_op(check, student, [(3.0, 0.5)], ["pow", 0, const(2)])
    one_op(check, student, [(2.0, 0.5)], ["pow", 0, const(-1)])
    one_op(check, student, [(4.0, 0.5)], ["pow", 0, const(0.5)])
    value = expr([(1.5, 0.5)], [["pow", 0, const(3)]])
    spec = expr([(1.5, 0.5), (3.0, 0.5)], [["pow", 0, 1]])
    with check.case("x0 ** x1 with x1 = Dual(3.0, 0.5): TypeError (and x0 ** 3)", method="Dual.__pow__",
                    hint="the exponent must be an int or a float: raise TypeError for anything else, a Dual included"):
        got = checks.ask(student, "forward_mode_expr", value, "Dual.__pow__")
        checks.compare(got, checks.expected(value), value, checks.MATH_REL, checks.MATH_ABS)
        checks.dual_exponent(student, spec)


@pytest.mark.points(2)
@pytest.mark.task("4.4")
def test_functions(student, check):
    """Dual.sin, cos, exp, log, tanh: value and tangent (input tangent 0.5, so the chain factor counts), tanh(±800) is ±1 (no overflow), exp(710) and log(-2) raise"""
    for op in ("sin", "cos", "exp", "log", "tanh"):
        one_op(check, student, [(0.7, 0.5)], [op, 0])
    one_op(check, student, [(-1.2, 1.0)], ["tanh", 0])
    one_op(check, student, [(800.0, 0.5)], ["tanh", 0])
    one_op(check, student, [(-800.0, 0.5)], ["tanh", 0])
    outside_domain(check, student, ([(709.0, 0.5)], [["exp", 0]]), [([(710.0, 0.5)], [["exp", 0]])])
    outside_domain(check, student, ([(0.01, 0.5)], [["log", 0]]),
                   [([(-2.0, 0.5)], [["log", 0]]), ([(0.0, 0.5)], [["log", 0]])])


@pytest.mark.points(1)
@pytest.mark.task("4.5")
def test_derivative_at_a_point(student, check):
    """derivative(f, x): f(x) = sin(x) * x**2 at 1.3, and a constant function"""
    spec = function([1.3], [["sin", 0], ["pow", 0, const(2)], ["mul", 1, 2]])
    want = math.cos(1.3) * 1.3**2 + math.sin(1.3) * 2 * 1.3
    with check.case("derivative(f, 1.3) for f(x) = sin(x) * x**2 (the grader's f)", method="derivative",
                    hint=HINTS["derivative"]):
        checks.judge_derivative(checks.ask(student, "forward_mode_derivative", spec, "derivative"), spec, want)
    constant = function([2.0], constant=5.0)
    with check.case("derivative(f, 2.0) for f(x) = 5.0, a plain number", method="derivative",
                    hint=HINTS["derivative"]):
        checks.judge_derivative(checks.ask(student, "forward_mode_derivative", constant, "derivative"), constant, 0.0)


@pytest.mark.points(1)
@pytest.mark.task("4.6")
def test_gradient_worked_example(student, check):
    """gradient(f, 2, 3) for the handout's f(x, y) = x**2 * y + sin(x * y): two passes"""
    spec = function([2.0, 3.0], [["pow", 0, const(2)], ["mul", 2, 1], ["mul", 0, 1], ["sin", 4], ["add", 3, 5]])
    want = [12 + 3 * math.cos(6), 4 + 2 * math.cos(6)]
    with check.case("gradient(f, 2, 3) for f(x, y) = x**2 * y + sin(x * y) (the grader's f)", method="gradient",
                    hint=HINTS["gradient"]):
        checks.judge_gradient(checks.ask(student, "forward_mode_gradient", spec, "gradient"), spec, want)
