"""A self-check's progress, from the judge to ``grader check`` as it runs: one JSON line per event.

``grader check`` (:mod:`grader.grading.check_progress`) starts the judge with :data:`ENV` naming a file it reads
while it waits; the judge appends one line per event to it (:class:`ProgressFeed`, registered by
:mod:`grader.judge.plugin`). A judge that grades hidden tests never writes one, whatever its environment: the feed
names only public tests, their titles and points, never their feedback.

The events, each a JSON object on its own line:

* ``{"event": "tests", "counts": {"value_ops": 6, ...}}``: how many tests each assignment runs (after collection);
* ``{"event": "start", "assignment": "backward", "title": "...", "limit": 10.0}``: a test started (its title and
  its time limit in seconds);
* ``{"event": "end", "assignment": "backward", "title": "...", "score": 0, "max_score": 3, "passed": false,
  "seconds": 10.01, "reason": "timeout"}``: a test ended; ``reason`` is ``""``, ``"timeout"`` (its code ran out of
  time), ``"not_run"`` (the code could not be loaded) or ``"grader"`` (the grader could not run it).

The judge is trusted, but the file lives on the host, where on the portable backend a submission's process could
write too: :func:`parse_line` and :class:`FeedReader` read it with bounds (line length, bytes, types and values),
and drop whatever does not fit.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeAlias

import pytest

from grader.judge.state import GradingState
from grader.outputs.failures import not_run
from grader.outputs.records import GradedTest
from grader.testing.cases import Check
from grader.testing.outcomes import Failure, StudentFault

ENV = "GRADER_PROGRESS_FILE"
"""The environment variable naming the file a self-check's judge appends its progress to."""
MAX_LINE_BYTES = 4096
"""The longest line read; a longer one is dropped whole."""
MAX_FEED_BYTES = 4 * 1024 * 1024
"""The most bytes read from one feed; the rest is ignored (a self-check writes a few kB)."""
MAX_TITLE = 300
"""The longest title kept (characters); a longer one is cut."""
MAX_NUMBER = 1e7
"""The largest score, points, limit or duration accepted."""
REASONS = ("", "timeout", "not_run", "grader")


@dataclass(frozen=True)
class Counts:
    """How many tests each assignment runs."""

    counts: dict[str, int]


@dataclass(frozen=True)
class Started:
    """A test started: its assignment, title and time limit (seconds)."""

    assignment: str
    title: str
    limit: float


@dataclass(frozen=True)
class Ended:
    """A test ended: its score out of ``max_score``, whether it passed, how long it ran, and why it failed
    (:data:`REASONS`)."""

    assignment: str
    title: str
    score: float
    max_score: float
    passed: bool
    seconds: float
    reason: str


Event: TypeAlias = Counts | Started | Ended


# --- the judge's side ---------------------------------------------------------------------------------------------

Title = Callable[[pytest.Item], str]
"""A test's title (:func:`grader.judge.plugin.test_name`)."""
Seconds = Callable[[pytest.Item, float], float]
"""A test's time limit, given its assignment's (:func:`grader.judge.plugin.test_seconds`)."""


class ProgressFeed:
    """The judge's writer of progress events, a pytest plugin (:meth:`requested` makes one when ``grader check``
    asked for it). Writing never fails the judge: after an error the feed goes quiet.

    Args:
        path: The feed file.
        state: The session's grading state (which assignment a test belongs to).
        title: A test's title, as its result names it.
        seconds: A test's time limit.
    """

    def __init__(self, path: Path, state: GradingState, title: Title, seconds: Seconds) -> None:
        self.path: Path | None = path  # None once writing failed
        self.state = state
        self.title = title
        self.seconds = seconds

    @classmethod
    def requested(cls, state: GradingState, title: Title, seconds: Seconds) -> ProgressFeed | None:
        """The feed :data:`ENV` names, for a self-check (public tests only) whose parent made the file; None
        otherwise."""
        path = os.environ.get(ENV, "")
        if not path or state.manifest.include_hidden or not Path(path).is_file():
            return None
        return cls(Path(path), state, title, seconds)

    def write(self, event: dict[str, Any]) -> None:
        """Append one event as one line (one write, so a reader never sees half of it for long)."""
        if self.path is None:
            return
        try:
            line = json.dumps(event, ensure_ascii=True, allow_nan=False).encode("ascii") + b"\n"
        except (TypeError, ValueError):  # a value JSON cannot hold (nan): the reader would drop it anyway
            return
        if len(line) > MAX_LINE_BYTES:
            return
        try:
            with open(self.path, "ab", buffering=0) as f:
                f.write(line)
        except OSError:
            self.path = None  # the reader went away: stay quiet

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        counts: dict[str, int] = {}
        for item in items:
            aid = self.state.assignment_of(item).id
            counts[aid] = counts.get(aid, 0) + 1
        self.write({"event": "tests", "counts": counts})

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        assignment = self.state.assignment_of(item)
        try:
            limit = self.seconds(item, assignment.limits.test_seconds)
        except pytest.UsageError:
            limit = assignment.limits.test_seconds  # the plugin reports the bad marker itself
        self.write({"event": "start", "assignment": assignment.id, "title": self.title(item)[:MAX_TITLE],
                    "limit": limit})

    def finished(self, item: pytest.Item, result: GradedTest, checks: Check | None, fault: Failure | None) -> None:
        """Report a test's result (called by the plugin once it is recorded, with the test's cases and the failure
        that ended it, if any)."""
        self.write({"event": "end", "assignment": self.state.assignment_of(item).id,
                    "title": result["name"][:MAX_TITLE], "score": result["score"], "max_score": result["max_score"],
                    "passed": result["status"] == "passed", "seconds": result["duration"],
                    "reason": reason(result, checks, fault)})


