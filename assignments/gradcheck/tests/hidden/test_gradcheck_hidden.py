"""Hidden tests of assignment 7: the student's gradient checker graded by the bugs it catches.

Every function given to the student's code is a graph the judge draws from a fixed-seed generator
(:func:`grow`), made node by node by the probe (its forward values with ``math``, its ``_backward`` closures with
the local gradients the judge sends), on the grader's own ``Value`` (hidden grading swaps it in): no operation or
``backward()`` of the student's engine runs here.

A *broken operation* is such a function with one node's local gradients changed in the judge (a factor, a sign, a
zero, swapped operands, a wrong formula, a missing upstream factor, NaN, a small relative error), picked per seed
among the changes that move some input's gradient by at least :data:`MARGIN` times the tolerance
``atol + rtol * |gradient|`` (the ``small`` kind: within :data:`SMALL`, so a checker a few times too lax
misses it). Every correct function is one whose central differences at h = 1e-5, 1e-6 and 1e-7 are all
within a tenth of the tolerance of the exact gradient (:func:`well_conditioned`). So the reference flags each
broken function and passes each correct one with room to spare (``tests/course/test_gradcheck.py`` measures it
over many seeds), and a checker with any reasonable step does too.

Each case of the checker's tests holds right and wrong functions in an order only the judge knows
(:func:`assignments.gradcheck.checks.check_verdicts`): a checker that does not compare gradients gets no case.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

import pytest

from assignments.gradcheck import checks
from assignments.gradcheck.checks import (
    ATOL,
    RTOL,
    Item,
    check_counts,
    check_numerical,
    check_verdicts,
    completed,
    function,
    helpers_first,
    numbers_close,
    numbers_text,
    point,
    reachable,
)
from assignments.gradcheck.probes import expression
from assignments.shared.checks.graphs import const
from assignments.shared.probes.engine_probes import forward_value
from grader.testing import Failure, made_once

SEED = ""
"""Mixed into every seed of the functions the checker's tests draw: change it (each term, say) to draw others;
``tests/course/test_gradcheck.py`` checks that every seed gives fair cases."""
MARGIN = 10.0
"""A broken function moves some input's gradient by at least this many tolerances."""
SMALL = (4.0, 16.0)
"""The ``small`` kind moves it by this many tolerances: caught at the handout's tolerances, missed in part by a
checker 4 times too lax and mostly by one 16 times too lax."""
STEPS = (1e-5, 1e-6, 1e-7)
"""A correct function's central differences at each of these steps are within a tenth of the tolerance."""
UNARY = ["tanh", "exp", "log", "sigmoid", "relu", "neg"]
BINARY = ["add", "sub", "mul", "truediv", "pow"]
EXPONENTS = [2, 3, -1, 0.5, 1.5, -2]


# --- the exact gradient of a function with the local gradients it has (judge only) ----------------------------

def locals_of(spec: dict[str, Any], i: int) -> list[float]:
    return [math.nan if g is None else float(g) for g in spec["locals"][str(i)]]


def adjoints(spec: dict[str, Any]) -> list[float]:
    """d output / d node for every node of the completed ``spec``, with its local gradients: the nodes are listed
    after their operands, so one sweep from the output back gives the chain rule."""
    leaves = len(spec["leaves"])
    adj = [0.0] * (leaves + len(spec["nodes"]))
    adj[-1] = 1.0
    for i in range(len(adj) - 1, leaves - 1, -1):
        operands = spec["nodes"][i - leaves][1:]
        for o, g in zip(operands, locals_of(spec, i)):
            if not isinstance(o, dict):
                adj[o] += g * adj[i]
    return adj


def gradient(spec: dict[str, Any]) -> list[float]:
    """What ``backward()`` gives the inputs of the completed ``spec``."""
    return adjoints(spec)[: len(spec["leaves"])]


def tolerances_moved(right: list[float], wrong: list[float], atol: float = ATOL, rtol: float = RTOL) -> list[float]:
    """For each input, how many tolerances ``atol + rtol * |right|`` the wrong gradient is off (inf for NaN)."""
    return [math.inf if math.isnan(w) else abs(w - r) / (atol + rtol * abs(r)) for r, w in zip(right, wrong)]


