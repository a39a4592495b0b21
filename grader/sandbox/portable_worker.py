"""The portable sandbox worker: a fresh interpreter per worker, for hosts without the Linux fast path.

Started by the judge (``grader.judge.portable_handle``) as an ordinary subprocess::

    python -s -S -B [-P] -c BOOT RUNTIME

with a minimal environment (fixed hash seed), its scratch folder as working
directory, the protocol on its standard input and output, and its standard
error pointed at the judge's capture file. Before anything else it moves the
protocol to private descriptors and points descriptors 0, 1 and 2 at the null
device and the capture file, so whatever student code prints can never be
mistaken for an answer. The first line the judge sends is the worker's
configuration (the same keys as the Linux worker's). It then applies the
limits the OS offers (:mod:`.limits`), reports its isolation (naming every
layer that is off) and serves probes exactly like the Linux worker
(:func:`.worker.serve_submission`): same protocol, same probes, verdicts in
the judge.

Runs on Linux, macOS and Windows: no ``fork``, no descriptor passing, no
``select`` on pipes.
"""

from __future__ import annotations

import os
import sys

from . import ipc, isolation, limits, own_parts, protocol
from .protocol import BACKEND, LayerStatus, off
from .worker import PARTS_LAYER, load_parts, serve_submission

BOOT = ("import sys; sys.path[:] = [p for p in sys.path if p]; sys.path.insert(0, sys.argv[1]); "
        "from _grader_sandbox.portable_worker import main; main()")
"""The ``-c`` program: the runtime copy first on ``sys.path``, the working folder ('') never on it."""

UNAVAILABLE = "not available in the portable sandbox"



def _private_protocol() -> tuple[object, object]:
    """Move the protocol off descriptors 0 and 1; point 0 at the null device and 1 at 2 (the capture file)."""
    rfile = os.fdopen(os.dup(0), "rb")
    wfile = os.fdopen(os.dup(1), "wb")
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    return rfile, wfile


def main() -> None:
    """Entry point (see the module docstring); returns when the judge closes the request pipe."""
    sys.stdout.flush()
    rfile, wfile = _private_protocol()
    try:
        cfg = protocol.worker_config(protocol.decode(rfile.readline(protocol.MAX_MESSAGE_BYTES + 1)))  # type: ignore[attr-defined]
    except protocol.ProtocolError as exc:
        wfile.write(protocol.encode({"setup_failed": {"layer": "", "reason": str(exc)}}))  # type: ignore[attr-defined]
        wfile.flush()  # type: ignore[attr-defined]
        return
    isolation.FAULTS = frozenset(cfg["faults"])
    isolation.inject("launcher")  # (tests: a sandbox that cannot start at all)
    report: dict[str, LayerStatus] = {
        BACKEND: protocol.on(BACKEND, "portable (a plain worker process: deadlines, crash handling, process-tree "
                             "kill, OS limits)"),
        **{layer: off(layer, UNAVAILABLE) for layer in ("pid namespace", "mount namespace", "network namespace",
                                                        "ipc namespace", "separate user", "landlock", "host sockets",
                                                        "scratch budget")},
    }
    try:
        load_parts(cfg)
    except own_parts.PartsError as exc:
        wfile.write(protocol.encode({"setup_failed": {"layer": "", "reason": str(exc)}}))  # type: ignore[attr-defined]
        wfile.flush()  # type: ignore[attr-defined]
        return
    if cfg["parts"]:
        report[PARTS_LAYER] = off(PARTS_LAYER, "the portable sandbox cannot close files to the worker, so it could "
                                  "read the grader's parts (grade a class on Linux)")
    report.update(ipc.layers(report, own_user=False))  # Linux: the IPC filter, as in the Linux sandbox
    report["resource limits"] = limits.apply_limits(cfg["limits"], own_user=False, in_use=cfg["processes_in_use"])
    serve_submission(rfile, wfile, cfg, os.path.abspath(cfg["code_dir"]), report)
