"""The judge's handle on one sandbox worker of the Linux backend.

A :class:`SandboxWorker` has the fork server (:mod:`grader.judge.forkserver_client`,
running from a private runtime copy, so the worker's ``sys.path`` never
contains the course repository) fork ``grader/sandbox/worker.py`` in its own
session, with a minimal environment, its scratch directory as working
directory and its output sent to a capture file. Requests and responses
travel as JSON lines over two dedicated pipes (:mod:`grader.sandbox.protocol`);
every read has a deadline (``select`` on the pipes).

On a timeout, a crash or a protocol violation the worker (with its PID
namespace, or its process group) is killed and marked dead; the caller starts a new one for the
next test, so one bad method costs only the tests that call it. The start-up
handshake and the split between student faults and setup failures are
shared with the portable backend (:mod:`grader.judge.worker_handle`).
"""

from __future__ import annotations

import compileall
import fcntl
import os
import select
import shutil
import signal
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from grader.judge.call_clock import Usage
from grader.judge.forkserver_client import ForkServer, ForkServerError
from grader.judge.proc_tree import TreeReader
from grader.judge.worker_handle import SandboxSetupError, Worker, WorkerProtocolError, worker_environment
from grader.sandbox import course_code, protocol
from grader.sandbox.own_parts import RUNTIME_FOLDER as PARTS_FOLDER
from grader.sandbox.protocol import WorkerConfig

RUNTIME_PACKAGE = "_grader_sandbox"
PIPE_BYTES = 1 << 20
"""The capacity asked for the request and response pipes (bytes): Linux's default 64 KiB is less than one training
step's tape of the classifier (56 KB on average, up to 110 KB), so the worker would block in mid-message until the
judge has read the first part; 1 MiB is the largest an unprivileged process may ask by default
(``/proc/sys/fs/pipe-max-size``, see ``pipe(7)``)."""
READ_BYTES = 1 << 20
"""The most one read of the response pipe takes (bytes)."""
HIDDEN_ALWAYS = ("/tmp", "/var/tmp", "/dev/shm", "/run", "/var/run")
"""Shared folders each worker gets a private, empty copy of (the judge's home is hidden too): writable
places other processes use, and ``/run``, where the host's UNIX sockets live (a service listening there
must not be reachable from student code)."""


def prepare_runtime(dest: Path, parts: Path | None = None, course: Path | None = None,
                    names: Iterable[str] | None = None) -> Path:
    """Copy the sandbox package into ``dest/_grader_sandbox``, the course's probe modules into
    ``dest/_grader_course`` and the grader's own parts (if any) into ``dest/_grader_parts``; return ``dest``.

    Only the sandbox's own modules, the probe modules and the parts are copied: nothing of the
    judge, the reference or the tests is reachable from the worker's
    ``sys.path``. They are compiled once here (workers run with ``-B`` and
    cannot write bytecode), which saves every worker start about 10 ms of
    compiling. ``dest`` is readable by the judge's user only: a worker imports
    what it needs while it still runs as that user, before any student code,
    and cannot open these files afterwards (see :mod:`grader.sandbox.worker`).

    Args:
        dest: The runtime folder to make.
        parts: The course's parts folder (``assignments/shared/parts``), or None (a student's release has none).
        course: The course's ``assignments/`` folder, whose probe modules are copied
            (:func:`grader.sandbox.course_code.copy_probes`); None: the folder in use in this process.
        names: The parts a worker may load (the graded assignments' ``grader_parts``): only they are copied, so
            no file of a part the judge alone uses (``judge_parts``) is ever in a worker's folder. None: all.
    """
    source = Path(__file__).resolve().parent.parent / "sandbox"
    dest.mkdir(parents=True, exist_ok=True)
    os.chmod(dest, 0o700)
    target = dest / RUNTIME_PACKAGE
    target.mkdir(parents=True, exist_ok=True)
    for module in source.glob("*.py"):
        shutil.copyfile(module, target / module.name)
    compileall.compile_dir(target, quiet=1)
    course = course if course is not None else (Path(f) if (f := course_code.folder()) else None)
    if course is not None and course.is_dir():
        compileall.compile_dir(course_code.copy_probes(course, dest), quiet=1)
    if parts is not None and parts.is_dir():
        own = dest / PARTS_FOLDER
        own.mkdir(exist_ok=True)
        wanted = None if names is None else set(names)
        for module in parts.glob("*.py"):
            if wanted is None or module.stem in wanted:
                shutil.copyfile(module, own / module.name)
        compileall.compile_dir(own, quiet=1)
    return dest


def widen(fd: int) -> None:
    """Ask for a pipe of :data:`PIPE_BYTES` (never raises: a host that refuses, e.g. a user over
    ``pipe-user-pages-soft``, keeps the default and messages travel in more pieces)."""
    try:
        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
    except (OSError, AttributeError):  # AttributeError: F_SETPIPE_SZ is Linux's (Python 3.10+)
        pass