def well_conditioned(spec: dict[str, Any], largest: float = 1e3, atol: float = ATOL, rtol: float = RTOL) -> bool:
    """Whether central differences at every step of :data:`STEPS` are within a tenth of the tolerance (``atol``,
    ``rtol``) of the exact gradient, which is finite and at most ``largest``."""
    exact = gradient(spec)
    if not all(math.isfinite(g) and abs(g) <= largest for g in exact):
        return False
    try:
        return all(max(tolerances_moved(exact, checks.central(spec, h), atol, rtol)) <= 0.1 for h in STEPS)
    except (ArithmeticError, ValueError):
        return False


# --- drawing functions -------------------------------------------------------------------------------------------

def safe(op: str, args: list[float]) -> bool:
    """Whether ``op`` at ``args`` is well inside its domain (finite differences stay on one side of any kink)."""
    a = args[0]
    if op == "log":
        return a > 0.2
    if op == "exp":
        return -6.0 < a < 6.0
    if op == "relu":
        return abs(a) > 0.05
    if op == "truediv":
        return abs(args[1]) > 0.3
    if op == "pow":
        e = args[1]
        return a > 0.2 if e != int(e) else (abs(a) > 0.3 if e < 0 else True)
    return True


def draw_node(rng: random.Random, op: str, values: list[float]) -> list[Any] | None:
    """A node ``op`` on earlier nodes (mostly the newest ones), or None when it is outside the domain."""
    def pick() -> int:
        return rng.choice(range(len(values))[-3:]) if rng.random() < 0.7 else rng.randrange(len(values))

    if op in UNARY:
        operands: list[Any] = [pick()]
    elif op == "pow":
        operands = [pick(), const(rng.choice(EXPONENTS))]
    elif op == "sum":
        operands = [pick() for _ in range(rng.randint(3, 5))]
    else:
        operands = [pick(), pick()]
        if rng.random() < 0.25:
            operands[rng.randrange(2)] = const(rng.choice([-2.5, -1.5, 0.5, 2.0, 3.0]))
        if all(isinstance(o, dict) for o in operands) or (op in ("sub", "truediv") and operands[0] == operands[1]):
            return None  # x - x and x / x are constants
    args = [o["const"] if isinstance(o, dict) else values[o] for o in operands]
    if not safe(op, args):
        return None
    value = forward_value(op, args)
    return [op, *operands] if math.isfinite(value) and abs(value) < 30 else None


def grow(rng: random.Random, inputs: int, steps: int, must: str | None = None,
         ops: list[str] | None = None, accept: Callable[[dict[str, Any]], bool] | None = None) -> dict[str, Any]:
    """A random function of ``inputs`` inputs with about ``steps`` nodes (one of them ``must``) on which every input
    has an effect, well conditioned (and ``accept``-ed)."""
    ops = ops or UNARY + BINARY + ["sum"]
    for _ in range(500):
        leaves = [round(rng.uniform(-2.0, 2.0), 3) for _ in range(inputs)]
        values, nodes = list(leaves), []
        plan = [rng.choice(ops) for _ in range(steps)]
        if must:
            plan.insert(rng.randrange(len(plan) + 1), must)
        for op in plan:
            node = next((n for n in (draw_node(rng, op, values) for _ in range(20)) if n), None)
            if node is None:
                break
            nodes.append(node)
            values.append(forward_value(node[0], [o["const"] if isinstance(o, dict) else values[o] for o in node[1:]]))
        else:
            spec = function(leaves, nodes)
            for leaf in range(inputs):  # every input has an effect
                if leaf not in set(o for i in reachable(spec) for o in spec["nodes"][i - inputs][1:]
                                   if not isinstance(o, dict)):
                    nodes.append(["add", len(values) - 1, leaf])
                    values.append(values[-1] + values[leaf])
                    spec = function(leaves, nodes)
            spec = completed(spec)
            if must and not any(spec["nodes"][i - inputs][0] == must for i in reachable(spec)):
                continue
            if well_conditioned(spec) and (accept is None or accept(spec)):
                return spec
    raise AssertionError(f"no function with {must or 'these operations'} found: change the generator's seed")


# --- broken operations -------------------------------------------------------------------------------------------

def with_locals(spec: dict[str, Any], node: int, values: list[float]) -> dict[str, Any]:
    given = {k: list(v) for k, v in spec["locals"].items()}
    given[str(node)] = [None if math.isnan(v) else float(v) for v in values]
    return {**spec, "locals": given}


