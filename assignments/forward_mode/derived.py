"""Derived operations traced to the method at fault: ``c - u`` is ``c + (-u)``, which is ``(-u) + c``.

When a derived operation of the handout (``__sub__``, ``__radd__``, ``__rsub__``, ``__rmul__``, ``__rtruediv__``,
``sum()``) gives a wrong answer, each base operation it is built from runs on the same inputs; a wrong one is
named instead (fix it first), followed down the chain, so a right operation that only calls a wrong one is never
blamed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from assignments.forward_mode.checks import ABS, HINTS, REL, ask, compare, const, difference, expr, method_of
from assignments.forward_mode.probes import probe_made
from grader.testing import Failure


def base_specs(spec: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """For a one-node spec of a derived operation, the handout's base operations on the same inputs:
    ``(method, how the derived one is built, spec)`` for each (``x0 - x1`` is ``x0 + (-x1)``)."""
    op, *operands = spec["nodes"][0]
    leaves = [tuple(x) for x in spec["leaves"]]

    def pair(o: Any) -> tuple[float, float] | dict[str, float]:
        return o if isinstance(o, dict) else leaves[o]

    def one(node_op: str, *args: Any) -> dict[str, Any]:
        duals = [a for a in args if not isinstance(a, dict)]
        nodes, k = [], 0
        for a in args:
            if isinstance(a, dict):
                nodes.append(a)
            else:
                nodes.append(k)
                k += 1
        return expr(duals, [[node_op, *nodes]])

    method = method_of(spec, len(spec["leaves"]))
    if method == "Dual.__sub__":
        a, b = pair(operands[0]), pair(operands[1])
        if isinstance(b, dict):
            return [("Dual.__add__", f"u - {b['const']!r} is u + {-b['const']!r}", one("add", a, const(-b["const"])))]
        neg_b = (-b[0], -b[1])
        return [("Dual.__neg__", "u - w is u + (-w)", one("neg", b)),
                ("Dual.__add__", "u - w is u + (-w)", one("add", a, neg_b))]
    if method == "Dual.__rsub__":
        c, x = operands[0], pair(operands[1])
        return [("Dual.__neg__", "c - u is c + (-u)", one("neg", x)),
                ("Dual.__radd__", "c - u is c + (-u)", one("add", c, (-x[0], -x[1])))]
    if method == "Dual.__radd__" and op == "add":
        return [("Dual.__add__", "c + u is u + c", one("add", pair(operands[1]), operands[0]))]
    if op == "sum" and len(operands) > 1:
        how = "sum([u, w, ...]) is (0 + u) + w + ..."
        return [("Dual.__radd__", how, one("add", const(0), pair(operands[0]))),
                ("Dual.__add__", how, one("add", pair(operands[0]), pair(operands[1])))]
    if method == "Dual.__rmul__":
        return [("Dual.__mul__", "c * u is u * c", one("mul", pair(operands[1]), operands[0]))]
    if method == "Dual.__rtruediv__":
        return [("Dual.__truediv__", "c / u is Dual(c) / u", one("truediv", (operands[0]["const"], 0.0), pair(operands[1])))]
    return []


def compare_derived(student: Callable[..., Any], expect: Callable[[dict[str, Any]], Any], spec: dict[str, Any],
                    got: Any, want: Any, rel: float = REL, abs_tol: float = ABS) -> None:
    """:func:`compare` for a one-node spec of a derived operation; on a difference, each base operation the handout
    builds it from is run on the same inputs, and a wrong one is named instead (fix it first), followed down the
    chain to the method at fault (:func:`wrong_base`): never a right one that only calls it.

    Args:
        student: The ``student`` fixture.
        expect: The expected answer of a spec (the reference's, or :func:`expected`).
        spec, got, want, rel, abs_tol: As for :func:`compare`.
    """
    try:
        compare(got, want, spec, rel, abs_tol)
    except Failure as failure:
        raise blamed(student, expect, spec, failure, rel, abs_tol) from None


def compare_expression(student: Callable[..., Any], expect: Callable[[dict[str, Any]], Any], spec: dict[str, Any],
                       got: Any, want: Any, rel: float = REL, abs_tol: float = ABS) -> None:
    """:func:`compare` for an expression of the grader's nodes and one operation's; when the first wrong node is the
    student's derived operation (its inputs, computed before it, are right), its base operations are run on the
    same inputs and a wrong one is named, as in :func:`compare_derived`.

    Args:
        student, expect: As for :func:`compare_derived`.
        spec, got, want, rel, abs_tol: As for :func:`compare`.
    """
    found = difference(got, want, spec, rel, abs_tol)
    if found is None:
        return
    index, message = found
    failure = Failure(message)
    if index >= len(spec["leaves"]) and index not in probe_made(spec):
        raise blamed(student, expect, node_alone(spec, index, want), failure, rel, abs_tol) from None
    raise failure


def node_alone(spec: dict[str, Any], index: int, want: dict[str, list[Any]]) -> dict[str, Any]:
    """Node ``index`` of ``spec`` as a one-node spec: its Dual operands become leaves with their expected values and
    tangents (one leaf per distinct operand: ``n3 + n3`` is ``x0 + x0``), its constants stay constants."""
    _, *operands = node = spec["nodes"][index - len(spec["leaves"])]
    leaves: list[tuple[float, float]] = []
    leaf_of: dict[int, int] = {}
    mapped: list[Any] = []
    for o in operands:
        if isinstance(o, dict):
            mapped.append(o)
            continue
        if o not in leaf_of:
            leaf_of[o] = len(leaves)
            leaves.append((float(want["val"][o]), float(want["dot"][o])))
        mapped.append(leaf_of[o])
    return expr(leaves, [[node[0], *mapped]])


def blamed(student: Callable[..., Any], expect: Callable[[dict[str, Any]], Any], spec: dict[str, Any],
           failure: Failure, rel: float = REL, abs_tol: float = ABS) -> Failure:
    """``failure`` of a one-node spec, or, when the spec's operation is derived and a base operation it is built on
    is wrong (:func:`wrong_base`), a Failure naming that base operation (fix it first), with its hint."""
    found = wrong_base(student, expect, spec, rel, abs_tol)
    if found is None:
        return failure
    chain, wrong = found
    base = chain[-1][0]
    built = ", which is built on ".join(f"{method} ({how})" for method, how in chain)
    derived = "sum()" if spec["nodes"][0][0] == "sum" else method_of(spec, len(spec["leaves"]))
    return Failure(f"{failure.message}\n  {derived} is built on {built}, and {base} is wrong: {wrong.message}. "
                   f"Fix {base} first", base, HINTS[base])


def wrong_base(student: Callable[..., Any], expect: Callable[[dict[str, Any]], Any], spec: dict[str, Any],
               rel: float = REL, abs_tol: float = ABS) -> tuple[list[tuple[str, str]], Failure] | None:
    """The first wrong base operation of a one-node spec's derived operation (:func:`base_specs`), followed down
    the chain to the method at fault: a base that is itself derived (``c - u`` is ``c + (-u)``, which is
    ``(-u) + c``) and wrong is named only when its own bases are right.

    Returns:
        The chain ``[(method, how it builds the one above), ...]`` from the derived operation's first base to the
        method at fault, and that method's failure; None when every base operation is right.
    """
    for base, how, base_spec in base_specs(spec):
        try:
            compare(ask(student, "forward_mode_expr", base_spec, base), expect(base_spec), base_spec, rel, abs_tol)
        except Failure as wrong:
            deeper = wrong_base(student, expect, base_spec, rel, abs_tol)
            return ([(base, how), *deeper[0]], deeper[1]) if deeper else ([(base, how)], wrong)
    return None
