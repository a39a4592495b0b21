"""Choosing the sandbox backend by feature detection, and the judge's handle on it.

Two backends run sandbox workers (see :mod:`grader.judge.worker_handle`):

* ``linux``: workers forked from a pre-imported fork server, with
  namespaces, a separate user, Landlock and resource limits where the host
  allows each; it needs ``fork``, ``pidfd_open``/``pidfd_send_signal``,
  descriptor passing over a ``SOCK_SEQPACKET`` socket pair and ``select`` on
  pipes;
* ``portable``: a fresh interpreter per worker, deadlines, crash handling,
  process-tree kill and the limits the OS has; it runs on macOS, Windows
  and any Linux.

``--sandbox auto`` (the default) takes ``linux`` when the host has every
feature it needs, whatever the platform is called, and ``portable``
otherwise; ``linux`` and ``portable`` force one.

In the judge, :class:`Sandbox` starts workers. Which layers the host allows
is settled once, before any student code runs (:meth:`Sandbox.settle`): a
worker is started on empty copies of the student's files, and while it
reports that setting up a layer failed, that layer is turned off (with the
reason in every later isolation report) and it is started again. Then the
layers are fixed for the judge's session: nothing a worker says afterwards
turns one off, since a student's code could have written it. Only when the
sandbox cannot start even with every optional layer off, or a later worker
fails before its student code runs, does
:class:`~grader.judge.worker_handle.SandboxSetupError` reach the test, which
withholds the score (a grader error, never the student's).
"""

from __future__ import annotations

import os
import select
import signal
import socket
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from grader.course.config import Limits
from grader.errors import GraderError
from grader.files import remove_tree
from grader.judge.forkserver_client import ForkServer
from grader.judge.linux_handle import SandboxWorker
from grader.judge.portable_handle import PortableWorker
from grader.judge.worker_handle import SandboxSetupError, Worker
from grader.sandbox.own_parts import RUNTIME_FOLDER as PARTS_FOLDER

CHOICES = ("auto", "linux", "portable")
"""Values of ``--sandbox``."""
OPTIONAL_LAYERS = ("namespaces", "landlock", "separate user")
"""Layers turned off one by one when the sandbox fails to start for no named reason."""
PORTABLE_WARNING = (
    "warning: grading on the portable sandbox (no namespaces, no Landlock): untrusted student code runs "
    "unconfined, with your user's rights, and can read your files and reach the network. Deadlines, crash "
    "handling and the process-tree kill still apply. Grade a class on a Linux host or in a Linux container "
    "(--sandbox linux)."
)


def linux_missing() -> list[str]:
    """What the Linux backend needs and this host lacks (empty when it can run)."""
    missing = []
    if not sys.platform.startswith("linux"):
        missing.append(f"Linux (this is {sys.platform})")
    for owner, name in ((os, "fork"), (os, "pidfd_open"), (signal, "pidfd_send_signal"), (socket, "send_fds")):
        if not hasattr(owner, name):
            missing.append(f"{owner.__name__}.{name}")
    try:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        ours.close()
        theirs.close()
    except (OSError, AttributeError, ValueError):
        missing.append("socketpair(AF_UNIX, SOCK_SEQPACKET)")
    try:
        r, w = os.pipe()
        try:
            select.select([r], [], [], 0)
        finally:
            os.close(r)
            os.close(w)
    except (OSError, ValueError):
        missing.append("select() on pipes")
    return missing


@dataclass(frozen=True)
class Choice:
    """The backend a run uses, and why.

    Attributes:
        kind: ``"linux"`` or ``"portable"``.
        reason: Why (``"forced with --sandbox portable"``, ``"this host lacks os.pidfd_open"``), or "".
    """

    kind: str
    reason: str = ""

    def describe(self) -> str:
        """One line for a terminal: ``Sandbox: portable (this host lacks ...)``."""
        return f"Sandbox: {self.kind}" + (f" ({self.reason})" if self.reason else "")


def choose(requested: str = "auto") -> Choice:
    """The backend for ``--sandbox requested`` on this host.

    Raises:
        GraderError: If ``requested`` is unknown, or ``linux`` is forced on a host that cannot run it.
    """
    if requested not in CHOICES:
        raise GraderError(f"--sandbox must be one of {', '.join(CHOICES)}, not {requested!r}")
    if requested == "portable":
        return Choice("portable", "forced with --sandbox portable")
    missing = linux_missing()
    if not missing:
        return Choice("linux")
    if requested == "linux":
        raise GraderError(f"--sandbox linux cannot run here: this host lacks {', '.join(missing)} "
                          "(use --sandbox auto to fall back to the portable sandbox)")
    return Choice("portable", f"this host lacks {', '.join(missing)}")


@dataclass(frozen=True)
class WorkerSpec:
    """What one worker runs: a staged submission for one assignment (see :class:`grader.judge.worker_handle.Worker`).

    Attributes:
        code_dir: The staged submission (holds ``micrograd/``).
        scratch: The worker's writable folder.
        modules: Student modules to import, in order.
        limits: Resource limits.
        hide: Folders the worker must not see.
        network: Keep the network.
        parts: The grader's own parts the worker loads before the student's code (those the runtime holds).
    """

    code_dir: Path
    scratch: Path
    modules: tuple[str, ...]
    limits: Limits
    hide: tuple[str, ...] = ()
    network: bool = False
    parts: tuple[str, ...] = ()