WRONG_FORMULA: dict[str, tuple[Callable[..., list[float]], str]] = {
    "tanh": (lambda a, t: [1 - t], "tanh's local gradient 1 - t instead of 1 - t**2"),
    "exp": (lambda a, e: [a], "exp's local gradient x instead of exp(x)"),
    "sigmoid": (lambda a, s: [s * (1 + s)], "sigmoid's local gradient s * (1 + s) instead of s * (1 - s)"),
    "log": (lambda a, y: [1 / y], "log's local gradient 1 / log(x) instead of 1 / x"),
    "pow": (lambda a, n, y: [a ** (n - 1), 0.0], "x ** n with local gradient x ** (n - 1), without the factor n"),
    "relu": (lambda a, y: [1.0], "relu passing the gradient on where x < 0 too"),
    "truediv": (lambda a, b, y: [1 / b, a / (b * b)], "a / b with d/db = a / b**2 instead of -a / b**2"),
    "sub": (lambda a, b, y: [1.0, 1.0], "a - b with d/db = 1 instead of -1"),
}
"""A wrong local-gradient formula students write for an operation, and what it is."""


def _set(values: list[float], j: int, value: float) -> list[float]:
    out = list(values)
    out[j] = value
    return out


def changes(spec: dict[str, Any], i: int, kind: str, rng: random.Random) -> list[tuple[list[float], str]]:
    """The changes of ``kind`` to the local gradients of node ``i``: ``(new local gradients, what is wrong)``."""
    leaves = len(spec["leaves"])
    op, *operands = spec["nodes"][i - leaves]
    given, values = locals_of(spec, i), evaluate(spec)
    args = [o["const"] if isinstance(o, dict) else values[o] for o in operands]
    node = f"node {expression(spec, i)}"
    variable = [j for j, o in enumerate(operands) if not isinstance(o, dict)]
    found: list[tuple[list[float], str]] = []
    for j in variable:
        name, g = checks.describe_operand(spec, i, j), given[j]
        if kind == "factor":
            f = rng.choice([2.0, 0.5, 3.0])
            found.append((_set(given, j, g * f), f"the {node} passes {f:g} times its local gradient to {name}"))
        elif kind == "sign":
            found.append((_set(given, j, -g), f"the {node} passes its local gradient to {name} with the wrong sign"))
        elif kind == "zero":
            found.append((_set(given, j, 0.0), f"the {node} passes no gradient to its operand {name}"))
        elif kind == "nan":
            found.append((_set(given, j, math.nan), f"the {node} passes NaN to {name}"))
        elif kind == "small":
            effect = max(tolerances_moved(gradient(spec), gradient(with_locals(spec, i, _set(given, j, g + 1.0)))))
            if effect > 0:
                delta = rng.uniform(*SMALL) / effect
                found.append((_set(given, j, g + delta), f"the {node} passes the local gradient {g + delta:.8g} to "
                              f"{name} instead of {g:.8g} (a small error, yet {SMALL[0]:g} times the tolerance or more)"))
    if kind == "swapped" and op == "mul" and len(variable) == 2:
        found.append(([given[1], given[0]], f"the {node} multiplies out.grad by each operand's own data instead of "
                                            "the other's"))
    if kind == "overwrite" and len(variable) == 2 and operands[0] == operands[1]:
        found.append(([0.0, given[1]], f"the {node} uses = instead of += for its operand used twice, so one of the "
                                       "two contributions is lost"))
    if kind == "no_upstream":
        adj = adjoints(spec)[i]
        if abs(adj - 1.0) > 0.1 and abs(adj) > 1e-3:
            found.append(([g / adj for g in given], f"the {node} does not multiply by out.grad (= {adj:.6g} there)"))
    if kind == op and op in WRONG_FORMULA and (op != "relu" or args[0] < 0):
        formula, text = WRONG_FORMULA[op]
        found.append((formula(*args, values[i]), f"the {node} uses {text}"))
    return found


def evaluate(spec: dict[str, Any]) -> list[float]:
    from assignments.shared.checks.graphs import evaluate as values

    return values(spec)


