"""How much of one call's time is the student's: the clock every time limit of student code is counted on.

A limit counted in wall-clock time measures the machine as much as the code: on a 2-core machine running the test
suite, or an instructor's laptop grading while it compiles, a correct call the reference makes in a millisecond has
been seen to wait more than 0.5 s for a core, and a test that needs 3 s of computing to take more than its 10 s
(issue 56: one catalogued bug lost 9 more points in the suite under load than alone). So where the backend can read
the worker's CPU time (Linux, ``/proc``), a call is charged the **CPU seconds its worker used**, not the seconds
that went by:

* code that computes (an infinite loop included) uses its core, and is stopped once it has used its limit;
* code that waits for a core (the machine is busy) is runnable without computing: it is waited for, up to
  ``held_cap`` seconds of wall-clock time; past that the machine, not the student, failed to run it and the
  score is withheld (:class:`WorkerHeldUp`), never charged;
* code that is asleep (``time.sleep``, a lock, a read that never ends) neither computes nor waits for a core: it
  is charged the seconds that went by, and is stopped once they reach ``blocked_cap`` (a few times its limit, so
  a call the checks saw asleep for a moment is not stopped for it).

The judge's own time answering the questions a call asks (:mod:`grader.testing.judged`) is the grader's: the
worker waits for the answer without using its CPU, and that wait is taken out of the seconds that went by.

Where the CPU time cannot be read (the portable backend on macOS and Windows, or ``/proc`` hidden), a call is
charged the seconds that went by, and its limit is final: the behaviour of every limit before issue 56.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

STARVED_SHARE = 0.25
"""The least share of a core a worker must have had since the last look for it to count as computing when it is not
runnable at the moment of the look: below it, and not waiting for a core, the worker is asleep. A quarter: a loop on
a 2-core machine running the test suite gets about half a core."""
ASLEEP_MULTIPLE = 4
"""How long a call found asleep may wait, in multiples of its limit (``Patience.blocked_cap`` of a probe's call)."""
HELD_MULTIPLE = 20
"""How long a call held up by the machine is waited for, in multiples of its limit (``Patience.held_cap``, never past
the test's backstop): a worker given a twentieth of a core still finishes a call that needs its whole limit."""
LOOK_MIN_SECONDS = 0.02
"""The least wait between two looks at a call's CPU time (seconds): about two ticks of ``/proc``'s clock."""


class WorkerHeldUp(Exception):
    """The machine did not give the worker the CPU its call was allowed within the wall-clock time the judge waits
    for it: not the student's fault (the score is withheld, and the instructor sees why)."""


@dataclass(frozen=True)
class Patience:
    """How long, in wall-clock seconds from a call's start (the judge's answering time left out), the judge waits
    for a call that has not used its limit yet.

    Attributes:
        blocked_cap: For a call that is asleep (neither computing nor waiting for a core): it is stopped there, and
            charged the seconds that went by (a timeout).
        held_cap: For a call that is computing or waiting for a core: past it, :class:`WorkerHeldUp`.
    """

    blocked_cap: float
    held_cap: float


@dataclass(frozen=True)
class Usage:
    """What a worker has used so far, read from the system.

    Attributes:
        cpu_seconds: User and system CPU seconds of its processes (every thread's).
        runnable: Whether any of its threads is running or waiting for a core at the moment of reading.
    """

    cpu_seconds: float
    runnable: bool


class CallClock:
    """The student's seconds of one call (a request to the worker, the questions it asks included).

    Args:
        limit: The seconds the call may use (CPU seconds where ``usage`` can read them, else wall-clock seconds).
        patience: How long a call under its limit is waited for (None: ``limit`` in wall-clock time is final).
        usage: Reads the worker's :class:`Usage`, or None when the backend cannot.
        now: The call's start (``time.monotonic()``).
    """

    def __init__(self, limit: float, patience: Patience | None, usage: Callable[[], Usage | None],
                 now: float) -> None:
        self.limit = max(limit, 0.0)
        self.patience = patience
        self._usage = usage
        self.started = now
        self.judge_seconds = 0.0
        """Wall-clock seconds the judge spent answering the call's questions (not the student's)."""
        first = usage() if patience is not None else None
        self._cpu_start = first.cpu_seconds if first is not None else None
        self._last = (now, first.cpu_seconds) if first is not None else None
        self.asleep = False
        """Whether a look found the call asleep: it is then charged the seconds that went by, not only its CPU's."""

    @property
    def counts_cpu(self) -> bool:
        """Whether the call is charged its worker's CPU time (else the seconds that go by)."""
        return self._cpu_start is not None

    def elapsed(self, now: float) -> float:
        """Wall-clock seconds since the call started, the judge's answering time left out."""
        return max(now - self.started - self.judge_seconds, 0.0)

    def first_look(self) -> float:
        """When to look first (``time.monotonic()``): when the limit would be reached by code computing all along."""
        return self.started + self.judge_seconds + self.limit

    def write_deadline(self) -> float:
        """The latest a write to the worker may wait (``time.monotonic()``): the worker reads between computing."""
        cap = self.patience.held_cap if self.patience is not None else self.limit
        return self.started + self.judge_seconds + max(cap, self.limit)

    def answered(self, seconds: float) -> None:
        """Count ``seconds`` the judge spent answering one of the call's questions."""
        self.judge_seconds += max(seconds, 0.0)

    def look(self, now: float) -> float | None:
        """Called when a wait for the worker found no answer by ``now``: when to look again (``time.monotonic()``),
        or None when the call has used its time (a timeout).

        Raises:
            WorkerHeldUp: If the call is under its limit but was held up by the machine past ``held_cap``.
        """
        usage = self._usage() if self._cpu_start is not None else None
        if usage is None or self._cpu_start is None or self._last is None or self.patience is None:
            return None if self.elapsed(now) >= self.limit else self.started + self.judge_seconds + self.limit
        used = usage.cpu_seconds - self._cpu_start
        if used >= self.limit:
            return None
        since, cpu_then = self._last
        share = (usage.cpu_seconds - cpu_then) / max(now - since, 1e-9)
        self._last = (now, usage.cpu_seconds)
        wait = max(self.limit - used, LOOK_MIN_SECONDS)  # the soonest computing code could reach its limit
        if not usage.runnable and share < STARVED_SHARE and now - since >= LOOK_MIN_SECONDS:  # asleep: neither computing nor waiting for a core
            self.asleep = True
            if self.elapsed(now) >= self.patience.blocked_cap:
                return None
            return min(now + wait, self.started + self.judge_seconds + self.patience.blocked_cap)
        if self.elapsed(now) >= self.patience.held_cap:
            raise WorkerHeldUp(
                f"the machine was too busy: in {self.elapsed(now):.1f} s your code had {used:.2f} s of the CPU, less "
                f"than the {self.limit:.2f} s it was allowed")
        return min(now + wait, self.started + self.judge_seconds + self.patience.held_cap)

    def charged(self, now: float) -> float:
        """The student's seconds of the call once it has ended: its worker's CPU seconds, or the seconds that went by
        where the CPU time cannot be read or the call was found asleep."""
        usage = self._usage() if self._cpu_start is not None else None
        if usage is None or self._cpu_start is None or self.asleep:
            return self.elapsed(now)
        return max(usage.cpu_seconds - self._cpu_start, 0.0)
