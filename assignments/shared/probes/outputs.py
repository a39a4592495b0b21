"""A function's or module's output as plain data (:func:`listed`), and its parser (:func:`read_listed`).

Shared by the probes of assignments whose functions return a list of ``Value`` or one (``classifier``, ``modules``).
Standard library and ``probekit`` only: it runs in the sandbox worker and in the judge.
"""

from __future__ import annotations

from typing import Any, TypedDict

from probekit import MAX_ITEMS, MalformedAnswer, Number, count, number, numbers, short_repr
from probekit import read_text as read_text_field


def listed(out: Any, most: int, raw: bool = False) -> dict[str, Any]:
    """A function's output as plain data: ``{"list": [numbers], "count": n}`` (at most ``most`` numbers kept) for a
    list or tuple, ``{"value": number}`` for a number or one object with ``data``, else ``{"other": type, "repr":
    text}``. With ``raw``, a list's items are reported as they are (a ``Value`` where a float belongs is not a
    number)."""
    if isinstance(out, (list, tuple)):
        items = list(out)
        return {"list": [number(o if raw else getattr(o, "data", o)) for o in items[:most]], "count": len(items)}
    if type(out) in (int, float) or hasattr(out, "data"):
        return {"value": number(getattr(out, "data", out))}
    return {"other": type(out).__name__, "repr": short_repr(out)}


class Listed(TypedDict, total=False):
    """A function's output: ``list`` (at most the request's bound) and ``count``, or ``value``, or ``other``/``repr``."""

    list: list[Number]
    count: int
    value: Number
    other: str
    repr: str


def read_listed(value: Any, where: str, most: int) -> Listed:
    """An answer field made by :func:`listed` with at most ``most`` numbers."""
    if type(value) is dict and set(value) == {"list", "count"}:
        return Listed(list=numbers(value["list"], f"{where}.list", min(most, count(value["count"], where, MAX_ITEMS))),
                      count=count(value["count"], f"{where}.count", MAX_ITEMS))
    if type(value) is dict and set(value) == {"value"}:
        return Listed(value=numbers([value["value"]], where, 1)[0])
    if type(value) is dict and set(value) == {"other", "repr"}:
        return Listed(other=read_text_field(value["other"], where), repr=read_text_field(value["repr"], where))
    raise MalformedAnswer(f"{where}: expected a function's output")


def read_grads(value: Any, where: str, length: int) -> list[Number] | None:
    """An answer field of gradients: None (the function's result did not reach them), or ``length`` numbers."""
    return None if value is None else numbers(value, where, length)


PROBES: dict[str, Any] = {}
"""No probe of its own: every module of ``shared/probes/`` is a probe module, and this one lends its helpers."""
ANSWERS: dict[str, Any] = {}
