"""How long one call of a student's code (one probe) may run: a limit derived from the reference's own cost.

A test's time limit (``test_seconds``, or its ``time_limit`` marker) protects
slow but correct code. A submission that loops forever, though, used to pay
that limit in full in every test that reached the loop, one after the other
(issue 16: 37 times the cost of a correct submission). So each probe also
gets a limit of its own::

    limit = floor + multiple * step(r)

where ``r`` is the time the same probe (same name, same arguments) took the
reference solution in this judge, in-process, measured once per judge
(:meth:`grader.judge.state.GradingState.reference_seconds`), and ``step(r)``
the next step of the 1-2-5 series at or above it, 1 ms at least
(:func:`reference_step`): ``r`` moves with the machine's load from run to
run (0.1 ms in one, 0.6 ms in the next), its step seldom does, so the same
submission gets the same limits and the same feedback. The floor
covers what the reference's run leaves out (the sandbox's round trip, JSON
on both sides, the other core's load); the multiple covers engines slower
than the reference. The defaults (``Limits``: floor 0.5 s, multiple 20) and
the measurements behind them (``bench/probe_limits.py``) are in
``docs/explanation/time-limits.md``.

Once a submission has timed out in an assignment, it has shown that it hangs:
its later probes get ``after_timeout_floor_seconds`` and
``after_timeout_multiple`` (0.25 s and 10 by default), and a probe identical to
one that already timed out is not run again (:class:`SubmissionRun` keeps
its fault). Either way the test fails, as it would have after waiting its
full limit, so the score is the same; only the wait is shorter.

A probe limit is never above the test's own limit or what is left of the
assignment's budget. A student's ``grader check`` has no reference: it reads
``r`` from the times its release ships (:mod:`grader.judge.probe_seconds`); a
call those do not hold keeps the test's limit.

Every one of these limits counts the student's seconds, not the machine's: where the backend can read
the worker's CPU time (Linux), a call is charged the CPU seconds its worker used, so a machine busy with
other work makes a call wait longer but never changes its verdict; code asleep is charged the seconds
that go by (:mod:`grader.judge.call_clock`). The test's and the assignment's limits add up what the
calls were charged; the judge's own time between them (its tests' code, the reference's answers) is
never the student's.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from grader.course.config import Limits


@dataclass(frozen=True)
class ProbeLimit:
    """One probe's own time limit.

    Attributes:
        seconds: The limit, in seconds.
        reference_seconds: What the same probe took the reference solution, in seconds, rounded up to its step
            (:func:`reference_step`).
        after_timeout: Whether the shorter after-timeout rule gave it (the submission already timed out).
    """

    seconds: float
    reference_seconds: float
    after_timeout: bool

    def describe(self) -> str:
        """Student-facing: the limit and where it comes from, for the feedback of a call that reached it."""
        needs = f"the reference solution needs at most {_seconds(self.reference_seconds)} for this call"
        if self.after_timeout:
            return (f"{_seconds(self.seconds)} ({needs}; a shortened limit, because your code already ran out of "
                    "time in an earlier test of this assignment)")
        return f"{_seconds(self.seconds)} ({needs})"


def probe_limit(limits: Limits, reference_seconds: float | None, after_timeout: bool) -> ProbeLimit | None:
    """The limit of one probe, or None when there is no reference time to derive it from.

    Args:
        limits: The assignment's limits (``probe_floor_seconds``, ``probe_multiple`` and their
            ``after_timeout_`` twins).
        reference_seconds: Seconds the same probe took the reference solution; None when unknown.
        after_timeout: Whether this submission has already timed out in this assignment.
    """
    if reference_seconds is None:
        return None
    reference_seconds = reference_step(reference_seconds)
    if after_timeout:
        floor, multiple = limits.after_timeout_floor_seconds, limits.after_timeout_multiple
    else:
        floor, multiple = limits.probe_floor_seconds, limits.probe_multiple
    return ProbeLimit(floor + multiple * reference_seconds, reference_seconds, after_timeout)


STEP_LEAST_SECONDS = 0.001
"""The least step of a reference time (seconds): most calls of the course take the reference well under it."""


def reference_step(seconds: float) -> float:
    """``seconds`` rounded up to the 1-2-5 series (1 ms, 2 ms, 5 ms, 10 ms, 20 ms ...), :data:`STEP_LEAST_SECONDS`
    at least: the reference time a probe limit is derived from, steady from run to run."""
    if not seconds > STEP_LEAST_SECONDS:  # NaN included
        return STEP_LEAST_SECONDS
    decade = 10.0 ** math.floor(math.log10(seconds))
    for mantissa in (1, 2, 5):
        if seconds <= (step := round(mantissa * decade, 12)):
            return step
    return round(10 * decade, 12)


def backstop_seconds(limit: float) -> float:
    """The wall-clock seconds a test whose own limit is ``limit`` seconds may run in all (pytest-timeout's backstop,
    the grader's own machinery failing: withheld); student calls end long before, or are withheld too."""
    return limit * 3 + 30


def request_key(probe: str, args: list[Any]) -> str:
    """One probe request as a key: the same probe on the same arguments gives the same key."""
    return json.dumps([probe, args], sort_keys=True)


def _seconds(value: float) -> str:
    if value < 0.001:
        return "less than 1 ms"
    if value < 1:
        return f"{value * 1000:.0f} ms"
    return f"{value:.1f} s" if value < 10 else f"{value:.0f} s"
