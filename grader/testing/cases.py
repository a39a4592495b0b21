"""Cases with partial credit: the ``check`` fixture (:class:`Check`) records each case's outcome.

A test scores by :func:`grader.judge.scoring.points_earned`; a failing case does not stop the test.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from grader.testing.attribution import culprit, error_hint, handout, hint_for, missing_hint, overflow_hint
from grader.testing.contracts import blocked_text
from grader.testing.outcomes import RETURNED_NONE, Failure, StudentFault

NOT_RUN_KINDS = ("import", "unavailable")
"""Faults that mean no code of the method ran: the submission could not be loaded (reported once per assignment)."""


@dataclass
class CaseResult:
    """One case of a test: its title and, if it failed, the failure and its rendered message.

    Attributes:
        title: What the case checks, with its inputs.
        failure: The failure raised in the case, or None if it passed.
        method: The student's method at fault, named in the feedback: the one whose own code raised
            (:func:`grader.testing.attribution.culprit`), else the failure's or the declared one.
        about: The method the test declared for this case (``method`` may differ: the failure's own).
        uses: Methods the handout builds ``about`` from (``a - b`` is ``a + (-b)``), established by earlier tests.
        message: The student-facing message: method, what went wrong, hint.
        hint: The hint shown: the test's own text when the failure is its method's, else the grader's hint about
            the method at fault (never parsed from a message).
        not_run: The submission could not be loaded (an import error), so no method is at fault here: the error is
            reported once per assignment, not per case.
    """

    title: str
    failure: Failure | None = None
    method: str | None = None
    about: str | None = None
    uses: tuple[str, ...] = ()
    message: str = ""
    hint: str | None = None
    not_run: bool = False


@dataclass
class Check:
    """Soft assertions with partial credit (the ``check`` fixture).

    Each :meth:`case` counts equally (the score: :func:`grader.judge.scoring.points_earned`).
    A failing case does not stop the test; the test is reported failed if any case failed.

    Attributes:
        cases: Every case run, in order.
        stopped: The case that was running when something other than a :class:`Failure` ended the test, if any.
        first: Called (once) when a case fails: a method that must work before this test can, and what it got
            wrong, or None. A failing case is then reported under that method (e.g. the engine a self-check
            runs the network on: :func:`assignments.shared.checks.models.own_engine_first`).
        blocked: Called when a case fails: the constructor whose contract does not hold and the title of the
            test that reports it, or None (:class:`grader.testing.contracts.Blocker`). A failing case is then
            reported as blocked by that constructor, with no hint of its own.
        base_of: Called when a case's graph did not match: the base operation (and what its call got wrong) that a
            derived operation of the graph was seen to call, or None (:class:`assignments.shared.checks.derived.BaseCalls`).
        notes: What the grader did for the student in this test that the score does not show (one line each, the
            grader's own text): shown with the test's feedback whether it passed or not (:meth:`note`).
        share: The share of its points (0 to 1) a test that marks its answer itself earns, in place of the share
            of its cases passed (a concept check's multiple-choice answer partly right:
            :mod:`grader.testing.concept_checks`); None: the cases decide.
    """

    cases: list[CaseResult] = field(default_factory=list)
    stopped: CaseResult | None = None
    first: Callable[[], tuple[str, str] | None] | None = None
    blocked: Callable[[], tuple[str, str] | None] | None = None
    base_of: Callable[[dict[str, Any], str | None], tuple[str, str] | None] | None = None
    uses_table: dict[str, tuple[str, ...]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    share: float | None = None
    _first: list[tuple[str, str] | None] = field(default_factory=list)

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
                :attr:`uses_table`, the assignment's ``uses``: see :class:`grader.course.config.Assignment`).
        """
        if uses is None:
            uses = self.uses_table.get(method or "", ())
        result = CaseResult(title, about=method, uses=tuple(uses))
        self.cases.append(result)
        try:
            yield
        except Failure as failure:
            # the same fault object may be raised again by other cases: read it, never edit it
            result.failure = failure
            if isinstance(failure, StudentFault) and failure.kind in NOT_RUN_KINDS:
                result.not_run = True
                result.message = failure.message
                return
            result.method, result.hint = attribute(failure, method, hint, result.uses)
            blocker = self.blocker(failure, result.method, method)
            if blocker is not None:
                result.method, result.hint = blocker[0], None
                result.message = Failure(blocked_text(blocker[0], blocker[1], failure.message)).render()
                return
            result.message = Failure(failure.message, result.method, result.hint).render()
            base = self._base(failure, method)
            if base is not None:
                result.method, result.hint = base[0], hint_for(base[0])
                result.message = Failure(f"{failure.message}\n  {base[1]}; fix {base[0]} first", result.method,
                                         result.hint).render()
            before = self._before(result.method, failure)
            if before is not None:
                result.method, result.hint = before[0], hint_for(before[0])
                result.message = Failure(f"{before[1]}; fix {before[0]} first: {failure.message}", result.method,
                                         result.hint).render()
        except BaseException:
            self.stopped = result  # e.g. hypothesis gave up on code no input can change: the test ends here
            raise

    def note(self, text: str) -> None:
        """Say something with this test's feedback, passed or not, once however often it is said (e.g. that the
        grader stood in for a missing method so that the test measures what it is named after). ``text`` is the
        grader's own: one line, with nothing the submission wrote in it."""
        line = " ".join(text.split())
        if line and line not in self.notes:
            self.notes.append(line)

    def _before(self, method: str | None, failure: Failure) -> tuple[str, str] | None:
        """What :attr:`first` finds (asked once per test), unless the failure is already that kind of method's, or
        the method at fault is not written yet (its own stub raised: that is the task to do first)."""
        if self.first is None:
            return None
        if isinstance(failure, StudentFault) and failure.error.get("type") == "NotImplementedError":
            return None
        if not self._first:
            self._first.append(self.first())
        found = self._first[0]
        if found is None or (method or "").split(".")[0] == found[0].split(".")[0]:
            return None
        return found

    def _base(self, failure: Failure, method: str | None) -> tuple[str, str] | None:
        """What :attr:`base_of` finds for a wrong number in a graph (not for code that raised: that names itself)."""
        if self.base_of is None or failure.graph is None or isinstance(failure, StudentFault) or failure.method:
            return None
        return self.base_of(failure.graph, method)

    def blocker(self, failure: Failure, attributed: str | None, declared: str | None) -> tuple[str, str] | None:
        """The constructor whose contract ``failure``'s case cannot run without, and the title of the test that
        reports it (:attr:`blocked`), or None.

        A failure is left as it is when it says more than the contract would: the submission did not load, a
        stub raised ``NotImplementedError`` (unfinished work), the method does not exist, or the failure is attributed to another of the
        handout's methods than the one the case is about (a missing method, one whose own code raised).
        """
        if self.blocked is None or not_run(failure):
            return None
        if isinstance(failure, StudentFault) and failure.error.get("type") == "NotImplementedError":
            return None
        if isinstance(failure, StudentFault) and missing_hint(attributed or declared, failure.error) is not None:
            return None  # the method does not exist: no constructor makes it, and how to add it is the hint
        found = self.blocked()
        if found is None:
            return None
        if attributed not in (None, declared, found[0]) and handout().has(attributed):
            return None
        return found

    @property
    def failures(self) -> list[CaseResult]:
        return [c for c in self.cases if c.failure is not None]

    def ended_by(self, failure: Failure, *methods: str) -> tuple[str | None, str | None]:
        """The method at fault, and the hint, for a failure that ended the test outside a case's own handling
        (e.g. hypothesis gave up on code no input changes): attributed as in a case (:func:`attribute`), the
        method the test is about being the running case's, else ``methods`` when it names just one."""
        if self.stopped is not None:
            return attribute(failure, self.stopped.about, None, self.stopped.uses)
        return attribute(failure, methods[0] if len(methods) == 1 else None, None)


def not_run(failure: Failure) -> bool:
    """Whether no code of the method ran (the submission could not be loaded): never blocked, never attributed."""
    return isinstance(failure, StudentFault) and failure.kind in NOT_RUN_KINDS


def attribute(failure: Failure, method: str | None, hint: str | None,
              uses: tuple[str, ...] = ()) -> tuple[str | None, str | None]:
    """The method a failure is reported under, and the hint shown with it.

    The failure's own method wins (a test that knows better said so); then the
    method whose own code raised (:func:`~grader.testing.attribution.culprit`),
    except that an ``OverflowError`` in ``exp`` called by tanh or sigmoid is
    theirs (exp is right to overflow), and a helper method of the student's own
    (``Value._exp``) is the case's method of the same class; then the case's. The case's hint is about the case's method: it is shown
    only when the failure is attributed to that method; otherwise the hint
    about the method at fault. A method that does not exist gets how to add
    it, a slip of Python (a name not defined or imported) a hint about that
    (:func:`~grader.testing.attribution.error_hint`); unfinished code (``NotImplementedError``) gets no hint, nor does a method that returned None (the message asks
    for its ``return``: a hint about the method's formula would not be about this failure).

    Args:
        failure: What the case raised.
        method: The method the case is about.
        hint: The case's hint.
        uses: The methods ``method`` is built from.
    """
    fault = failure.error if isinstance(failure, StudentFault) and failure.kind == "raised" else {}
    at_fault = failure.method or (culprit(fault, method, uses) if fault else None) or method
    tables = handout()
    if fault.get("type") == "OverflowError" and at_fault in tables.overflow_callees and method in tables.overflow_hints:
        at_fault = method  # tanh or sigmoid called exp with a huge argument: exp was right to overflow
    helper_of, _, name = (at_fault or "").partition(".")
    if method and at_fault != method and name not in tables.classes.get(helper_of, (name,)) and method.startswith(f"{helper_of}."):
        at_fault = method  # a helper of the student's own (Value._exp): the handout's method that called it
    if failure.hint is not None:
        return at_fault, failure.hint
    if fault.get("type") in ("NotImplementedError", RETURNED_NONE):
        return at_fault, None  # unfinished code; a missing return, which the message itself asks about
    return at_fault, (missing_hint(at_fault, fault) or overflow_hint(at_fault, fault) or error_hint(fault)
                      or (hint if at_fault == method else hint_for(at_fault)))
