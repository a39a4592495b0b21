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
    "MAX_ITEMS", "MAX_TEXT", "NONNUMERIC", "Context", "ListOutput", "MalformedAnswer", "ModuleUnavailable",
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
