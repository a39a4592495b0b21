"""The judge's handle on one sandbox worker process.

A :class:`SandboxWorker` has the fork server (:mod:`grader.forkserver`,
running from a private runtime copy, so the worker's ``sys.path`` never
contains the course repository) fork ``grader/sandbox/worker.py`` in its own
session, with a minimal environment, its scratch directory as working
directory and its output sent to a capture file. Requests and responses travel as JSON lines over two
dedicated pipes (:mod:`grader.sandbox.protocol`); every read has a deadline.

On a timeout, a crash or a protocol violation the worker (with its PID
namespace, or its process group) is killed and marked dead; the caller starts a new one for the
next test, so one bad method costs only the tests that call it.
"""

from __future__ import annotations

import compileall
import os
import select
import shutil
import signal
import time
from pathlib import Path
from typing import Any

from .config import Limits
from .forkserver import ENV as SERVER_ENV
from .forkserver import ForkServer, ForkServerError
from .sandbox import protocol

RUNTIME_PACKAGE = "_grader_sandbox"
HIDDEN_ALWAYS = ("/tmp", "/var/tmp", "/dev/shm")
"""Shared writable folders each worker gets a private, empty copy of (the judge's home is hidden too)."""


class WorkerFault(Exception):
    """The worker did not answer properly; the message is student-facing."""


class WorkerTimeout(WorkerFault):
    """The worker did not answer before the deadline."""


class WorkerCrashed(WorkerFault):
    """The worker process died."""


class WorkerProtocolError(WorkerFault):
    """The worker sent something that is not a valid response."""


def prepare_runtime(dest: Path) -> Path:
    """Copy the sandbox package into ``dest/_grader_sandbox``; return ``dest``.

    Only the sandbox's own modules are copied: nothing of the judge, the
    reference or the tests is reachable from the worker's ``sys.path``. They
    are compiled once here (workers run with ``-B`` and cannot write
    bytecode), which saves every worker start about 10 ms of compiling.
    """
    source = Path(__file__).parent / "sandbox"
    target = dest / RUNTIME_PACKAGE
    target.mkdir(parents=True, exist_ok=True)
    for module in source.glob("*.py"):
        shutil.copyfile(module, target / module.name)
    compileall.compile_dir(target, quiet=1)
    return dest


def _signal_name(returncode: int) -> str:
    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return f"signal {-returncode}"


