"""The judge's handle on one sandbox worker process.

A :class:`SandboxWorker` starts ``grader/sandbox/worker.py`` from a private
runtime copy (so the worker's ``sys.path`` never contains the course
repository), in its own session and process group, with a minimal
environment, its scratch directory as working directory and its output sent
to a capture file. Requests and responses travel as JSON lines over two
dedicated pipes (:mod:`grader.sandbox.protocol`); every read has a deadline.

On a timeout, a crash or a protocol violation the whole process group is
killed and the worker is marked dead; the caller starts a new one for the
next test, so one bad method costs only the tests that call it.
"""

from __future__ import annotations

import compileall
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from .config import Limits
from .sandbox import protocol

BOOT = "import sys; sys.path.insert(0, sys.argv[1]); from _grader_sandbox.worker import main; main(sys.argv[2:])"
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


def _fixed_addresses() -> None:
    """In the child before exec: turn off address-space randomisation for the worker.

    Student ``Value`` objects hash by address, so the iteration order of a set
    of them (``_prev``, a visited set) follows the addresses; with fixed
    addresses the same submission runs the same way every time, and a bug
    whose effect depends on that order always gets the same score.
    """
    try:
        import ctypes

        ctypes.CDLL(None).personality(0x0040000)  # ADDR_NO_RANDOMIZE
    except (OSError, AttributeError):
        pass


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
    ) -> None:
        self.runtime = runtime.resolve()
        self.code_dir = code_dir.resolve()
        self.scratch = scratch.resolve()
        self.modules = modules
        self.limits = limits
        self.hide = list(hide or [])
        self.network = network
        self.isolate = isolate
        self.proc: subprocess.Popen[bytes] | None = None
        self.imports: dict[str, Any] = {}
        self.isolation: dict[str, str] = {}
        self._pidfd = -1
        self.output_path = scratch / ".output"
        self._buf = b""
        self._next_id = 0
        self._rfd = -1
        self._wfd = -1

    @property
    def alive(self) -> bool:
        return self.proc is not None

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
        env = {
            "PATH": "/usr/bin:/bin",
            "HOME": str(self.scratch),
            "TMPDIR": str(self.scratch),
            "LANG": "C.UTF-8",
            "PYTHONHASHSEED": "0",
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONIOENCODING": "utf-8",
        }
        config = {
            "code_dir": str(self.code_dir),
            "scratch": str(self.scratch),
            "runtime": str(self.runtime),
            "request_fd": req_r,
            "response_fd": resp_w,
            "limits": self.limits.for_worker(),
            "modules": self.modules,
            "hide": [*self.hide, *HIDDEN_ALWAYS, str(Path.home())],
            "network": self.network,
            "isolate": self.isolate,
            "parent": os.getpid(),
        }
        with open(self.output_path, "ab") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-I", "-S", "-B", "-c", BOOT, str(self.runtime), json.dumps(config)],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                pass_fds=(req_r, resp_w),
                cwd=self.scratch,
                env=env,
                start_new_session=True,
                preexec_fn=_fixed_addresses,
            )
        os.close(req_r)
        os.close(resp_w)
        self._rfd, self._wfd = resp_r, req_w
        self._buf = b""
        deadline = time.monotonic() + self.limits.startup_seconds
        launcher = self._read(deadline, "starting the sandbox").get("launcher")
        if not isinstance(launcher, dict) or not isinstance(launcher.get("pid"), int):
            self.kill()
            raise WorkerProtocolError("the sandbox did not start properly (no launcher message)")
        try:
            self._pidfd = os.pidfd_open(launcher["pid"])
        except OSError:
            self._pidfd = -1
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
        if self.proc is None:
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
        proc = self.proc
        code = None
        if proc is not None:
            try:
                code = proc.wait(timeout=1.0)
            except subprocess.TimeoutExpired:
                code = None
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

    def kill(self) -> None:
        """Kill the worker's whole process group and release its pipes. Idempotent."""
        proc, self.proc = self.proc, None
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
        if proc is not None:
            try:  # the launcher reaps, kills re-parented orphans, and exits
                proc.wait(timeout=2.0)
            except subprocess.TimeoutExpired:
                pass
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            try:
                proc.wait(timeout=5.0)
            except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL not delivered
                pass
        self._buf = b""

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
