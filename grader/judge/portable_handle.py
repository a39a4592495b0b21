"""The judge's handle on one worker of the portable backend (macOS, Windows, restricted Linux hosts).

A :class:`PortableWorker` starts ``grader/sandbox/portable_worker.py`` from the
private runtime copy as an ordinary subprocess of a fresh interpreter
(``python -s -S -B [-P]``, a minimal environment with a fixed hash seed, its
scratch folder as working directory). The protocol travels on the worker's
standard input and output, which the worker moves to private descriptors
before any student code runs; its standard error (and so everything the
program prints) goes to the capture file.

Nothing here needs ``fork``, descriptor passing, ``pidfd`` or ``select`` on
pipes, so it runs wherever Python does:

* deadlines: a reader thread turns the response pipe into a bounded queue
  of lines, read with a timeout; a writer thread sends requests, so a
  worker that stops reading cannot block the judge;
* crash detection: end of file on the response pipe, then the returncode;
* kill: the whole process tree, with psutil (the worker's descendants, then
  the worker), and on POSIX its process group too (the worker runs in a
  session of its own);
* limits: whatever the OS offers, applied by the worker (:mod:`grader.sandbox.limits`).

What it cannot do, by nature: hide files from the submission, block the
network, or stop a daemon that detaches itself (``setsid`` and a double
fork) from outliving the worker. That is why ``grader grade`` warns when a
class is graded on this backend.
"""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO, Any

import psutil

from grader.judge.forkserver_client import INTERPRETER_FLAGS
from grader.judge.worker_handle import SETUP_SECONDS, SandboxSetupError, Worker, WorkerCrashed, worker_environment
from grader.sandbox import protocol
from grader.sandbox.portable_worker import BOOT
from grader.sandbox.protocol import WorkerConfig

EOF = b""
"""Queue item: the response pipe reached end of file."""
OVERSIZED = None
"""Queue item: a line longer than the protocol allows."""


def interpreter_command(runtime: Path) -> list[str]:
    """The command line of a portable worker.

    On Windows a virtual environment's ``python.exe`` is a launcher that
    starts the base interpreter as a child; the worker needs only the
    standard library, so it runs the base interpreter directly.
    """
    python = getattr(sys, "_base_executable", "") if os.name == "nt" else ""
    return [python or sys.executable, *INTERPRETER_FLAGS, "-c", BOOT, str(runtime)]


def processes_in_use() -> int | None:
    """How many processes this user runs, where the worker cannot count them itself (no ``/proc``)."""
    if os.name != "posix" or sys.platform.startswith("linux"):
        return None
    uid = os.getuid()
    count = 0
    for proc in psutil.process_iter(["uids"]):
        uids = proc.info.get("uids")
        count += bool(uids and uids.real == uid)
    return count


def kill_tree(popen: subprocess.Popen[bytes], root: psutil.Process | None) -> None:
    """Kill ``popen`` and its descendants (POSIX: its process group too), then reap it."""
    for _ in range(10):
        try:
            descendants = root.children(recursive=True) if root is not None else []
        except psutil.Error:
            descendants = []
        if os.name == "posix":
            try:
                os.killpg(popen.pid, signal.SIGKILL)
            except OSError:
                pass
        for proc in [*descendants, *([root] if root is not None else [])]:
            try:
                proc.kill()
            except psutil.Error:
                pass
        if not descendants:
            break
    if root is None:
        popen.kill()
    try:
        popen.wait(timeout=5.0)
    except subprocess.TimeoutExpired:  # pragma: no cover - a process that survives SIGKILL
        pass


