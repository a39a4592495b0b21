"""The sandbox worker: imports one submission and runs probes on request.

Started by the judge (see ``grader.worker_process``) as::

    python -I -S -B -c BOOT RUNTIME CODE_DIR REQUEST_FD RESPONSE_FD LIMITS_JSON MODULE...

It applies its resource limits before any student code runs, imports the
student's modules (``micrograd.engine`` then ``micrograd.nn``, each also
reachable under its short name so ``from engine import Value`` in ``nn.py``
gets the same class), sends a hello message with the import results, then
answers requests until the judge closes the request pipe. Student output
goes to the worker's stdout/stderr, which the judge points at a capture
file; the protocol uses its own pipe, so nothing printed can be mistaken for
a response (and a forged response would still be judged like any other
data).
"""

from __future__ import annotations

import importlib
import json
import os
import random
import sys
from typing import Any

from . import protocol
from .graph import Context
from .plain import exception_info, text
from .probes import PROBES


class ModuleUnavailable(Exception):
    """Raised when a probe needs a student module that failed to import."""


class Micrograd:
    """The submission under test, as seen by probes: ``engine`` and ``nn`` modules."""

    def __init__(self, modules: dict[str, Any], errors: dict[str, Any]) -> None:
        self._modules = modules
        self._errors = errors

    def _get(self, name: str) -> Any:
        if name in self._modules:
            return self._modules[name]
        error = self._errors.get(name)
        if error is None:
            raise ModuleUnavailable(f"{name} is not part of this assignment's submission")
        raise ModuleUnavailable(f"{name} could not be imported: {error['type']}: {error['message']}")

    @property
    def engine(self) -> Any:
        return self._get("micrograd.engine")

    @property
    def nn(self) -> Any:
        return self._get("micrograd.nn")


def apply_limits(limits: dict[str, int]) -> None:
    """Apply POSIX resource limits to this process (and so to its children).

    Args:
        limits: ``{"memory_bytes", "cpu_seconds", "file_bytes", "processes"}``;
            a missing or zero entry leaves that limit unchanged.
    """
    import resource

    table = {
        "memory_bytes": resource.RLIMIT_AS,
        "cpu_seconds": resource.RLIMIT_CPU,
        "file_bytes": resource.RLIMIT_FSIZE,
        "processes": resource.RLIMIT_NPROC,
    }
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    for key, which in table.items():
        value = int(limits.get(key) or 0)
        if value > 0:
            soft, hard = resource.getrlimit(which)
            if hard != resource.RLIM_INFINITY:
                value = min(value, hard)
            resource.setrlimit(which, (value, value if key != "cpu_seconds" else value + 1))


def import_submission(code_dir: str, names: list[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Import the student's modules; return (modules, errors) keyed by full name."""
    modules: dict[str, Any] = {}
    errors: dict[str, Any] = {}
    for name in names:
        try:
            module = importlib.import_module(name)
        except BaseException as exc:  # noqa: BLE001 - SyntaxError, SystemExit, anything
            errors[name] = exception_info(exc, code_dir)
            continue
        modules[name] = module
        short = name.rpartition(".")[2]
        sys.modules.setdefault(short, module)
    return modules, errors


def serve(rfile: Any, wfile: Any, mg: Micrograd, code_dir: str) -> None:
    """Answer requests from ``rfile`` on ``wfile`` until end of input."""
    while True:
        line = rfile.readline(protocol.MAX_MESSAGE_BYTES + 1)
        if not line:
            return
        request = protocol.decode(line)
        rid = request.get("id")
        probe = PROBES.get(request.get("probe"))
        ctx = Context()
        try:
            if probe is None:
                raise LookupError(f"unknown probe {text(request.get('probe'))}")
            value = probe(mg, ctx, *request.get("args", []))
            response = {"id": rid, "ok": True, "value": value}
            data = protocol.encode(response)
        except BaseException as exc:  # noqa: BLE001 - report everything, including SystemExit
            error = exception_info(exc, code_dir)
            error["during"] = text(ctx.during, 300)
            data = protocol.encode({"id": rid, "ok": False, "error": error})
        wfile.write(data)
        wfile.flush()


def main(argv: list[str]) -> None:
    """Entry point; see the module docstring for the arguments."""
    code_dir, request_fd, response_fd, limits_json, *names = argv
    code_dir = os.path.abspath(code_dir)
    rfile = os.fdopen(int(request_fd), "rb")
    wfile = os.fdopen(int(response_fd), "wb")
    apply_limits(json.loads(limits_json))
    random.seed(0)
    sys.dont_write_bytecode = True
    sys.path.insert(0, code_dir)
    modules, errors = import_submission(code_dir, names)
    wfile.write(protocol.encode({"hello": 1, "imports": {n: errors.get(n) for n in names}}))
    wfile.flush()
    serve(rfile, wfile, Micrograd(modules, errors), code_dir)
