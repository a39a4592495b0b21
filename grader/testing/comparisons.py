"""Comparing a probe's answer with the expected one: numbers within a tolerance, lists field by field.

Answers are already typed records (:mod:`grader.judge.answers`); these helpers
raise :class:`~grader.testing.outcomes.Failure` with a message that names the
field, the inputs, what was expected and what came. (Comparisons of one course's
answers, such as graphs node by node, live with the course: ``assignments/shared/checks``.)
"""

from __future__ import annotations

import math
from typing import Any

from grader.sandbox.plain import NONNUMERIC
from grader.testing.outcomes import Failure

REL_TOL = 1e-7
"""Default relative tolerance when comparing with the reference."""
ABS_TOL = 1e-10
"""Default absolute tolerance when comparing with the reference."""


def is_number(x: Any) -> bool:
    """True for a plain number (bools excluded)."""
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def show(x: Any) -> str:
    """Student-facing rendering of a probe value (number or non-number marker)."""
    if isinstance(x, dict) and NONNUMERIC in x:
        return f"a {x[NONNUMERIC]} object ({x.get('repr', '')}), not a number"
    if is_number(x):
        return repr(float(x)) if not (isinstance(x, float) and x.is_integer() and abs(x) < 1e16) else repr(x)
    return repr(x)


def close(got: Any, expected: float, rel: float = REL_TOL, abs_tol: float = ABS_TOL) -> bool:
    """Whether ``got`` is a number within tolerance of ``expected`` (NaN equals NaN, inf equals inf)."""
    if not is_number(got):
        return False
    got = float(got)
    if math.isnan(expected) or math.isnan(got):
        return math.isnan(expected) and math.isnan(got)
    return math.isclose(got, expected, rel_tol=rel, abs_tol=abs_tol)


def relative_error(got: float, expected: float) -> float:
    """``|got - expected| / max(|got|, |expected|)`` (0 when both are 0)."""
    scale = max(abs(got), abs(expected))
    return 0.0 if scale == 0 else abs(got - expected) / scale


def field_list(result: Any, key: str, length: int) -> list[Any]:
    """Return ``result[key]`` validated as a list of ``length`` items.

    Raises:
        Failure: If the probe result does not have that shape (it comes from
            the sandbox and is untrusted).
    """
    value = result.get(key) if isinstance(result, dict) else None
    if not isinstance(value, list) or len(value) != length:
        raise Failure(f"the sandbox returned malformed data (field {key!r})")
    return value
