"""Turning student objects and exceptions into plain data.

Student objects may be anything: a float subclass whose ``__eq__`` lies, a
``Value`` where a number was expected, an object whose ``__repr__`` raises.
These helpers produce only exact ``float``/``str``/``list``/``dict`` values,
so that what the judge receives means what it says and encoding it cannot
run student code.
"""

from __future__ import annotations

import math
import os
import traceback
from typing import Any

MAX_TEXT = 500
"""Longest string (in characters) kept from a student-provided text."""

NONNUMERIC = "nonnumeric"
"""Key marking a value that should have been a number but was not."""


def text(obj: object, limit: int = MAX_TEXT) -> str:
    """Return ``str(obj)`` capped at ``limit`` characters; never raises."""
    try:
        s = obj if type(obj) is str else str(obj)
        s = str.__str__(s) if isinstance(s, str) else "<unprintable>"
    except BaseException:  # noqa: BLE001 - student __str__ may raise anything
        s = "<unprintable>"
    return s if len(s) <= limit else s[: limit - 3] + "..."


def short_repr(obj: object, limit: int = 120) -> str:
    """Return ``repr(obj)`` capped at ``limit`` characters; never raises."""
    try:
        r = repr(obj)
        r = str.__str__(r) if isinstance(r, str) else "<unprintable>"
    except BaseException:  # noqa: BLE001
        r = f"<{type(obj).__name__} object>"
    return r if len(r) <= limit else r[: limit - 3] + "..."


def number(x: object) -> Any:
    """Return ``x`` as an exact float, or a ``{"nonnumeric": ...}`` marker.

    ``int``, ``float`` and ``bool`` (and their subclasses, read through the
    base type so overridden methods are ignored) become floats. Anything
    else, a ``Value`` for example, becomes a marker naming its type so the
    judge can say "grad is a Value, not a number".
    """
    kind = type(x)  # type(), not isinstance(): a __class__ property cannot fake it
    if issubclass(kind, bool):
        return 1.0 if int.__index__(x) else 0.0  # type: ignore[arg-type]  # x is a bool: checked through type()
    if issubclass(kind, float):
        return float.__float__(x)  # type: ignore[arg-type]
    if issubclass(kind, int):
        try:
            return float(int.__index__(x))  # type: ignore[arg-type]
        except OverflowError:
            return math.inf if int.__gt__(x, 0) else -math.inf  # type: ignore[operator]
    return {NONNUMERIC: type(x).__name__, "repr": short_repr(x)}


def exception_info(exc: BaseException, code_dir: str | None) -> dict[str, Any]:
    """Describe an exception raised by student code as plain data.

    Args:
        exc: The exception.
        code_dir: The directory holding the student's files; the innermost
            traceback frame inside it is reported as ``where``.

    Returns:
        ``{"type", "message", "where"}`` where ``where`` is
        ``{"file", "line", "function", "source", "qualname"}`` or None
        (``qualname`` is empty before Python 3.11). The message of a
        ``SyntaxError`` located in the student's files is its bare ``msg``:
        ``str()`` would add "(engine.py, line 245)", which ``where`` says
        better (and the judge may translate, e.g. to a notebook's cell).
    """
    where = None
    try:
        frames = traceback.extract_tb(exc.__traceback__)
        if isinstance(exc, SyntaxError) and exc.filename:
            frames.append(
                traceback.FrameSummary(exc.filename, exc.lineno or 0, "<module>", line=exc.text or "")
            )
        codes = []
        tb = exc.__traceback__
        while tb is not None:
            codes.append(tb.tb_frame.f_code)
            tb = tb.tb_next
        for k, frame in enumerate(frames):
            if code_dir and frame.filename and os.path.abspath(frame.filename).startswith(code_dir + os.sep):
                code = codes[k] if k < len(codes) else None
                where = {
                    "file": os.path.relpath(frame.filename, code_dir),
                    "line": int(frame.lineno or 0),
                    "function": text(frame.name, 100),
                    "source": text((frame.line or "").strip(), 200),
                    # e.g. "Value.__add__.<locals>._backward": which operation's closure raised (Python 3.11+)
                    "qualname": text(getattr(code, "co_qualname", ""), 200),
                }
    except BaseException:  # noqa: BLE001 - a hostile traceback must not break reporting
        where = None
    message = exc.msg if isinstance(exc, SyntaxError) and isinstance(exc.msg, str) and where else exc
    return {"type": text(type(exc).__name__, 100), "message": text(message), "where": where}


def top_level_call(exc: BaseException, code_dir: str | None) -> dict[str, Any] | None:
    """Where code at the top level of a student's module called what raised ``exc`` while the module was imported.

    Demo code left at the bottom of a file (``print(Value(2.0) * 3)``) runs on import: when the method it calls
    raises, the innermost frame in the student's files (``where`` of :func:`exception_info`) is the method, and
    the line that made the import fail is the innermost frame running a module's top level (``<module>``).

    Args:
        exc: The exception the import raised.
        code_dir: The directory holding the student's files.

    Returns:
        ``{"file", "line", "source"}`` of that top-level line, or None when no frame in the student's files ran
        below it (the top-level line raised by itself, or the error is not in the student's files).
    """
    try:
        if not code_dir:
            return None
        inside = [frame for frame in traceback.extract_tb(exc.__traceback__)
                  if frame.filename and os.path.abspath(frame.filename).startswith(code_dir + os.sep)]
        tops = [k for k, frame in enumerate(inside) if frame.name == "<module>"]
        if not tops or tops[-1] == len(inside) - 1:
            return None
        frame = inside[tops[-1]]
        return {"file": os.path.relpath(frame.filename, code_dir), "line": int(frame.lineno or 0),
                "source": text((frame.line or "").strip(), 200)}
    except BaseException:  # noqa: BLE001 - a hostile traceback must not break reporting
        return None
