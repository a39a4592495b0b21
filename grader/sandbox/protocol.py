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
2. ``{"isolation": {layer: status}}`` (:class:`IsolationMessage`), before any student code runs;
3. ``{"hello": 1, "imports": {module: None | error}}`` (:class:`Hello`), after importing the submission.

Any of them may be ``{"setup_failed": {"layer": ..., "reason": ...}}`` (:class:`SetupFailedMessage`)
instead: the sandbox could not be set up, and no student code has run. Then, per probe::

    {"id": 7, "probe": "graph", "args": [...]}                    # Request, judge to worker
    {"id": 7, "ok": true, "value": <plain data>}                  # OkResponse
    {"id": 7, "ok": false, "error": {"type": ..., "message": ..., "where": ..., "during": ...}}  # ErrorResponse
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal, TypedDict


class WorkerConfig(TypedDict, total=False):
    """What the judge tells a worker (paths are absolute; limits in bytes and seconds)."""

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
    processes_in_use: int
    parent: int
    status_fd: int


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
    isolation: dict[str, str]


class Hello(TypedDict):
    hello: Literal[1]
    imports: dict[str, ErrorReport | None]


class LayerStatus(TypedDict):
    """One isolation layer, as the judge reads a worker's report: active or not, and why or how."""

    active: bool
    detail: str


def layer_status(text: str) -> LayerStatus:
    """Read a layer's reported status, the one place its text is interpreted.

    A worker reports ``"on"``, ``"on (detail)"``, ``"dropped"`` (capabilities)
    or ``"off: reason"``; the report's ``"sandbox"`` entry names the backend
    (``"linux (detail)"``) and reads as active.
    """
    if text.startswith("off"):
        return LayerStatus(active=False, detail=text.removeprefix("off").lstrip(": ").strip())
    head, _, rest = text.partition(" (")
    return LayerStatus(active=True, detail=rest.removesuffix(")") if rest else "")


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
