"""Public tests for assignment 2 (shipped to students).

Expected values come from Python's ``math`` module and from central finite
differences, (f(x+h) - f(x-h)) / 2h, so these tests run without any solution.
"""

import pytest

from grader.testing import graphs
from grader.testing import compare_graph

FD_TOL = 1e-5

UNARY = [
    ("tanh", 0.5, "Value.tanh", "d tanh(x)/dx = 1 - tanh(x)**2: use the output t, not the input x"),
    ("relu", 1.5, "Value.relu", "relu passes out.grad through where the input is positive, 0 elsewhere"),
    ("exp", 0.7, "Value.exp", "d e**x/dx = e**x, the output itself"),
    ("log", 2.5, "Value.log", "d ln(x)/dx = 1/x"),
    ("sigmoid", -0.8, "Value.sigmoid", "ds/dx = s * (1 - s), with s the output"),
]


@pytest.mark.points(1)
@pytest.mark.task("2.1-2.5")
@pytest.mark.parametrize("op,x,method,hint", UNARY, ids=[u[0] for u in UNARY])
def test_unary(student, check, op, x, method, hint):
    """{method}: forward value and local gradient"""
    # relu is the identity or zero: each case takes both signs, so neither answer can be made up alone
    inputs = [x, -x] if op == "relu" else [x]
    for seed in (1.0, -2.0):
        with check.case(f"{' and '.join(f'{op}({v})' for v in inputs)} with out.grad = {seed}", method=method, hint=hint):
            for v in inputs:
                spec = graphs.unary(op, v, seed=seed)
                compare_graph(student("graph", spec), graphs.expected_from_math(spec), spec, rel=FD_TOL, abs_tol=FD_TOL)


@pytest.mark.points(3)
@pytest.mark.task("2.6")
def test_backward_small_expression(student, check):
    """backward() on tanh(x0 * x1 + x0) matches finite differences"""
    spec = graphs.spec([0.5, -1.5], [["mul", 0, 1], ["add", 2, 0], ["tanh", 3]])
    with check.case("n2 = x0 * x1; n3 = n2 + x0; n4 = n3.tanh(); n4.backward()", method="Value.backward",
                    hint="order the nodes topologically, set self.grad = 1.0, then call _backward in reverse order"):
        compare_graph(student("graph", spec), graphs.expected_from_math(spec), spec, rel=FD_TOL, abs_tol=FD_TOL)


@pytest.mark.points(2)
@pytest.mark.task("2.6")
def test_backward_accumulates(student, check):
    """backward() on a + a gives a.grad == 2"""
    spec = graphs.spec([3.0], [["add", 0, 0]])
    with check.case("n1 = x0 + x0; n1.backward()", method="Value.backward",
                    hint="a node used twice must receive both gradients: use += in every _backward"):
        compare_graph(student("graph", spec), graphs.expected_from_math(spec), spec, rel=FD_TOL, abs_tol=FD_TOL)