def faults(spec: dict[str, Any], kind: str, rng: random.Random) -> list[tuple[dict[str, Any], str, list[float]]]:
    """Every change of ``kind`` to one node of ``spec`` that moves some input's gradient by at least
    :data:`MARGIN` tolerances (``small``: by :data:`SMALL` tolerances), as ``(broken spec, what, moved)``:
    ``moved`` says by how many tolerances each input's gradient moved."""
    right = gradient(spec)
    found = []
    for i in reachable(spec):
        for wrong, text in changes(spec, i, kind, rng):
            if kind != "nan" and not all(math.isfinite(w) for w in wrong):
                continue
            broken = with_locals(spec, i, wrong)
            moved = tolerances_moved(right, gradient(broken))
            low, high = (SMALL[0] * 0.999, SMALL[1] * 1.001) if kind == "small" else (MARGIN, math.inf)
            if low <= max(moved) <= high:
                found.append((broken, text, moved))
    return found


def pick_fault(rng: random.Random, make: Callable[[], dict[str, Any]], kind: str,
               accept: Callable[[list[float]], bool] = lambda moved: True) -> tuple[dict[str, Any], Item]:
    """A function from ``make`` and one broken version of it of ``kind`` (whose ``moved`` is ``accept``-ed)."""
    for _ in range(200):
        spec = make()
        found = [f for f in faults(spec, kind, rng) if accept(f[2])]
        if found:
            broken, text, _ = rng.choice(found)
            return spec, Item(broken, False, text)
    raise AssertionError(f"no {kind} fault found: change the generator's seed")


def obvious(rng: random.Random, spec: dict[str, Any]) -> Item | None:
    """A plainly wrong version of ``spec`` (a factor, a sign or a zero) that every checker comparing the gradients
    flags, even one that checks only the first input or forgets abs(): the first input's analytic gradient is too
    large by at least :data:`MARGIN` tolerances. Next to correct functions in a no-false-alarm case."""
    kinds = ["factor", "sign", "zero"]
    rng.shuffle(kinds)
    right = gradient(spec)
    for kind in kinds:
        found = [(b, t) for b, t, moved in faults(spec, kind, rng) if moved[0] >= MARGIN and gradient(b)[0] > right[0]]
        if found:
            broken, text = rng.choice(found)
            return Item(broken, False, text)
    return None


PER_CASE = 4
"""The functions of one case: right and wrong ones (at least one of each) in a pattern drawn per case."""


def case_items(rng: random.Random, draw: Callable[[bool], Item]) -> list[Item]:
    """The items of one case: a pattern of :data:`PER_CASE` verdicts with at least one True and one False, drawn
    from ``rng`` (so no sequence of answers that ignores the functions matches it more than rarely), and for each a
    right (True) or wrong (False) function from ``draw``."""
    while True:
        pattern = [rng.random() < 0.5 for _ in range(PER_CASE)]
        if any(pattern) and not all(pattern):
            return [draw(want) for want in pattern]


def describe(items: list[Item], right: bool = True) -> str:
    """The first right (or wrong) function of a case, e.g. ``f = x0 * x1 at xs = [0.5, 2.0]``."""
    first = next(item for item in items if item.correct == right)
    return f"f = {expression(first.spec)} at xs = {point(first.spec)}"


# --- the functions of the no-false-alarm cases -----------------------------------------------------------------

def around(op: str) -> Callable[[random.Random], dict[str, Any]]:
    """A random function of two inputs built around the operation ``op``."""
    return lambda rng: grow(rng, 2, rng.randint(2, 4), must=op)


def reuse(rng: random.Random) -> dict[str, Any]:
    """y = g(x0, x1); y * y + y: one node used three times."""
    a, b = round(rng.uniform(0.3, 1.2), 3), round(rng.uniform(-1.2, -0.3), 3)
    first = rng.choice([["mul", 0, 1], ["add", 0, 1], ["sub", 0, 1]])
    return completed(function([a, b], [first, ["tanh", 2], ["mul", 3, 3], ["add", 4, 3]]))


def large(rng: random.Random) -> dict[str, Any]:
    """exp(x0) * x1 with x0 near 13: gradients near 1e6, where only a relative tolerance works."""
    return completed(function([round(rng.uniform(12.0, 14.0), 3), round(rng.uniform(1.0, 2.0), 3)],
                              [["exp", 0], ["mul", 2, 1]]))


def tiny(rng: random.Random) -> dict[str, Any]:
    """x0 * x1 * c with x1 near 1e-3: a gradient near 1e-3, where only an absolute tolerance this small catches."""
    return completed(function([round(rng.uniform(0.5, 1.5), 3), rng.choice([-1, 1]) * round(rng.uniform(5e-4, 2e-3), 6)],
                              [["mul", 0, 1], ["mul", 2, const(rng.choice([1.5, 2.0, 0.75]))]]))


