"""The judge's handle on the sandbox fork server (:mod:`grader.sandbox.forkserver`).

One fork server per judge process serves every sandbox worker of that judge:
starting a worker costs a fork and the worker's own isolation and imports,
not an interpreter start-up and the sandbox's imports. The server runs from
the private runtime copy, never imports student, reference or test code, and
dies with the judge (``PR_SET_PDEATHSIG``).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

BOOT = ("import sys; sys.path.insert(0, sys.argv[1]); from _grader_sandbox.forkserver import main; "
        "main(sys.argv[2:])")
ENV = {
    "PATH": "/usr/bin:/bin",
    "LANG": "C.UTF-8",
    "PYTHONHASHSEED": "0",
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONIOENCODING": "utf-8",
}
"""The server's whole environment, and the base of each worker's (plus its HOME and TMPDIR).

Not ``-I``: it would ignore the hash seed."""


INTERPRETER_FLAGS = ("-s", "-S", "-B", *(("-P",) if sys.version_info >= (3, 11) else ()))
"""Flags of every interpreter the sandbox starts: no user or site packages, no bytecode writing, and
(3.11+) no working folder on ``sys.path``."""


class ForkServerError(OSError):
    """The fork server could not be started or did not take an order."""


def _fixed_addresses() -> None:
    """In the child before exec: turn off address-space randomisation for the server and all its forks.

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


class ForkServer:
    """A running fork server for one runtime folder; started on first use, restarted if it dies.

    Args:
        runtime: Folder prepared by :func:`grader.judge.linux_handle.prepare_runtime`.
    """

    def __init__(self, runtime: Path) -> None:
        self.runtime = runtime.resolve()
        self._proc: subprocess.Popen[bytes] | None = None
        self._trigger = -1
        self._order: socket.socket | None = None
        self._lock = threading.Lock()

    def _start(self) -> None:
        trigger_r, trigger_w = os.pipe()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self._proc = subprocess.Popen(
                [sys.executable, *INTERPRETER_FLAGS, "-c", BOOT, str(self.runtime), str(trigger_r), str(theirs.fileno()),
                 str(os.getpid())],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, pass_fds=(trigger_r, theirs.fileno()),
                cwd=self.runtime, env=ENV, start_new_session=True, preexec_fn=_fixed_addresses,
            )
        except OSError as exc:
            os.close(trigger_w)
            ours.close()
            raise ForkServerError(f"cannot start the sandbox fork server: {exc}") from exc
        finally:
            os.close(trigger_r)
            theirs.close()
        self._trigger, self._order = trigger_w, ours

    def spawn(self, config: Mapping[str, Any], env: dict[str, str], cwd: Path, fds: tuple[int, int, int, int]) -> None:
        """Fork a worker launcher that runs :func:`grader.sandbox.worker.main` with ``config``.

        Args:
            config: The worker's configuration (its file descriptors are filled in by the child).
            env: The worker's whole environment.
            cwd: The worker's working directory.
            fds: Request pipe (read end), response pipe (write end), output
                file, status pipe (write end); the caller keeps and closes its copies.

        Raises:
            ForkServerError: If the server cannot be (re)started or does not take the order.
        """
        data = json.dumps({"config": config, "env": env, "cwd": str(cwd)}).encode()
        with self._lock:
            for attempt in range(2):
                if self._proc is None or self._proc.poll() is not None:
                    self.close()
                    self._start()
                assert self._order is not None
                try:
                    socket.send_fds(self._order, [data], list(fds))
                    os.write(self._trigger, b"x")
                    return
                except OSError as exc:
                    self.close()
                    if attempt:
                        raise ForkServerError(f"the sandbox fork server did not take the order: {exc}") from exc

    def close(self) -> None:
        """Stop the server (running workers are not affected). Idempotent."""
        if self._trigger >= 0:
            os.close(self._trigger)
            self._trigger = -1
        if self._order is not None:
            self._order.close()
            self._order = None
        proc, self._proc = self._proc, None
        if proc is not None:
            try:
                proc.wait(timeout=2.0)  # it exits when the trigger pipe closes
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
