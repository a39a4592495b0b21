"""The judge's side of a probe that asks it questions: what a test gives the student's code to call, held and
evaluated in the judge.

Some tests hand the student's code something of the grader's to call: the function ``f`` a gradient checker is
graded on, the grader's own neuron beside the student's layer. If that object lived in the sandbox worker, the
student's code could read it instead of calling it (a closure's cells, a table found through ``gc``), and any count
kept there (how often ``f`` was called) would be the student's to change. So the worker gets a handle whose every
use asks the judge (:func:`grader.sandbox.probekit.ask`), and the judge's side, declared by the probe's module in
``JUDGED`` (``probe name -> factory(args)``), answers each question from what it alone holds and counts what the
verdict depends on.

A :class:`Judged` is made fresh for every call of a probe (the student's, and the reference's in the judge's own
process), so its counts are that call's; the test reads them in the parsed answer's ``"judged"`` field
(:meth:`Judged.record`). Everything the worker sends is hostile data: an answer checks the payload's shape and
bounds and raises :class:`AskRefused` for anything else, which fails the student's probe (a
:class:`~grader.sandbox.probekit.ProbeError` in the worker). Any other exception in the judge's side is a bug of
the grader: the score is withheld.
"""

from __future__ import annotations

from typing import Any, Protocol

from grader.sandbox import protocol

MAX_ASKS = 100_000
"""The most questions one call of a probe may ask the judge (a gradient check asks a few hundred)."""


class AskRefused(Exception):
    """A question the judge's side does not answer (an unknown topic, a payload of the wrong shape or size): the
    student's probe fails with the message."""


class Judged(Protocol):
    """What a probe module's ``JUDGED`` factory makes for one call of its probe."""

    def public(self, args: list[Any]) -> list[Any]:
        """The probe's arguments as the worker gets them: without what only the judge may hold (a function's
        program, its gradients)."""

    def answer(self, topic: str, payload: Any) -> Any:
        """The answer to one question (plain data).

        Raises:
            AskRefused: If the question is not one this probe answers, or its payload does not fit.
        """

    def record(self) -> dict[str, Any]:
        """What the judge counted during the call (plain data), for the test: the parsed answer's ``"judged"``."""


def reply(judged: Judged, topic: str, payload: Any) -> bytes:
    """The judge's reply to one question of a probe, as a message: ``{"answer": ...}``, or ``{"refused": why}``.

    Refused, failing the student's probe with why: a question the judge's side refuses (:class:`AskRefused`); one
    whose answer it cannot compute from what the question sent (an ``ArithmeticError``: a number too large, a
    division by zero; a ``RecursionError``: a structure nested too deeply); and an answer the protocol cannot carry
    (over :data:`~grader.sandbox.protocol.MAX_MESSAGE_BYTES`, or a value JSON cannot hold, such as an integer of
    thousands of digits). Each of these comes from the values the submission sent, so none may withhold its score.

    Raises:
        Exception: Any other exception of the judge's side (a bug of the grader's: the caller withholds the score).
    """
    try:
        message: dict[str, Any] = {"answer": judged.answer(topic, payload)}
    except AskRefused as exc:
        message = {"refused": str(exc)[:300]}
    except (ArithmeticError, RecursionError) as exc:
        message = {"refused": f"the grader cannot compute its answer from the numbers your code sent "
                              f"({type(exc).__name__}: {str(exc)[:200]})"}
    try:
        return protocol.encode(message)
    except protocol.ProtocolError as exc:
        return protocol.encode({"refused": f"the grader's answer to your code's question is over its bound "
                                           f"({str(exc)[:200]})"})
