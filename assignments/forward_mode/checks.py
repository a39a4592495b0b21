"""Judge-side helpers of assignment ``forward_mode``: specs, what math says they compute, and comparisons.

The probes (:mod:`assignments.forward_mode.probes`) run expression and
function specs with the student's ``Dual``; this module builds those specs,
evaluates them with plain floats, computes the tangents a correct ``Dual``
gives by central finite differences (what public tests compare with: a
student's copy has no reference), and compares an answer with the expected
one node by node, naming the node, its inputs, the method and what came.

The local derivatives of the nodes the grader makes (:func:`with_locals`) come
from the complex step: ``Im(g(a + ih)) / h`` with ``h = 1e-20`` is ``g'(a)`` to
rounding, with no table of derivative rules anywhere.
"""

from __future__ import annotations

import cmath
import math
from collections.abc import Callable, Sequence
from typing import Any

from assignments.forward_mode.probes import FORWARD, PROBES, leaf_value, probe_made
from assignments.shared.probes.engine_probes import SYMBOL, describe_node
from grader.testing import Failure, StudentFault, close, show

REL, ABS = 1e-7, 1e-9
"""Tolerance of a comparison with the reference (the same formula written another way agrees to about 1e-15)."""
MATH_REL, MATH_ABS = 1e-6, 1e-6
"""Tolerance of a comparison with central differences (their error is about 1e-10 on these inputs)."""

OVERFLOW_HINTS: dict[str, str] = {
    "Dual.tanh": "the tangent rule is not the problem: computing tanh from math.exp overflows for large |u| "
                 "((e**2u - 1)/(e**2u + 1) does above u = 354), and so does a tangent from math.cosh(u)**2; use "
                 "t = math.tanh(u), which is finite for every u, and the tangent (1 - t**2) * u' from it",
}
"""The hint for an ``OverflowError`` in an operation whose docstring says it never overflows: a stability fault, not a
wrong tangent rule."""
HINTS: dict[str, str] = {
    "Dual.__init__": "keep Dual.__init__ as the template gives it: val and dot stored as floats",
    "Dual.__add__": "(u + w)' = u' + w': add the values and add the tangents; a plain number c is Dual(c), tangent 0",
    "Dual.__neg__": "(-u)' = -u': negate the value and the tangent",
    "Dual.__sub__": "u - w is u + (-w): its tangent is u' - w'",
    "Dual.__radd__": "c + u calls u.__radd__(c), which is u + c (sum() starts from 0 + the first item)",
    "Dual.__rsub__": "c - u calls u.__rsub__(c), which is c + (-u): not u - c",
    "Dual.__mul__": "product rule: (u w)' = u' w + u w'; a plain number c is Dual(c) with tangent 0",
    "Dual.__rmul__": "c * u calls u.__rmul__(c), which is u * c",
    "Dual.__truediv__": "quotient rule: (u / w)' = (u' w - u w') / w**2",
    "Dual.__rtruediv__": "c / u calls u.__rtruediv__(c), which is Dual(c) / u: not u / c",
    "Dual.__pow__": "power rule with the chain factor: (u**n)' = n * u**(n-1) * u', for an int or float n only",
    "Dual.sin": "(sin u)' = cos(u) * u': keep the chain factor u'",
    "Dual.cos": "(cos u)' = -sin(u) * u': mind the sign and the chain factor u'",
    "Dual.exp": "(e**u)' = e**u * u': keep the chain factor u'",
    "Dual.log": "(ln u)' = u' / u",
    "Dual.tanh": "(tanh u)' = (1 - t**2) * u', where t = math.tanh(u) is the output's value",
    "derivative": "call f once with Dual(x, 1.0) (dx/dx = 1) and return the output's dot; 0.0 if f returns a plain number",
    "gradient": "one pass per input: pass i calls f with fresh Duals, tangent 1 for input i and 0 for the others, "
                "and keeps the output's dot",
}
"""The hint about each method of the handout: what its rule is."""

METHODS = tuple(m.partition(".")[2] for m in HINTS if m.startswith("Dual."))
"""The methods of ``Dual`` the handout names."""

# --- specs -----------------------------------------------------------------------

