"""The sandbox worker: imports one submission and runs probes on request.

Forked by the fork server (:mod:`.forkserver`) on the judge's order, with the
configuration written by ``grader.worker_process``. It isolates itself (:mod:`.isolation`) before any student code runs, imports the
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
import os
import random
import sys
from typing import Any

from . import isolation, protocol
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


def _exit_like(status: int) -> None:
    """Exit the way a child with wait status ``status`` ended (as the init of a PID namespace: 128 + signal)."""
    code = os.waitstatus_to_exitcode(status)
    os._exit(128 - code if code < 0 else code)


def _returncode(status: int, from_init: bool) -> int:
    """A child's wait status as a returncode: minus the signal that killed it, else its exit code.

    From the init of a PID namespace (``from_init``), an exit code above 128
    means the worker below it got signal ``code - 128``.
    """
    code = os.waitstatus_to_exitcode(status)
    return 128 - code if from_init and code > 128 else code


def _wait_for(pid: int) -> int:
    """Reap children until ``pid`` ends; return its wait status."""
    while True:
        try:
            done, status = os.waitpid(-1, 0)
        except ChildProcessError:
            return 0
        if done == pid:
            return status


def _kill_orphans() -> None:
    """As a subreaper: kill every remaining child (orphans re-parented to us) until none is left."""
    import signal

    me = str(os.getpid())
    for _ in range(1000):
        children = []
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    with open(f"/proc/{entry}/stat") as f:
                        fields = f.read().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                if fields[1] == me:
                    children.append(int(entry))
        if not children:
            return
        for child in children:
            try:
                os.kill(child, signal.SIGKILL)
            except OSError:
                pass
        for child in children:
            try:
                os.waitpid(child, 0)
            except OSError:
                pass


def main(cfg: dict[str, Any]) -> None:
    """Entry point, in a process forked by the fork server: ``cfg`` is the judge's configuration.

    Process tree (see :mod:`.isolation`): the *launcher* (started by the
    judge) enters new namespaces and forks; in a PID namespace its child is
    the namespace's init, which makes the mounts and forks the *worker*; the
    worker drops privileges, applies Landlock and the limits, reports the
    active isolation layers, and only then imports student code. Without
    namespaces the launcher forks the worker directly and, as a subreaper,
    kills whatever the worker left behind. When its child has ended (and,
    without a PID namespace, the orphans are dead) the launcher writes the
    child's returncode to the status pipe, which only it holds.
    """
    code_dir = os.path.abspath(cfg["code_dir"])
    rfd, wfd, status_fd = int(cfg["request_fd"]), int(cfg["response_fd"]), int(cfg["status_fd"])
    isolation.die_with_parent(int(cfg["parent"]))
    host_root = os.geteuid() == 0
    report: dict[str, str] = {}
    user_ns = False
    if cfg.get("isolate", True):
        ns_report, user_ns = isolation.enter_namespaces(bool(cfg.get("network")))
        report.update(ns_report)
    else:
        report["namespaces"] = "off: disabled by the grader"
    in_pid_ns = report.get("pid namespace") == "on"
    if not in_pid_ns:
        isolation.prctl(isolation.PR_SET_CHILD_SUBREAPER, 1)
        report["process reaper"] = "on (orphans are killed when the worker ends)"
    worker_uid = 10_000_000 + os.getpid() if host_root else None
    sync_r, sync_w = os.pipe()
    launcher = os.getpid()
    child = os.fork()
    if child:  # the launcher
        os.close(sync_r)
        os.write(wfd, protocol.encode({"launcher": {"pid": child, "self": launcher, "pid_namespace": in_pid_ns}}))
        os.write(sync_w, b"x")
        for fd in (sync_w, rfd, wfd):
            os.close(fd)
        status = _wait_for(child)
        if not in_pid_ns:
            _kill_orphans()
        os.write(status_fd, str(_returncode(status, in_pid_ns)).encode())
        os._exit(0)
    os.close(sync_w)
    os.close(status_fd)
    os.read(sync_r, 1)
    os.close(sync_r)
    isolation.prctl(isolation.PR_SET_PDEATHSIG, 9)
    if in_pid_ns:
        _namespace_init(cfg, report, code_dir, worker_uid, rfd, wfd)
    elif os.getppid() != launcher:
        os._exit(1)
    _worker(cfg, report, code_dir, worker_uid, user_ns, rfd, wfd)


def _namespace_init(cfg: dict[str, Any], report: dict[str, str], code_dir: str, worker_uid: int | None,
                    rfd: int, wfd: int) -> None:
    """As PID 1 of the new namespace: mount, fork the worker, and wait (returns in the worker)."""
    try:
        keep = {cfg["runtime"]: False, code_dir: False, cfg["scratch"]: True}
        keep.update({p: False for p in isolation.python_paths()})
        isolation.hide_paths(list(cfg.get("hide", [])), keep)
        isolation.mount_proc()
        report["mount namespace"] = "on (private /tmp; course, submissions and output hidden)"
    except OSError as exc:
        report["mount namespace"] = f"off: {exc.strerror or exc}"
    if worker_uid is not None:
        os.chown(cfg["scratch"], worker_uid, worker_uid)
    child = os.fork()
    if child:
        isolation.prctl(isolation.PR_SET_DUMPABLE, 0)
        for fd in (rfd, wfd):
            os.close(fd)
        _exit_like(_wait_for(child))


def _worker(cfg: dict[str, Any], report: dict[str, str], code_dir: str, worker_uid: int | None, user_ns: bool,
            rfd: int, wfd: int) -> None:
    """Drop privileges, restrict, report, then import the submission and serve probes."""
    network = bool(cfg.get("network"))
    if worker_uid is not None and not all(isolation.readable_by_others(p) for p in isolation.python_paths()):
        report["separate user"] = "off: the Python installation is not readable by other users"
        worker_uid = None
    elif worker_uid is not None:
        if report.get("pid namespace") != "on":
            os.chown(cfg["scratch"], worker_uid, worker_uid)
        isolation.drop_user(worker_uid)
        report["separate user"] = "on (a user id of its own, no access to the grader's files)"
    else:
        report["separate user"] = "off: the grader does not run as root"
    if user_ns:
        isolation.drop_capabilities()
        report["capabilities"] = "dropped"
    isolation.prctl(isolation.PR_SET_PDEATHSIG, 9)  # (again) a change of user clears it
    try:
        read = isolation.system_read_paths() + [cfg["runtime"], code_dir]
        report["landlock"] = isolation.landlock(read, [cfg["scratch"], "/dev"], network)
    except OSError as exc:
        report["landlock"] = f"off: {exc.strerror or exc}"
    report["resource limits"] = isolation.apply_limits(cfg["limits"], own_user=worker_uid is not None)
    rfile = os.fdopen(rfd, "rb")
    wfile = os.fdopen(wfd, "wb")
    wfile.write(protocol.encode({"isolation": isolation.status(report)}))
    wfile.flush()
    random.seed(0)
    sys.dont_write_bytecode = True
    sys.path.insert(0, code_dir)
    names = list(cfg["modules"])
    modules, errors = import_submission(code_dir, names)
    wfile.write(protocol.encode({"hello": 1, "imports": {n: errors.get(n) for n in names}}))
    wfile.flush()
    serve(rfile, wfile, Micrograd(modules, errors), code_dir)
