"""Public tests of assignment ``fractions`` (students run them with ``grader check``; there is no reference here)."""

from __future__ import annotations

import pytest

from grader.testing import Failure

HINTS = {
    "Frac.__init__": "divide num and den by math.gcd(num, den), and move a negative den's sign to num",
    "Frac.__add__": "a/b + c/d is (a*d + c*b) / (b*d): add the cross products, multiply the denominators",
    "Frac.__mul__": "a/b * c/d is (a*c) / (b*d)",
}


@pytest.mark.points(1)
@pytest.mark.task("1.1")
def test_lowest_terms(student, check):
    """Frac(n, d) is kept in lowest terms, the sign in num"""
    cases = [([2, 4], [1, 2]), ([2, -4], [-1, 2]), ([0, 5], [0, 1])]
    got = student("frac_make", [pair for pair, _ in cases])["fracs"]
    for (pair, want), frac in zip(cases, got):
        with check.case(f"Frac({pair[0]}, {pair[1]})", method="Frac.__init__", hint=HINTS["Frac.__init__"]):
            if frac != want:
                raise Failure(f"Frac({pair[0]}, {pair[1]}) is {frac[0]}/{frac[1]}, expected {want[0]}/{want[1]}")


def _operation(student, check, op: str, method: str, cases: list[tuple[list[list[int]], list[int]]]) -> None:
    got = student("frac_op", op, [pair for pair, _ in cases])["fracs"]
    for ((a, b), want), frac in zip(cases, got):
        with check.case(f"Frac({a[0]}, {a[1]}) {op} Frac({b[0]}, {b[1]})", method=method, hint=HINTS[method]):
            if frac != want:
                raise Failure(f"got {frac[0]}/{frac[1]}, expected {want[0]}/{want[1]}")


@pytest.mark.points(1)
@pytest.mark.task("1.2")
def test_add(student, check):
    """Frac(1, 2) + Frac(1, 3) is 5/6"""
    _operation(student, check, "+", "Frac.__add__", [([[1, 2], [1, 3]], [5, 6]), ([[1, 4], [1, 4]], [1, 2])])


@pytest.mark.points(1)
@pytest.mark.task("1.3")
def test_mul(student, check):
    """Frac(2, 3) * Frac(3, 4) is 1/2"""
    _operation(student, check, "*", "Frac.__mul__", [([[2, 3], [3, 4]], [1, 2]), ([[-1, 2], [2, 5]], [-1, 5])])
