"""Progress of ``grader grade``: a bar with an ETA on a terminal, plain lines in logs.

On a terminal the bar is drawn by ``tqdm``. Elsewhere (CI logs, redirected
output) a plain line is printed every :data:`LINE_EVERY_SECONDS` seconds and
at the end, e.g. ``[120/200] graded alice (60%, 34 s elapsed, about 23 s left)``.
"""

from __future__ import annotations

import time
from typing import IO, Any

from tqdm import tqdm

from grader.inert import terminal

LINE_EVERY_SECONDS = 10.0


class Progress:
    """A callable ``progress(done, total, student)`` used as a context manager.

    Args:
        stream: Where to draw (usually ``sys.stderr``).
        interactive: Draw a bar (default: when ``stream`` is a terminal).
    """

    def __init__(self, stream: IO[str], interactive: bool | None = None) -> None:
        self.stream = stream
        self.interactive = stream.isatty() if interactive is None else interactive
        self.bar: tqdm[Any] | None = None
        self.started = time.monotonic()
        self.last_line = 0.0

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.bar is not None:
            self.bar.close()

    def __call__(self, done: int, total: int, student: str) -> None:
        if self.interactive:
            if self.bar is None:
                self.bar = tqdm(total=total, file=self.stream, unit="submission", dynamic_ncols=True)
            self.bar.set_postfix_str(terminal(student, keep="")[:30], refresh=False)
            self.bar.update(done - self.bar.n)
            return
        now = time.monotonic()
        if done == total or now - self.last_line >= LINE_EVERY_SECONDS or done == 1:
            self.last_line = now
            elapsed = now - self.started
            left = elapsed / done * (total - done) if done else 0.0
            print(f"[{done}/{total}] graded {terminal(student, keep='')} ({done / total:.0%}, {elapsed:.0f} s elapsed, "
                  f"about {left:.0f} s left)", file=self.stream, flush=True)