def const(c: float) -> dict[str, float]:
    """A plain-number operand (exercises wrapping and the reflected operations)."""
    return {"const": c}


def expr(leaves: Sequence[tuple[float, float]], nodes: Sequence[Sequence[Any]], built: Sequence[int] = ()) -> dict[str, Any]:
    """An expression spec: leaves ``(val, dot)``, nodes ``[op, operand, ...]``, the nodes the grader makes."""
    out: dict[str, Any] = {"leaves": [[float(v), float(d)] for v, d in leaves], "nodes": [list(n) for n in nodes]}
    if built:
        out["build"] = sorted(built)
    return out


def function(point: Sequence[float], nodes: Sequence[Sequence[Any]] = (), constant: float | None = None) -> dict[str, Any]:
    """A function spec: the point (one number per argument of ``f``) and the grader's nodes, or a constant."""
    out: dict[str, Any] = {"leaves": [float(x) for x in point], "nodes": [list(n) for n in nodes]}
    if constant is not None:
        out["constant"] = float(constant)
    return out


def method_of(spec: dict[str, Any], index: int) -> str:
    """The method of ``Dual`` that Python calls for node ``index`` (``2 * x0`` is ``Dual.__rmul__``)."""
    op, *operands = spec["nodes"][index - len(spec["leaves"])]
    if op == "sum":
        return "Dual.__radd__"
    if op in SYMBOL:
        return f"Dual.__r{op}__" if isinstance(operands[0], dict) else f"Dual.__{op}__"
    return "Dual.__neg__" if op == "neg" else f"Dual.{op}"


# --- plain floats ----------------------------------------------------------------

def evaluate(spec: dict[str, Any], values: Sequence[float] | None = None) -> list[float]:
    """The value of every node (leaves first) with plain floats.

    Raises:
        ValueError, ArithmeticError, TypeError: Outside an operation's domain.
    """
    out = [leaf_value(x) for x in spec["leaves"]] if values is None else [float(v) for v in values]
    for op, *operands in spec["nodes"]:
        value = FORWARD[op](*(o["const"] if isinstance(o, dict) else out[o] for o in operands))
        if isinstance(value, complex):
            raise ValueError("a complex value")
        out.append(float(value))
    return out


COMPLEX: dict[str, Callable[..., complex]] = {
    **{op: FORWARD[op] for op in ("add", "sub", "mul", "truediv", "pow", "neg")},
    "sin": cmath.sin, "cos": cmath.cos, "exp": cmath.exp, "log": cmath.log, "tanh": cmath.tanh,
    "sum": lambda *xs: sum(xs),
}
"""Each operation on complex numbers (for the complex step)."""
STEP = 1e-20


def partials(op: str, args: Sequence[float]) -> list[float]:
    """d op / d operand at ``args`` for each operand, by the complex step (NaN outside the domain)."""
    out = []
    for j in range(len(args)):
        shifted = [complex(a, STEP) if k == j else complex(a) for k, a in enumerate(args)]
        try:
            out.append(float(COMPLEX[op](*shifted).imag / STEP))
        except (ArithmeticError, ValueError, TypeError):
            out.append(math.nan)
    return out


def with_locals(spec: dict[str, Any]) -> dict[str, Any]:
    """``spec`` with ``"locals"``: for each node the probe makes, its local derivatives at the spec's point."""
    first = len(spec["leaves"])
    is_function = all(not isinstance(x, list) for x in spec["leaves"])  # its nodes are all the grader's
    made = set(range(first, first + len(spec["nodes"]))) if is_function else probe_made(spec)
    if not made or "locals" in spec:
        return spec
    values = [leaf_value(x) for x in spec["leaves"]]
    given: dict[str, list[float | None]] = {}
    for i, (op, *operands) in enumerate(spec["nodes"], start=len(spec["leaves"])):
        args = [float(o["const"]) if isinstance(o, dict) else values[o] for o in operands]
        try:
            values.append(float(FORWARD[op](*args)))
        except (ArithmeticError, ValueError, TypeError):
            values.append(math.nan)
        if i in made:
            given[str(i)] = [g if math.isfinite(g) else None for g in partials(op, args)]
    return {**spec, "locals": given}


