"""The wire format between the judge and a sandbox worker, and the records that cross it.

One message per line: a JSON object encoded as UTF-8, terminated by ``\\n``
(JSON text never contains a raw newline). Only data crosses; nothing is ever
unpickled or evaluated. Messages larger than :data:`MAX_MESSAGE_BYTES` are a
protocol error. The records below type each message; the judge still parses
every field with bounds (:mod:`grader.judge.worker_handle`, :mod:`grader.judge.answers`),
because student code shares the worker's process and may send anything.

The judge first sends the worker its configuration (:class:`WorkerConfig`).
Before any request, the worker then sends, in order:

1. on the Linux backend, ``{"launcher": {...}}`` (:class:`LauncherMessage`): the pids the judge kills;
2. ``{"isolation": {layer: {"layer", "active", "reason"}}}`` (:class:`IsolationMessage`, :class:`LayerStatus`),
   before any student code runs;
3. ``{"importing": module}`` (:class:`Importing`) before importing each student module, in order;
4. ``{"hello": 1, "imports": {module: None | error}}`` (:class:`Hello`, :class:`ImportErrorReport`), after importing
   the submission.

Until the first ``importing`` (or the hello, with nothing to import), any of them may be
``{"setup_failed": {"layer": ..., "reason": ...}}`` (:class:`SetupFailedMessage`) instead: the sandbox could not
be set up, and no student code has run. From the first ``importing`` on, student code shares the worker's process
and may write anything on its channel, so the judge obeys no message: a ``setup_failed``, ``isolation`` or
``launcher`` message then is the submission's protocol fault (:mod:`grader.judge.worker_handle`), the hello and
every response are answers it checks with bounds, and the questions a probe asks (``{"ask": ..., "payload":
...}``) are answered by the judge's side from what it alone holds (:mod:`grader.testing.judged`). Then, per probe::

    {"id": 7, "probe": "graph", "args": [...]}                    # Request, judge to worker
    {"id": 7, "ok": true, "value": <plain data>}                  # OkResponse
    {"id": 7, "ok": false, "error": {"type": ..., "message": ..., "where": ..., "during": ...}}  # ErrorResponse
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal, TypedDict


class WorkerConfig(TypedDict):
    """What the judge tells a worker (paths are absolute; limits in bytes and seconds).

    Attributes:
        code_dir: The staged submission.
        scratch: The worker's writable folder.
        runtime: The runtime folder (the grader's parts and the course's probe modules).
        limits: Resource limit name to its value (:mod:`grader.sandbox.limits`).
        modules: The student modules to import, in order.
        hide: Folders the worker must not see.
        network: Whether the course allows network.
        off: Isolation layer the judge turned off (after an earlier failure) to the reason.
        faults: Steps to fail on purpose (tests emulating refusing hosts).
        parts: The grader's parts to load before student code.
        processes_in_use: Processes the grader's user already runs (portable backend; None: unknown).
    """

    code_dir: str
    scratch: str
    runtime: str
    limits: dict[str, int]
    modules: list[str]
    hide: list[str]
    network: bool
    off: dict[str, str]
    faults: list[str]
    parts: list[str]
    processes_in_use: int | None


class LaunchedConfig(WorkerConfig):
    """A :class:`WorkerConfig` as the fork server hands it to a Linux worker: with its pipes and its parent.

    Attributes:
        request_fd: The pipe the judge's requests arrive on.
        response_fd: The pipe the worker answers on.
        status_fd: The pipe the launcher reports the worker's exit status on (only it holds it).
        parent: The fork server's pid (the launcher dies with it).
    """

    request_fd: int
    response_fd: int
    status_fd: int
    parent: int


def worker_config(data: Any) -> WorkerConfig:
    """The judge's configuration as a worker receives it, every field checked.

    Raises:
        ProtocolError: If a field is missing or of the wrong type.
    """
    if not isinstance(data, dict):
        raise ProtocolError("the worker configuration is not an object")

    def field(name: str, kind: type | tuple[type, ...]) -> Any:
        value = data.get(name)
        if not isinstance(value, kind) or isinstance(value, bool) and kind is int:
            raise ProtocolError(f"the worker configuration's {name!r} is not a {kind}")
        return value

    def texts(name: str) -> list[str]:
        value = field(name, list)
        if not all(isinstance(v, str) for v in value):
            raise ProtocolError(f"the worker configuration's {name!r} holds a non-string")
        return list(value)

    def table(name: str, kind: type) -> dict[str, Any]:
        value = field(name, dict)
        if not all(isinstance(k, str) and isinstance(v, kind) and not isinstance(v, bool) for k, v in value.items()):
            raise ProtocolError(f"the worker configuration's {name!r} holds a value that is not a {kind.__name__}")
        return dict(value)

    in_use = data.get("processes_in_use")
    return WorkerConfig(
        code_dir=field("code_dir", str), scratch=field("scratch", str), runtime=field("runtime", str),
        limits=table("limits", int), modules=texts("modules"), hide=texts("hide"), network=field("network", bool),
        off=table("off", str), faults=texts("faults"), parts=texts("parts"),
        processes_in_use=in_use if isinstance(in_use, int) and not isinstance(in_use, bool) else None,
    )


class Where(TypedDict):
    """Where in the student's files an exception was raised."""

    file: str
    line: int
    function: str
    source: str
    qualname: str


class ErrorReport(TypedDict):
    """An exception raised by student code (or a probe's complaint about its objects)."""

    type: str
    message: str
    where: Where | None
    during: str


class TopLevel(TypedDict):
    """The line at the top level of a student's module that called what failed while the module was imported."""

    file: str
    line: int
    source: str