def flat_bottom(rng: random.Random) -> dict[str, Any]:
    """exp(k (x0 - c)) + exp(-k (x0 - c)) at x0 = c: f' = 0, f'' = 2 k**2 large (a forward difference is off by
    about h k**2 > atol there)."""
    c, k = round(rng.uniform(-1.0, 1.0), 3), round(rng.uniform(5.0, 7.0), 3)
    return completed(function([c], [["sub", 0, const(c)], ["mul", 1, const(k)], ["exp", 2], ["mul", 1, const(-k)],
                                    ["exp", 4], ["add", 3, 5]]))


def chain(rng: random.Random) -> dict[str, Any]:
    """A deep chain of unary operations."""
    return grow(rng, 1, rng.randint(6, 9), ops=["tanh", "sigmoid", "exp", "neg", "mul"])


def logsumexp(rng: random.Random) -> dict[str, Any]:
    """log(exp(x0) + exp(x1) + exp(x2))."""
    xs = [round(rng.uniform(-2.0, 2.0), 3) for _ in range(3)]
    return completed(function(xs, [["exp", 0], ["exp", 1], ["exp", 2], ["sum", 3, 4, 5], ["log", 6]]))


def dead_input(rng: random.Random) -> dict[str, Any]:
    """relu at a negative input on one path: that path passes no gradient (a right answer of 0)."""
    a, b = round(rng.uniform(0.3, 1.5), 3), round(rng.uniform(0.3, 1.5), 3)
    return completed(function([a, b], [["mul", 0, const(-1.0)], ["relu", 2], ["mul", 1, 1], ["add", 3, 4],
                                       ["add", 5, 0]]))


def bigger(rng: random.Random) -> dict[str, Any]:
    """A random function of three inputs with about ten nodes."""
    return grow(rng, 3, 10)


CORRECT: dict[str, Callable[[random.Random], dict[str, Any]]] = {
    **{op: around(op) for op in ["add", "sub", "mul", "truediv", "pow", "neg", "tanh", "exp", "log", "sigmoid",
                                 "relu", "sum"]},
    "a node used three times": reuse,
    "gradients near 1e6": large,
    "a gradient near 1e-3": tiny,
    "f' = 0 where f'' is large": flat_bottom,
    "a deep chain": chain,
    "log-sum-exp": logsumexp,
    "a path with no gradient (relu at x < 0)": dead_input,
    "ten nodes, three inputs": bigger,
}
"""The correct functions of :func:`test_no_false_alarms`, by what they exercise."""


# --- the broken operations of the catches cases -----------------------------------------------------------------

def any_graph(rng: random.Random) -> Callable[[], dict[str, Any]]:
    return lambda: grow(rng, rng.randint(1, 3), rng.randint(3, 7))


def graph_with(op: str, rng: random.Random) -> Callable[[], dict[str, Any]]:
    return lambda: grow(rng, 2, rng.randint(2, 5), must=op)


def with_square(rng: random.Random) -> Callable[[], dict[str, Any]]:
    """x0 * x0 (one Value twice) in a small function."""
    def make() -> dict[str, Any]:
        a, b = round(rng.uniform(0.4, 1.5), 3), round(rng.uniform(-1.5, 1.5), 3)
        return completed(function([a, b], [["mul", 0, 0], ["mul", 2, 1], ["add", 3, 0]]))
    return make


def tiny_maker(rng: random.Random) -> Callable[[], dict[str, Any]]:
    return lambda: tiny(rng)


BROKEN: dict[str, tuple[str, Callable[[random.Random], Callable[[], dict[str, Any]]], Callable[[list[float]], bool]]] = {
    "a factor 2, 3 or 1/2": ("factor", any_graph, lambda m: True),
    "a wrong sign": ("sign", any_graph, lambda m: True),
    "a gradient that reaches only one operand": ("zero", any_graph, lambda m: True),
    "the operands' local gradients swapped in *": ("swapped", lambda rng: graph_with("mul", rng), lambda m: True),
    f"a small error ({SMALL[0]:g} to {SMALL[1]:g} tolerances)": ("small", any_graph, lambda m: True),
    "a missing * out.grad": ("no_upstream", any_graph, lambda m: True),
    "a NaN gradient": ("nan", any_graph, lambda m: True),
    "= instead of += (x * x)": ("overwrite", with_square, lambda m: True),
    "a wrong gradient of the last input only": ("sign", lambda rng: lambda: grow(rng, 3, rng.randint(3, 6)),
                                                 lambda m: m[0] < 0.01 and m[-1] >= MARGIN),
    "a factor 2 on a gradient near 1e-3": ("factor", tiny_maker, lambda m: m[1] < 0.01),
    **{WRONG_FORMULA[op][1]: (op, lambda rng, op=op: graph_with(op, rng), lambda m: True) for op in WRONG_FORMULA},
}
"""The broken operations of :func:`test_catches_broken_operations`: kind of change, function maker, filter."""


