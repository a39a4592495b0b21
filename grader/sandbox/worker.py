"""The sandbox worker: imports one submission and runs probes on request.

Forked by the fork server (:mod:`.forkserver`) on the judge's order, with the
configuration written by ``grader.judge.linux_handle``. It isolates itself (:mod:`.isolation`) before any student code runs, imports the
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
from collections.abc import Callable
from typing import Any

from . import course_code, ipc, isolation, landlock, limits, own_parts, protocol
from .plain import exception_info, text, top_level_call
from .probekit import Context, ModuleUnavailable, ProbeError, answering
from .probes import PROBES
from .protocol import BACKEND, LaunchedConfig, LayerStatus, WorkerConfig, off, on


class StudentCode:
    """The submission under test, as seen by probes: one attribute per module of the student's package, by its
    short name (``mg.engine`` is ``micrograd.engine``, ``mg.forward`` is ``micrograd.forward``).

    Args:
        modules: The modules imported, by full name (``micrograd.engine``).
        errors: What each module that did not import raised, by full name.
        package: The student's package (``micrograd``): what a short name no module has is looked for in.
    """

    def __init__(self, modules: dict[str, Any], errors: dict[str, Any], package: str) -> None:
        self._modules = modules
        self._errors = errors
        self._package = package

    def _get(self, name: str) -> Any:
        if name in self._modules:
            return self._modules[name]
        error = self._errors.get(name)
        if error is None:
            raise ModuleUnavailable(f"{name} is not part of this assignment's submission")
        raise ModuleUnavailable(f"{name} could not be imported: {error['type']}: {error['message']}")

    def __getattr__(self, short: str) -> Any:
        if short.startswith("_"):
            raise AttributeError(short)
        return self._get(f"{self._package}.{short}")


def import_submission(code_dir: str, names: list[str], announce: Callable[[str], None] | None = None
                      ) -> tuple[dict[str, Any], dict[str, Any]]:
    """Import the student's modules; return (modules, errors) keyed by full name.

    ``announce(name)``, if given, is called before each import: the judge then knows which file was being imported
    when time ran out (its code at the top level runs on import: a training loop, ``input()``...). An error raised
    in a function that code at the top level called also says which top-level line called it (``top_level``:
    :func:`~.plain.top_level_call`).
    """
    modules: dict[str, Any] = {}
    errors: dict[str, Any] = {}
    for name in names:
        if announce is not None:
            announce(name)
        try:
            module = importlib.import_module(name)
        except BaseException as exc:  # noqa: BLE001 - SyntaxError, SystemExit, anything
            errors[name] = exception_info(exc, code_dir)
            called = top_level_call(exc, code_dir)
            if called is not None:  # demo code at the bottom of the file called a method that raised
                errors[name]["top_level"] = called
            continue
        modules[name] = module
        short = name.rpartition(".")[2]
        sys.modules.setdefault(short, module)
    return modules, errors


STREAMS = (sys.stdout, sys.stderr)
"""The worker's own output streams, kept before student code can replace ``sys.stdout``."""


def flush_output() -> None:
    """Push what the program printed into the capture file (a worker is killed, never exits, so nothing else would)."""
    for stream in STREAMS:
        try:
            if stream is not None:
                stream.flush()
        except BaseException:  # noqa: BLE001 - a closed or broken stream loses only its own output
            pass


def round_trip(rfile: Any, wfile: Any) -> Callable[[str, Any], Any]:
    """The channel a probe's :func:`.probekit.ask` uses in this worker: the question on ``wfile``, then the judge's
    answer from ``rfile`` (``{"answer": ...}``, or ``{"refused": why}``: a :class:`.probekit.ProbeError`)."""
    def channel(topic: str, payload: Any) -> Any:
        flush_output()
        wfile.write(protocol.encode({"ask": topic, "payload": payload}))
        wfile.flush()
        line = rfile.readline(protocol.MAX_MESSAGE_BYTES + 1)
        if not line:
            raise SystemExit(0)  # the judge has gone: nothing more to do
        reply = protocol.decode(line)
        if "refused" in reply:
            raise ProbeError(text(reply.get("refused"), 300))
        return reply.get("answer")

    return channel


