"""Following a self-check as it runs: ``grader check`` shows each public test as it ends, on stderr.

:func:`run_followed_judge` starts the judge as :func:`grader.grading.batch.run_judge` does, with
:data:`grader.judge.progress_feed.ENV` naming a feed file the judge appends an event to as each test starts and
ends; while it waits it reads the feed (:class:`grader.judge.progress_feed.FeedReader`, bounded: garbage is
dropped) and hands the events to a :class:`Follower`. :class:`CheckProgress` is the one ``grader check`` uses: a
line per assignment with a mark per test as it ends, or (``grader check -v``, ``-a``) a heading as each assignment
starts, then a line per test as it ends, e.g.::

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

from grader.course.course import Course
from grader.errors import GraderError
from grader.grading.batch import judge_environment as batch_environment
from grader.inert import actions_log, terminal
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
    """``grader check``'s progress. Used as a context manager: on exit, a blank line separates the progress from the
    report.

    With ``every_test`` (``grader check -v``, or ``-a``), a heading as each assignment starts, then a line per test
    as it ends. Without it, one line per assignment: its heading, then a mark per test as it ends (``✓`` passed,
    ``✗`` failed, ``!`` not graded), on the same line::

        Checking Assignment 1: Value operations (forward values and local gradients): 6 public tests ✓✗✗✗✗✗

    Either way, a test still running after :data:`STILL_RUNNING_SECONDS` is named on a line of its own (then its end
    too), and an assignment none of whose tests could run because the code could not be loaded is one line, not a
    line per test (the report says why, once)::

        Checking Assignment 2: backward() and the nonlinearities (...): 8 public tests: none could run, your code could not be loaded

    Args:
        stream: Where to write (``sys.stderr``). A stream that fails is given up on: progress never stops a check.
        course: The course (the assignments' titles).
        every_test: A line per test (True), or a mark per test on its assignment's line (False).
    """

    def __init__(self, stream: IO[str], course: Course, every_test: bool = True) -> None:
        self.stream = stream
        self.course = course
        self.every_test = every_test
        self.counts: dict[str, int] = {}
        self.assignment = ""  # the assignment whose heading was written last
        self.running: tuple[Started, float] | None = None  # the test running, and when it started (our clock)
        self.noticed = False  # the running test has been named as still running
        self.wrote = False
        self.broken = False
        self.open = False  # a line is being written (an assignment's marks), not ended yet
        self.bare = False  # ... and it holds only the assignment's heading so far
        self.ended = 0  # tests of the current assignment that ended
        self.not_run = 0  # ... of which could not run: the code could not be loaded
        self.held: list[str] = []  # with every_test, not-run tests' lines, held while no test of the assignment ran
        self.done = False  # the current assignment's progress is complete
        self.encoding = self._encoding()
        self.passed, self.failed = ("✓", "✗") if self.encodes("✓✗") else ("ok", "x")
        self.marks = ("✓", "✗") if self.encodes("✓✗") else (".", "x")

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
        self.finish()
        if self.wrote:
            self.write("")

    def _print(self, text: str, end: str) -> None:
        """Write ``text`` and ``end`` as the stream can encode them, and flush; a failing stream is given up on."""
        if self.broken:
            return
        if not self.encodes(text):  # a title's character the code page lacks becomes "?", not an error
            text = text.encode(self.encoding, "replace").decode(self.encoding)
        text = actions_log(text)  # a title read from the feed never becomes a workflow command in a CI log
        try:
            print(text, file=self.stream, end=end, flush=True)
        except (OSError, ValueError):  # closed or broken stderr
            self.broken = True
        self.wrote = True

    def write(self, line: str) -> None:
        """Write a whole line (after ending the line being written, if one is)."""
        self.end_line()
        self._print(line, "\n")

    def append(self, text: str) -> None:
        """Add ``text`` to the line being written (starting one, indented, if none is)."""
        if not self.open:
            text = "  " + text.lstrip()
        self.open, self.bare = True, False
        self._print(text, "")

    def end_line(self) -> None:
        """End the line being written, if one is."""
        if self.open:
            self.open = self.bare = False
            self._print("", "\n")

    def heading(self, aid: str) -> None:
        """Start assignment ``aid``'s progress (ending the previous assignment's), unless it is the current one."""
        if aid == self.assignment:
            return
        self.finish()
        self.assignment = aid
        self.ended = self.not_run = 0
        self.held, self.done = [], False
        try:
            title = self.course.assignment(aid).title
        except GraderError:
            title = aid
        count = self.counts.get(aid)
        line = f"Checking {terminal(title, keep='')}" + (f": {count} public tests" if count else "")
        if self.every_test:
            self.write(line)
        else:  # the line stays open for the marks
            self.end_line()
            self._print(line, "")
            self.open = self.bare = True

    def event(self, event: Event) -> None:
        """Show one event of the feed; an assignment whose tests have all ended is finished at once."""
        if isinstance(event, Counts):
            self.counts.update(event.counts)
        elif isinstance(event, Started):
            self.heading(event.assignment)
            self.running, self.noticed = (event, time.monotonic()), False
        elif isinstance(event, Ended):
            self.heading(event.assignment)
            named = self.noticed and self.running is not None  # its start was named: its end is named too
            self.running, self.noticed = None, False
            self.ended += 1
            self.ended_test(event, named)
            if self.ended >= self.counts.get(event.assignment, 0) > 0:
                self.finish()

    def ended_test(self, event: Ended, named: bool) -> None:
        """Show a test that ended: its line, or its mark; a test that could not run only once the assignment shows
        whether any test could."""
        if event.reason == "not_run":
            self.not_run += 1
            if self.every_test and self.not_run < self.ended:
                self.write(self.line(event))
            elif self.every_test:
                self.held.append(self.line(event))
            return
        for line in self.held:  # a test ran after all: the held lines are shown as they were
            self.write(line)
        self.held = []
        if self.every_test or named:
            self.write(self.line(event))
        else:
            mark = "!" if event.reason == "grader" else self.marks[0] if event.passed else self.marks[1]
            self.append(f" {mark}" if self.bare else mark)

    def finish(self) -> None:
        """End the current assignment's progress: what could not run, in one line, and the end of its line."""
        if self.done or not self.assignment:
            return
        self.done = True
        loaded = "your code could not be loaded"
        if self.every_test and self.held:  # no test of the assignment ran: one line for them all
            tests = f"the {len(self.held)} public tests" if len(self.held) > 1 else "its public test"
            self.write(f"  {self.failed} none of {tests} could run: {loaded} (the report below says why)")
        elif not self.every_test and self.not_run:
            self.append(f": none could run, {loaded}" if self.not_run == self.ended and self.bare
                        else f" ({self.not_run} could not run: {loaded})")
        self.held = []
        self.end_line()

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