# --- tests --------------------------------------------------------------------------------------------------------

@made_once
def false_alarm_cases(seed: str = SEED) -> list[tuple[str, random.Random, list[Item]]]:
    """The cases of :func:`test_no_false_alarms`: what each exercises, its order's generator, its functions."""
    cases = []
    for what, make in CORRECT.items():
        rng = random.Random(f"{seed}correct-{what}")

        def draw(right: bool, make: Callable[[random.Random], dict[str, Any]] = make,
                 rng: random.Random = rng) -> Item:
            while True:
                spec = make(rng)
                item = Item(spec, True) if right else obvious(rng, spec)
                if item is not None:
                    return item

        cases.append((what, rng, case_items(rng, draw)))
    return cases


@made_once
def broken_cases(seed: str = SEED) -> list[tuple[str, random.Random, list[Item]]]:
    """The cases of :func:`test_catches_broken_operations`: the broken operation, its order's generator, its
    functions."""
    cases = []
    for what, (kind, maker, accept) in BROKEN.items():
        rng = random.Random(f"{seed}broken-{what}")
        make = maker(rng)

        def draw(right: bool, make: Callable[[], dict[str, Any]] = make, kind: str = kind,
                 accept: Callable[[list[float]], bool] = accept, rng: random.Random = rng) -> Item:
            spec, wrong = pick_fault(rng, make, kind, accept)
            return Item(spec, True) if right else wrong

        cases.append((what, rng, case_items(rng, draw)))
    return cases


def off_by(rng: random.Random, tolerances: float, atol: float, rtol: float) -> dict[str, Any]:
    """A random function with one local gradient changed so that an input's gradient is off by ``tolerances`` times
    ``atol + rtol * |gradient|`` (0: the function itself)."""
    while True:
        spec = grow(rng, 2, 4)
        if not tolerances and well_conditioned(spec, atol=atol, rtol=rtol):
            return spec
        right = gradient(spec)
        i = rng.choice(reachable(spec))
        j = rng.randrange(len(spec["locals"][str(i)]))
        given = locals_of(spec, i)
        effect = max(tolerances_moved(right, gradient(with_locals(spec, i, _set(given, j, given[j] + 1.0))), atol,
                                      rtol))
        if tolerances and effect > 0:
            return with_locals(spec, i, _set(given, j, given[j] + tolerances / effect))


TOLERANCES = ((1e-3, 5e-2, 0.3), (1e-7, 1e-5, 0.0))
"""The cases of :func:`test_tolerance_arguments`: atol, rtol, and by how many of those tolerances the functions
that must pass are off (loose tolerances: a change the default ones flag; tight ones: none)."""


@made_once
def tolerance_cases(seed: str = SEED) -> list[tuple[float, float, random.Random, list[Item]]]:
    """The cases of :func:`test_tolerance_arguments`."""
    cases = []
    for atol, rtol, inside in TOLERANCES:
        rng = random.Random(f"{seed}tolerance-{atol}-{rtol}")

        def draw(right: bool, atol: float = atol, rtol: float = rtol, inside: float = inside,
                 rng: random.Random = rng) -> Item:
            given = f"atol + rtol * |gradient| with the atol={atol!r}, rtol={rtol!r} given"
            if right:
                return Item(off_by(rng, inside, atol, rtol), True,
                            f"whose gradient is off by only {inside:g} times {given}" if inside else "")
            return Item(off_by(rng, 10.0, atol, rtol), False, f"its gradient is off by 10 times {given}")

        cases.append((atol, rtol, rng, case_items(rng, draw)))
    return cases


