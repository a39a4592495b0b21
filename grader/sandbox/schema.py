"""Readers for probe answers: each checks one field's type and bounds, or raises :class:`MalformedAnswer`.

A probe's answer comes from a sandbox worker, where student code shares the
process with the probe: it can replace a probe, or write to the protocol
channel itself, and send any value the JSON decoder accepts. So an answer is
data, not a result. Every probe module of a course declares, next to each
probe, the parser of its answer (its ``ANSWERS`` table, see :mod:`.probes`),
built from these readers: every length, count and string bounded, every field
of exactly the declared type. The judge parses the reference's answers with
the same parser, so both sides of a comparison have one form.

Number fields are ``float`` (NaN and infinities included: a wrong engine may
produce them) or a :class:`NonNumeric` marker (``{"nonnumeric": type name,
"repr": text}``) for a student object that should have been a number.

Standard library only: course probe modules import this (through
:mod:`.probekit`) in the sandbox too.
"""

from __future__ import annotations

from typing import Any, TypedDict

from .plain import NONNUMERIC

MAX_ITEMS = 100_000
"""Longest list in an answer whose length the request does not fix (a model's parameters)."""
MAX_TEXT = 120
"""Longest text kept from an answer (a type name or a repr), in characters."""


class MalformedAnswer(Exception):
    """An answer that does not fit its probe's schema; ``str()`` names the field (student-facing)."""


class NonNumeric(TypedDict):
    """A value that should have been a number (e.g. a ``Value`` where ``grad`` should be a float)."""

    nonnumeric: str
    repr: str


Number = float | NonNumeric


class ValueOutput(TypedDict):
    value: Number


class ListOutput(TypedDict):
    list: list[Number]


class OtherOutput(TypedDict):
    other: str
    repr: str


Output = ValueOutput | ListOutput | OtherOutput
"""A function's or model's output: one number-like object, a list of them, or something else (type name, repr)."""


def record(value: Any, where: str, keys: tuple[str, ...]) -> dict[str, Any]:
    """``value`` as an object with exactly the fields ``keys``."""
    if type(value) is not dict or set(value) != set(keys):
        raise MalformedAnswer(f"{where}: expected an object with the fields {', '.join(keys)}")
    return value


def text(value: Any, where: str) -> str:
    """``value`` as a text, cut to :data:`MAX_TEXT` characters."""
    if type(value) is not str:
        raise MalformedAnswer(f"{where}: expected a text")
    return value[:MAX_TEXT]


def number(value: Any, where: str) -> Number:
    """``value`` as a float or a :class:`NonNumeric` marker."""
    if type(value) is float:
        return value
    if type(value) is dict and set(value) == {NONNUMERIC, "repr"}:
        return NonNumeric(nonnumeric=text(value[NONNUMERIC], where), repr=text(value["repr"], where))
    raise MalformedAnswer(f"{where}: expected a float")


def numbers(value: Any, where: str, length: int | None = None) -> list[Number]:
    """``value`` as a list of numbers: of ``length`` items when given, else of at most :data:`MAX_ITEMS`."""
    if type(value) is not list or len(value) > MAX_ITEMS:
        raise MalformedAnswer(f"{where}: expected a list of at most {MAX_ITEMS} numbers")
    if length is not None and len(value) != length:
        raise MalformedAnswer(f"{where}: expected {length} numbers, got {len(value)}")
    return [number(v, f"{where}[{i}]") for i, v in enumerate(value)]


def count(value: Any, where: str, most: int, least: int = 0) -> int:
    """``value`` as a whole number from ``least`` to ``most``."""
    if type(value) is not int or not least <= value <= most:
        raise MalformedAnswer(f"{where}: expected a whole number from {least} to {most}")
    return value


def flag(value: Any, where: str) -> bool:
    """``value`` as true or false."""
    if type(value) is not bool:
        raise MalformedAnswer(f"{where}: expected true or false")
    return value


def output(value: Any, where: str) -> Output:
    """``value`` as an :data:`Output`: ``{"value": x}``, ``{"list": [...]}`` or ``{"other": type, "repr": text}``."""
    if type(value) is dict and set(value) == {"value"}:
        return ValueOutput(value=number(value["value"], f"{where}.value"))
    if type(value) is dict and set(value) == {"list"}:
        return ListOutput(list=numbers(value["list"], f"{where}.list"))
    if type(value) is dict and set(value) == {"other", "repr"}:
        return OtherOutput(other=text(value["other"], where), repr=text(value["repr"], where))
    raise MalformedAnswer(f"{where}: expected a model output")