def complete(args: list[Any]) -> list[Any]:
    """The judge's part of a request of :mod:`.probes`: the local derivatives of the nodes the probe makes."""
    return [with_locals(args[0]), *args[1:]] if args and isinstance(args[0], dict) else args


REQUESTS = {name: complete for name in PROBES}
"""The judge side of :mod:`.probes` (its ``JUDGE_SIDE``): each request completed before it is sent."""


def tangents(spec: dict[str, Any], h: float = 1e-6) -> list[float]:
    """The tangent of every node along the leaves' dots: d/dt of its value at leaves ``val + t * dot``, t = 0, by
    the central difference ``(v(h) - v(-h)) / 2h``."""
    vals = [leaf_value(x) for x in spec["leaves"]]
    dots = [float(x[1]) for x in spec["leaves"]]
    up = evaluate(spec, [v + h * d for v, d in zip(vals, dots)])
    down = evaluate(spec, [v - h * d for v, d in zip(vals, dots)])
    return [(a - b) / (2 * h) for a, b in zip(up, down)]


def expected(spec: dict[str, Any]) -> dict[str, list[float]]:
    """What a correct ``Dual`` gives for an expression spec: values with ``math``; tangents by central differences,
    to 9 significant digits (about their accuracy), the leaves' own as given."""
    dots = [float(f"{t:.9g}") for t in tangents(spec)]
    dots[: len(spec["leaves"])] = [float(x[1]) for x in spec["leaves"]]
    return {"val": evaluate(spec), "dot": dots}


def partial_differences(spec: dict[str, Any], h: float = 1e-6) -> list[float]:
    """The partial derivatives of a function spec's output at its point, by central differences."""
    point = [leaf_value(x) for x in spec["leaves"]]
    if "constant" in spec:
        return [0.0] * len(point)
    out = []
    for j in range(len(point)):
        step = h * max(1.0, abs(point[j]))
        up = [x + (step if k == j else 0.0) for k, x in enumerate(point)]
        down = [x - (step if k == j else 0.0) for k, x in enumerate(point)]
        out.append((evaluate(spec, up)[-1] - evaluate(spec, down)[-1]) / (2 * step))
    return out


# --- comparing ---------------------------------------------------------------------

def dual_text(val: Any, dot: Any) -> str:
    return f"Dual({show(val)}, {show(dot)})"


def leaves_text(spec: dict[str, Any]) -> str:
    return ", ".join(f"x{i} = {dual_text(float(v), float(d))}" for i, (v, d) in enumerate(spec["leaves"]))


def listing(spec: dict[str, Any]) -> str:
    """The nodes of a spec, the grader's own marked: ``n2 = x0 * x1; n3 = n2.sin() (grader's)``."""
    made = probe_made(spec)
    first = len(spec["leaves"])
    return "; ".join(f"n{i} = {describe_node(spec, i)}" + (" (grader's)" if i in made else "")
                     for i in range(first, first + len(spec["nodes"])))


def function_text(spec: dict[str, Any]) -> str:
    """A function spec as text: ``f(x0, x1) = n4 where n2 = x0 * x1; ...`` (or the constant it returns)."""
    args = ", ".join(f"x{i}" for i in range(len(spec["leaves"])))
    if "constant" in spec:
        return f"f({args}) = {spec['constant']!r}, a plain number"
    return f"f({args}) = n{len(spec['leaves']) + len(spec['nodes']) - 1} where {listing(spec)}"


def compare(got: dict[str, list[Any]], want: dict[str, list[Any]], spec: dict[str, Any],
            rel: float = REL, abs_tol: float = ABS) -> None:
    """Compare a ``forward_mode_expr`` answer with the expected one: each leaf unchanged, then each node's value
    and tangent, in order.

    Raises:
        Failure: At the first difference, naming the node, the leaves and what was expected.
    """
    found = difference(got, want, spec, rel, abs_tol)
    if found is not None:
        raise Failure(found[1])


