"""Probe answers, parsed into typed records before the judge compares anything.

A probe's answer comes from a sandbox worker, where student code shares the
process with the probe: it can replace a probe, or write to the protocol
channel itself, and send any value the JSON decoder accepts. So an answer is
data, not a result: :func:`parse` checks it against its probe's schema (the
parser its probe module declares in ``ANSWERS``, built from
:mod:`grader.sandbox.schema`'s readers), with every length, count and string
bounded by the request the judge itself sent, and returns a record whose every
field has exactly the declared type. A comparison then never meets a shape it
did not expect (no exception inside a check, no list shorter than the
reference's, no integer too large for a float). An answer that does not fit is
:class:`MalformedAnswer`: the judge fails the case as the student's, with a
short message.

The reference's answers are parsed by the same function, so both sides of a
comparison have one form.
"""

from __future__ import annotations

from typing import Any

from grader.sandbox.probes import ANSWERS
from grader.sandbox.schema import (
    MAX_ITEMS,
    MAX_TEXT,
    ListOutput,
    MalformedAnswer,
    NonNumeric,
    Number,
    OtherOutput,
    Output,
    ValueOutput,
)

__all__ = ["MAX_ITEMS", "MAX_TEXT", "ListOutput", "MalformedAnswer", "NonNumeric", "Number", "OtherOutput", "Output",
           "ValueOutput", "parse"]


def parse(probe: str, args: list[Any], value: Any) -> Any:
    """Check a probe's answer against its schema and return it as a typed record.

    Args:
        probe: The probe's name, e.g. ``"graph"``.
        args: The arguments the judge sent with the request (they bound the answer's lengths).
        value: The decoded answer, as the worker sent it (untrusted).

    Raises:
        MalformedAnswer: If the answer does not fit: wrong type, missing or
            extra field, wrong length, a number that is not a float; or no
            probe module declares a schema for ``probe``.
    """
    parser = ANSWERS.get(probe)
    if parser is None:
        raise MalformedAnswer(f"no answer schema for the probe {probe!r}")
    return parser(value, *args)


def with_record(answer: Any, record: dict[str, Any] | None) -> Any:
    """``answer`` (a parsed record) with what the probe's judge side counted (:meth:`Judged.record
    <grader.testing.judged.Judged.record>`) under ``"judged"``; as it is without one."""
    if record is None:
        return answer
    return {**answer, "judged": record} if isinstance(answer, dict) else answer
