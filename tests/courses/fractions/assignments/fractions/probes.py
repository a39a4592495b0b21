"""The probes of assignment ``fractions``: they run the student's ``ratlab/fraction.py`` in the sandbox.

Each probe takes the code under test (``mg.fraction`` is the student's module, or the reference's in the judge),
a ``ctx`` whose ``during`` says what the probe is doing, and plain data; it answers plain data: each fraction as
its ``[num, den]``. The answers' schema (``ANSWERS``) bounds every field by the request's own arguments.
"""

from __future__ import annotations

from typing import Any

from probekit import Context, MalformedAnswer, ProbeError, count, record

LARGEST = 10**12
"""The largest numerator or denominator an answer may hold (the inputs are far smaller)."""


def _terms(frac: Any) -> list[int]:
    num, den = getattr(frac, "num", None), getattr(frac, "den", None)
    if type(num) is not int or type(den) is not int:
        raise ProbeError(f"num and den should be whole numbers, got {type(num).__name__} and {type(den).__name__}")
    return [num, den]


def make(mg: Any, ctx: Context, pairs: list[list[int]]) -> dict[str, Any]:
    """Probe ``frac_make``: ``Frac(n, d)`` for each ``[n, d]``, as ``[num, den]``."""
    made = []
    for n, d in pairs:
        ctx.during = f"making Frac({n}, {d})"
        made.append(_terms(mg.fraction.Frac(n, d)))
    return {"fracs": made}


def operate(mg: Any, ctx: Context, op: str, pairs: list[list[list[int]]]) -> dict[str, Any]:
    """Probe ``frac_op``: ``Frac(*a) + Frac(*b)`` (``op`` "+") or ``*`` for each ``[a, b]``, as ``[num, den]``."""
    Frac = mg.fraction.Frac
    made = []
    for a, b in pairs:
        left, right = Frac(*a), Frac(*b)
        ctx.during = f"computing Frac({a[0]}, {a[1]}) {op} Frac({b[0]}, {b[1]})"
        made.append(_terms(left + right if op == "+" else left * right))
    return {"fracs": made}


def parse_fracs(value: Any, length: int) -> dict[str, list[list[int]]]:
    """``{"fracs": [[num, den], ...]}``: ``length`` of them, each term bounded by :data:`LARGEST`."""
    got = record(value, "fracs", ("fracs",))
    fracs = got["fracs"]
    if not isinstance(fracs, list) or len(fracs) != length:
        raise MalformedAnswer(f"fracs: expected {length} fractions")
    out = []
    for i, frac in enumerate(fracs):
        if not isinstance(frac, list) or len(frac) != 2:
            raise MalformedAnswer(f"fracs[{i}]: expected [num, den]")
        out.append([count(frac[0], f"fracs[{i}].num", LARGEST, -LARGEST), count(frac[1], f"fracs[{i}].den", LARGEST,
                                                                               -LARGEST)])
    return {"fracs": out}


PROBES = {"frac_make": make, "frac_op": operate}
NEEDS = {"frac_make": ("ratlab.fraction",), "frac_op": ("ratlab.fraction",)}
ANSWERS = {"frac_make": lambda value, pairs: parse_fracs(value, len(pairs)),
           "frac_op": lambda value, op, pairs: parse_fracs(value, len(pairs))}