def reason(result: GradedTest, checks: Check | None, fault: Failure | None) -> str:
    """Why a test failed, for the progress line: one of :data:`REASONS` ("" when it passed, or failed otherwise)."""
    if result["status"] == "passed":
        return ""
    if result["grader_error"]:
        return "grader"
    if not_run(result):
        return "not_run"
    faults = [c.failure for c in checks.cases] if checks is not None else []
    return "timeout" if any(isinstance(f, StudentFault) and f.kind == "timeout" for f in [*faults, fault]) else ""


# --- the reader's side (``grader check``) --------------------------------------------------------------------------

def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    number = float(value)
    return number if math.isfinite(number) and 0 <= number <= MAX_NUMBER else None


def _title(value: Any) -> str | None:
    return value[:MAX_TITLE] if isinstance(value, str) and value.strip() else None


def parse_line(line: bytes, assignments: frozenset[str]) -> Event | None:
    """The event a feed line holds, or None for anything else (not JSON, an unknown event, an assignment not in
    ``assignments``, a value of the wrong type or out of bounds)."""
    if len(line) > MAX_LINE_BYTES:
        return None
    try:
        doc = json.loads(line)
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        return None
    if not isinstance(doc, dict):
        return None
    kind = doc.get("event")
    if kind == "tests":
        counts = doc.get("counts")
        if not isinstance(counts, dict):
            return None
        kept = {a: n for a, n in counts.items() if a in assignments and type(n) is int and 0 <= n <= 10_000}
        return Counts(kept)
    aid, title = doc.get("assignment"), _title(doc.get("title"))
    if not isinstance(aid, str) or aid not in assignments or title is None:
        return None
    if kind == "start":
        limit = _number(doc.get("limit"))
        return None if limit is None else Started(aid, title, limit)
    if kind == "end":
        score, most, seconds = (_number(doc.get(k)) for k in ("score", "max_score", "seconds"))
        passed, why = doc.get("passed"), doc.get("reason")
        if score is None or most is None or seconds is None or not isinstance(passed, bool) or why not in REASONS:
            return None
        return Ended(aid, title, score, most, passed, seconds, str(why))
    return None


class FeedReader:
    """Reads a feed file as it grows: each call to :meth:`read` returns the events of the lines completed since.

    Args:
        path: The feed file.
        assignments: The assignment ids an event may name.
    """

    def __init__(self, path: Path, assignments: frozenset[str]) -> None:
        self.path = path
        self.assignments = assignments
        self.offset = 0
        self.pending = b""
        self.skipping = False  # inside a line already too long: drop it up to its newline

    def read(self) -> list[Event]:
        """The events of the lines completed since the last call (garbage dropped)."""
        left = MAX_FEED_BYTES - self.offset
        if left <= 0:
            return []
        try:
            with open(self.path, "rb") as f:
                f.seek(self.offset)
                data = f.read(min(left, 256 * 1024))
        except OSError:
            return []
        self.offset += len(data)
        events: list[Event] = []
        *lines, self.pending = (self.pending + data).split(b"\n")
        for line in lines:
            if self.skipping:
                self.skipping = False
                continue
            event = parse_line(line, self.assignments)
            if event is not None:
                events.append(event)
        if len(self.pending) > MAX_LINE_BYTES:
            self.pending, self.skipping = b"", True
        return events
