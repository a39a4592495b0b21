"""Cases with partial credit: the ``check`` fixture (:class:`Check`) records each case's outcome.

A test scores by :func:`grader.judge.scoring.points_earned`; a failing case does not stop the test.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from grader.testing.handout import USES
from grader.testing.outcomes import Failure, StudentFault


@dataclass
class CaseResult:
    """One case of a test: its title and, if it failed, the failure and its rendered message.

    Attributes:
        title: What the case checks, with its inputs.
        failure: The failure raised in the case, or None if it passed.
        method: The student's method named in the feedback.
        about: The method the test declared for this case (``method`` may differ: the failure's own).
        uses: Methods the handout builds ``about`` from (``a - b`` is ``a + (-b)``), established by earlier tests.
        message: The student-facing message: method, what went wrong, hint.
        hint: The hint shown, always the test's own text (never parsed from a message).
    """

    title: str
    failure: Failure | None = None
    method: str | None = None
    about: str | None = None
    uses: tuple[str, ...] = ()
    message: str = ""
    hint: str | None = None


@dataclass
class Check:
    """Soft assertions with partial credit (the ``check`` fixture).

    Each :meth:`case` counts equally (the score: :func:`grader.judge.scoring.points_earned`).
    A failing case does not stop the test; the test is reported failed if any case failed.
    """

    cases: list[CaseResult] = field(default_factory=list)

    @contextmanager
    def case(self, title: str, method: str | None = None, hint: str | None = None,
             uses: tuple[str, ...] | None = None) -> Iterator[None]:
        """Run one case; a :class:`Failure` inside is recorded, not raised.

        Args:
            title: What the case checks, with its inputs.
            method: The student's method under test, named in the feedback.
            hint: Shown when the case fails (unless the failure has its own).
            uses: Methods the handout builds ``method`` from: their bugs show here too, and
                ``grader validate`` counts this case as theirs as well (default: the handout's table,
                :data:`grader.testing.handout.USES`).
        """
        if uses is None:
            uses = USES.get(method or "", ())
        result = CaseResult(title, about=method, uses=tuple(uses))
        self.cases.append(result)
        try:
            yield
        except Failure as failure:
            # the same fault object may be raised again by other cases: read it, never edit it
            not_written = isinstance(failure, StudentFault) and failure.error.get("type") == "NotImplementedError"
            result.failure = failure
            result.method = failure.method or method
            shown_hint = failure.hint if failure.hint is not None else (None if not_written else hint)
            result.hint = shown_hint
            result.message = Failure(failure.message, result.method, shown_hint).render()

    @property
    def failures(self) -> list[CaseResult]:
        return [c for c in self.cases if c.failure is not None]
