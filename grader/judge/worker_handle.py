"""The judge's handle on one sandbox worker, whatever the backend: errors, start-up handshake, requests.

Two backends implement :class:`Worker`: the Linux fast path
(:class:`grader.judge.linux_handle.SandboxWorker`, forked from a fork server,
namespaces, Landlock) and the portable one
(:class:`grader.judge.portable_handle.PortableWorker`, a fresh interpreter per
worker, for macOS, Windows and restricted hosts). Both speak the protocol
of :mod:`grader.sandbox.protocol`; a backend supplies only how to launch,
read with a deadline, write with a deadline, and kill.

Two kinds of failure are kept apart, because only one is the student's:

* :class:`WorkerFault` (timed out, crashed, invalid answer) once student
  code may have run: the message is student-facing and costs the tests that
  needed the worker;
* :class:`SandboxSetupError` before any student code ran (the launcher or
  an isolation step failed, the worker cannot see its staged code): the
  grader's own machinery failed; the score is withheld, never charged.
  Which layers a host allows is learnt from such failures only while the
  judge settles its sandbox, with no student code at all
  (:meth:`grader.judge.backends.Sandbox.settle`).

Start-up messages, in order (see :mod:`grader.sandbox.worker`): the
launcher's (Linux only), ``{"isolation": {...}}`` before any student code
runs, ``{"importing": module}`` before each student module is imported (so a
start-up that runs out of time names the file), then
``{"hello": 1, "imports": {...}}``. Until the first ``importing`` (or the
hello, with no module to import) no student code has run, and any of them
may instead be ``{"setup_failed": {"layer", "reason"}}``. From the first
``importing`` on, the student's code shares the worker's process and can
write on its channel: every message is then an answer to be checked, never
an instruction, and a set-up message is a protocol fault of that
submission (:class:`WorkerProtocolError`), which changes nothing of the
sandbox for anyone.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Any, NoReturn

from grader.course.config import Limits
from grader.judge.call_clock import HELD_MULTIPLE, CallClock, Patience, Usage, WorkerHeldUp
from grader.judge.capture import excerpt, open_capture
from grader.judge.forkserver_client import ENV as POSIX_ENV
from grader.judge.worker_reports import import_result, module_file, signal_name
from grader.sandbox import protocol
from grader.sandbox.protocol import LayerStatus, ProtocolError, WorkerConfig, layer_statuses
from grader.testing.judged import MAX_ASKS, Judged, reply

FAULTS_ENV = "GRADER_SANDBOX_FAULTS"
"""Comma-separated isolation steps to fail on purpose (tests emulating refusing hosts; see grader.sandbox.isolation)."""
SETUP_SECONDS = 30.0
"""The least wall-clock time the sandbox's own start (before any student code) is given, whatever the assignment's
``startup_seconds``: the grader's machinery, slow on a busy machine (a failure there is withheld, never charged)."""
MAX_REASON = 300
"""Longest setup-failure reason kept from a worker, in characters."""
SETUP_KINDS = ("setup_failed", "isolation", "launcher")
"""The messages a worker sends only before any student code runs (:mod:`grader.sandbox.protocol`)."""


class WorkerFault(Exception):
    """The worker did not answer properly; the message is student-facing."""


class WorkerTimeout(WorkerFault):
    """The worker did not answer before the deadline."""


class WorkerCrashed(WorkerFault):
    """The worker process died."""


class WorkerProtocolError(WorkerFault):
    """The worker sent something that is not a valid response."""


class SandboxSetupError(Exception):
    """The sandbox could not be set up before any student code ran: the grader's fault, never the student's.

    Args:
        layer: The isolation layer to turn off before trying again
            (``"namespaces"``...), or "" when no layer is to blame.
        reason: What failed, for the instructor and the isolation report.
    """

    def __init__(self, layer: str, reason: str) -> None:
        super().__init__(reason)
        self.layer = layer
        self.reason = reason


def worker_environment(scratch: Path) -> dict[str, str]:
    """A worker's whole environment (both backends): no inherited variables, its scratch folder as home and temp."""
    if os.name == "nt":
        return {
            "SYSTEMROOT": os.environ.get("SYSTEMROOT", r"C:\Windows"),
            "PYTHONHASHSEED": "0", "PYTHONIOENCODING": "utf-8", "PYTHONUTF8": "1", "PYTHONDONTWRITEBYTECODE": "1",
            "TEMP": str(scratch), "TMP": str(scratch), "USERPROFILE": str(scratch), "HOME": str(scratch),
        }
    return {**POSIX_ENV, "HOME": str(scratch), "TMPDIR": str(scratch)}