@pytest.mark.points(7)
@pytest.mark.task("7.3")
def test_no_false_alarms(student, check):
    """gradcheck passes every correct operation (and flags obviously broken ones next to it)"""
    check.first = helpers_first(student)
    for what, rng, items in false_alarm_cases():
        with check.case(f"no false alarm on {what}: {describe(items)}", method="gradcheck",
                        hint=checks.FALSE_ALARM_HINT):
            check_verdicts(student, items, rng)


@pytest.mark.points(9)
@pytest.mark.task("7.3")
def test_catches_broken_operations(student, check):
    """gradcheck flags each hidden broken operation (and passes correct functions next to it)"""
    check.first = helpers_first(student)
    for what, rng, items in broken_cases():
        with check.case(f"catches {what}, e.g. in {describe(items, False)}", method="gradcheck",
                        hint=checks.MISSED_HINT):
            check_verdicts(student, items, rng)


@pytest.mark.points(2)
@pytest.mark.task("7.3")
def test_tolerance_arguments(student, check):
    """gradcheck uses the atol and rtol it is given"""
    check.first = helpers_first(student)
    for atol, rtol, rng, items in tolerance_cases():
        with check.case(f"gradcheck(f, xs, atol={atol!r}, rtol={rtol!r}), e.g. with {describe(items)}",
                        method="gradcheck", hint="use the atol and rtol arguments, not the default values"):
            check_verdicts(student, items, rng, atol, rtol)


@pytest.mark.points(4)
@pytest.mark.task("7.1")
def test_numerical_grad(student, check):
    """numerical_grad: central differences, one input at a time, with the step it is given"""
    rng = random.Random("numerical")
    cases = [
        ("one input, h = 1e-3", grow(rng, 1, 4, must="exp"), 1e-3, False),
        ("three inputs, h = 1e-3", grow(rng, 3, 6, must="mul"), 1e-3, False),
        ("two inputs, h = 1e-2", grow(rng, 2, 4, must="tanh"), 1e-2, False),
        ("two inputs, the default h", grow(rng, 2, 5), None, False),
        ("xs given as Values, h = 1e-4", grow(rng, 2, 4, must="mul"), 1e-4, True),
    ]
    for title, spec, h, as_values in cases:
        with check.case(f"numerical_grad on {title}: f = {expression(spec)} at {point(spec)}",
                        method="numerical_grad",
                        hint="for each input i: f at the point with x_i + h, then with x_i - h (the other inputs "
                             "unchanged), and append (f_plus - f_minus) / (2 * h)"):
            check_numerical(student, spec, h, as_values)


@pytest.mark.points(3)
@pytest.mark.task("7.2")
def test_analytic_grad(student, check):
    """analytic_grad: what backward() gives, on fresh leaves, twice in a row"""
    rng = random.Random("analytic")
    plain = grow(rng, 3, 6)
    shared = reuse(rng)
    _, wrong = pick_fault(rng, lambda: grow(rng, 2, 5), "factor")
    cases = [
        ("numbers", plain, False, "the gradient backward() gives"),
        ("a node used three times", shared, False, "the gradient backward() gives"),
        ("a function whose closures are wrong on purpose", wrong.spec, False,
         "what the closures give, not the true gradient: analytic_grad must run backward(), not differences"),
        ("the same Values twice", grow(rng, 2, 5), True, "the same gradient at both calls, the Values left alone"),
    ]
    for title, spec, as_values, what in cases:
        with check.case(f"analytic_grad on {title}: f = {expression(spec)} at {point(spec)}", method="analytic_grad",
                        hint="make fresh leaves [Value(x) for x in the point], out = f(*leaves), out.backward(), "
                             "and return [leaf.grad for leaf in leaves]"):
            got = student("gradcheck_analytic", spec, as_values)
            want = gradient(spec)
            call = f"analytic_grad(f, {point(spec)})"
            for which in ("first", "second"):
                if not numbers_close(got[which], want, 1e-9, 1e-12):
                    raise Failure(f"{call} ({which} call) gave {numbers_text(got[which])}, expected "
                                  f"{numbers_text(want)}: {what}")
            if any(g != 0.0 for g in got["caller_grads"]) or not got["unchanged"]:
                raise Failure(f"{call} with xs holding Values changed them (their grads are "
                              f"{numbers_text(got['caller_grads'])}, expected all 0.0)",
                              hint="use fresh leaves Value(x.data): gradients accumulate, so reusing the "
                                   "caller's Values adds each call's gradient to theirs")