class Sandbox:
    """A judge's sandbox: the chosen backend, its fork server, and the layers this host refused.

    Args:
        kind: ``"linux"`` or ``"portable"`` (see :func:`choose`).
        runtime: The folder prepared by :func:`grader.judge.linux_handle.prepare_runtime`.
    """

    def __init__(self, kind: str, runtime: Path) -> None:
        if kind not in ("linux", "portable"):
            raise GraderError(f"unknown sandbox backend {kind!r}")
        self.kind = kind
        self.runtime = runtime
        self.forkserver = ForkServer(runtime) if kind == "linux" else None
        self.off: dict[str, str] = {}
        """Layers turned off for the rest of the session, to the reason: decided by :meth:`settle` alone."""
        self.settled = kind == "portable"
        """Whether the layers are decided (the portable backend has none to decide)."""
        self.broken = ""
        """Why the sandbox cannot start on this host even with every optional layer off ("" while it can)."""
        self.parts = frozenset(p.stem for p in (runtime / PARTS_FOLDER).glob("*.py"))
        """The grader's parts the runtime holds (none in a release): a worker is asked to load only these."""

    def worker(self, spec: WorkerSpec) -> Worker:
        """A new (not yet started) worker of this backend, with the layers learned so far turned off."""
        args: tuple[Any, ...] = (self.runtime, spec.code_dir, spec.scratch, list(spec.modules), spec.limits)
        kwargs: dict[str, Any] = {"hide": list(spec.hide), "network": spec.network, "off": self.off,
                                  "parts": [p for p in spec.parts if p in self.parts]}
        if self.kind == "portable":
            return PortableWorker(*args, **kwargs)
        return SandboxWorker(*args, **kwargs, forkserver=self.forkserver)

    def start(self, spec: WorkerSpec, attempt: Callable[[Worker], None] | None = None) -> Worker:
        """Start a worker for ``spec`` with the layers :meth:`settle` decided (settling them first, once).

        Args:
            spec: What the worker runs.
            attempt: Called with each new worker before it starts (the caller
                keeps the last one, to read its output and isolation report).

        Returns:
            The started worker (its ``imports`` and ``isolation`` filled in).

        Raises:
            SandboxSetupError: The sandbox cannot start on this host, or this worker failed before any student code
                ran, twice (the grader's fault: the score is withheld; no layer is turned off for it).
            WorkerFault: Importing the student's code crashed, hung or broke the protocol (a set-up message written
                by student code included).
        """
        self.settle(spec)
        for tries in (1, 2):  # once more: a fork that failed on a busy machine is no reason to withhold a score
            worker = self.worker(spec)
            if attempt is not None:
                attempt(worker)
            try:
                worker.start()
                return worker
            except SandboxSetupError:
                worker.close()  # no student code ran: nothing of it is kept
                if tries == 2:
                    raise
        raise AssertionError("unreachable")

    def settle(self, spec: WorkerSpec) -> None:
        """Decide which layers this host allows, before any student code runs in this judge: start a worker of
        ``spec``'s settings on empty files of the names ``spec`` imports (staged as a submission is, so a layer that
        would hide them is found here), turning off the layer each failed start names (else the next optional one)
        until one starts. Then the layers are fixed for the rest of the session. Does nothing once settled.

        Raises:
            SandboxSetupError: The sandbox cannot start even with every optional layer off (raised again for every
                later worker: each of their scores is withheld).
        """
        if self.broken:
            raise SandboxSetupError("", self.broken)
        if self.settled:
            return
        folder = self.runtime.parent / f"settle-{os.getpid()}-{id(self):x}"
        remove_tree(folder)
        try:
            folder.mkdir()  # with the process's umask, as the folders submissions are staged in (not mkdtemp's 0700)
            code = folder / "code"
            for module in spec.modules:  # as grader.intake.submission.stage writes a submission, every file empty
                file = code.joinpath(*module.split(".")).with_suffix(".py")
                file.parent.mkdir(parents=True, exist_ok=True)
                (file.parent / "__init__.py").write_text("", encoding="utf-8")
                file.write_text("", encoding="utf-8")
            empty = replace(spec, code_dir=code, scratch=folder / "scratch")
            while True:
                worker = self.worker(empty)
                try:
                    worker.start()
                    break
                except SandboxSetupError as exc:
                    if not self.turn_off(exc):
                        self.broken = exc.reason
                        raise
                finally:
                    worker.close()
        finally:
            self.settled = True
            remove_tree(folder)

    def turn_off(self, failure: SandboxSetupError) -> bool:
        """Learn from a worker that failed to start while :meth:`settle` runs (no student code anywhere): turn off
        the layer to blame.

        The layer the worker named, else the next optional layer still on
        (namespaces, then Landlock, then the separate user).

        Returns:
            True if a layer was turned off (starting again may work), False
            if nothing is left to turn off.
        """
        if self.kind == "portable" or self.settled:
            return False
        named = failure.layer in OPTIONAL_LAYERS and failure.layer not in self.off
        layer = failure.layer if named else next((name for name in OPTIONAL_LAYERS if name not in self.off), "")
        if not layer:
            return False
        self.off[layer] = (f"refused by this host: {failure.reason}" if named
                           else f"turned off after the sandbox failed to start: {failure.reason}")
        return True

    def close(self) -> None:
        """Stop the fork server (running workers are not affected). Idempotent."""
        if self.forkserver is not None:
            self.forkserver.close()