def difference(got: dict[str, list[Any]], want: dict[str, list[Any]], spec: dict[str, Any],
               rel: float = REL, abs_tol: float = ABS) -> tuple[int, str] | None:
    """The first difference of :func:`compare`: the index of the leaf or node, and what is wrong there (None: none)."""
    first = len(spec["leaves"])
    where = leaves_text(spec)
    for i in range(first + len(spec["nodes"])):
        g_val, g_dot, w_val, w_dot = got["val"][i], got["dot"][i], want["val"][i], want["dot"][i]
        if i < first:
            if not (close(g_val, w_val, rel, abs_tol) and close(g_dot, w_dot, rel, abs_tol)):
                return i, (f"x{i} was {dual_text(w_val, w_dot)} and is {dual_text(g_val, g_dot)} after the "
                           f"operations ({where}): return a new Dual, never change self or other")
            continue
        name = f"n{i} = {describe_node(spec, i)}" if len(spec["nodes"]) > 1 else describe_node(spec, i)
        if not close(g_val, float(w_val), rel, abs_tol):
            return i, f"{name} with {where}: the value (val) was {show(g_val)}, expected {show(w_val)}"
        if not close(g_dot, float(w_dot), rel, abs_tol):
            return i, (f"{name} with {where}: the tangent (dot) was {show(g_dot)}, expected {show(w_dot)}"
                       + _seed_note(spec, i))
    return None


def _seed_note(spec: dict[str, Any], index: int) -> str:
    """A note when the node's inputs have tangents other than 1 (a missing chain factor shows only then)."""
    op, *operands = spec["nodes"][index - len(spec["leaves"])]
    if op not in ("pow", "sin", "cos", "exp", "log", "tanh"):
        return ""
    operand = operands[0]
    if operand >= len(spec["leaves"]):
        return " (its input is a computed node: its tangent, the chain factor u', counts)"
    dot = spec["leaves"][operand][1]
    return f" (the input's tangent is {dot!r}, not 1: the chain factor u' counts)" if dot != 1.0 else ""


def dual_exponent(student: Callable[..., Any], spec: dict[str, Any]) -> None:
    """``x0 ** x1`` with ``x1`` a Dual (``spec``): a ``TypeError``, as the handout asks, or else the general power's
    value and tangent (``(u**w)' = w u**(w-1) u' + ln(u) u**w w'``), which is not wrong.

    Raises:
        Failure: If neither: another answer, or another exception.
    """
    try:
        got = student("forward_mode_expr", spec)
    except StudentFault as fault:
        if fault.raised("TypeError"):
            return
        raise
    want = expected(spec)
    if not (close(got["val"][-1], want["val"][-1], MATH_REL, MATH_ABS)
            and close(got["dot"][-1], want["dot"][-1], MATH_REL, MATH_ABS)):
        raise Failure(f"x0 ** x1 with a Dual exponent ({leaves_text(spec)}) gave "
                      f"{dual_text(got['val'][-1], got['dot'][-1])}, expected TypeError")


def culprit(fault: StudentFault, declared: str) -> str:
    """The method of the handout whose own code raised (its frame's qualified name), else ``declared``."""
    where = fault.error.get("where") if fault.kind == "raised" else None
    if isinstance(where, dict):
        qualname = str(where.get("qualname") or "")
        owner, _, rest = qualname.partition(".")
        name = rest.partition(".")[0]
        if owner == "Dual" and name in METHODS:
            return f"Dual.{name}"
        function_name = str(where.get("function") or "")
        if function_name in ("derivative", "gradient") and not owner.startswith("Dual"):
            return function_name
    return declared


def ask(student: Callable[..., Any], probe: str, spec: dict[str, Any], method: str) -> Any:
    """``student(probe, spec)``, with an exception of the student's code reported under the method that raised it
    (one of the handout's, else ``method``) and the hint about that method: about its stability
    (:data:`OVERFLOW_HINTS`) when an operation that never overflows raised ``OverflowError``, in its own code or in
    the ``Dual.exp`` it called (``exp`` is right to overflow there: the call with a huge argument is the fault)."""
    try:
        return student(probe, spec)
    except StudentFault as fault:
        if fault.kind != "raised":
            raise
        at_fault = culprit(fault, method)
        overflow = fault.raised("OverflowError") and method in OVERFLOW_HINTS and at_fault in (method, "Dual.exp")
        again = StudentFault(fault.kind, fault.message, fault.error)
        again.method = method if overflow else at_fault
        if fault.error.get("type") != "NotImplementedError":
            again.hint = OVERFLOW_HINTS[method] if overflow else HINTS.get(at_fault)
        raise again from None