class SandboxWorker(Worker):
    """One worker of the Linux backend (see :class:`grader.judge.worker_handle.Worker` for the arguments).

    Args:
        forkserver: The judge's fork server; None starts a private one for
            this worker (and stops it when the worker is killed).
        (the rest): See :class:`grader.judge.worker_handle.Worker`; ``hide`` is covered by a
            mount namespace where available, and outside Landlock's allowlist.
    """

    def __init__(self, *args: Any, forkserver: ForkServer | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.forkserver = forkserver
        self._own_server: ForkServer | None = None
        self.pid: int | None = None
        """The launcher's process id while the worker runs."""
        self._pidfd = -1
        self._buf = b""
        self._rfd = -1
        self._wfd = -1
        self._status_fd = -1
        self._launcher_fd = -1
        self._worker_pid = 0
        """The worker's process (or its PID namespace's first process) as this judge sees it; 0 before it runs."""
        self._tree = TreeReader()
        """Reads the sandbox's CPU time (:meth:`usage`), its ``/proc`` files kept open while the worker runs."""

    @property
    def alive(self) -> bool:
        return self._rfd >= 0

    def config(self) -> WorkerConfig:
        config = super().config()
        config["hide"] = [*self.hide, *HIDDEN_ALWAYS, str(Path.home())]
        return config

    def _launch(self, config: WorkerConfig) -> None:
        req_r, req_w = os.pipe()
        resp_r, resp_w = os.pipe()
        for fd in (req_w, resp_w):
            widen(fd)
        status_r, status_w = os.pipe()
        server = self.forkserver
        if server is None:
            server = self._own_server = ForkServer(self.runtime)
        out = self._capture()
        try:
            server.spawn(config, worker_environment(self.scratch), self.scratch, (req_r, resp_w, out, status_w))
        except ForkServerError as exc:
            for fd in (req_w, resp_r, status_r):
                os.close(fd)
            raise SandboxSetupError("", f"the sandbox fork server failed ({exc})") from None
        finally:
            for fd in (req_r, resp_w, status_w):
                os.close(fd)
        self._rfd, self._wfd, self._status_fd = resp_r, req_w, status_r
        self._buf = b""

    def _launched(self, deadline: float) -> None:
        launcher = self._setup_message(self._read(deadline, "starting the sandbox")).get("launcher")
        if (not isinstance(launcher, dict) or not isinstance(launcher.get("pid"), int)
                or not isinstance(launcher.get("self"), int)):
            self.kill()
            raise WorkerProtocolError("no launcher message")
        self.pid = launcher["self"]
        self._worker_pid = launcher["pid"]
        for name, pid in (("_pidfd", launcher["pid"]), ("_launcher_fd", launcher["self"])):
            try:
                setattr(self, name, os.pidfd_open(pid))
            except OSError:
                setattr(self, name, -1)

    def _write(self, data: bytes, deadline: float, during: str) -> None:
        view = memoryview(data)
        while view:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self._timeout(during)
            _, ready, _ = select.select([], [self._wfd], [], remaining)
            if ready:
                try:
                    view = view[os.write(self._wfd, view[:PIPE_BYTES]) :]
                except BrokenPipeError:
                    self._crashed(during)

    def _read(self, deadline: float, during: str) -> dict[str, Any]:
        while b"\n" not in self._buf:
            ready, _, _ = select.select([self._rfd], [], [], max(deadline - time.monotonic(), 0.0))
            if not ready:  # (a response already waiting was read above, however late this judge woke)
                now = time.monotonic()
                if now < deadline:
                    continue
                deadline = self._later(now, during)
                continue
            chunk = os.read(self._rfd, READ_BYTES)
            if not chunk:
                self._crashed(during)
            self._buf += chunk
            if len(self._buf) > protocol.MAX_MESSAGE_BYTES:
                self._oversized(during)
        line, _, self._buf = self._buf.partition(b"\n")
        return self._decode(line, during)

    def usage(self) -> Usage | None:
        """What every process of the sandbox has used: the launcher's whole tree (the worker, whatever it started,
        orphans the launcher or the namespace's init took in); see :meth:`grader.judge.proc_tree.TreeReader.usage`.
        None if it cannot be read."""
        if self._worker_pid <= 0 or not self.pid:
            return None
        return self._tree.usage(self.pid)

    def _returncode(self, timeout: float) -> int | None:
        """The returncode the launcher reports once the worker has ended (None if it has not within ``timeout``)."""
        if self._status_fd < 0 or not select.select([self._status_fd], [], [], timeout)[0]:
            return None
        data = os.read(self._status_fd, 64)
        try:
            return int(data)
        except ValueError:
            return None

    def kill(self) -> None:
        """Kill the worker with everything it started, and release its pipes. Idempotent."""
        running, launcher = self.alive, self.pid
        self.pid = None
        self._worker_pid = 0
        self._tree.close()
        if self._pidfd >= 0:  # the namespace's init (all its processes die) or the worker itself
            try:
                signal.pidfd_send_signal(self._pidfd, signal.SIGKILL)
            except OSError:
                pass
            os.close(self._pidfd)
            self._pidfd = -1
        for fd in (self._rfd, self._wfd):
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._rfd = self._wfd = -1
        if running and self._status_fd >= 0:
            # The launcher reaps, kills re-parented orphans, reports and exits: its status pipe then
            # becomes readable. If it does not, kill its process group while it is known to be alive.
            if not select.select([self._status_fd], [], [], 2.0)[0] and self._launcher_fd >= 0:
                if launcher and not select.select([self._launcher_fd], [], [], 0)[0]:  # still alive: pid not reused
                    try:
                        os.killpg(launcher, signal.SIGKILL)
                    except OSError:
                        pass
                try:
                    signal.pidfd_send_signal(self._launcher_fd, signal.SIGKILL)
                except OSError:
                    pass
            if self._launcher_fd >= 0:  # it reported: let it finish exiting, so nothing is left when kill() returns
                select.select([self._launcher_fd], [], [], 1.0)
        for fd in (self._status_fd, self._launcher_fd):
            if fd >= 0:
                os.close(fd)
        self._status_fd = self._launcher_fd = -1
        self._buf = b""
        if self._own_server is not None:
            self._own_server.close()
            self._own_server = None
