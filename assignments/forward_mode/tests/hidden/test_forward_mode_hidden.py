"""Hidden tests for assignment 4: every Dual operation, compositions, derivative() and gradient(), compared
with the reference solution on inputs drawn from fixed-seed generators (every submission sees the same
cases; the request never holds an answer).

Fault isolation: an operation's test runs that operation alone on Duals the probe makes from numbers
(random tangents, not only 1: a missing chain factor shows only then); a composition puts one
operation's nodes between the grader's own nodes (``"build"``: value from ``math``, tangent from local
derivatives the judge computes), so only that operation's code runs; ``derivative`` and ``gradient``
get functions the grader builds, which call nothing of the student's but ``Dual(val, dot)``.

The reference is checked too: its tangents against central differences, its gradients against a
reverse-mode sweep over the same expression (:func:`reverse_mode`). A disagreement is the grader's
error (the score is withheld), never the student's.
"""

import math
import random

import pytest

from assignments.forward_mode import checks, derived, domains
from assignments.forward_mode.checks import HINTS, const, expr, function
from assignments.shared.probes.engine_probes import describe_node
from grader.testing import GraderFault

PRIMITIVES = ["add", "neg", "mul", "truediv", "pow", "sin", "cos", "exp", "log", "tanh"]
DERIVED = ["sub", "radd", "rsub", "rmul", "rtruediv"]
KINDS = {  # a kind of node: its op and whether a constant comes first (a reflected operation)
    "add": ("add", False), "sub": ("sub", False), "mul": ("mul", False), "truediv": ("truediv", False),
    "pow": ("pow", False), "neg": ("neg", False), "sin": ("sin", False), "cos": ("cos", False),
    "exp": ("exp", False), "log": ("log", False), "tanh": ("tanh", False),
    "radd": ("add", True), "rsub": ("sub", True), "rmul": ("mul", True), "rtruediv": ("truediv", True),
}
EXPONENTS = [2, 3, -1, -2, 0.5, 1.5, 0, 1]
DOMAINS = ("truediv", "exp", "log")
"""The operations whose docstrings promise an exception outside their domain (checked in their test_operation)."""


def uniform(rng, low, high):
    """A random number with 4 decimals (readable in feedback, still a different one for every case)."""
    return round(rng.uniform(low, high), 4)


def away(rng, low=0.3, high=2.5):
    return rng.choice([-1, 1]) * uniform(rng, low, high)


def dual(rng, low=-2.5, high=2.5):
    return (uniform(rng, low, high), uniform(rng, -2, 2))


def constant(rng):
    return rng.choice([rng.randint(2, 5), -rng.randint(1, 4), round(rng.uniform(0.3, 3.0), 3)])


def single(op_kind, rng):
    """Specs of one operation of ``op_kind`` on random Duals and constants."""
    op, reflected = KINDS[op_kind]
    specs = []
    if reflected:
        for _ in range(3):
            x = (away(rng), uniform(rng, -2, 2)) if op == "truediv" else dual(rng)
            specs.append(expr([x], [[op, const(constant(rng)), 0]]))
        if op_kind == "radd":
            specs.append(expr([dual(rng) for _ in range(3)], [["sum", 0, 1, 2]]))
        return specs
    if op in ("add", "sub", "mul", "truediv"):
        denominator = (lambda: (away(rng), uniform(rng, -2, 2))) if op == "truediv" else (lambda: dual(rng))
        specs.append(expr([dual(rng), (denominator()[0], 0.0)], [[op, 0, 1]]))
        specs[-1]["leaves"][0][1] = 1.0  # the seed of a derivative: x0 has tangent 1, x1 is constant
        for _ in range(3):
            specs.append(expr([dual(rng), denominator()], [[op, 0, 1]]))
        specs.append(expr([denominator()], [[op, 0, const(constant(rng))]]))
        specs.append(expr([denominator()], [[op, 0, const(round(rng.uniform(0.3, 3.0), 3))]]))
        specs.append(expr([denominator()], [[op, 0, 0]]))
        return specs
    if op == "pow":
        for n in EXPONENTS:
            base = uniform(rng, 0.3, 2.5) if isinstance(n, float) else away(rng)
            specs.append(expr([(base, uniform(rng, -2, 2))], [["pow", 0, const(n)]]))
        return specs
    low = 0.2 if op == "log" else -2.5
    specs.append(expr([(uniform(rng, max(low, -2.5), 2.5), 1.0)], [[op, 0]]))
    specs.append(expr([(uniform(rng, max(low, -2.5), 2.5), 0.0)], [[op, 0]]))
    for _ in range(4):
        specs.append(expr([(uniform(rng, max(low, -2.5), 2.5), uniform(rng, -2, 2))], [[op, 0]]))
    return specs


