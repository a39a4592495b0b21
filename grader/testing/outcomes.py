"""Outcomes of a check: the student's failure, the student's code at fault, or the grader's own fault.

A :class:`Failure`'s ``str()`` is the student-facing message (method, what
went wrong, hint); only that message reaches the feedback, never a test's
source. :func:`describe_error` renders an exception the sandbox reported,
every field capped (the worker is not trusted).
"""

from __future__ import annotations

from typing import Any

from grader.intake.cellmap import where_text


class Failure(AssertionError):
    """A check the student's code failed; ``str()`` is the student-facing message.

    Args:
        message: What went wrong, with the inputs and expected vs got.
        method: The student's method at fault (``Value.__mul__``), if known.
        hint: What a TA would say to fix it.
    """

    def __init__(self, message: str, method: str | None = None, hint: str | None = None) -> None:
        self.message = message
        self.method = method
        self.hint = hint
        self.graph: dict[str, Any] | None = None
        """The graph spec whose result did not match (:func:`grader.testing.comparisons.compare_graph`), if any."""
        super().__init__(self.render())

    def render(self) -> str:
        lines = [f"{self.method}: {self.message}" if self.method else self.message]
        if self.hint:
            lines.append(f"Hint: {self.hint}")
        return "\n".join(lines)


class StudentFault(Failure):
    """The student's code raised, crashed, timed out or could not be imported.

    Attributes:
        kind: ``"raised"``, ``"timeout"``, ``"crash"``, ``"import"``, ``"unavailable"`` or
            ``"malformed"`` (an answer that does not fit its probe's schema, see :mod:`grader.judge.answers`).
        error: For ``raised``/``import``: the sandbox's description
            (``type``, ``message``, ``where``, ``during``).
    """

    def __init__(self, kind: str, message: str, error: dict[str, Any] | None = None) -> None:
        self.kind = kind
        self.error = error or {}
        super().__init__(message)

    def raised(self, *types: str) -> bool:
        """Whether the student's code raised an exception of one of ``types`` (by name, e.g. ``"ValueError"``)."""
        return self.kind == "raised" and self.error.get("type") in types

    @property
    def input_independent(self) -> bool:
        """Whether the fault would happen whatever the inputs: a method not written (``NotImplementedError``),
        code that cannot be imported, a time limit used up, an answer that does not fit its probe. Shrinking such a
        failure would call the student's code again and again for a "smallest" input that does not exist."""
        return self.kind in ("import", "unavailable", "timeout", "malformed") or self.error.get("type") == "NotImplementedError"


class GraderFault(BaseException):
    """The grader's own machinery failed (e.g. the sandbox could not be set up): never the student's fault.

    A ``BaseException``, so neither ``check.case`` nor hypothesis treats it
    as a failed case: it ends the test, whose score is then withheld (a
    grader error in the results), never counted as 0 or as passed.
    """


MAX_MESSAGE = 500
"""Longest exception message kept from the sandbox, in characters (a hostile worker may send more)."""
RETURNED_NONE = "ReturnedNone"
"""The type of a probe's finding that a method returned None (:mod:`grader.sandbox.returns`): its message says
which method, and asks for the missing ``return``."""


def cap(value: Any, limit: int) -> str:
    """``str(value)`` cut to ``limit`` characters (with "..." when cut)."""
    text = value if isinstance(value, str) else str(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def describe_error(error: dict[str, Any]) -> str:
    """Render a sandbox exception description for the student, every field capped (the worker is not trusted)."""
    etype = cap(error.get("type", "Exception"), 100)
    message = cap(error.get("message", ""), MAX_MESSAGE)
    if etype == RETURNED_NONE and message:
        text = message  # the probe's own sentence: "`x0 * x1` returned None: did you forget `return out` ...?"
    else:
        text = f"raised {etype}: {message}" if message else f"raised {etype}"
    where = error.get("where")
    if isinstance(where, dict):
        text += f"\n  at {cap(where_text(where), 300)}, in {cap(where.get('function'), 100)}"
        if where.get("source"):
            text += f": {cap(where.get('source'), 200)}"
    if error.get("during"):
        text += f"\n  while {cap(error.get('during'), 300)}"
    if etype == "NotImplementedError":
        text += "\n  (this part is not implemented yet)"
    return text


def fault_text(error: dict[str, Any]) -> str:
    """The message of a fault the sandbox reported from the student's code: "your code raised ...", or a probe's
    finding that a method returned None as the probe wrote it (:data:`RETURNED_NONE`)."""
    described = describe_error(error)
    return described if error.get("type") == RETURNED_NONE and error.get("message") else f"your code {described}"
