"""Following a self-check as it runs: ``grader check`` shows each public test as it ends, on stderr.

:func:`run_followed_judge` starts the judge as :func:`grader.grading.batch.run_judge` does, with
:data:`grader.judge.progress_feed.ENV` naming a feed file the judge appends an event to as each test starts and
ends; while it waits it reads the feed (:class:`grader.judge.progress_feed.FeedReader`, bounded: garbage is
dropped) and hands the events to a :class:`Follower`. :class:`CheckProgress` is the one ``grader check`` uses: a
heading as each assignment starts, then a line per test as it ends, e.g.::

    Checking Assignment 2: backward() and the nonlinearities: 8 public tests
      ✓ Value.tanh: forward value and local gradient (1 / 1)
      ... backward() on tanh(x0 * x1 + x0) matches finite differences: still running after 5 s (limit: 10 s)
      ✗ backward() on tanh(x0 * x1 + x0) matches finite differences (0 / 3, ran out of time after 10.0 s)

Plain lines, no cursor movement: the same output reads well on a terminal, in a GitHub Actions log and in a
notebook cell (``!grader check``). Only titles and points are shown, never feedback (the report that follows
holds it); stdout is left to the report, so machine-readable formats stay clean.
"""

from __future__ import annotations

import codecs
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, Any, Protocol

from grader.course.config import Course
from grader.errors import GraderError
from grader.grading.batch import judge_environment as batch_environment
from grader.inert import terminal
from grader.judge.manifest import Manifest
from grader.judge.progress_feed import ENV, Counts, Ended, Event, FeedReader, Started
from grader.outputs.gradebook import points

POLL_SECONDS = 0.1
"""How often the feed is read while the judge runs."""
STILL_RUNNING_SECONDS = 5.0
"""After how long a test that has not ended is named as still running (once)."""


class Follower(Protocol):
    """What :func:`run_followed_judge` hands the feed's events to."""

    def event(self, event: Event) -> None:
        """One event of the feed, in order."""

    def tick(self) -> None:
        """Called at every poll, events or not."""


def judge_environment(manifest_path: Path, feed: Path) -> dict[str, str]:
    """The judge's environment (:func:`grader.grading.batch.judge_environment`), and the feed."""
    return batch_environment(manifest_path, **{ENV: str(feed)})


def run_followed_judge(manifest: Manifest, path: Path, log: Path, feed: Path, follower: Follower) -> int:
    """Run one judge process on ``manifest`` (saved at ``path``, its output going to ``log``) as
    :func:`grader.grading.batch.run_judge` does, handing ``follower`` the events it appends to ``feed`` as they come.

    Returns:
        The judge's exit status.
    """
    manifest.dump(path)
    log.parent.mkdir(parents=True, exist_ok=True)
    feed.parent.mkdir(parents=True, exist_ok=True)
    feed.write_bytes(b"")
    reader = FeedReader(feed, frozenset(manifest.assignments))
    with open(log, "wb") as out:
        process = subprocess.Popen([sys.executable, "-m", "grader.judge", str(path)], stdout=out,
                                   stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                   env=judge_environment(path, feed))
        try:
            while True:
                try:
                    status = process.wait(timeout=POLL_SECONDS)
                    break
                except subprocess.TimeoutExpired:
                    pass
                for event in reader.read():
                    follower.event(event)
                follower.tick()
        except BaseException:  # Ctrl-C (or a follower's bug): the judge must not outlive its folder
            process.kill()
            process.wait()
            raise
    for event in reader.read():
        follower.event(event)
    return status


class CheckProgress:
    """``grader check``'s progress: a heading as each assignment starts, a line per test as it ends, and one line
    for a test still running after :data:`STILL_RUNNING_SECONDS`. Used as a context manager: on exit, a blank line
    separates the progress from the report.

    Args:
        stream: Where to write (``sys.stderr``). A stream that fails is given up on: progress never stops a check.
        course: The course (the assignments' titles).
    """

    def __init__(self, stream: IO[str], course: Course) -> None:
        self.stream = stream
        self.course = course
        self.counts: dict[str, int] = {}
        self.assignment = ""  # the assignment whose heading was written last
        self.running: tuple[Started, float] | None = None  # the test running, and when it started (our clock)
        self.noticed = False  # the running test has been named as still running
        self.wrote = False
        self.broken = False
        self.encoding = self._encoding()
        self.passed, self.failed = ("✓", "✗") if self.encodes("✓✗") else ("ok", "x")

    def _encoding(self) -> str:
        """The stream's encoding (UTF-8 when it has none, or one Python does not know)."""
        encoding = getattr(self.stream, "encoding", None) or "utf-8"
        try:
            codecs.lookup(encoding)
        except LookupError:
            return "utf-8"
        return str(encoding)

    def encodes(self, text: str) -> bool:
        """Whether the stream can write ``text`` as it is (not so with ✓ on a legacy Windows code page)."""
        try:
            text.encode(self.encoding)
        except UnicodeEncodeError:
            return False
        return True

    def __enter__(self) -> CheckProgress:
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.wrote:
            self.write("")

    def write(self, line: str) -> None:
        if self.broken:
            return
        if not self.encodes(line):  # a title's character the code page lacks becomes "?", not an error
            line = line.encode(self.encoding, "replace").decode(self.encoding)
        try:
            print(line, file=self.stream, flush=True)
        except (OSError, ValueError):  # closed or broken stderr
            self.broken = True
        self.wrote = True

    def heading(self, aid: str) -> None:
        if aid == self.assignment:
            return
        self.assignment = aid
        try:
            title = self.course.assignment(aid).title
        except GraderError:
            title = aid
        count = self.counts.get(aid)
        self.write(f"Checking {terminal(title, keep='')}" + (f": {count} public tests" if count else ""))

    def event(self, event: Event) -> None:
        if isinstance(event, Counts):
            self.counts.update(event.counts)
        elif isinstance(event, Started):
            self.heading(event.assignment)
            self.running, self.noticed = (event, time.monotonic()), False
        elif isinstance(event, Ended):
            self.heading(event.assignment)
            self.running = None
            self.write(self.line(event))

    def line(self, event: Ended) -> str:
        """A test's line: its mark, title, points (none for a test worth none), and why it failed when the points
        do not say."""
        mark = self.passed if event.passed else self.failed
        said = [] if event.max_score == 0 else [f"{points(event.score)} / {points(event.max_score)}"]
        if event.reason == "timeout":
            said.append(f"ran out of time after {event.seconds:.1f} s" if event.seconds >= 0.5 else "ran out of time")
        elif event.reason == "not_run":
            said.append("not run: your code could not be loaded")
        elif event.reason == "grader":
            mark = "!"
            said = ["not graded: the grader failed here, not your code"]
        return f"  {mark} {terminal(event.title, keep='')}" + (f" ({', '.join(said)})" if said else "")

    def tick(self) -> None:
        if self.running is None or self.noticed:
            return
        started, since = self.running
        if time.monotonic() - since >= STILL_RUNNING_SECONDS:
            self.noticed = True
            self.write(f"  ... {terminal(started.title, keep='')}: still running after {STILL_RUNNING_SECONDS:g} s "
                       f"(limit: {started.limit:g} s)")
