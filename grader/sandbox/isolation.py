"""Operating-system isolation of the sandbox worker (Linux; standard library + ctypes).

Applied by :mod:`.worker` before any student code runs. Every layer is tried
and reported; a layer the system does not offer is skipped with its reason,
never fatal. The layers:

* **namespaces** (``unshare``): a PID namespace (every process the
  submission starts dies with it, and no process outside is visible or can
  be signalled), an IPC namespace (SysV shared memory, semaphores and
  message queues die with it and no one else's are visible), a network
  namespace (no network; skipped when the course allows network), a mount
  namespace (a private ``/tmp`` and ``/run``, so no filesystem UNIX socket
  of the host is reachable, and empty
  read-only ``tmpfs`` over the course folder, the submissions, the output
  folder and the grader's working folder, with only this worker's own code,
  runtime and scratch folders bound back), and, when not root, a user
  namespace that makes the others possible;
* **separate user**: as root, the worker drops to a user id of its own
  (unique per worker, so the process limit is exact), which cannot write the
  grader's files or signal its processes;
* **no capabilities**: in a user namespace, every capability is dropped
  after the mounts are made, so the mounts cannot be undone;
* **Landlock**: a filesystem allowlist (read: the Python installation and
  system libraries; read: own code and runtime; read-write: own scratch and the few device files of
  :data:`.landlock.DEVICES`, not ``/dev/shm``),
  and, where the ABI offers them, no TCP and no signals or abstract sockets
  outside the sandbox;
* **resource limits**: address space, CPU time, file size, processes, no
  core dumps (see :func:`apply_limits`);
* **the IPC filter** (:mod:`.seccomp`): SysV IPC, POSIX message queue and
  keyring calls fail (see :mod:`.ipc` for what holds IPC objects where it cannot).

Degradation: a step that fails drops its layer and the layers that depend
on it (a refused ``uid_map`` write drops the user namespace, hence the PID,
mount and network namespaces; capabilities that cannot be dropped void the
mount namespace's hiding), with the reason in the report. The one step that
cannot be undone in-process is a user namespace entered whose maps are then
refused (Ubuntu 24.04's AppArmor policy): :class:`SetupFailed` tells the
launcher to stop before any student code runs, and the judge starts the
worker again without namespaces.

Fault injection (for tests): :data:`FAULTS` names steps that fail with
``EPERM`` as if the host refused them (``launcher``: the whole start, ``unshare``, ``setgroups``,
``uid_map``, ``gid_map``, ``mount``, ``scratch``, ``proc``, ``capabilities``,
``chown``, ``setuid``, ``landlock``, ``seccomp``, ``rlimit``); the judge fills it from
``GRADER_SANDBOX_FAULTS``.
"""

from __future__ import annotations

import ctypes
import errno
import os
import sys
from typing import Any

from .protocol import LayerStatus, off, on

CLONE_NEWNS = 0x00020000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18

PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_CAPBSET_DROP = 1, 4, 24
PR_SET_CHILD_SUBREAPER, PR_SET_NO_NEW_PRIVS = 36, 38


LINUX = sys.platform.startswith("linux")
_libc: Any = None
if os.name == "posix":  # ctypes.CDLL(None) (the process's own symbols) does not exist on Windows
    _libc = ctypes.CDLL(None, use_errno=True)
    _libc.syscall.restype = ctypes.c_long

FAULTS: frozenset[str] = frozenset()
"""Steps that fail as if the host refused them (fault injection for tests; see the module docstring)."""


class SetupFailed(Exception):
    """A step failed after the point of no return: the process must not go on to run student code.

    Args:
        layer: The layer that must be turned off for the next attempt (``"namespaces"``).
        reason: Why, for the isolation report.
    """

    def __init__(self, layer: str, reason: str) -> None:
        super().__init__(reason)
        self.layer = layer
        self.reason = reason


def inject(step: str) -> None:
    """Fail like a refused system call if ``step`` is in :data:`FAULTS`."""
    if step in FAULTS:
        raise OSError(errno.EPERM, f"{step}: {os.strerror(errno.EPERM)} (injected fault)")