# --- derivative() and gradient() --------------------------------------------------------

def output_value(spec: dict[str, Any]) -> float:
    """f at the function spec's point."""
    return float(spec["constant"]) if "constant" in spec else evaluate(spec)[-1]


def _pass_text(vals: list[float], dots: list[float]) -> str:
    return ", ".join(dual_text(v, d) for v, d in zip(vals, dots))


def judge_derivative(got: dict[str, Any], spec: dict[str, Any], want: float, rel: float = MATH_REL,
                     abs_tol: float = MATH_ABS) -> None:
    """Check a ``forward_mode_derivative`` answer: the derivative ``want``, from one call of ``f`` seeded with 1.

    Raises:
        Failure: Naming what ``derivative`` returned and how it called ``f``.
    """
    x = leaf_value(spec["leaves"][0])
    call = f"derivative(f, {x!r})"
    result = got["result"]
    if not close(result, want, rel, abs_tol):
        note = ""
        if got["calls"] and got["dots"][0][0] != 1.0:
            note = f": f was called with {_pass_text(got['vals'][0], got['dots'][0])}; seed the input with dot = 1.0"
        elif close(result, output_value(spec), rel, abs_tol) and not close(result, want, rel, abs_tol):
            note = ": that is f(x), the output's val; return its dot"
        raise Failure(f"{call} returned {show(result)}, expected {show(want)}{note}")
    if got["calls"] != 1:
        raise Failure(f"{call} called f {got['calls']} times, expected once: one forward pass gives the derivative")
    if not close(got["vals"][0][0], x, rel, abs_tol):
        raise Failure(f"{call} called f with {_pass_text(got['vals'][0], got['dots'][0])}, expected Dual({x!r}, 1.0)")


def judge_gradient(got: dict[str, Any], spec: dict[str, Any], want: Sequence[float], rel: float = MATH_REL,
                   abs_tol: float = MATH_ABS, passes: bool = True) -> None:
    """Check a ``forward_mode_gradient`` answer: the gradient ``want``, and (``passes``) one pass per input, pass i
    seeded with the i-th unit tangent.

    Raises:
        Failure: Naming what ``gradient`` returned and how it called ``f``.
    """
    point = [leaf_value(x) for x in spec["leaves"]]
    n = len(point)
    call = f"gradient(f, {', '.join(repr(x) for x in point)})"
    result = got["result"]
    if isinstance(result, dict):
        raise Failure(f"{call} returned a {result['other']} ({result['repr']}), expected a list of {n} numbers")
    shown = "[" + ", ".join(show(g) for g in result) + "]"
    expected_text = "[" + ", ".join(show(w) for w in want) + "]"
    if len(result) != n:
        raise Failure(f"{call} returned {len(result)} numbers {shown}, expected {n}, one per input: {expected_text}")
    if not all(close(g, w, rel, abs_tol) for g, w in zip(result, want)):
        raise Failure(f"{call} returned {shown}, expected {expected_text}{_seeding(got, point)}")
    if passes and got["calls"] != n:
        raise Failure(f"{call} called f {got['calls']} times, expected {n}: one forward pass per input")


def _seeding(got: dict[str, Any], point: list[float]) -> str:
    """What was wrong with the passes, if anything: their number, their seeds, their points."""
    n = len(point)
    for k in range(min(got["calls"], n)):
        unit = [1.0 if j == k else 0.0 for j in range(n)]
        if got["dots"][k] != unit or not all(close(v, x) for v, x in zip(got["vals"][k], point)):
            return (f"\n  pass {k + 1} called f with {_pass_text(got['vals'][k], got['dots'][k])}; pass i must give "
                    "input i the tangent 1 and every other input 0, in fresh Duals at the point")
    if got["calls"] < n:
        return f"\n  f was called {got['calls']} times for {n} inputs: one pass per input"
    return ""
