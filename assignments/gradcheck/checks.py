"""Judge-side helpers of assignment ``gradcheck``: the functions the tests give the student's checker, what math
says about them, and the comparisons.

A *function* is a graph spec whose every node the probe makes itself (``"build": "probe"``; see
:mod:`assignments.gradcheck.probes`), evaluated at its ``leaves``, the point ``xs``. The judge completes it with
the local gradient of each node at ``xs`` (``"locals"``); a *broken* function is the same spec with some of those
numbers changed (:func:`with_local`). Forward values, hence central differences, are never changed.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from assignments.gradcheck.probes import expression
from assignments.shared.checks.graphs import evaluate, with_local_gradients
from grader.testing import Failure, StudentFault, close, show

ATOL, RTOL = 1e-5, 1e-3
"""The default tolerances of ``gradcheck`` (the handout's)."""
NUMERIC_REL, NUMERIC_ABS = 1e-6, 1e-7
"""How close the student's central differences must be to the judge's at the same step: rounding only."""

FALSE_ALARM_HINT = ("a correct gradient must pass: central differences (f(x + h) - f(x - h)) / 2h with h near 1e-6 "
                    "(not 1e-1, not 1e-14), and |analytic - numerical| <= atol + rtol * |numerical| for each input "
                    "(a relative part for large gradients, an absolute one near 0)")
MISSED_HINT = ("compare every input (not just the first) and flag it when abs(analytic - numerical) > atol + rtol * "
               "|numerical|, written as `if not diff <= tol: return False` so that a NaN gradient fails too")


def function(leaves: Sequence[float], nodes: Sequence[Sequence[Any]]) -> dict[str, Any]:
    """A function of ``len(leaves)`` inputs at the point ``leaves``, its nodes made by the probe."""
    return {"leaves": [float(x) for x in leaves], "nodes": [list(n) for n in nodes], "build": "probe"}


def completed(spec: dict[str, Any]) -> dict[str, Any]:
    """``spec`` with the correct local gradients of its nodes at its point (unchanged if it has some)."""
    return with_local_gradients({**spec, "build": "probe"})


def with_local(spec: dict[str, Any], node: int, operand: int, value: float) -> dict[str, Any]:
    """A copy of the completed ``spec`` whose node ``node`` has local gradient ``value`` w.r.t. operand ``operand``
    (NaN is sent as None)."""
    spec = completed(spec)
    given = {k: list(v) for k, v in spec["locals"].items()}
    given[str(node)][operand] = None if math.isnan(value) else float(value)
    return {**spec, "locals": given}


def local(spec: dict[str, Any], node: int, operand: int) -> float:
    """The local gradient of node ``node`` w.r.t. operand ``operand`` in the completed ``spec`` (NaN for None)."""
    g = completed(spec)["locals"][str(node)][operand]
    return math.nan if g is None else float(g)


def central(spec: dict[str, Any], h: float = 1e-6) -> list[float]:
    """The central differences (f(x + h e_i) - f(x - h e_i)) / 2h of the output, one per input, with ``math``."""
    xs = [float(x) for x in spec["leaves"]]
    grads = []
    for i, x in enumerate(xs):
        up, down = list(xs), list(xs)
        up[i], down[i] = x + h, x - h
        grads.append((evaluate(spec, up)[-1] - evaluate(spec, down)[-1]) / (2 * h))
    return grads


def reachable(spec: dict[str, Any]) -> list[int]:
    """The indices of the nodes (not leaves) the output depends on, by one sweep over the spec's node list."""
    leaves = len(spec["leaves"])
    needed = {leaves + len(spec["nodes"]) - 1}
    for i in range(leaves + len(spec["nodes"]) - 1, leaves - 1, -1):
        if i in needed:
            needed.update(o for o in spec["nodes"][i - leaves][1:] if not isinstance(o, dict))
    return sorted(i for i in needed if i >= leaves)


def calls_per_path(spec: dict[str, Any]) -> int:
    """How many ``_backward`` calls of non-leaf nodes a ``backward()`` without a visited set makes: each node once
    per path to it from the output (over its distinct operands, as ``_prev`` is a set)."""
    leaves = len(spec["leaves"])
    paths = [0] * (leaves + len(spec["nodes"]))
    paths[-1] = 1
    for i in range(len(paths) - 1, leaves - 1, -1):
        for o in {o for o in spec["nodes"][i - leaves][1:] if not isinstance(o, dict)}:
            paths[o] += paths[i]
    return sum(paths[leaves:])


def point(spec: dict[str, Any]) -> str:
    """The point as the student would write it, e.g. ``[0.5, -1.25]``."""
    return repr([float(x) for x in spec["leaves"]])


def numbers_text(values: Sequence[Any]) -> str:
    """Numbers to 8 significant digits, e.g. ``[0.5, -1.2345679]``."""
    return "[" + ", ".join(f"{v:.8g}" if isinstance(v, float) else show(v) for v in values) + "]"


@dataclass
class Item:
    """One function for the student's ``gradcheck``: the completed spec, whether its gradient is right, and what is
    wrong with it (for the feedback)."""

    spec: dict[str, Any]
    correct: bool
    what: str = ""


def correct(spec: dict[str, Any]) -> Item:
    """The function of ``spec`` with its right local gradients."""
    return Item(completed(spec), True)


def broken(spec: dict[str, Any], node: int, operand: int, value: float, what: str = "") -> Item:
    """The function of ``spec`` with one wrong local gradient (see :func:`with_local`)."""
    right = local(spec, node, operand)
    text = what or (f"the _backward of its node {expression(spec, node)} uses the local gradient {value:.6g} "
                    f"instead of {right:.6g} for the operand {describe_operand(spec, node, operand)}")
    return Item(with_local(spec, node, operand, value), False, text)


def describe_operand(spec: dict[str, Any], node: int, operand: int) -> str:
    """Operand ``operand`` of node ``node`` as an expression, e.g. ``x0`` or ``x0 * x1``."""
    return expression(spec, spec["nodes"][node - len(spec["leaves"])][1 + operand])


def self_check_note() -> str:
    """Where the analytic gradients come from: nothing to say any more (the grader's functions are evaluated by the
    grader, in a self-check as in hidden grading)."""
    return ""


def check_verdicts(student: Callable[..., Any], items: Sequence[Item], rng: random.Random, atol: float = ATOL,
                   rtol: float = RTOL) -> None:
    """Ask the student's ``gradcheck`` about every item, in an order drawn from ``rng``; each verdict must be right.

    The items of one case hold right and wrong functions, in an order only the judge knows, so no verdict that
    does not compare the gradients (always True, always False, alternating) gets a case right.

    Raises:
        Failure: For the first item with the wrong verdict: a false alarm or a missed wrong gradient.
    """
    order = list(range(len(items)))
    rng.shuffle(order)
    got = student("gradcheck_verdicts", [items[i].spec for i in order], atol, rtol)["verdicts"]
    call = f"gradcheck(f, xs, atol={atol!r}, rtol={rtol!r})"
    for position, i in enumerate(order):
        item = items[i]
        if got[position] == item.correct:
            continue
        xs = point(item.spec)
        if item.correct:
            raise Failure(f"{call} returned False (a false alarm) for f = {expression(item.spec)} at xs = {xs}, "
                          f"{item.what or 'whose gradient is right'}: central differences give "
                          f"{numbers_text(central(item.spec))}; expected True{self_check_note()}",
                          hint=FALSE_ALARM_HINT)
        raise Failure(f"{call} returned True for f = {expression(item.spec)} at xs = {xs}, but {item.what}: "
                      f"expected False", hint=MISSED_HINT)


def numbers_close(got: Sequence[Any], want: Sequence[float], rel: float, abs_tol: float) -> bool:
    """Whether each of ``got`` is a number within tolerance of ``want`` (NaN only for NaN)."""
    return len(got) == len(want) and all(close(g, w, rel, abs_tol) for g, w in zip(got, want))


def check_numerical(student: Callable[..., Any], spec: dict[str, Any], h: float | None, as_values: bool = False) -> None:
    """The student's ``numerical_grad`` at ``spec``'s point must give the judge's central differences with step ``h``
    (None: the default step, compared with h = 1e-6 a little more loosely), and leave the caller's list alone."""
    spec = completed(spec)
    got = student("gradcheck_numerical", spec, h, as_values)
    want = central(spec, 1e-6 if h is None else h)
    call = f"numerical_grad(f, {point(spec)}{'' if h is None else f', h={h!r}'})"
    rel, abs_tol = (1e-4, 1e-5) if h is None else (NUMERIC_REL, NUMERIC_ABS)
    if not numbers_close(got["grads"], want, rel, abs_tol):
        raise Failure(f"{call} with f = {expression(spec)} gave {numbers_text(got['grads'])}, expected "
                      f"{numbers_text(want)} (central differences, one input moved at a time)")
    if not got["unchanged"]:
        raise Failure(f"{call} changed the caller's list xs{' of Values' if as_values else ''}: expected it "
                      "unchanged (work on a copy of the point, and put each moved input back)",
                      hint="copy the point into a list of floats first, then move input i by +h and -h in the copy")


def helpers_first(student: Callable[..., Any]) -> Callable[[], tuple[str, str] | None]:
    """For :attr:`grader.testing.cases.Check.first`: the helper ``gradcheck`` is built from that is wrong on a simple
    function (``numerical_grad`` at h = 1e-3, else ``analytic_grad``), so a wrong verdict names it first."""
    spec = completed(function([0.7, -1.3], [["mul", 0, 1], ["tanh", 2], ["add", 3, 0]]))

    def first() -> tuple[str, str] | None:
        try:
            got = student("gradcheck_numerical", spec, 1e-3, False)["grads"]
            want = central(spec, 1e-3)
            if not numbers_close(got, want, NUMERIC_REL, NUMERIC_ABS):
                return "numerical_grad", (f"numerical_grad(f, {point(spec)}, h=0.001) with f = {expression(spec)} "
                                          f"gives {numbers_text(got)}, central differences give {numbers_text(want)} "
                                          "(move one input at a time by +h and -h, divide by 2 * h), and gradcheck "
                                          "compares with it")
            got = student("gradcheck_analytic", spec, False)["first"]
            want = central(spec, 1e-6)
            if not numbers_close(got, want, 1e-6, 1e-7):
                return "analytic_grad", (f"analytic_grad(f, {point(spec)}) with f = {expression(spec)} gives "
                                         f"{numbers_text(got)}, expected {numbers_text(want)}{self_check_note()} "
                                         "(fresh leaves, out = f(*leaves), out.backward(), their grads), and "
                                         "gradcheck compares with it")
        except StudentFault:
            return None  # code that raised names itself
        return None

    return first


def count_text(spec: dict[str, Any]) -> str:
    return f"count_ops(f, {point(spec)}) with f = {expression(spec)}"


def check_counts(student: Callable[..., Any], spec: dict[str, Any], engine: str = "once") -> None:
    """The student's ``count_ops`` on ``spec``: forward = the nodes the output depends on, backward = the closures
    ``backward()`` calls (each once, or once per path with ``engine="per_path"``); the same on a second call."""
    spec = completed(spec)
    got = student("gradcheck_count", spec, engine)
    if got["judged"]["backward_passes"] < 2:  # two calls of count_ops, each one backward(): counted by the judge
        raise Failure(f"{count_text(spec)} never ran backward() (the grader counts each run, and each closure it "
                      "calls): its backward count is not a count of the closures called",
                      hint="wrap each non-leaf node's _backward in a counting closure, run out.backward() once, "
                           "and count the calls of those closures")
    forward = len(reachable(spec))
    backward = forward if engine == "once" else calls_per_path(spec)
    fw, bw = got["first"]
    if fw != forward:
        raise Failure(f"{count_text(spec)} counted {fw} forward operations, expected {forward}: the nodes "
                      "reachable from the output through _prev that are not leaves, each once",
                      hint="walk the graph from the output with a visited set (by id), and count only the nodes "
                           "that have children (_prev not empty)")
    if bw != backward:
        how = ("a correct backward() calls each closure once, so backward = forward" if engine == "once" else
               "here backward() had no visited set and called a shared node's closure once per path to it")
        raise Failure(f"{count_text(spec)} counted {bw} backward operations, expected {backward} ({how}; the "
                      f"cheap-gradient ratio backward/forward is {backward / forward:.2f}, yours {bw / forward:.2f})",
                      hint="wrap each non-leaf node's _backward in a counting closure, run out.backward() once, "
                           "and count the calls of those closures (not of backward(), not of the leaves' closures)")
    if got["second"] != got["first"]:
        raise Failure(f"{count_text(spec)} called twice gave {tuple(got['first'])}, then {tuple(got['second'])}: "
                      "expected the same counts", hint="build the graph on fresh leaves at each call")


RESTORE_HINT = ("keep each node's original _backward, and put it back in a finally: block around out.backward(), so "
                "that it is put back also when backward() raises (and the exception goes on to the caller)")


def check_restores_when_raising(student: Callable[..., Any], spec: dict[str, Any], node: int) -> None:
    """The student's ``count_ops`` on ``spec`` whose node ``node``'s ``_backward`` raises (the grader's, on purpose):
    the exception must come out of ``count_ops``, and every node's ``_backward`` be the original again."""
    spec = completed(spec)
    got = student("gradcheck_count_raising", spec, node)
    raised = f"the _backward of its node {expression(spec, node)} raised on purpose"
    if got["judged"]["backward_passes"] < 1:
        raise Failure(f"{count_text(spec)} never ran backward() ({raised} in it): its backward count is not a count "
                      "of the closures called", hint="wrap each non-leaf node's _backward in a counting closure, run "
                                                     "out.backward() once, and count the calls of those closures")
    if got["not_restored"]:
        raise Failure(f"{count_text(spec)}, where {raised} during out.backward(), left {got['not_restored']} node(s) "
                      "of the graph with your counting wrapper as _backward: expected every original closure back, "
                      "also when the pass raises", hint=RESTORE_HINT)
    if not got["propagated"]:
        raise Failure(f"{count_text(spec)}, where {raised} during out.backward(), returned instead of raising: "
                      "expected the exception to go on to the caller (a count of a pass that failed is no count)",
                      hint="restore the closures in try: ... finally: (no except that swallows the error)")
