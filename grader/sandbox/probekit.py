"""What a course's probe modules may use of the sandbox, importable as ``probekit`` in the judge and the worker.

A probe module lives with its assignment (``assignments/<id>/probes.py``, or
``assignments/shared/probes/`` for what several share; see
:mod:`.course_code`). It runs in two processes: in the judge on the reference
solution, and in a sandbox worker on the student's code, where the grader
package does not exist (the worker holds a private copy of this package under
another name). So a probe module imports the sandbox through this one name::

    from probekit import Context, ProbeError, number, record, numbers

and its sibling course modules as ``assignments.<folder>.<module>``. Standard
library only, like every module of the sandbox.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from .own_parts import get as part
from .plain import NONNUMERIC, exception_info, number, short_repr, text
from .returns import ReturnedNone, Watched, watched
from .schema import (
    MAX_ITEMS,
    MAX_TEXT,
    ListOutput,
    MalformedAnswer,
    NonNumeric,
    Number,
    OtherOutput,
    Output,
    ValueOutput,
    count,
    flag,
    numbers,
    output,
    record,
)
from .schema import number as read_number
from .schema import output as read_output
from .schema import text as read_text

__all__ = [
    "MAX_ITEMS", "MAX_TEXT", "NONNUMERIC", "Context", "answering", "ask", "ListOutput", "MalformedAnswer", "ModuleUnavailable",
    "NonNumeric", "Number", "OtherOutput", "Output", "ProbeError", "ReturnedNone", "ValueOutput", "Watched", "count",
    "exception_info", "flag", "number", "numbers", "output", "part", "read_number", "read_output", "read_text", "record",
    "short_repr", "text", "watched",
]


class ProbeError(Exception):
    """The student's objects do not behave as the API requires (not a crash
    inside a method, but e.g. an operation that returned a float)."""


class ModuleUnavailable(Exception):
    """Raised when a probe needs a student module that failed to import (or is not part of the submission)."""


class Context:
    """What the probe was doing, reported with any exception: a probe sets ``during`` before each step.

    Attributes:
        during: The step running now, for the feedback (``"forward pass: n2 = x0 * x1"``).
        watch: The student's methods that must not return None, set by a probe for its steps (:func:`watched`).
    """

    def __init__(self) -> None:
        self.during = ""
        self.watch: Watched = ()


Channel = Callable[[str, Any], Any]
"""``channel(topic, payload) -> answer``: how :func:`ask` reaches the judge (plain data both ways)."""
_channel: Channel | None = None


def ask(topic: str, payload: Any) -> Any:
    """Ask the judge, while a probe runs, what only the judge holds: ``topic`` names the question (the probe's
    judge side, ``JUDGED`` in its module, knows which it answers), ``payload`` and the answer are plain data.

    A function a probe gives the student's code (``f`` of a gradient check, the grader's neuron) calls this instead
    of holding the grader's code: the judge evaluates it and counts the call. In a worker the question crosses the
    protocol pipe; in the judge (the reference solution) it is answered in the same process.

    Raises:
        ProbeError: If no probe is running (nothing to ask), or the judge refused the question.
    """
    channel = _channel
    if channel is None:
        raise ProbeError("this asks the grader for something, which only the grader's tests can do")
    return channel(topic, payload)


@contextmanager
def answering(channel: Channel | None) -> Iterator[None]:
    """While the block runs (one probe), :func:`ask` goes to ``channel`` (None: nowhere)."""
    global _channel
    saved, _channel = _channel, channel
    try:
        yield
    finally:
        _channel = saved