def injected_faults() -> list[str]:
    """The steps named by ``GRADER_SANDBOX_FAULTS`` (empty in normal use)."""
    return [f.strip() for f in os.environ.get(FAULTS_ENV, "").split(",") if f.strip()]


class Worker:
    """One running sandbox worker for one submission and assignment (backend-independent part).

    Args:
        runtime: Directory prepared by :func:`grader.judge.linux_handle.prepare_runtime`.
        code_dir: Staged submission (holds ``micrograd/``).
        scratch: Empty writable directory: the worker's cwd, HOME and TMPDIR.
        modules: Student modules to import, in order (``micrograd.engine``...).
        limits: Resource limits.
        hide: Folders the worker must not see (where the backend can hide them).
        network: Leave the network reachable (``allow_network`` in assignment.yaml).
        off: Isolation layers to leave off, to the reason (learned from earlier setup failures).
        parts: The grader's own parts to load before the student's code (:mod:`grader.sandbox.own_parts`).

    Attributes:
        isolation: The layers the worker reported, before it ran any student
            code: layer name to ``"on ..."`` or ``"off: reason"``.
        imports: Module name to None or an error description, from the hello.
        importing: The student module the worker said it was importing last (one of ``modules``), "" before it
            said so: where a start-up that ran out of time or crashed was.
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
        off: dict[str, str] | None = None,
        parts: list[str] | None = None,
    ) -> None:
        self.runtime = runtime.resolve()
        self.code_dir = code_dir.resolve()
        self.scratch = scratch.resolve()
        self.modules = modules
        self.limits = limits
        self.hide = list(hide or [])
        self.network = network
        self.off = dict(off or {})
        self.parts = list(parts or [])
        self.imports: dict[str, Any] = {}
        self.importing = ""
        self.isolation: dict[str, LayerStatus] = {}
        self._output = -1
        """The capture file of what the program prints: a descriptor only the judge opened (no path)."""
        self._next_id = 0
        self.clock: CallClock | None = None
        """The student's seconds of the request (or import) under way; None: a read's deadline is final."""
        self.charged = 0.0
        """The student's seconds of the last request, once it has ended (however it ended)."""

    # --- what a backend provides ---------------------------------------------------

    @property
    def alive(self) -> bool:
        raise NotImplementedError

    def _launch(self, config: WorkerConfig) -> None:
        """Start the worker process with ``config``; raise :class:`SandboxSetupError` if it cannot start."""
        raise NotImplementedError

    def _launched(self, deadline: float) -> None:
        """Read what the backend's launcher says before the isolation report (nothing by default)."""

    def _read(self, deadline: float, during: str) -> dict[str, Any]:
        """The next message, decoded; raises :class:`WorkerFault` (the worker is dead afterwards)."""
        raise NotImplementedError

    def _write(self, data: bytes, deadline: float, during: str) -> None:
        """Send ``data``; raises :class:`WorkerFault` (the worker is dead afterwards)."""
        raise NotImplementedError

    def _returncode(self, timeout: float) -> int | None:
        """The worker's returncode once it has ended (None if it has not within ``timeout`` seconds)."""
        raise NotImplementedError

    def usage(self) -> Usage | None:
        """What the worker's processes have used so far, or None where the backend cannot tell (then a request's time
        limit is wall-clock time alone: :mod:`grader.judge.call_clock`)."""
        return None

    def _later(self, now: float, during: str) -> float:
        """A read found no answer by its deadline (``now``): the next deadline, when :attr:`clock` says the code has
        not used its time yet (:meth:`CallClock.look`); else the timeout is raised (the worker is killed).

        Raises:
            WorkerTimeout: The code used its time.
            WorkerHeldUp: The machine held the code up past the judge's patience (the worker is killed).
        """
        if self.clock is None:
            self._timeout(during)
        try:
            later = self.clock.look(now)
        except WorkerHeldUp:
            self.kill()
            raise
        if later is None:
            self._timeout(during)
        return later

    def kill(self) -> None:
        """Kill the worker with everything it started, and release its pipes. Idempotent."""
        raise NotImplementedError

    # --- shared ----------------------------------------------------------------------

    def config(self) -> WorkerConfig:
        """The configuration the worker receives (plain data)."""
        return WorkerConfig(
            code_dir=str(self.code_dir), scratch=str(self.scratch), runtime=str(self.runtime),
            limits=self.limits.for_worker(), modules=list(self.modules), hide=list(self.hide), network=self.network,
            off=dict(self.off), faults=injected_faults(), parts=list(self.parts), processes_in_use=None,
        )

    def start(self) -> dict[str, Any]:
        """Start the worker and wait for its hello (within ``startup_seconds``).

        Returns:
            The import results: module name to None or an error description.

        Raises:
            SandboxSetupError: If the sandbox failed before any student code ran.
            WorkerFault: If importing the student's code crashed, hung or broke the protocol.
        """
        self.scratch.mkdir(parents=True, exist_ok=True)
        self._launch(self.config())
        deadline = time.monotonic() + max(self.limits.startup_seconds, SETUP_SECONDS)
        self.clock = None  # the sandbox's own start: its deadline is final (a failure is the grader's, withheld)
        try:
            self._launched(deadline)
            report = self._setup_message(self._read(deadline, "starting the sandbox")).get("isolation")
            try:
                self.isolation = layer_statuses(report)
            except ProtocolError as exc:
                raise WorkerProtocolError(f"no isolation report ({exc})") from None
        except WorkerFault as exc:
            self.kill()
            raise SandboxSetupError("", f"the sandbox did not start ({exc})") from None
        first = self._before_student_code(deadline)
        # from here on the student's code may run: importing it is charged as a call is (its CPU time)
        seconds = self.limits.startup_seconds
        self.clock = CallClock(seconds, Patience(blocked_cap=seconds, held_cap=HELD_MULTIPLE * seconds), self.usage,
                               time.monotonic())
        try:
            hello = self._imported(first, self.clock.first_look())
        finally:
            self.clock = None
        imports = hello.get("imports")
        if hello.get("hello") != 1 or not isinstance(imports, dict):
            self.kill()
            raise WorkerProtocolError("the sandbox did not start properly (unexpected first message)")
        self.imports = {str(k)[:100]: import_result(v) for k, v in list(imports.items())[:10]}
        return self.imports

    def _before_student_code(self, deadline: float) -> dict[str, Any]:
        """The first message after the isolation report: the worker's last before any student code may run (its
        first ``importing``, or its hello when there is no module to import), or its report that the sandbox could
        not be set up (it cannot see the staged code), which raises :class:`SandboxSetupError`."""
        try:
            return self._setup_message(self._read(deadline, "starting the sandbox"))
        except WorkerFault as exc:  # no student code has run yet: the grader's machinery failed
            self.kill()
            raise SandboxSetupError("", f"the sandbox did not start ({exc})") from None

    def _imported(self, first: dict[str, Any], deadline: float) -> dict[str, Any]:
        """Read the worker's messages while it imports the student's modules (each ``{"importing": module}``, noted
        in :attr:`importing`), from ``first`` on, until its hello, which is returned.

        Student code may be running from ``first`` on: a message that is neither is a protocol fault of the
        submission (:meth:`_student_message`), a set-up failure included.
        """
        message = first
        for _ in range(len(self.modules) + 1):
            if "importing" not in message:
                return message
            name = message["importing"]
            if name not in self.modules:
                self.kill()
                raise WorkerProtocolError("the sandbox named a module it was not asked to import")
            self.importing = name
            message = self._student_message(self._read(deadline, f"importing {module_file(self.importing)}"))
        if "importing" not in message:
            return message
        self.kill()
        raise WorkerProtocolError("the sandbox did not start properly (no hello after importing)")

    def _setup_message(self, message: dict[str, Any]) -> dict[str, Any]:
        """``message`` (read before any student code could run), unless it reports a setup failure: then kill and
        raise :class:`SandboxSetupError`."""
        failed = message.get("setup_failed")
        if failed is None:
            return message
        self.kill()
        if not isinstance(failed, dict):
            raise SandboxSetupError("", "the sandbox reported a setup failure")
        raise SandboxSetupError(str(failed.get("layer") or "")[:40], str(failed.get("reason") or "")[:MAX_REASON])

    def _student_message(self, message: dict[str, Any]) -> dict[str, Any]:
        """``message`` (read once student code may have run), unless it claims to be one of the messages only the
        sandbox sends before any student code (a set-up failure, an isolation report, the launcher's): student code
        wrote it, so the worker is killed and the submission's start fails (:class:`WorkerProtocolError`); nothing
        of the sandbox changes, for this submission or any other."""
        forged = next((kind for kind in SETUP_KINDS if kind in message), None)
        if forged is None:
            return message
        self.kill()
        raise WorkerProtocolError(f"your code wrote a {forged!r} message on the grader's channel while it was "
                                  "imported; only the sandbox sends one, before any of your code runs, so it was "
                                  "not obeyed (code that writes to the grader's channel earns nothing)")

    def request(self, probe: str, args: list[Any], timeout: float, during: str, judged: Judged | None = None,
                patience: Patience | None = None) -> dict[str, Any]:
        """Send one probe request and return the worker's response, answering the questions the probe asks on the
        way (``judged``: the probe's judge side, :mod:`grader.testing.judged`).

        Args:
            probe: Probe name (see ``grader.sandbox.probes``).
            args: Plain-data arguments.
            timeout: The student's seconds the call may use: CPU seconds of the worker where the backend can read
                them (:meth:`usage`) and ``patience`` is given, else wall-clock seconds; the judge's time answering
                the probe's questions is never counted (:mod:`grader.judge.call_clock`).
            during: Student-facing description of the call, for error messages.
            judged: Answers the probe's questions (None: the probe may ask none).
            patience: How long a call that has not used ``timeout`` is waited for while it is asleep or held up by
                the machine. None: ``timeout``, in wall-clock seconds, is final.

        After the call, however it ended, :attr:`charged` holds the student's seconds it used.

        Returns:
            The response: ``{"ok": True, "value": ...}`` or ``{"ok": False, "error": {...}}``.

        Raises:
            WorkerFault: On a timeout, a crash or a protocol violation (a question where none may be asked, or more
                than :data:`~grader.testing.judged.MAX_ASKS`); the worker is dead afterwards.
            WorkerHeldUp: The machine held the call up past ``patience``: not the student's fault; the worker is dead
                afterwards.
            Exception: Whatever the judge's side raised other than
                :class:`~grader.testing.judged.AskRefused` (a bug of the grader's); the worker is dead afterwards.
        """
        if not self.alive:
            raise WorkerCrashed("the sandbox worker is not running")
        self._next_id += 1
        rid = self._next_id
        clock = self.clock = CallClock(timeout, patience, self.usage, time.monotonic())
        self.charged = 0.0
        try:
            return self._answer(rid, probe, args, during, judged, clock)
        finally:
            self.charged = clock.charged(time.monotonic())
            self.clock = None

    def _answer(self, rid: int, probe: str, args: list[Any], during: str, judged: Judged | None,
                clock: CallClock) -> dict[str, Any]:
        """Send request ``rid`` and read until its answer, answering the questions it asks (see :meth:`request`)."""
        self._write(protocol.encode({"id": rid, "probe": probe, "args": args}), clock.write_deadline(), during)
        asked = 0
        while True:
            response = self._read(clock.first_look(), during)
            if "ask" not in response:
                break
            asked += 1
            if judged is None or asked > MAX_ASKS or set(response) != {"ask", "payload"} \
                    or not isinstance(response["ask"], str):
                self.kill()
                raise WorkerProtocolError(f"the sandbox asked the grader a question it does not answer while {during}")
            answering = time.monotonic()
            try:
                answer = reply(judged, response["ask"], response["payload"])
            except BaseException:  # the judge's side failed: the grader's bug (the score is withheld)
                self.kill()
                raise
            clock.answered(time.monotonic() - answering)  # the judge's own time answering is not the student's
            self._write(answer, clock.write_deadline(), during)
        if response.get("id") != rid or not isinstance(response.get("ok"), bool):
            self.kill()
            raise WorkerProtocolError(f"the sandbox sent an invalid answer while {during}")
        return response

    def _decode(self, line: bytes, during: str) -> dict[str, Any]:
        try:
            return protocol.decode(line)
        except protocol.ProtocolError as exc:
            self.kill()
            raise WorkerProtocolError(f"the sandbox sent an invalid answer while {during} ({exc})") from None

    def _timeout(self, during: str) -> NoReturn:
        self.kill()
        raise WorkerTimeout(f"timed out while {during}")

    def _oversized(self, during: str) -> None:
        self.kill()
        raise WorkerProtocolError(f"the sandbox sent an oversized answer while {during}")

    def _crashed(self, during: str) -> None:
        code = self._returncode(1.0)
        self.kill()
        if code is None:
            how = "closed its connection"
        elif code < 0:
            how = f"was killed by {signal_name(code)}"
            if code == -getattr(signal, "SIGXCPU", 0):
                how += " (CPU time limit exceeded)"
            elif code == -getattr(signal, "SIGXFSZ", 0):
                how += " (file size limit exceeded)"
        else:
            how = f"exited with status {code}"
        raise WorkerCrashed(f"the program {how} while {during}")

    def _capture(self) -> int:
        """Open the capture file for a new worker process (:func:`grader.judge.capture.open_capture`: no path)."""
        self.close_output()
        self._output = open_capture()
        return self._output

    def output_excerpt(self, limit: int) -> str:
        """The last ``limit`` bytes the program printed, decoded leniently (call once the worker is dead)."""
        return excerpt(self._output, limit)

    def close_output(self) -> None:
        """Release the capture file (its text is gone). Idempotent."""
        if self._output >= 0:
            os.close(self._output)
            self._output = -1

    def close(self) -> None:
        """Kill the worker and release everything it held, the capture file included. Idempotent."""
        self.kill()
        self.close_output()