def serve(rfile: Any, wfile: Any, mg: StudentCode, code_dir: str) -> None:
    """Answer requests from ``rfile`` on ``wfile`` until end of input; a probe may ask the judge questions on the
    same pipes while it runs (:func:`round_trip`)."""
    channel = round_trip(rfile, wfile)
    while True:
        line = rfile.readline(protocol.MAX_MESSAGE_BYTES + 1)
        if not line:
            return
        request = protocol.decode(line)
        rid = request.get("id")
        name = request.get("probe")
        probe = PROBES.get(name) if isinstance(name, str) else None
        ctx = Context()
        try:
            if probe is None:
                raise LookupError(f"unknown probe {text(request.get('probe'))}")
            with answering(channel):
                value = probe(mg, ctx, *request.get("args", []))
            response = {"id": rid, "ok": True, "value": value}
            data = protocol.encode(response)
        except BaseException as exc:  # noqa: BLE001 - report everything, including SystemExit
            error = exception_info(exc, code_dir)
            error["during"] = text(ctx.during, 300)
            data = protocol.encode({"id": rid, "ok": False, "error": error})
        flush_output()
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


def main(cfg: LaunchedConfig) -> None:  # one function on purpose: the order of its steps is the isolation argument
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

    ``cfg["off"]`` maps layers the judge turned off (after an earlier
    :class:`~.isolation.SetupFailed`) to the reason; ``cfg["faults"]`` lists
    steps to fail on purpose (tests). A step that cannot be undone sends
    ``{"setup_failed": {"layer", "reason"}}`` instead of the launcher
    message, before any student code exists in this process tree.
    """
    code_dir = os.path.abspath(cfg["code_dir"])
    rfd, wfd, status_fd = cfg["request_fd"], cfg["response_fd"], cfg["status_fd"]
    isolation.die_with_parent(cfg["parent"])
    isolation.FAULTS = frozenset(cfg["faults"])
    isolation.inject("launcher")  # (tests: a sandbox that cannot start at all)
    turned_off = cfg["off"]
    host_root = os.geteuid() == 0
    report: dict[str, LayerStatus] = {BACKEND: on(BACKEND, "linux (forked from a pre-imported fork server)")}
    try:
        load_parts(cfg)  # while this process is still the judge's user and sees the runtime folder
    except own_parts.PartsError as exc:
        _stop_before_student_code(wfd, isolation.SetupFailed("", str(exc)))
    try:
        ns_report, user_ns = isolation.enter_namespaces(cfg["network"], turned_off.get("namespaces", ""))
    except isolation.SetupFailed as exc:
        _stop_before_student_code(wfd, exc)
    report.update(ns_report)
    report["host sockets"] = off("host sockets", "without a mount namespace the host's UNIX sockets (under /run...) "
                                 "are reachable")
    report["scratch budget"] = off("scratch budget", "needs the mount namespace (each file is still limited)")
    in_pid_ns = _active(report, "pid namespace")
    if not in_pid_ns:
        isolation.prctl(isolation.PR_SET_CHILD_SUBREAPER, 1)
        report["process reaper"] = on("process reaper", "orphans are killed when the worker ends")
    worker_uid = None
    if not host_root:
        report["separate user"] = off("separate user", "the grader does not run as root")
    elif turned_off.get("separate user"):
        report["separate user"] = off("separate user", turned_off["separate user"])
    else:
        worker_uid = 10_000_000 + os.getpid()
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
        if worker_uid is not None and not _active(report, "ipc namespace"):
            ipc.remove_owned_by(worker_uid)  # the worker's tree has ended: its SysV objects go with it
        os.write(status_fd, str(_returncode(status, in_pid_ns)).encode())
        os._exit(0)
    os.close(sync_w)
    os.close(status_fd)
    os.read(sync_r, 1)
    os.close(sync_r)
    isolation.prctl(isolation.PR_SET_PDEATHSIG, 9)
    try:
        if in_pid_ns:
            worker_uid = _namespace_init(cfg, report, code_dir, worker_uid, rfd, wfd)
        elif os.getppid() != launcher:
            os._exit(1)
        _worker(cfg, report, code_dir, worker_uid, user_ns, rfd, wfd)
    except isolation.SetupFailed as exc:
        _stop_before_student_code(wfd, exc)


PARTS_LAYER = "grader's parts"
"""The isolation report's entry for the grader's own parts (present when the worker loaded some)."""


def load_course(runtime: str) -> None:
    """Import the course's probe modules from the runtime folder's copy (:mod:`.course_code`), unless the fork
    server this worker was forked from did so already.

    Raises:
        own_parts.PartsError: If one fails to load (the course's fault: the score is withheld).
    """
    folder = os.path.abspath(os.path.join(runtime, course_code.RUNTIME_FOLDER))
    if course_code.folder() == folder and PROBES:
        return
    course_code.use(folder)
    try:
        course_code.load_probes()
    except course_code.CourseCodeError as exc:
        raise own_parts.PartsError(str(exc)) from None


def load_parts(cfg: WorkerConfig) -> None:
    """Import the course's probe modules, then the grader's own parts that ``cfg["parts"]`` names, from the
    runtime folder (before any student code).

    Raises:
        own_parts.PartsError: If one is missing or fails to import (the grader's fault: the score is withheld).
    """
    load_course(cfg["runtime"])
    names = cfg["parts"]
    if names:
        own_parts.use(os.path.join(cfg["runtime"], own_parts.RUNTIME_FOLDER))
        for name in names:
            own_parts.load(name)


def parts_hidden(report: dict[str, LayerStatus], cfg: WorkerConfig, worker_uid: int | None) -> LayerStatus:
    """Whether the worker can still open the files of the grader's parts (the runtime copy and the course's own),
    which it imported before the student's code: the report's :data:`PARTS_LAYER` entry."""
    runtime = os.path.realpath(cfg["runtime"])
    course_files = [os.path.realpath(p) for p in cfg["hide"]]
    allowed = [os.path.realpath(p) for p in landlock.system_read_paths()]

    def inside(path: str, folder: str) -> bool:
        return path == folder or path.startswith(folder.rstrip("/") + "/")

    by = []
    if _active(report, "landlock") and not any(inside(p, a) for p in [runtime, *course_files] for a in allowed):
        by.append("landlock")
    if _active(report, "mount namespace"):
        by.append("the mount namespace")
    if by:
        return on(PARTS_LAYER, f"imported before your code ran; their files are closed to it: {', '.join(by)}")
    if worker_uid is not None:
        return off(PARTS_LAYER, "only a separate user guards them (the runtime copy is the grader's own; the course "
                   "folder may be readable by others)")
    return off(PARTS_LAYER, "neither Landlock nor a mount namespace is available, so the worker could read their files")


def _active(report: dict[str, LayerStatus], layer: str) -> bool:
    """Whether ``layer`` is on so far."""
    return layer in report and report[layer]["active"]


def _stop_before_student_code(wfd: int, failure: isolation.SetupFailed) -> None:
    """Tell the judge which layer to turn off, and exit: no student code has run in this process tree."""
    os.write(wfd, protocol.encode({"setup_failed": {"layer": failure.layer, "reason": failure.reason}}))
    os._exit(0)


def _give_scratch(cfg: WorkerConfig, report: dict[str, LayerStatus], worker_uid: int | None) -> int | None:
    """Hand the scratch folder to the worker's own user; return the user id, or None if that failed."""
    if worker_uid is None:
        return None
    try:
        isolation.inject("chown")
        os.chown(cfg["scratch"], worker_uid, worker_uid)
        return worker_uid
    except OSError as exc:
        report["separate user"] = off("separate user",
                                      f"its scratch folder could not be handed over ({isolation.reason(exc)})")
        return None


def _namespace_init(cfg: WorkerConfig, report: dict[str, LayerStatus], code_dir: str, worker_uid: int | None,
                    rfd: int, wfd: int) -> int | None:
    """As PID 1 of the new namespace: mount, fork the worker, and wait (returns in the worker, with its user id)."""
    try:
        keep = {code_dir: False, cfg["scratch"]: True}  # not the runtime: all of it is imported already
        keep.update({p: False for p in isolation.python_paths()})
        isolation.hide_paths(list(cfg["hide"]), keep)
        report["mount namespace"] = on("mount namespace", "private /tmp and /run; course, submissions and output hidden")
        report["host sockets"] = on("host sockets", "the UNIX sockets under /run, /tmp and the home folder are hidden")
    except OSError as exc:
        report["mount namespace"] = off("mount namespace", isolation.reason(exc))
    budget = cfg["limits"].get("scratch_bytes", 0)
    if _active(report, "mount namespace") and budget:
        try:
            isolation.scratch_tmpfs(cfg["scratch"], budget)
            os.chdir(cfg["scratch"])
            report["scratch budget"] = on("scratch budget", f"{budget // (1024 * 1024)} MiB for everything the worker "
                                          "writes")
        except OSError as exc:
            report["scratch budget"] = off("scratch budget", f"{isolation.reason(exc)} (each file is still limited)")
    try:
        isolation.mount_proc()
    except OSError as exc:
        report["pid namespace"] = on("pid namespace", f"its own /proc could not be mounted: {isolation.reason(exc)}")
    worker_uid = _give_scratch(cfg, report, worker_uid)
    child = os.fork()
    if child:
        isolation.prctl(isolation.PR_SET_DUMPABLE, 0)
        for fd in (rfd, wfd):
            os.close(fd)
        _exit_like(_wait_for(child))
    return worker_uid


def _worker(cfg: WorkerConfig, report: dict[str, LayerStatus], code_dir: str, worker_uid: int | None, user_ns: bool,
            rfd: int, wfd: int) -> None:
    """Drop privileges, restrict, report, then import the submission and serve probes."""
    network = cfg["network"]
    if worker_uid is not None and not all(isolation.readable_by_others(p) for p in isolation.python_paths()):
        report["separate user"] = off("separate user", "the Python installation is not readable by other users")
        worker_uid = None
    elif worker_uid is not None:
        if not _active(report, "pid namespace"):  # in one, the namespace's init handed the scratch folder over
            worker_uid = _give_scratch(cfg, report, worker_uid)
        if worker_uid is not None:
            try:
                isolation.drop_user(worker_uid)
                report["separate user"] = on("separate user", "a user id of its own, no access to the grader's files")
            except OSError as exc:
                report["separate user"] = off("separate user",
                                              f"the host refused the change of user ({isolation.reason(exc)})")
                worker_uid = None
    if user_ns:
        try:
            isolation.drop_capabilities()
            report["capabilities"] = on("capabilities", "all dropped")
        except OSError as exc:
            report["capabilities"] = off("capabilities", isolation.reason(exc))
            if _active(report, "mount namespace"):  # the mounts could be undone: hiding is void
                report["mount namespace"] = off("mount namespace", "capabilities could not be dropped, so the hiding "
                                                "mounts are not binding")
    isolation.prctl(isolation.PR_SET_PDEATHSIG, 9)  # (again) a change of user clears it
    if cfg["off"].get("landlock"):
        report["landlock"] = off("landlock", cfg["off"]["landlock"])
    else:
        try:
            read = landlock.system_read_paths() + [code_dir]  # not the runtime: all of it is imported already
            report["landlock"] = landlock.landlock(read, [cfg["scratch"], *landlock.DEVICES], network)
        except OSError as exc:
            report["landlock"] = off("landlock", isolation.reason(exc))
    report.update(ipc.layers(report, own_user=worker_uid is not None))
    if cfg["parts"]:
        report[PARTS_LAYER] = parts_hidden(report, cfg, worker_uid)
    report["resource limits"] = limits.apply_limits(cfg["limits"], own_user=worker_uid is not None)
    serve_submission(os.fdopen(rfd, "rb"), os.fdopen(wfd, "wb"), cfg, code_dir, report)


def serve_submission(rfile: Any, wfile: Any, cfg: WorkerConfig, code_dir: str, report: dict[str, LayerStatus]
                     ) -> None:
    """Report the isolation layers, import the submission, say hello, then answer probes (both backends).

    Args:
        rfile: Binary file of the request pipe.
        wfile: Binary file of the response pipe.
        cfg: The judge's configuration (``modules``: the student modules to import, in order).
        code_dir: Absolute path of the staged submission.
        report: Isolation layer to status; sent before any student code runs.
    """
    wfile.write(protocol.encode({"isolation": report}))
    wfile.flush()
    random.seed(0)
    sys.dont_write_bytecode = True
    sys.path.insert(0, code_dir)
    names = list(cfg["modules"])
    missing = [n for n in names if not os.path.isfile(os.path.join(code_dir, *n.split(".")) + ".py")]
    if missing:  # staged by the judge, so unreadable here means the sandbox hid them: not the student's fault
        wfile.write(protocol.encode({"setup_failed": {"layer": "", "reason": f"the worker cannot see {missing[0]}"}}))
        wfile.flush()
        return

    def announce(name: str) -> None:
        wfile.write(protocol.encode({"importing": name}))
        wfile.flush()

    modules, errors = import_submission(code_dir, names, announce)
    flush_output()
    wfile.write(protocol.encode({"hello": 1, "imports": {n: errors.get(n) for n in names}}))
    wfile.flush()
    serve(rfile, wfile, StudentCode(modules, errors, names[0].partition(".")[0] if names else ""), code_dir)
