"""Hidden tests for assignment 1: every arithmetic operation's forward value
and local gradients, compared with the reference solution on inputs drawn
from a fixed-seed generator (so every submission sees the same cases).

Each case runs in local mode: the probe sets ``out.grad`` and calls the
``_backward`` closures itself, in topological order, so these tests do not
depend on the student's ``backward()``.
"""

import random

import pytest

from assignments.shared.checks.contracts import VALUE
from assignments.shared.checks.derived import BaseCalls
from assignments.shared.checks import graphs
from assignments.shared.checks.graphs import const
from assignments.shared.checks.graph_checks import compare_graph, expression
from grader.testing import StudentFault

pytestmark = [pytest.mark.contract(VALUE), pytest.mark.base_of.with_args(BaseCalls)]

HINTS = {
    "add": ("Value.__add__", "d(a+b)/da = d(a+b)/db = 1: add out.grad to both operands' grad (+=)"),
    "mul": ("Value.__mul__", "d(a*b)/da = b and d(a*b)/db = a: multiply out.grad by the *other* operand's data"),
    "pow": ("Value.__pow__", "d(a**n)/da = n * a**(n-1) * out.grad"),
    "sub": ("Value.__sub__", "a - b = a + (-b), so d/da = 1 and d/db = -1"),
    "truediv": ("Value.__truediv__", "a / b = a * b**-1, so d/da = 1/b and d/db = -a/b**2"),
    "neg": ("Value.__neg__", "-a = a * -1, so d(-a)/da = -1; build it from * so the graph keeps its edge"),
}


def away_from_zero(rng, low=0.3, high=3.0):
    return rng.choice([-1, 1]) * rng.uniform(low, high)


def operand_pair(rng, op):
    if op == "pow":
        exponent = rng.choice([2, 3, -1, 0.5, 1.5, -2])
        base = rng.uniform(0.3, 3.0) if isinstance(exponent, float) else away_from_zero(rng)
        return base, const(exponent)
    if op == "truediv":
        return rng.uniform(-3, 3), away_from_zero(rng)
    return rng.uniform(-3, 3), rng.uniform(-3, 3)


def run_cases(check, student, reference, specs, method, hint):
    for title, spec in specs:
        with check.case(title, method=method, hint=hint):
            compare_graph(student("graph", spec), reference("graph", spec), spec)


@pytest.mark.points(3)
@pytest.mark.task("1.1-1.4")
@pytest.mark.parametrize("op", ["add", "mul", "pow", "sub", "truediv", "neg"])
def test_local_gradients(student, reference, check, op):
    """{op}: forward value and local gradients on random inputs"""
    rng = random.Random(f"local-{op}")
    method, hint = HINTS[op]
    specs = []
    for _ in range(6):
        seed = rng.choice([1.0, rng.uniform(-2, 2)])
        if op == "neg":
            x = rng.uniform(-3, 3)
            specs.append((f"-x0 with x0={x!r}, out.grad={seed!r}", graphs.unary("neg", x, seed=seed)))
        else:
            a, b = operand_pair(rng, op)
            spec = graphs.binary(op, a, b, seed=seed)
            specs.append((f"{op} with inputs {spec['leaves']} and out.grad={seed!r}", spec))
    run_cases(check, student, reference, specs, method, hint)
    if op == "pow":
        value_exponent(student, reference, check)


def value_exponent(student, reference, check):
    """x0 ** x1 with x1 a Value: rejected (any error but NotImplementedError), or differentiated correctly."""
    constant = graphs.binary("pow", 1.5, const(3))
    spec = graphs.spec([1.5, 3.0], [["pow", 0, 1]], mode="local")
    with check.case("x0 ** x1 with x1 = Value(3.0), and x0 ** 3", method="Value.__pow__",
                    hint="raise TypeError for a Value exponent (the handout's rule); silently using its .data "
                         "as a constant gives x1 no gradient"):
        compare_graph(student("graph", constant), reference("graph", constant), constant)  # not easy to fake
        try:
            got = student("graph", spec)
        except StudentFault as fault:
            if fault.kind == "raised" and fault.error.get("type") != "NotImplementedError":
                return  # rejected, as the handout asks
            raise
        compare_graph(got, graphs.expected_from_math(spec), spec, rel=1e-5, abs_tol=1e-5)


