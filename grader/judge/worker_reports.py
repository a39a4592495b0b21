"""What a worker reports about an error, read as data the judge can use whatever was sent: an exception
description (:func:`error_record`), an import's result with the top-level line that called what failed
(:func:`import_result`), and the names the messages use (:func:`signal_name`, :func:`module_file`).

A hostile worker may send any shape: every text is capped and every line number bounded; a malformed report
becomes a plain "invalid error report", never an exception in the judge.
"""

from __future__ import annotations

import signal
from typing import Any

from grader.sandbox import protocol
from grader.sandbox.protocol import ErrorReport, Where


def signal_name(returncode: int) -> str:
    """The name of the signal behind a negative returncode (``SIGKILL``)."""
    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return f"signal {-returncode}"


def _bounded_text(value: Any, limit: int) -> str:
    return value[:limit] if isinstance(value, str) else ""


def error_record(value: Any) -> ErrorReport:
    """An exception description from the sandbox, as data the judge can use whatever was sent.

    Returns:
        ``{"type", "message", "where", "during"}`` with every text capped, and
        ``where`` either None or ``{"file", "line", "function", "source", "qualname"}``
        with a text file name and a line number from 0 to 10**7 (a hostile
        worker may send any shape; see :func:`grader.sandbox.plain.exception_info`).
    """
    if not isinstance(value, dict):
        return ErrorReport(type="ProtocolError", message="the sandbox sent an invalid error report", where=None,
                           during="")
    where, line = value.get("where"), None
    if isinstance(where, dict):
        line = where.get("line")
    located = (
        Where(file=_bounded_text(where.get("file"), 200), line=line, function=_bounded_text(where.get("function"), 100),
              source=_bounded_text(where.get("source"), 200), qualname=_bounded_text(where.get("qualname"), 200))
        if isinstance(where, dict) and type(line) is int and 0 <= line <= 10**7 else None
    )
    return ErrorReport(type=_bounded_text(value.get("type"), 100) or "Exception",
                       message=_bounded_text(value.get("message"), 500), where=located,
                       during=_bounded_text(value.get("during"), 300))


def module_file(module: str) -> str:
    """The file of a student module: ``micrograd.nn`` -> ``micrograd/nn.py``."""
    return module.replace(".", "/") + ".py"


def _top_level(value: Any) -> protocol.TopLevel | None:
    """The top-level line an import error names (:class:`~grader.sandbox.protocol.TopLevel`), bounded as
    :func:`error_record` bounds ``where``; None when absent or malformed."""
    if not isinstance(value, dict):
        return None
    line, file = value.get("line"), _bounded_text(value.get("file"), 200)
    if type(line) is not int or not 0 <= line <= 10**7 or not file:
        return None
    return protocol.TopLevel(file=file, line=line, source=_bounded_text(value.get("source"), 200))


def import_result(value: Any) -> protocol.ImportErrorReport | None:
    """One module's import result from the hello, as data the judge can use: None (imported) or an error dict (with
    the top-level line that called what failed, when the worker named a well-formed one)."""
    if value is None:
        return None
    error = error_record(value)
    report = protocol.ImportErrorReport(type=error["type"], message=error["message"], where=error["where"],
                                        during=error["during"])
    top = _top_level(value.get("top_level")) if isinstance(value, dict) else None
    if top is not None:
        report["top_level"] = top
    return report