def reason(exc: BaseException) -> str:
    """A one-line reason for a failed step."""
    if isinstance(exc, OSError) and exc.strerror:
        return str(exc.strerror)
    return f"{type(exc).__name__}: {exc}"


def _check(result: int, what: str) -> int:
    if result < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")
    return result


def prctl(option: int, arg: int = 0) -> None:
    """``prctl(2)``; a no-op where it does not exist (not Linux)."""
    if not LINUX:
        return
    _check(_libc.prctl(option, ctypes.c_ulong(arg), ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0)), "prctl")


def unshare(flags: int) -> None:
    inject("unshare")
    _check(_libc.unshare(flags), "unshare")


def mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    inject("mount")
    def enc(s: str | None) -> bytes | None:
        return s.encode() if s is not None else None

    _check(_libc.mount(enc(source), enc(target), enc(fstype), ctypes.c_ulong(flags), enc(data)), f"mount {target}")


MNT_DETACH = 2


def umount(target: str) -> None:
    """Lazily unmount ``target`` (``umount2(MNT_DETACH)``)."""
    _check(_libc.umount2(target.encode(), ctypes.c_int(MNT_DETACH)), f"umount {target}")


def die_with_parent(expected_parent: int) -> None:
    """Get SIGKILL when the parent dies (Linux); exit now if it already has. Never dump core (POSIX)."""
    try:
        import resource
    except ImportError:  # Windows
        return
    import signal

    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != expected_parent:
        os._exit(1)


# --- namespaces ---------------------------------------------------------------

NAMESPACE_LAYERS = ("pid namespace", "mount namespace", "network namespace", "ipc namespace")


def _write_proc(name: str, text: str) -> None:
    inject(name)
    with open(f"/proc/self/{name}", "w") as f:
        f.write(text)


def enter_namespaces(network: bool, turned_off: str = "") -> tuple[dict[str, LayerStatus], bool]:
    """Unshare PID, mount, network (unless ``network``) and, when not root, user namespaces.

    Args:
        network: Keep the network (no network namespace).
        turned_off: Why namespaces are turned off for this worker ("" to try them).

    Returns:
        (layers, user_ns): a report ``{layer: status}`` (:class:`~.protocol.LayerStatus`) and
        whether a user namespace was created (capabilities must then be
        dropped after mounting).

    Raises:
        SetupFailed: The user namespace was entered but its maps were
            refused: this process is stuck in it and must not run student
            code (the judge starts the worker again with namespaces off).
    """
    report: dict[str, LayerStatus] = {}
    root = LINUX and os.geteuid() == 0
    layers = NAMESPACE_LAYERS if root else ("user namespace", *NAMESPACE_LAYERS)
    if not LINUX or turned_off:
        return {layer: off(layer, turned_off or "not Linux") for layer in layers}, False
    flags = CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWIPC | (0 if network else CLONE_NEWNET)
    uid, gid = os.geteuid(), os.getegid()
    try:
        unshare(flags | (0 if root else CLONE_NEWUSER))
    except OSError as exc:
        for layer in layers:
            report[layer] = off(layer, f"unshare was refused ({reason(exc)})")
        return report, False
    if not root:
        for name, text in (("setgroups", "deny"), ("uid_map", f"0 {uid} 1"), ("gid_map", f"0 {gid} 1")):
            try:
                _write_proc(name, text)
            except OSError as exc:
                raise SetupFailed(
                    "namespaces",
                    f"writing the user namespace's {name} was refused ({reason(exc)}); unprivileged user "
                    "namespaces are restricted here (e.g. by Ubuntu 24.04's AppArmor policy)",
                ) from None
        report["user namespace"] = on("user namespace")
    report["pid namespace"] = on("pid namespace")
    report["mount namespace"] = on("mount namespace")
    report["network namespace"] = (off("network namespace", "the course allows network") if network
                                   else on("network namespace"))
    report["ipc namespace"] = on("ipc namespace", "SysV IPC objects and POSIX message queues die with the worker")
    return report, not root


def _outermost(paths: list[str]) -> list[str]:
    real = sorted({os.path.realpath(p) for p in paths if p and os.path.isdir(p)}, key=len)
    kept: list[str] = []
    for p in real:
        if not any(p == k or p.startswith(k.rstrip("/") + "/") for k in kept):
            kept.append(p)
    return kept