@pytest.mark.points(4)
@pytest.mark.task("1.1-1.4")
def test_sandwich(student, reference, check):
    """Chain rule through each operation: op(2*x, y) * 3"""
    rng = random.Random("sandwich")
    for op in ["add", "mul", "pow", "sub", "truediv", "neg"]:
        method, _ = HINTS[op]
        x, y = rng.uniform(0.4, 1.5), rng.uniform(0.4, 1.5)
        if op == "neg":
            nodes = [["mul", 0, const(2)], ["neg", 2], ["mul", 3, const(3)]]
        elif op == "pow":
            nodes = [["mul", 0, const(2)], ["pow", 2, const(3)], ["mul", 3, const(3)]]
        else:
            nodes = [["mul", 0, const(2)], [op, 2, 1], ["mul", 3, const(3)]]
        # the `* 2` and `* 3` around the operation are the grader's own nodes: a bug in __mul__ costs nothing here
        spec = graphs.spec([x, y], nodes, mode="local", built=[2, 4])
        with check.case(f"{expression(spec)} at x0={x!r}, x1={y!r}", method=method,
                        hint="the upstream gradient out.grad must multiply the local gradient (chain rule)"):
            compare_graph(student("graph", spec), reference("graph", spec), spec)


@pytest.mark.points(4)
@pytest.mark.task("1.1-1.4")
def test_reuse(student, reference, check):
    """A node used twice: x op x and op(x) + op(x) accumulate gradients"""
    rng = random.Random("reuse")
    for op in ["add", "mul", "sub", "truediv"]:
        method, _ = HINTS[op]
        x = away_from_zero(rng, 0.5, 2.0)
        spec = graphs.spec([x], [[op, 0, 0]], mode="local")
        # x0 - x0 is 0 with gradient 0, an answer easy to make up: that case also checks x0 - 1.5
        partner = graphs.spec([x], [[op, 0, const(1.5)]], mode="local") if op == "sub" else None
        with check.case(f"x0 {op} x0 at x0={x!r}" + (" (and x0 - 1.5)" if partner else ""), method=method,
                        hint="both operands are the same Value: use += so the two contributions add up"):
            compare_graph(student("graph", spec), reference("graph", spec), spec)
            if partner:
                compare_graph(student("graph", partner), reference("graph", partner), partner)
    for op in ["pow", "neg", "mul"]:
        method, _ = HINTS[op]
        x = rng.uniform(0.5, 2.0)
        first = ["pow", 0, const(2)] if op == "pow" else (["neg", 0] if op == "neg" else ["mul", 0, const(1.5)])
        spec = graphs.spec([x], [first, list(first), ["add", 1, 2]], mode="local", built=[3])  # the grader's +
        with check.case(f"{expression(spec)} at x0={x!r}", method=method,
                        hint="x is used by two nodes: each _backward must add (+=) to x.grad, not overwrite it"):
            compare_graph(student("graph", spec), reference("graph", spec), spec)


@pytest.mark.points(4)
@pytest.mark.task("1.1-1.4")
def test_plain_numbers_both_sides(student, reference, check):
    """Plain int and float operands on either side of every binary operation"""
    rng = random.Random("plain")
    for op in ["add", "mul", "sub", "truediv"]:
        method, hint = HINTS[op]
        for c in (rng.randint(2, 5), round(rng.uniform(0.5, 3.0), 3)):
            x = away_from_zero(rng, 0.5, 2.5)
            for operands, side in (([0, const(c)], "right"), ([const(c), 0], "left")):
                spec = graphs.spec([x], [[op, *operands]], mode="local")
                which = f"Value.__r{op}__" if side == "left" else method
                with check.case(f"{expression(spec)} at x0={x!r}", method=which,
                                hint="a plain number must be wrapped in a Value; a number on the left calls "
                                     "the reflected method (2 * x calls x.__rmul__(2))"):
                    compare_graph(student("graph", spec), reference("graph", spec), spec)