class ImportErrorReport(ErrorReport, total=False):
    """A student module's import error: an :class:`ErrorReport`, and, when code at the top level of a module called
    the function that raised (demo code left at the bottom of a file), that line."""

    top_level: TopLevel


class Request(TypedDict):
    id: int
    probe: str
    args: list[Any]


class OkResponse(TypedDict):
    id: int
    ok: Literal[True]
    value: Any


class ErrorResponse(TypedDict):
    id: int
    ok: Literal[False]
    error: ErrorReport


Response = OkResponse | ErrorResponse


class LauncherMessage(TypedDict):
    launcher: dict[str, Any]


class IsolationMessage(TypedDict):
    isolation: dict[str, LayerStatus]


class Importing(TypedDict):
    """The worker is about to import this student module (``micrograd.nn``): what a start-up timeout names."""

    importing: str


class Hello(TypedDict):
    hello: Literal[1]
    imports: dict[str, ImportErrorReport | None]


class LayerStatus(TypedDict):
    """One isolation layer's status, as the worker reports it and the judge records it.

    Attributes:
        layer: The layer (``"pid namespace"``, ``"landlock"``...; :data:`BACKEND` names the sandbox backend).
        active: Whether it holds.
        reason: How it holds (``"ABI 7: files, tcp, signals"``; may be "") or why it is off; for :data:`BACKEND`,
            the backend and how it runs (``"linux (forked from a pre-imported fork server)"``).
    """

    layer: str
    active: bool
    reason: str


BACKEND = "sandbox"
"""The report's entry naming the sandbox backend (always active)."""
MAX_REASON = 1000
"""Most characters of a layer's reason the judge keeps."""


def on(layer: str, how: str = "") -> LayerStatus:
    """``layer`` holds (``how``: in what form, or "")."""
    return LayerStatus(layer=layer, active=True, reason=how)


def off(layer: str, why: str) -> LayerStatus:
    """``layer`` does not hold, because ``why``."""
    return LayerStatus(layer=layer, active=False, reason=why)


def layer_text(status: LayerStatus) -> str:
    """The status as one line of the isolation report (``results.json``, the summary): ``"on"``,
    ``"on (how)"``, ``"off: why"``, or the backend's own line. :func:`read_layer` reads it back."""
    if status["layer"] == BACKEND:
        return status["reason"]
    if status["active"]:
        return f"on ({status['reason']})" if status["reason"] else "on"
    return f"off: {status['reason']}" if status["reason"] else "off"


def read_layer(layer: str, text: str) -> LayerStatus:
    """A line of an isolation report (as :func:`layer_text` writes it, in a stored results.json) as a status."""
    if layer == BACKEND:
        return on(layer, text)
    if text.startswith("off"):
        return off(layer, text.removeprefix("off").lstrip(": ").strip())
    _, _, rest = text.partition(" (")
    return on(layer, rest.removesuffix(")"))


def layer_statuses(report: Any) -> dict[str, LayerStatus]:
    """A worker's isolation report (``{layer: {"layer", "active", "reason"}}``) read with bounds: at most 64
    layers, each reason capped at :data:`MAX_REASON` characters.

    Raises:
        ProtocolError: If it is not such a report.
    """
    if not isinstance(report, dict) or len(report) > 64:
        raise ProtocolError("the isolation report is not an object of at most 64 layers")
    found: dict[str, LayerStatus] = {}
    for layer, status in report.items():
        if not (isinstance(status, dict) and status.get("layer") == layer and isinstance(status.get("active"), bool)
                and isinstance(status.get("reason"), str)):
            raise ProtocolError(f"the isolation report's entry for {str(layer)[:80]!r} is not a layer status")
        found[layer[:200]] = LayerStatus(layer=layer[:200], active=status["active"],
                                         reason=status["reason"][:MAX_REASON])
    return found


class SetupFailure(TypedDict):
    layer: str
    reason: str


class SetupFailedMessage(TypedDict):
    setup_failed: SetupFailure


MAX_MESSAGE_BYTES = 8 * 1024 * 1024
"""Largest encoded message accepted by either side, in bytes."""


class ProtocolError(Exception):
    """A message that is not valid protocol data (bad JSON, wrong shape, too big)."""


def encode(message: Mapping[str, Any]) -> bytes:
    """Encode one message as a JSON line.

    Raises:
        ProtocolError: If the message is not JSON-serialisable or too large.
    """
    try:
        data = json.dumps(message, separators=(",", ":"), allow_nan=True).encode("utf-8")
    except (TypeError, ValueError) as exc:
        raise ProtocolError(f"message is not plain data: {exc}") from None
    if len(data) >= MAX_MESSAGE_BYTES:
        raise ProtocolError(f"message of {len(data)} bytes exceeds {MAX_MESSAGE_BYTES}")
    return data + b"\n"


def decode(line: bytes) -> dict[str, Any]:
    """Decode one JSON line into a dict.

    Raises:
        ProtocolError: If the line is too large, not UTF-8 JSON, nested too
            deeply for the decoder, or not an object.
    """
    if len(line) > MAX_MESSAGE_BYTES:
        raise ProtocolError(f"message of {len(line)} bytes exceeds {MAX_MESSAGE_BYTES}")
    try:
        message = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:  # ValueError: also an integer of more than 4300 digits
        raise ProtocolError(f"not a JSON message: {exc}") from None
    except RecursionError:  # the decoder recurses once per nesting level
        raise ProtocolError("a message nested too deeply") from None
    if not isinstance(message, dict):
        raise ProtocolError("message is not a JSON object")
    return message
