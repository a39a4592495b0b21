"""Public tests for assignment 2 (shipped to students).

Expected values come from Python's ``math`` module and from central finite
differences, (f(x+h) - f(x-h)) / 2h, so these tests run without any solution.

The ``backward()`` tests run on graphs the grader builds itself (with
``Value(data, children, op)`` and its own ``_backward`` closures), so they
grade ``backward()`` alone: a bug in an operation costs points only in that
operation's tests.
"""

import math

import pytest

from assignments.shared.checks.contracts import VALUE
from assignments.shared.checks.derived import BaseCalls
from assignments.shared.checks import graphs
from assignments.shared.checks.graph_checks import compare_graph, expect_error
from grader.testing.contracts import check_contract

pytestmark = [pytest.mark.contract(VALUE), pytest.mark.base_of.with_args(BaseCalls)]

FD_TOL = 1e-5

UNARY = [
    ("tanh", 0.5, "Value.tanh", "d tanh(x)/dx = 1 - tanh(x)**2: use the output t, not the input x"),
    ("relu", 1.5, "Value.relu", "relu passes out.grad through where the input is positive, 0 elsewhere"),
    ("exp", 0.7, "Value.exp", "d e**x/dx = e**x, the output itself"),
    ("log", 2.5, "Value.log", "d ln(x)/dx = 1/x"),
    ("sigmoid", -0.8, "Value.sigmoid", "ds/dx = s * (1 - s), with s the output"),
]


DERIVATIVE = {  # the local gradients of the handout's table, for the edge cases (finite differences fail there)
    "tanh": lambda x: 1.0 - math.tanh(x) ** 2,
    "relu": lambda x: 1.0 if x > 0 else 0.0,
    "exp": math.exp,
    "log": lambda x: 1.0 / x,
    "sigmoid": lambda x: graphs.FUNCTIONS["sigmoid"](x) * (1.0 - graphs.FUNCTIONS["sigmoid"](x)),
}

EDGES = {  # op: (case title, inputs with an exact answer, inputs that must raise, the error's type)
    "tanh": ("large inputs: tanh(400.0), tanh(-400.0) (and tanh(2.0))", [400.0, -400.0, 2.0], [], ""),
    "relu": ("the kink: relu(-0.0) has gradient 0 (and relu(0.25) passes it on)", [-0.0, 0.25], [], ""),
    "exp": ("near the limits: exp(709.0) and exp(-750.0) exact, exp(709.9) raises OverflowError",
            [709.0, -750.0], [709.9], "OverflowError"),
    "log": ("near 0: log(1e-250) exact, log(-1.0) raises ValueError", [1e-250], [-1.0], "ValueError"),
    "sigmoid": ("large inputs: sigmoid(750.0), sigmoid(-750.0) (and sigmoid(1.0))", [750.0, -750.0, 1.0], [], ""),
}
"""Each operation at the edge of its domain, as the handout states it (hidden tests use other inputs)."""
STABLE = {  # the hint of an edge case that fails where the same operation passed at ordinary inputs
    "tanh": "tanh is right at ordinary inputs but not at large ones: compute t with math.tanh(x), which is exact "
            "and finite for every x (a formula with math.exp overflows or loses precision there)",
    "sigmoid": "sigmoid is right at ordinary inputs but not at large ones: for x < 0 compute e**x / (1 + e**x), "
               "so that math.exp never gets a large positive argument",
    "exp": "exp is right at ordinary inputs but not near its limits: use math.exp(x) itself, which is exact up to "
           "709.78 and raises OverflowError above it",
}


def exact(spec, op, x, seed=1.0):
    """The graph result of ``op(x)`` from ``math``: forward value and the input's gradient."""
    return {"data": [x, graphs.FUNCTIONS[op](x)], "grad": [seed * DERIVATIVE[op](x), seed]}


@pytest.mark.points(0)
def test_value_contract(student, check):
    """Value(data, children, op) keeps data, grad = 0, _prev and _op"""
    check_contract(check, student, VALUE)


