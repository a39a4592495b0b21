"""Hidden tests of assignment ``fractions``: the student's answers against the reference's, on seeded inputs."""

from __future__ import annotations

import random

import pytest

from grader.testing import Failure

HINTS = {
    "Frac.__init__": "divide num and den by math.gcd(num, den), and move a negative den's sign to num",
    "Frac.__add__": "a/b + c/d is (a*d + c*b) / (b*d): add the cross products, multiply the denominators",
    "Frac.__mul__": "a/b * c/d is (a*c) / (b*d)",
}


def _pairs(seed: int, n: int) -> list[list[list[int]]]:
    rng = random.Random(seed)
    return [[[rng.randint(-20, 20), rng.choice([-1, 1]) * rng.randint(1, 20)] for _ in range(2)] for _ in range(n)]


@pytest.mark.points(1)
@pytest.mark.task("1.1")
def test_lowest_terms_on_random_inputs(student, reference, check):
    """Frac(n, d) on 8 seeded inputs"""
    pairs = [pair for pair, _ in _pairs(1, 8)]
    got, want = student("frac_make", pairs)["fracs"], reference("frac_make", pairs)["fracs"]
    for pair, g, w in zip(pairs, got, want):
        with check.case(f"Frac({pair[0]}, {pair[1]})", method="Frac.__init__", hint=HINTS["Frac.__init__"]):
            if g != w:
                raise Failure(f"got {g[0]}/{g[1]}, expected {w[0]}/{w[1]}")


def _operation(student, reference, check, op: str, method: str) -> None:
    pairs = _pairs(2, 8)
    got, want = student("frac_op", op, pairs)["fracs"], reference("frac_op", op, pairs)["fracs"]
    for (a, b), g, w in zip(pairs, got, want):
        with check.case(f"Frac({a[0]}, {a[1]}) {op} Frac({b[0]}, {b[1]})", method=method, hint=HINTS[method]):
            if g != w:
                raise Failure(f"got {g[0]}/{g[1]}, expected {w[0]}/{w[1]}")


@pytest.mark.points(1)
@pytest.mark.task("1.2")
def test_add_on_random_inputs(student, reference, check):
    """Frac + Frac on 8 seeded pairs"""
    _operation(student, reference, check, "+", "Frac.__add__")


@pytest.mark.points(1)
@pytest.mark.task("1.3")
def test_mul_on_random_inputs(student, reference, check):
    """Frac * Frac on 8 seeded pairs"""
    _operation(student, reference, check, "*", "Frac.__mul__")