def run_single(check, student, reference, spec):
    index = len(spec["leaves"])
    method = checks.method_of(spec, index)
    with check.case(f"{describe_node(spec, index)} with {checks.leaves_text(spec)}", method=method,
                    hint=HINTS[method]):
        got = checks.ask(student, "forward_mode_expr", spec, method)
        derived.compare_derived(student, lambda s: reference("forward_mode_expr", s), spec, got,
                               reference("forward_mode_expr", spec))


@pytest.mark.points(1.5)
@pytest.mark.task("4.1-4.4")
@pytest.mark.parametrize("op", PRIMITIVES)
def test_operation(student, reference, check, op):
    """{op}: value and tangent on random Duals (random tangents) and plain numbers"""
    rng = random.Random(f"forward-op-{op}")
    for spec in single(op, rng):
        run_single(check, student, reference, spec)
    if op == "pow":
        dual_exponent(student, reference, check, rng)
    if op == "tanh":  # far from 0, where tanh from math.exp (or its tangent from math.cosh) overflows
        for sign in (1, -1):
            run_single(check, student, reference, expr([(sign * uniform(rng, 710, 1000), uniform(rng, -2, 2))],
                                                       [["tanh", 0]]))
    if op in DOMAINS:
        inside, outside = domain_specs(op, rng)
        method = checks.method_of(inside, len(inside["leaves"]))
        with check.case(domains.domain_title(inside, outside), method=method, hint=domains.DOMAIN_HINTS[method]):
            domains.domain_case(student, lambda s: reference("forward_mode_expr", s), inside, outside)


def domain_specs(op, rng):
    """The operation just inside its domain (a small divisor, exp near 709, log of a small value) and specs outside
    it, where the handout's docstring promises an exception (a divisor of value 0, exp above 709.78, log of a value
    <= 0)."""
    if op == "truediv":
        x = dual(rng)
        inside = expr([x, (uniform(rng, 0.05, 0.2), uniform(rng, -2, 2))], [["truediv", 0, 1]])
        return inside, [expr([x, (0.0, uniform(rng, -2, 2))], [["truediv", 0, 1]]),
                        expr([x], [["truediv", 0, const(0)]])]
    if op == "exp":
        inside = expr([(uniform(rng, 700, 709), uniform(rng, -1, 1))], [["exp", 0]])
        return inside, [expr([(uniform(rng, 710, 1000), uniform(rng, -2, 2))], [["exp", 0]])]
    inside = expr([(uniform(rng, 0.001, 0.05), uniform(rng, -2, 2))], [["log", 0]])
    return inside, [expr([(-uniform(rng, 0.3, 2.5), uniform(rng, -2, 2))], [["log", 0]]),
                    expr([(0.0, uniform(rng, -2, 2))], [["log", 0]])]


def dual_exponent(student, reference, check, rng):
    """x0 ** x1 with x1 a Dual: TypeError (the handout's rule), or a correct general power."""
    base, exponent = uniform(rng, 0.5, 2.0), rng.choice([2.0, 3.0, 1.5])
    value = expr([(base, uniform(rng, -2, 2))], [["pow", 0, const(int(exponent) if exponent.is_integer() else exponent)]])
    spec = expr([(base, uniform(rng, -2, 2)), (exponent, uniform(rng, -1, 1))], [["pow", 0, 1]])
    with check.case(f"x0 ** x1 with x1 a Dual ({checks.leaves_text(spec)}): TypeError", method="Dual.__pow__",
                    hint="the exponent must be an int or a float: raise TypeError for anything else, a Dual included"):
        checks.compare(checks.ask(student, "forward_mode_expr", value, "Dual.__pow__"),
                       reference("forward_mode_expr", value), value)  # a value only a working __pow__ gives
        checks.dual_exponent(student, spec)


@pytest.mark.points(1)
@pytest.mark.task("4.1-4.2")
@pytest.mark.parametrize("op", DERIVED)
def test_derived(student, reference, check, op):
    """{op}: the derived operation on random Duals and plain numbers (a wrong base operation is named)"""
    rng = random.Random(f"forward-derived-{op}")
    for spec in single(op, rng):
        run_single(check, student, reference, spec)
    if op == "sub":
        for spec in (expr([dual(rng), dual(rng)], [["sub", 0, 1]]), expr([dual(rng)], [["sub", 0, 0]]),
                     expr([dual(rng)], [["sub", 0, const(constant(rng))]])):
            run_single(check, student, reference, spec)


# --- random expressions ----------------------------------------------------------------------

