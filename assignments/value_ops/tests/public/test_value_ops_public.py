"""Public tests for assignment 1 (shipped to students).

Each test builds a tiny graph with your ``Value``, sets ``out.grad`` by hand
and runs the ``_backward`` closures (no ``backward()`` needed), then checks
the forward value and the gradient that reached each input. Expected values
are computed by hand, so these tests run without any solution.
"""

import pytest

from assignments.shared.checks.contracts import VALUE
from assignments.shared.checks.derived import BaseCalls
from assignments.shared.checks import graphs
from assignments.shared.checks.graphs import const
from assignments.shared.checks.graph_checks import compare_graph
from grader.testing.contracts import check_contract

pytestmark = [pytest.mark.contract(VALUE), pytest.mark.base_of.with_args(BaseCalls)]


def expect(spec, data, grads):
    """A graph result with the given output value and leaf gradients."""
    n = len(spec["leaves"]) + len(spec["nodes"])
    return {"data": list(spec["leaves"]) + [float("nan")] * (n - len(spec["leaves"]) - 1) + [data],
            "grad": list(grads) + [float("nan")] * (n - len(grads))}


def check_one(check, student, spec, data, grads, title, method, hint):
    with check.case(title, method=method, hint=hint):
        n = len(spec["leaves"]) + len(spec["nodes"])
        compare_graph(student("graph", spec), expect(spec, data, grads), spec, data_nodes=[n - 1])


@pytest.mark.points(0)
def test_value_contract(student, check):
    """Value(data, children, op) keeps data, grad = 0, _prev and _op"""
    check_contract(check, student, VALUE)


@pytest.mark.points(2)
@pytest.mark.task("1.1")
def test_add(student, check):
    """Value.__add__: forward value and local gradients"""
    hint = "d(a+b)/da = d(a+b)/db = 1: each operand gets out.grad, added with +="
    check_one(check, student, graphs.binary("add", 2.0, -3.0), -1.0, [1.0, 1.0], "x0 + x1 at (2, -3)", "Value.__add__", hint)
    check_one(check, student, graphs.binary("add", 2.0, -3.0, seed=2.5), -1.0, [2.5, 2.5],
              "x0 + x1 with out.grad = 2.5", "Value.__add__", "multiply the local gradient by out.grad")
    check_one(check, student, graphs.spec([3.0], [["add", 0, 0]], mode="local", seed=1.5), 6.0, [3.0],
              "x0 + x0 at 3 with out.grad = 1.5 (one Value on both sides)", "Value.__add__",
              "both operands are the same Value: use += so the two contributions add up")


@pytest.mark.points(2)
@pytest.mark.task("1.2")
def test_mul(student, check):
    """Value.__mul__: forward value and local gradients"""
    hint = "d(a*b)/da = b and d(a*b)/db = a: multiply out.grad by the other operand's data"
    check_one(check, student, graphs.binary("mul", 2.0, -3.0), -6.0, [-3.0, 2.0], "x0 * x1 at (2, -3)", "Value.__mul__", hint)
    check_one(check, student, graphs.binary("mul", 2.0, -3.0, seed=0.5), -6.0, [-1.5, 1.0],
              "x0 * x1 with out.grad = 0.5", "Value.__mul__", "multiply the local gradient by out.grad")
    check_one(check, student, graphs.spec([3.0], [["mul", 0, 0]], mode="local"), 9.0, [6.0],
              "x0 * x0 at 3 (one Value on both sides)", "Value.__mul__",
              "both operands are the same Value: use += so the two contributions add up")


@pytest.mark.points(2)
@pytest.mark.task("1.3")
def test_pow(student, check):
    """Value.__pow__: forward value and local gradient"""
    hint = "d(a**n)/da = n * a**(n-1), times out.grad"
    check_one(check, student, graphs.binary("pow", 3.0, const(2)), 9.0, [6.0], "x0 ** 2 at 3", "Value.__pow__", hint)
    check_one(check, student, graphs.binary("pow", 2.0, const(-1)), 0.5, [-0.25], "x0 ** -1 at 2", "Value.__pow__", hint)
    check_one(check, student, graphs.binary("pow", 4.0, const(0.5)), 2.0, [0.25], "x0 ** 0.5 at 4", "Value.__pow__", hint)
    # x0 reused through two operations; the `+` joining them is the grader's own node
    reuse = graphs.spec([2.0], [["pow", 0, const(2)], ["pow", 0, const(3)], ["add", 1, 2]], mode="local", built=[3])
    check_one(check, student, reuse, 12.0, [16.0], "x0 ** 2 + x0 ** 3 at 2 (x0 feeds two nodes)", "Value.__pow__",
              "x0 feeds two nodes: each _backward must add (+=) to x0.grad, not overwrite it")


@pytest.mark.points(2)
@pytest.mark.task("1.4")
def test_neg_sub_div(student, check):
    """Value.__neg__, __sub__, __truediv__: forward values and gradients"""
    check_one(check, student, graphs.unary("neg", 2.0), -2.0, [-1.0], "-x0 at 2", "Value.__neg__",
              "-a is a * -1, so d(-a)/da = -1")
    check_one(check, student, graphs.binary("sub", 5.0, 2.0), 3.0, [1.0, -1.0], "x0 - x1 at (5, 2)", "Value.__sub__",
              "a - b is a + (-b): d/da = 1, d/db = -1")
    check_one(check, student, graphs.binary("truediv", 3.0, 2.0), 1.5, [0.5, -0.75], "x0 / x1 at (3, 2)",
              "Value.__truediv__", "a / b is a * b**-1: d/da = 1/b, d/db = -a/b**2")


@pytest.mark.points(2)
@pytest.mark.task("1.4")
def test_plain_numbers(student, check):
    """Plain numbers on either side: x + 1, 1 + x, 2 * x, 3 - x, 1 / x"""
    cases = [
        ("add", [0, const(1)], 3.0, 1.0, "x0 + 1", "Value.__add__", "wrap a plain number in a Value first"),
        ("add", [const(1), 0], 3.0, 1.0, "1 + x0", "Value.__radd__", "1 + x calls x.__radd__(1)"),
        ("mul", [const(2), 0], 4.0, 2.0, "2 * x0", "Value.__rmul__", "2 * x calls x.__rmul__(2)"),
        ("sub", [const(3), 0], 1.0, -1.0, "3 - x0", "Value.__rsub__", "3 - x calls x.__rsub__(3), which is 3 + (-x)"),
        ("truediv", [const(1), 0], 0.5, -0.25, "1 / x0", "Value.__rtruediv__", "1 / x calls x.__rtruediv__(1), which is 1 * x**-1"),
    ]
    for op, operands, data, grad, title, method, hint in cases:
        spec = graphs.spec([2.0], [[op, *operands]], mode="local")
        check_one(check, student, spec, data, [grad], f"{title} at x0 = 2", method, hint)
