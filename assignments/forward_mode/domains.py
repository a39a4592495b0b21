"""An operation's domain: outside it, the exception the handout's docstring promises (division by a value of 0,
``exp`` above about 709.78, ``log`` of a value <= 0), as floats and :mod:`math` raise it.

A case checks the value and tangent just inside the domain, which only a working operation gives, then each input
outside it; the probe reports an exception as data (its type's name, bounded by the judge), and only the name is
compared.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from assignments.forward_mode.checks import ABS, HINTS, REL, ask, compare, dual_text, leaves_text, method_of
from assignments.shared.probes.engine_probes import describe_node
from grader.testing import Failure, StudentFault, describe_error

DOMAIN_ERRORS: dict[str, tuple[str, str]] = {
    "Dual.__truediv__": ("ZeroDivisionError", "as float division by 0 does"),
    "Dual.exp": ("OverflowError", "as math.exp does above about 709.78: e**u is larger than the largest float"),
    "Dual.log": ("ValueError", "as math.log does: ln u is not defined for u <= 0"),
}
"""For each operation with a domain, the exception the handout's docstring promises outside it, and why."""
DOMAIN_HINTS: dict[str, str] = {
    "Dual.__truediv__": "a divisor whose value is 0 raises ZeroDivisionError, as float division does: let "
                        "self.val / other.val raise it, never return inf or catch it",
    "Dual.exp": "math.exp(u) raises OverflowError for u above about 709.78: let it raise, never clamp u or "
                "return inf",
    "Dual.log": "math.log(u) raises ValueError for u <= 0: let it raise; ln is not defined there (not abs(u))",
}
"""The hint of a case about an operation's domain error."""


def domain_error(student: Callable[..., Any], spec: dict[str, Any]) -> None:
    """A one-node spec outside its operation's domain (a divisor of value 0, ``exp`` above about 709.78, ``log``
    of a value <= 0): the student's operation must raise the exception its docstring names
    (:data:`DOMAIN_ERRORS`), as floats and ``math`` do. The probe reports an exception as data (its type's name,
    bounded by the judge); only the name is compared.

    Raises:
        Failure: If the operation returned a Dual (inf, a clamped value, ln|u|) or raised another exception.
        StudentFault: If its code is not written yet (``NotImplementedError``) or did not finish.
    """
    index = len(spec["leaves"])
    method = method_of(spec, index)
    error, why = DOMAIN_ERRORS[method]
    what = f"{describe_node(spec, index)} with {leaves_text(spec)}"
    try:
        got = ask(student, "forward_mode_expr", spec, method)
    except StudentFault as fault:
        if fault.raised(error):
            return
        if fault.kind != "raised" or fault.error.get("type") == "NotImplementedError":
            raise
        raise Failure(f"{what}: your code {describe_error(fault.error)}\n  expected {error} ({why})",
                      fault.method) from None
    raise Failure(f"{what} returned {dual_text(got['val'][-1], got['dot'][-1])}, expected {error} ({why}): "
                  "outside the domain there is no value to return")


def domain_case(student: Callable[..., Any], expect: Callable[[dict[str, Any]], Any], inside: dict[str, Any],
                outside: Sequence[dict[str, Any]], rel: float = REL, abs_tol: float = ABS) -> None:
    """One case about an operation's domain: just inside it (``inside``) the value and tangent are right, an
    answer only a working operation gives; outside it each spec of ``outside`` raises the documented exception
    (:func:`domain_error`).

    Args:
        student: The ``student`` fixture.
        expect: The expected answer of a spec (the reference's, or :func:`expected`).
        inside, outside: One-node specs of the same operation.
        rel, abs_tol: As for :func:`compare`.
    """
    method = method_of(inside, len(inside["leaves"]))
    got = ask(student, "forward_mode_expr", inside, method)
    try:
        compare(got, expect(inside), inside, rel, abs_tol)
    except Failure as failure:  # the rule itself is wrong: its hint, not the domain's
        raise Failure(failure.message, method, HINTS[method]) from None
    for spec in outside:
        domain_error(student, spec)


def domain_title(inside: dict[str, Any], outside: Sequence[dict[str, Any]]) -> str:
    """The title of a :func:`domain_case`: ``x0.log() with x0 = Dual(-2.0, 0.5); ...: ValueError (and ...)``."""
    error, _ = DOMAIN_ERRORS[method_of(inside, len(inside["leaves"]))]
    raising = "; ".join(f"{describe_node(s, len(s['leaves']))} with {leaves_text(s)}" for s in outside)
    return (f"{raising}: {error} (and {describe_node(inside, len(inside['leaves']))} with {leaves_text(inside)} "
            "just inside the domain)")