class SandboxWorker:
    """One running sandbox worker for one submission and assignment.

    Args:
        runtime: Directory prepared by :func:`prepare_runtime`.
        code_dir: Staged submission (holds ``micrograd/``).
        scratch: Empty writable directory: the worker's cwd, HOME and TMPDIR.
        modules: Student modules to import, in order (``micrograd.engine``...).
        limits: Resource limits.
        hide: Folders the worker must not see (the course, the submissions,
            the output, the grader's working folder); hidden by a mount
            namespace where available, and outside Landlock's allowlist.
        network: Leave the network reachable (``allow_network`` in assignment.yaml).
        isolate: Use namespaces (tests of the fallback path turn them off).
        forkserver: The judge's fork server; None starts a private one for
            this worker (and stops it when the worker is killed).

    Attributes:
        isolation: The layers the worker reported as active, before it ran
            any student code: layer name to ``"on ..."`` or ``"off: reason"``.
    """

    def __init__(
        self,
        runtime: Path,
        code_dir: Path,
        scratch: Path,
        modules: list[str],
        limits: Limits,
        *,
        hide: list[str] | None = None,
        network: bool = False,
        isolate: bool = True,
        forkserver: ForkServer | None = None,
    ) -> None:
        self.runtime = runtime.resolve()
        self.code_dir = code_dir.resolve()
        self.scratch = scratch.resolve()
        self.modules = modules
        self.limits = limits
        self.hide = list(hide or [])
        self.network = network
        self.isolate = isolate
        self.forkserver = forkserver
        self._own_server: ForkServer | None = None
        self.pid: int | None = None
        """The launcher's process id while the worker runs."""
        self.imports: dict[str, Any] = {}
        self.isolation: dict[str, str] = {}
        self._pidfd = -1
        self.output_path = scratch / ".output"
        self._buf = b""
        self._next_id = 0
        self._rfd = -1
        self._wfd = -1
        self._status_fd = -1
        self._launcher_fd = -1

    @property
    def alive(self) -> bool:
        return self._rfd >= 0

    def start(self) -> dict[str, Any]:
        """Start the worker and wait for its hello (within ``startup_seconds``).

        Returns:
            The import results: module name to None or an error description.

        Raises:
            WorkerFault: If the worker does not say hello in time.
        """
        self.scratch.mkdir(parents=True, exist_ok=True)
        req_r, req_w = os.pipe()
        resp_r, resp_w = os.pipe()
        status_r, status_w = os.pipe()
        env = {**SERVER_ENV, "HOME": str(self.scratch), "TMPDIR": str(self.scratch)}
        config = {
            "code_dir": str(self.code_dir),
            "scratch": str(self.scratch),
            "runtime": str(self.runtime),
            "limits": self.limits.for_worker(),
            "modules": self.modules,
            "hide": [*self.hide, *HIDDEN_ALWAYS, str(Path.home())],
            "network": self.network,
            "isolate": self.isolate,
        }
        server = self.forkserver
        if server is None:
            server = self._own_server = ForkServer(self.runtime)
        out = os.open(self.output_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            server.spawn(config, env, self.scratch, (req_r, resp_w, out, status_w))
        except ForkServerError as exc:
            for fd in (req_w, resp_r, status_r):
                os.close(fd)
            raise WorkerCrashed(f"the sandbox could not be started ({exc})") from None
        finally:
            for fd in (req_r, resp_w, out, status_w):
                os.close(fd)
        self._rfd, self._wfd, self._status_fd = resp_r, req_w, status_r
        self._buf = b""
        deadline = time.monotonic() + self.limits.startup_seconds
        launcher = self._read(deadline, "starting the sandbox").get("launcher")
        if (not isinstance(launcher, dict) or not isinstance(launcher.get("pid"), int)
                or not isinstance(launcher.get("self"), int)):
            self.kill()
            raise WorkerProtocolError("the sandbox did not start properly (no launcher message)")
        self.pid = launcher["self"]
        for name, pid in (("_pidfd", launcher["pid"]), ("_launcher_fd", launcher["self"])):
            try:
                setattr(self, name, os.pidfd_open(pid))
            except OSError:
                setattr(self, name, -1)
        isolation = self._read(deadline, "starting the sandbox").get("isolation")
        if not isinstance(isolation, dict):
            self.kill()
            raise WorkerProtocolError("the sandbox did not report its isolation")
        self.isolation = {str(k): str(v) for k, v in isolation.items()}
        hello = self._read(deadline, "importing your code")
        imports = hello.get("imports")
        if hello.get("hello") != 1 or not isinstance(imports, dict):
            self.kill()
            raise WorkerProtocolError("the sandbox did not start properly (unexpected first message)")
        self.imports = {str(k): v for k, v in imports.items()}
        return self.imports

    def request(self, probe: str, args: list[Any], timeout: float, during: str) -> dict[str, Any]:
        """Send one probe request and return the worker's response.

        Args:
            probe: Probe name (see ``grader.sandbox.probes``).
            args: Plain-data arguments.
            timeout: Seconds to wait for the answer.
            during: Student-facing description of the call, for error messages.

        Returns:
            The response: ``{"ok": True, "value": ...}`` or ``{"ok": False, "error": {...}}``.

        Raises:
            WorkerFault: On a timeout, a crash or a protocol violation; the
                worker is dead afterwards.
        """
        if not self.alive:
            raise WorkerCrashed("the sandbox worker is not running")
        self._next_id += 1
        rid = self._next_id
        deadline = time.monotonic() + max(timeout, 0.0)
        self._write(protocol.encode({"id": rid, "probe": probe, "args": args}), deadline, during)
        response = self._read(deadline, during)
        if response.get("id") != rid or not isinstance(response.get("ok"), bool):
            self.kill()
            raise WorkerProtocolError(f"the sandbox sent an invalid answer while {during}")
        return response

    def _write(self, data: bytes, deadline: float, during: str) -> None:
        view = memoryview(data)
        while view:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self._timeout(during)
            _, ready, _ = select.select([], [self._wfd], [], remaining)
            if ready:
                try:
                    view = view[os.write(self._wfd, view[: 65536]) :]
                except BrokenPipeError:
                    self._crashed(during)

    def _read(self, deadline: float, during: str) -> dict[str, Any]:
        while b"\n" not in self._buf:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self._timeout(during)
            ready, _, _ = select.select([self._rfd], [], [], remaining)
            if not ready:
                continue
            chunk = os.read(self._rfd, 1 << 16)
            if not chunk:
                self._crashed(during)
            self._buf += chunk
            if len(self._buf) > protocol.MAX_MESSAGE_BYTES:
                self.kill()
                raise WorkerProtocolError(f"the sandbox sent an oversized answer while {during}")
        line, _, self._buf = self._buf.partition(b"\n")
        try:
            return protocol.decode(line)
        except protocol.ProtocolError as exc:
            self.kill()
            raise WorkerProtocolError(f"the sandbox sent an invalid answer while {during} ({exc})") from None

    def _timeout(self, during: str) -> None:
        self.kill()
        raise WorkerTimeout(f"timed out while {during}")

    def _crashed(self, during: str) -> None:
        code = self._returncode(1.0)
        self.kill()
        if code is None:
            how = "closed its connection"
        elif code < 0:
            how = f"was killed by {_signal_name(code)}"
            if code == -signal.SIGXCPU:
                how += " (CPU time limit exceeded)"
            elif code == -signal.SIGXFSZ:
                how += " (file size limit exceeded)"
        else:
            how = f"exited with status {code}"
        raise WorkerCrashed(f"the program {how} while {during}")

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
        for fd in (self._status_fd, self._launcher_fd):
            if fd >= 0:
                os.close(fd)
        self._status_fd = self._launcher_fd = -1
        self._buf = b""
        if self._own_server is not None:
            self._own_server.close()
            self._own_server = None

    def output_excerpt(self, limit: int) -> str:
        """The last ``limit`` bytes the program printed, decoded leniently."""
        try:
            with open(self.output_path, "rb") as f:
                f.seek(0, os.SEEK_END)
                size = f.tell()
                f.seek(max(0, size - limit))
                data = f.read(limit)
        except OSError:
            return ""
        text = data.decode("utf-8", errors="replace")
        return ("..." + text) if size > limit else text