def pick(rng, values, ok=lambda v: True):
    """An operand index whose value passes ``ok``, recent nodes first, or None."""
    recent = [i for i in range(len(values) - 1, -1, -1) if ok(values[i])]
    if not recent:
        return None
    return recent[0] if rng.random() < 0.35 else rng.choice(recent[:4])


def random_node(rng, kind, values):
    """A node of ``kind`` on the nodes so far (their ``values``), within every operation's domain, or None."""
    op, reflected = KINDS[kind]
    if reflected:
        a = pick(rng, values, (lambda v: abs(v) > 0.3) if op == "truediv" else (lambda v: True))
        return None if a is None else [op, const(constant(rng)), a]
    if op in ("add", "sub", "mul"):
        a = pick(rng, values)
        b = pick(rng, values) if rng.random() < 0.75 else const(constant(rng))
        return [op, a, b]
    if op == "truediv":
        a, b = pick(rng, values), pick(rng, values, lambda v: abs(v) > 0.3)
        return [op, a, b if b is not None else const(constant(rng))]
    if op == "pow":
        n = rng.choice(EXPONENTS[:6])
        ok = (lambda v: 0.2 < v < 3) if isinstance(n, float) else (lambda v: 0.3 < abs(v) < 3)
        a = pick(rng, values, ok)
        return None if a is None else [op, a, const(n)]
    ok = {"log": lambda v: v > 0.2, "exp": lambda v: v < 2.5}.get(op, lambda v: True)
    a = pick(rng, values, ok)
    return None if a is None else [op, a]


def random_expression(rng, leaves, size, focus=None):
    """At least ``size`` nodes over ``leaves`` (their values): at least two of kind ``focus`` (about a third),
    the others of random kinds; every value finite and below 30 in size. Returns (nodes, the focus nodes)."""
    values = list(leaves)
    nodes, mine = [], []
    others = [k for k in KINDS if k != focus]
    for _ in range(10_000):
        if len(nodes) >= size and (focus is None or len(mine) >= 2):
            return nodes, mine
        due = focus and len(nodes) >= 1 and len(nodes) + 2 - len(mine) >= size  # the last slots: focus nodes
        kind = focus if focus and (due or rng.random() < 0.3) else rng.choice(others)
        node = random_node(rng, kind, values)
        if node is None and kind == focus:  # no operand in its domain yet: another kind grows the expression
            kind = rng.choice(others)
            node = random_node(rng, kind, values)
        if node is None:
            continue
        value = checks.evaluate({"leaves": [[v, 0.0] for v in values], "nodes": [node]})[-1]
        if not math.isfinite(value) or abs(value) > 30 or (len(nodes) == 0 and kind == focus):
            continue  # the first node is the grader's: a focus node then always has a computed input
        if kind == focus:
            mine.append(len(values))
        nodes.append(node)
        values.append(value)
    raise RuntimeError(f"no expression of {focus} found (a test generator's error)")


def composition(rng, focus):
    leaves = [dual(rng) for _ in range(rng.choice([2, 3]))]
    nodes, mine = random_expression(rng, [v for v, _ in leaves], rng.randint(6, 8), focus)
    built = [i for i in range(len(leaves), len(leaves) + len(nodes)) if i not in mine]
    return expr(leaves, nodes, built)


def trusted(reference, spec):
    """The reference's answer, checked against central differences (a difference is the grader's error)."""
    want = reference("forward_mode_expr", spec)
    math_says = checks.expected(spec)
    for i, (w, m) in enumerate(zip(want["dot"], math_says["dot"])):
        if not checks.close(w, m, checks.MATH_REL, checks.MATH_ABS):
            raise GraderFault(f"the reference's tangent of node {i} is {w!r}, central differences give {m!r}: "
                              f"{checks.listing(spec)}")
    return want


@pytest.mark.points(4)
@pytest.mark.task("4.1-4.4")
def test_compositions(student, reference, check):
    """Each operation inside random expressions of the grader's own nodes (chain rule, reused nodes)"""
    # a wrong derived node (its inputs are right: it is the first difference) names a wrong base operation, as
    # test_derived does (derived.compare_expression)
    rng = random.Random("forward-compositions")
    for focus in PRIMITIVES + DERIVED:
        for _ in range(2):
            spec = composition(rng, focus)
            method = checks.method_of(spec, [i for i in range(len(spec["leaves"]), 99)
                                             if i not in spec["build"]][0])
            with check.case(f"{checks.listing(spec)} with {checks.leaves_text(spec)}", method=method,
                            hint=HINTS[method] + " (the tangent of an input is the output tangent of the node "
                                                 "before it: the chain rule is the product of those factors)"):
                derived.compare_expression(student, lambda s: reference("forward_mode_expr", s), spec,
                                          checks.ask(student, "forward_mode_expr", spec, method), trusted(reference, spec))


