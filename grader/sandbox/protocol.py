"""The wire format between the judge and a sandbox worker.

One message per line: a JSON object encoded as UTF-8, terminated by ``\\n``
(JSON text never contains a raw newline). Only data crosses; nothing is ever
unpickled or evaluated. Messages larger than :data:`MAX_MESSAGE_BYTES` are a
protocol error.

Requests (judge to worker)::

    {"id": 7, "probe": "graph", "args": [...]}

Responses (worker to judge)::

    {"id": 7, "ok": true, "value": <plain data>}
    {"id": 7, "ok": false, "error": {"type": ..., "message": ..., "where": ..., "during": ...}}

The first message a worker sends, before any request, is its hello::

    {"hello": 1, "imports": {"micrograd.engine": null | <error>, ...}}
"""

from __future__ import annotations

import json
from typing import Any

MAX_MESSAGE_BYTES = 8 * 1024 * 1024
"""Largest encoded message accepted by either side, in bytes."""


class ProtocolError(Exception):
    """A message that is not valid protocol data (bad JSON, wrong shape, too big)."""


def encode(message: dict[str, Any]) -> bytes:
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
