"""The fork server: a clean, pre-imported Python from which every sandbox worker is forked.

Started once per judge (see ``grader.judge.forkserver_client``) as::

    python -s -S -B [-P] -c BOOT RUNTIME TRIGGER_FD ORDER_FD JUDGE_PID

with address-space randomisation off, a fixed hash seed and a minimal
environment. It imports the sandbox's own modules and the course's probe
modules (standard library only: never student, reference or test code), then loops: wait for one byte on
the trigger pipe, fork. The child reads its *order* from the order socket
(the worker's configuration, environment and working directory, and four
file descriptors: request pipe, response pipe, output file, status pipe),
takes them as its own and becomes the worker's launcher
(:func:`.worker.main`). A worker thus starts in a few milliseconds instead
of paying interpreter start-up and imports (about 30 ms) three times per
submission.

Determinism: the loop allocates nothing that outlives an iteration (the
trigger byte and the fork's result are freed before the next fork), so
every child starts from the same heap; with fixed addresses a submission
runs the same way whichever worker number it gets.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sys

from . import isolation, protocol
from . import worker as worker_module

MAX_ORDER_BYTES = 1 << 20
ORDER_FDS = 4  # request (read end), response (write end), output file, status (write end)


def main(argv: list[str]) -> None:
    """Entry point: ``argv`` is ``TRIGGER_FD ORDER_FD JUDGE_PID``; returns only in a forked child."""
    trigger_fd, order_fd, judge = (int(a) for a in argv[:3])
    isolation.die_with_parent(judge)
    try:  # the course's probes, once for every worker (a worker that finds them missing reports it)
        worker_module.load_course(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    except Exception:  # noqa: BLE001, S110 - the worker retries and reports the error
        pass
    order = socket.socket(fileno=order_fd)
    me = os.getpid()
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # launchers are reaped by the kernel; they report to the judge
    while os.read(trigger_fd, 1):
        if os.fork() == 0:
            break
    else:
        os._exit(0)  # the judge closed the trigger pipe
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # the launcher waits for its own children
    os.close(trigger_fd)
    try:
        data, fds, _, _ = socket.recv_fds(order, MAX_ORDER_BYTES, ORDER_FDS)
    except OSError:
        os._exit(1)
    order.close()
    if len(fds) != ORDER_FDS or not data:
        os._exit(1)
    request_fd, response_fd, output_fd, status_fd = fds
    spec = json.loads(data)
    os.setsid()
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(output_fd, 1)
    os.dup2(output_fd, 2)
    os.close(devnull)
    os.close(output_fd)
    os.chdir(spec["cwd"])
    os.environ.clear()
    os.environ.update(spec["env"])
    try:
        config = protocol.worker_config(spec["config"])
    except protocol.ProtocolError:
        os._exit(1)  # the judge sees the worker end before its first message: a sandbox that did not start
    worker_module.main(protocol.LaunchedConfig(**config, request_fd=request_fd, response_fd=response_fd,
                                               status_fd=status_fd, parent=me))
    os._exit(0)


if __name__ == "__main__":  # pragma: no cover - started with -c by the judge
    main(sys.argv[1:])