# --- derivative() and gradient() ------------------------------------------------------------------

def random_function(rng, inputs, size):
    """A function spec of ``inputs`` arguments at a random point whose output depends on every input."""
    point = [away(rng, 0.3, 2.0) for _ in range(inputs)]
    nodes, _ = random_expression(rng, point, size)
    spec = function(point, nodes)
    for leaf in range(inputs):
        if leaf not in ancestors(spec):
            spec["nodes"].append([rng.choice(["add", "mul"]), inputs + len(spec["nodes"]) - 1, leaf])
    return spec


def ancestors(spec):
    """The nodes the output (the last node) is computed from, itself included."""
    first = len(spec["leaves"])
    found, todo = set(), [first + len(spec["nodes"]) - 1]
    while todo:
        i = todo.pop()
        if i in found:
            continue
        found.add(i)
        if i >= first:
            todo += [o for o in spec["nodes"][i - first][1:] if not isinstance(o, dict)]
    return found


def reverse_mode(spec):
    """The gradient of a function spec's output by a reverse-mode sweep (what ``Value.backward()`` computes):
    adjoints from the output back to each input, with the complex-step local derivatives."""
    values = checks.evaluate(spec)
    first = len(spec["leaves"])
    adjoint = [0.0] * len(values)
    adjoint[-1] = 1.0
    for i in range(len(values) - 1, first - 1, -1):
        op, *operands = spec["nodes"][i - first]
        at = [values[o] if type(o) is int else o["const"] for o in operands]  # the operands' values
        for o, local in zip(operands, checks.partials(op, at)):
            if not isinstance(o, dict):
                adjoint[o] += local * adjoint[i]
    return adjoint[:first]


@pytest.mark.points(2)
@pytest.mark.task("4.5")
def test_derivative(student, reference, check):
    """derivative(f, x) for random functions of one input (the grader's f), and a constant function"""
    rng = random.Random("forward-derivative")
    specs = [random_function(rng, 1, rng.randint(3, 6)) for _ in range(5)]
    specs.append(function([away(rng)], constant=round(uniform(rng, -3, 3), 3)))
    for spec in specs:
        with check.case(f"derivative(f, {spec['leaves'][0]!r}) for {checks.function_text(spec)}", method="derivative",
                        hint=HINTS["derivative"]):
            want = reference("forward_mode_derivative", spec)["result"]
            if not checks.close(want, checks.partial_differences(spec)[0], checks.MATH_REL, checks.MATH_ABS):
                raise GraderFault(f"the reference's derivative {want!r} disagrees with central differences")
            got = checks.ask(student, "forward_mode_derivative", spec, "derivative")
            checks.judge_derivative(got, spec, want, checks.REL, checks.ABS)


def gradient_specs():
    rng = random.Random("forward-gradient")
    return [random_function(rng, n, rng.randint(n + 2, n + 6)) for n in (2, 2, 3, 4, 5)]


@pytest.mark.points(3)
@pytest.mark.task("4.6")
def test_gradient(student, reference, check):
    """gradient(f, *xs) for random functions of 2 to 5 inputs: the reverse-mode gradient, pass by pass"""
    for spec in gradient_specs():
        n = len(spec["leaves"])
        with check.case(f"gradient(f, {', '.join(repr(x) for x in spec['leaves'])}) for {checks.function_text(spec)}",
                        method="gradient", hint=HINTS["gradient"]):
            want = reference("forward_mode_gradient", spec)["result"]
            backward = reverse_mode(spec)
            if not all(checks.close(w, b) for w, b in zip(want, backward)) or len(want) != n:
                raise GraderFault(f"the reference's gradient {want!r} disagrees with reverse mode {backward!r}")
            got = checks.ask(student, "forward_mode_gradient", spec, "gradient")
            checks.judge_gradient(got, spec, want, checks.REL, checks.ABS, passes=False)


@pytest.mark.points(1)
@pytest.mark.task("4.6")
def test_gradient_passes(student, check):
    """gradient(f, *xs) makes exactly len(xs) forward passes, one per input (and gets the gradient)"""
    rng = random.Random("forward-passes")
    for n in (1, 3, 6):
        spec = random_function(rng, n, n + 2)
        with check.case(f"gradient(f, ...) of {n} input{'s' * (n > 1)} calls f {n} time{'s' * (n > 1)}: "
                        f"{checks.function_text(spec)} at {spec['leaves']}", method="gradient",
                        hint="one forward pass per input: n calls of f for n inputs, each seeding one input, and "
                             "no extra call"):
            got = checks.ask(student, "forward_mode_gradient", spec, "gradient")
            checks.judge_gradient(got, spec, reverse_mode(spec), checks.MATH_REL, checks.MATH_ABS)