def chain_of(rng: random.Random, n: int) -> dict[str, Any]:
    return completed(function([round(rng.uniform(-1, 1), 3)], [["tanh", i] for i in range(n)]))


def shared_twice(rng: random.Random) -> dict[str, Any]:
    """y = x0 * x1; y * y + y."""
    return reuse(rng)


def wide(rng: random.Random, n: int) -> dict[str, Any]:
    xs = [round(rng.uniform(-1, 1), 3) for _ in range(n)]
    products = [["mul", i, (i + 1) % n] for i in range(n)]
    return completed(function(xs, [*products, ["sum", *range(n, 2 * n)]]))


def with_dead_nodes(rng: random.Random) -> dict[str, Any]:
    """Nodes f makes that the output does not depend on."""
    a, b = round(rng.uniform(0.3, 1.0), 3), round(rng.uniform(0.3, 1.0), 3)
    return completed(function([a, b], [["mul", 0, 1], ["exp", 0], ["tanh", 3], ["add", 2, 1], ["mul", 5, 0]]))


def diamonds(rng: random.Random) -> dict[str, Any]:
    """Two levels of shared nodes: s = x0 + x1; t = s * s; u = t + s; u * t."""
    xs = [round(rng.uniform(0.2, 0.8), 3) for _ in range(2)]
    return completed(function(xs, [["add", 0, 1], ["mul", 2, 2], ["add", 3, 2], ["mul", 4, 3], ["tanh", 5]]))


@pytest.mark.points(3)
@pytest.mark.task("7.4")
def test_count_ops(student, check):
    """count_ops: forward and backward operation counts, backward/forward = 1 (cheap gradient)"""
    rng = random.Random("count")
    cases = [("a chain of 10 tanh", chain_of(rng, 10)), ("a node used three times", shared_twice(rng)),
             ("a wide sum of 12 products", wide(rng, 12)), ("nodes the output does not depend on", with_dead_nodes(rng)),
             ("two levels of shared nodes", diamonds(rng))]
    cases += [(f"a random function with {n} inputs", grow(rng, n, rng.randint(6, 12))) for n in (1, 2, 3)]
    for title, spec in cases:
        with check.case(f"count_ops on {title}: f = {expression(spec)}", method="count_ops",
                        hint="forward: the nodes with children reachable from the output, each once; backward: "
                             "the calls of their _backward closures during out.backward()"):
            check_counts(student, spec)


@pytest.mark.points(1)
@pytest.mark.task("7.4")
def test_count_ops_counts_calls(student, check):
    """count_ops counts the closures backward() actually calls (here a backward() without a visited set)"""
    rng = random.Random("per-path")
    for title, spec in (("a node used three times", shared_twice(rng)), ("two levels of shared nodes", diamonds(rng))):
        with check.case(f"count_ops on {title} with a backward() that calls a shared node once per path: "
                        f"f = {expression(spec)}", method="count_ops",
                        hint="count the calls of the wrapped _backward closures while out.backward() runs: "
                             "do not assume one call per node"):
            check_counts(student, spec, "per_path")


@pytest.mark.points(1)
@pytest.mark.task("7.4")
def test_count_ops_restores(student, check):
    """count_ops leaves every _backward as it found it, also when backward() raises (and lets the exception go on)"""
    rng = random.Random("restore")
    for title, spec in (("a node used three times", shared_twice(rng)), ("a random function", grow(rng, 2, 6))):
        with check.case(f"count_ops on {title}: f = {expression(spec)}", method="count_ops",
                        hint="keep each node's original _backward, and put it back after the pass (in a finally: "
                             "block, so that it is put back even if backward() raises)"):
            check_counts(student, spec)
            left = student("gradcheck_count", spec, "once")["not_restored"]
            if any(left):
                raise Failure(f"{checks.count_text(spec)} left {max(left)} node(s) of the graph with your counting "
                              "wrapper as _backward: expected every original closure back")
    spec = grow(rng, 2, 8)
    node = rng.choice(checks.reachable(spec)[:-1])  # not the output's: some closures ran before it, some did not
    with check.case(f"count_ops on a random function whose node {expression(spec, node)} has a _backward that raises: "
                    f"f = {expression(spec)}", method="count_ops", hint=checks.RESTORE_HINT):
        checks.check_restores_when_raising(student, spec, node)