class PortableWorker(Worker):
    """One worker of the portable backend; the arguments are :class:`grader.judge.worker_handle.Worker`'s."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._popen: subprocess.Popen[bytes] | None = None
        self._root: psutil.Process | None = None
        self._lines: queue.Queue[bytes | None] = queue.Queue(maxsize=2)
        self._sends: queue.Queue[bytes | None] = queue.Queue()
        self._sent: queue.Queue[BaseException | None] = queue.Queue()
        self._stop = threading.Event()

    @property
    def alive(self) -> bool:
        return self._popen is not None

    @property
    def pid(self) -> int | None:
        """The worker's process id while it runs."""
        return self._popen.pid if self._popen is not None else None

    def _launch(self, config: WorkerConfig) -> None:
        in_use = processes_in_use()
        if in_use is not None:
            config["processes_in_use"] = in_use
        kwargs: dict[str, Any] = {}
        if os.name == "nt":
            kwargs["creationflags"] = subprocess.CREATE_NEW_PROCESS_GROUP | subprocess.CREATE_NO_WINDOW  # type: ignore[attr-defined]
        else:
            kwargs["start_new_session"] = True
        try:
            self._popen = subprocess.Popen(
                interpreter_command(self.runtime), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=self._capture(), cwd=self.scratch, env=worker_environment(self.scratch), bufsize=0, **kwargs,
            )
        except OSError as exc:
            raise SandboxSetupError("", f"the sandbox worker could not be started ({exc})") from None
        try:
            self._root = psutil.Process(self._popen.pid)
        except psutil.Error:
            self._root = None
        assert self._popen.stdout is not None and self._popen.stdin is not None
        threading.Thread(target=_read_lines, args=(self._popen.stdout, self._lines, self._stop), daemon=True).start()
        threading.Thread(target=_write_lines, args=(self._popen.stdin, self._sends, self._sent), daemon=True).start()
        self._write(protocol.encode(config), time.monotonic() + max(self.limits.startup_seconds, SETUP_SECONDS),
                    "starting the sandbox")

    def _write(self, data: bytes, deadline: float, during: str) -> None:
        if self._popen is None:
            raise WorkerCrashed("the sandbox worker is not running")
        self._sends.put(data)
        try:
            error = self._sent.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            self._timeout(during)
        if error is not None:
            self._crashed(during)

    def _read(self, deadline: float, during: str) -> dict[str, Any]:
        while True:
            try:
                line = self._lines.get(timeout=max(0.0, deadline - time.monotonic()))
                break
            except queue.Empty:
                deadline = self._later(time.monotonic(), during)  # the judge's answering time is given back
        if line is OVERSIZED:
            self._oversized(during)
        if line == EOF:
            self._crashed(during)
        assert line is not None
        return self._decode(line, during)

    def _returncode(self, timeout: float) -> int | None:
        if self._popen is None:
            return None
        try:
            return self._popen.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    def kill(self) -> None:
        popen, self._popen = self._popen, None
        if popen is None:
            return
        kill_tree(popen, self._root)
        self._root = None
        self._stop.set()  # ends the reader thread even if nobody reads its queue
        self._sends.put(None)  # ends the writer thread
        for pipe in (popen.stdin, popen.stdout):
            try:
                if pipe is not None:
                    pipe.close()
            except OSError:
                pass


def _read_lines(pipe: IO[bytes], lines: queue.Queue[bytes | None], stop: threading.Event) -> None:
    """Reader thread: split the response pipe into lines; :data:`EOF` at the end, :data:`OVERSIZED` on a huge line.

    The queue is bounded, so a worker that floods the pipe waits for the
    judge (back-pressure) instead of filling the judge's memory.
    """

    def put(item: bytes | None) -> bool:
        while not stop.is_set():
            try:
                lines.put(item, timeout=0.5)
                return True
            except queue.Full:
                continue
        return False

    buf = b""
    try:
        while True:
            chunk = pipe.read(1 << 16)
            if not chunk:
                break
            buf += chunk
            while b"\n" in buf:
                line, _, buf = buf.partition(b"\n")
                if not put(line):
                    return
            if len(buf) > protocol.MAX_MESSAGE_BYTES:
                put(OVERSIZED)
                return
    except (OSError, ValueError):  # closed by kill()
        pass
    put(EOF)


def _write_lines(pipe: IO[bytes], sends: queue.Queue[bytes | None], sent: queue.Queue[BaseException | None]) -> None:
    """Writer thread: send each item of ``sends`` and report the outcome on ``sent``; None ends it."""
    while True:
        data = sends.get()
        if data is None:
            return
        try:
            pipe.write(data)
            pipe.flush()
            sent.put(None)
        except (OSError, ValueError) as exc:
            sent.put(exc)
            return