@pytest.mark.points(1)
@pytest.mark.task("2.1-2.5")
@pytest.mark.parametrize("op,x,method,hint", UNARY, ids=[u[0] for u in UNARY])
def test_unary(student, check, op, x, method, hint):
    """{method}: forward value and local gradient, a reused input, the edges of its domain"""
    # relu is the identity or zero: each case takes both signs, so neither answer can be made up alone
    inputs = [x, -x] if op == "relu" else [x]
    for seed in (1.0, -2.0):
        with check.case(f"{' and '.join(f'{op}({v})' for v in inputs)} with out.grad = {seed}", method=method, hint=hint):
            for v in inputs:
                spec = graphs.unary(op, v, seed=seed)
                compare_graph(student("graph", spec), graphs.expected_from_math(spec), spec, rel=FD_TOL, abs_tol=FD_TOL)
    # x feeds two nodes; the `+` joining them is the grader's own node, so only your op's _backward is graded
    spec = graphs.spec([x], [[op, 0], [op, 0], ["add", 1, 2]], mode="local", built=[3])
    with check.case(f"x0 used twice: n1 = x0.{op}(); n2 = x0.{op}(); n3 = n1 + n2 at x0 = {x}", method=method,
                    hint="x0 feeds two nodes: each _backward must add (+=) to x0.grad, not overwrite it"):
        compare_graph(student("graph", spec), graphs.expected_from_math(spec), spec, rel=FD_TOL, abs_tol=FD_TOL)
    title, values, raising, error = EDGES[op]
    # the values at the edges are right with the gradient formula above: if only they fail, the formula is not it
    edge_hint = STABLE.get(op, hint) if not check.failures else hint
    with check.case(title, method=method, hint=edge_hint + ("; outside the domain, raise as Python's math module does" if raising else "")):
        for v in values:  # values only a working implementation gives, next to the error that is easy to fake
            spec = graphs.unary(op, v)
            compare_graph(student("graph", spec), exact(spec, op, v), spec, grad_nodes=[0])
        for v in raising:
            expect_error(student, graphs.unary(op, v), [error], f"Value({v!r}).{op}()")


BACKWARD_HINT = "order the nodes topologically (each once), set self.grad = 1.0, then call _backward in reverse order"


@pytest.mark.points(3)
@pytest.mark.task("2.6")
def test_backward_small_expression(student, check):
    """backward() on tanh(x0 * x1 + x0) matches finite differences"""
    spec = graphs.spec([0.5, -1.5], [["mul", 0, 1], ["add", 2, 0], ["tanh", 3]], built=True)
    with check.case("n2 = x0 * x1; n3 = n2 + x0; n4 = n3.tanh() (nodes the grader makes); n4.backward()",
                    method="Value.backward", hint=BACKWARD_HINT):
        compare_graph(student("graph", spec), graphs.expected_from_math(spec), spec, rel=FD_TOL, abs_tol=FD_TOL)


@pytest.mark.points(2)
@pytest.mark.task("2.6")
def test_backward_accumulates(student, check):
    """backward() adds up every path: a + a, a diamond, two graphs sharing a leaf"""
    cases = [
        ("n1 = x0 + x0; n1.backward()", graphs.spec([3.0], [["add", 0, 0]], built=True),
         "backward() must set the output's grad to 1.0 and leave the rest to the _backward closures"),
        ("diamond: n2 = x0 * x1; n3 = n2 * x0; n4 = n2 + n3; n4.backward()",
         graphs.spec([1.5, -0.5], [["mul", 0, 1], ["mul", 2, 0], ["add", 2, 3]], built=True),
         "n2 feeds two nodes: call its _backward only after both have added their gradient (reverse "
         "topological order), and once (a visited set)"),
        ("two graphs sharing x0: n3 = x0 * x1; n4 = x0 * x2; n3.backward(); n4.backward()",
         graphs.spec([2.0, 3.0, -4.0], [["mul", 0, 1], ["mul", 0, 2]], backward=[3, 4], built=True),
         "backward() must not reset gradients: the second backward() adds to x0.grad"),
    ]
    for title, spec, hint in cases:
        with check.case(title, method="Value.backward", hint=hint):
            expected = expected_after_each_backward(spec)
            compare_graph(student("graph", spec), expected, spec, rel=FD_TOL, abs_tol=FD_TOL,
                          grad_nodes=list(range(len(spec["leaves"]))))


def expected_after_each_backward(spec):
    """Forward values and leaf gradients after backward() on each listed node in turn (gradients add up)."""
    data = graphs.evaluate(spec)
    grads = [0.0] * len(spec["leaves"]) + [float("nan")] * len(spec["nodes"])
    for out in spec["backward"]:
        out %= len(data)
        cut = {**spec, "nodes": spec["nodes"][: out - len(spec["leaves"]) + 1]}
        for i in range(len(spec["leaves"])):
            grads[i] += graphs.central_difference(cut, i)
    return {"data": data, "grad": grads}