def hide_paths(secret: list[str], keep: dict[str, bool]) -> None:
    """Cover each secret folder with an empty read-only tmpfs, binding back the kept ones inside.

    All or nothing: if a step fails, every mount made so far is undone, so
    the worker never loses sight of its own code, runtime or scratch folder.

    Args:
        secret: Folders to hide (``/tmp``, the course, the output folder...).
        keep: Folders that must stay reachable, to writable (True) or read-only (False).

    Raises:
        OSError: A mount failed (and the mounts made before it were undone).
        SetupFailed: A mount failed and could not be undone.
    """
    mount(None, "/", None, MS_REC | MS_PRIVATE)  # private to this namespace: harmless to keep
    keep_real = {os.path.realpath(k): w for k, w in keep.items() if os.path.isdir(k)}
    made: list[str] = []
    try:
        for hidden in _outermost(secret):
            inside = {k: w for k, w in keep_real.items() if k.startswith(hidden.rstrip("/") + "/")}
            fds = {k: os.open(k, os.O_PATH | os.O_DIRECTORY) for k in inside}
            try:
                mount("tmpfs", hidden, "tmpfs", MS_NOSUID | MS_NODEV, "mode=755,size=1m")
                made.append(hidden)
                for k, writable in sorted(inside.items()):
                    os.makedirs(k, exist_ok=True)
                    mount(f"/proc/self/fd/{fds[k]}", k, None, MS_BIND | MS_REC)
                    made.append(k)
                    if not writable:
                        mount(None, k, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
                mount(None, hidden, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, "mode=755,size=1m")
            finally:
                for fd in fds.values():
                    os.close(fd)
    except OSError:
        for target in reversed(made):
            try:
                umount(target)
            except OSError as exc:
                raise SetupFailed("namespaces", f"a failed mount could not be undone ({reason(exc)})") from None
        raise


def scratch_tmpfs(scratch: str, size_bytes: int) -> None:
    """Put a fresh tmpfs of ``size_bytes`` over the scratch folder, so a worker's writes have one budget in all.

    Nothing the judge reads is in scratch (output is captured by descriptor),
    so the worker may as well write into memory the kernel caps for it; the
    caller changes into the new folder (its working directory was the one below).

    Raises:
        OSError: The mount failed (the host scratch folder stays, limited per file only).
    """
    inject("scratch")
    mount("tmpfs", scratch, "tmpfs", MS_NOSUID | MS_NODEV, f"mode=700,size={max(size_bytes, 4096)}")


def mount_proc() -> None:
    """A /proc of the new PID namespace: processes outside are not listed."""
    inject("proc")
    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)


def drop_capabilities() -> None:
    """Drop every capability (bounding, effective, permitted, inheritable).

    Raises:
        OSError: If ``capset`` fails (some capabilities may remain).
    """
    inject("capabilities")
    for cap in range(64):
        try:
            prctl(PR_CAPBSET_DROP, cap)
        except OSError:
            break

    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]

    header = Header(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3
    data = (Data * 2)()
    _check(_libc.capset(ctypes.byref(header), ctypes.byref(data)), "capset")


def python_paths() -> list[str]:
    """The Python installation's folders (interpreter, standard library, extension modules)."""
    paths = {sys.base_prefix, sys.base_exec_prefix, sys.prefix, sys.exec_prefix, os.path.dirname(sys.executable)}
    return sorted(p for p in paths if p and os.path.isdir(p))


def readable_by_others(path: str) -> bool:
    """Whether a user with no relation to the owner can reach and read ``path``."""
    import stat as st

    path = os.path.realpath(path)
    parts = path.split("/")
    for i in range(1, len(parts) + 1):
        here = "/".join(parts[:i]) or "/"
        try:
            mode = os.stat(here).st_mode
        except OSError:
            return False
        if not mode & st.S_IXOTH or (here == path and not mode & st.S_IROTH):
            return False
    return True


def drop_user(uid: int) -> None:
    """As root: become ``uid`` (and group ``uid``) with no supplementary groups.

    Raises:
        OSError: If the host refuses (e.g. a rootless container without that id).
    """
    inject("setuid")
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)
