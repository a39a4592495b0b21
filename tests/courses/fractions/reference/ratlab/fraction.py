"""Exact rational numbers: a fraction in lowest terms, with addition and multiplication."""

from __future__ import annotations

import math


class Frac:
    """The rational number ``num / den`` in lowest terms, ``den > 0``."""

    def __init__(self, num: int, den: int = 1) -> None:
        """Make ``num / den`` in lowest terms, the sign in ``num``.

        Raises:
            ZeroDivisionError: If ``den`` is 0.
        """
        # BEGIN SOLUTION Task 1.1
        if den == 0:
            raise ZeroDivisionError("a fraction's denominator cannot be 0")
        divisor = math.gcd(num, den)
        sign = -1 if den < 0 else 1
        self.num = sign * num // divisor
        self.den = sign * den // divisor
        # END SOLUTION

    def __add__(self, other: Frac) -> Frac:
        """Return ``self + other``."""
        # BEGIN SOLUTION Task 1.2
        return Frac(self.num * other.den + other.num * self.den, self.den * other.den)
        # END SOLUTION

    def __mul__(self, other: Frac) -> Frac:
        """Return ``self * other``."""
        # BEGIN SOLUTION Task 1.3
        return Frac(self.num * other.num, self.den * other.den)
        # END SOLUTION

    def __repr__(self) -> str:
        return f"Frac({self.num}, {self.den})"
