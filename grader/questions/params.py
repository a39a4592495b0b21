"""Each student's own numbers for a question: drawn from a seed that the student's id, the assignment and the
question name, the same on every run and every machine.

PrairieLearn draws a question's parameters per student variant in the same spirit; here the seed is the first 8
bytes of the SHA-256 of ``assignment/question/student`` (never Python's salted ``hash``), fed to
:class:`random.Random`, and the draws are rounded to what the prompt shows, so the numbers a student reads are
the numbers the judge computes with.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import random
from collections.abc import Mapping
from dataclasses import dataclass

Number = int | float


@dataclass(frozen=True)
class ParamSpec:
    """How one parameter is drawn.

    Attributes:
        kind: ``int`` (a whole number in ``[low, high]``), ``uniform`` (a float in ``[low, high]`` rounded to
            ``digits`` decimals) or ``choice`` (one of ``values``).
        low: The least value (``int`` and ``uniform``).
        high: The greatest value.
        digits: Decimals kept of a ``uniform`` draw.
        values: The values of a ``choice``.
        exclude: Values never drawn (``0`` for a divisor); at least one value must remain.
    """

    kind: str
    low: float = 0.0
    high: float = 0.0
    digits: int = 2
    values: tuple[Number, ...] = ()
    exclude: tuple[Number, ...] = ()


def seed_of(*names: str) -> int:
    """The seed for ``names`` (assignment, question, student): stable across runs, processes and platforms."""
    digest = hashlib.sha256("/".join(names).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big")


def draw(specs: Mapping[str, ParamSpec], assignment: str, question: str, student: str) -> dict[str, Number]:
    """One student's values of a question's parameters, in the order of ``specs``.

    A value in ``exclude`` is drawn again (from the same generator), up to 1,000 times.

    Raises:
        ValueError: If a parameter's exclusions leave it no value to draw (the question file is wrong; its loader
            refuses such a file first).
    """
    rng = random.Random(seed_of(assignment, question, student))
    drawn: dict[str, Number] = {}
    for name, spec in specs.items():
        for _ in range(1000):
            value = _one(spec, rng)
            if value not in spec.exclude:
                drawn[name] = value
                break
        else:
            raise ValueError(f"parameter {name}: every value drawn was excluded")
    return drawn


def every_value(spec: ParamSpec) -> tuple[Number, ...]:
    """Every value :func:`draw` can give for ``spec`` (the very numbers: a ``uniform`` one is rounded as a draw is),
    in order, without the excluded ones."""
    if spec.kind == "int":
        values: tuple[Number, ...] = tuple(range(int(spec.low), int(spec.high) + 1))
    elif spec.kind == "uniform":  # rounding keeps order: every step from the low end's rounding to the high end's
        scale = 10**spec.digits
        first, last = (round(round(end, spec.digits) * scale) for end in (spec.low, spec.high))
        values = tuple(round(k / scale, spec.digits) for k in range(first, last + 1))
    else:
        values = spec.values
    return tuple(dict.fromkeys(v for v in values if v not in spec.exclude))


def every_draw(specs: Mapping[str, ParamSpec], most: int = 100_000) -> list[dict[str, Number]] | None:
    """Every set of values :func:`draw` can give for ``specs`` (one dict each, in the order of ``specs``), or None
    when there are more than ``most``."""
    each = [every_value(spec) for spec in specs.values()]
    if math.prod(len(values) for values in each) > most:
        return None
    return [dict(zip(specs, combination)) for combination in itertools.product(*each)]


def _one(spec: ParamSpec, rng: random.Random) -> Number:
    if spec.kind == "int":
        return rng.randint(int(spec.low), int(spec.high))
    if spec.kind == "uniform":
        return round(rng.uniform(spec.low, spec.high), spec.digits)
    return spec.values[rng.randrange(len(spec.values))]


def fill(prompt: str, values: Mapping[str, Number]) -> str:
    """``prompt`` with each ``{name}`` replaced by the student's value (``{{`` and ``}}`` for braces); names that
    are no parameter stay as written."""
    out, i = [], 0
    while i < len(prompt):
        if prompt.startswith("{{", i) or prompt.startswith("}}", i):
            out.append(prompt[i])
            i += 2
            continue
        if prompt[i] == "{":
            end = prompt.find("}", i)
            name = prompt[i + 1:end] if end > 0 else ""
            if name in values:
                out.append(str(values[name]))  # Python's shortest repr: the very number the judge computes with
                i = end + 1
                continue
        out.append(prompt[i])
        i += 1
    return "".join(out)

