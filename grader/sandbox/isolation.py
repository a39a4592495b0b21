"""Operating-system isolation of the sandbox worker (Linux; standard library + ctypes).

Applied by :mod:`.worker` before any student code runs. Every layer is tried
and reported; a layer the system does not offer is skipped with its reason,
never fatal. The layers:

* **namespaces** (``unshare``): a PID namespace (every process the
  submission starts dies with it, and no process outside is visible or can
  be signalled), a network namespace (no network; skipped when the course
  allows network), a mount namespace (a private ``/tmp``, and empty
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
  system libraries; read: own code and runtime; read-write: own scratch),
  and, where the ABI offers them, no TCP and no signals or abstract sockets
  outside the sandbox;
* **resource limits**: address space, CPU time, file size, processes, no
  core dumps (see :func:`apply_limits`).
"""

from __future__ import annotations

import ctypes
import os
import sys
from typing import Any

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18

PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_CAPBSET_DROP = 1, 4, 24
PR_SET_CHILD_SUBREAPER, PR_SET_NO_NEW_PRIVS = 36, 38

SYS_LANDLOCK_CREATE_RULESET, SYS_LANDLOCK_ADD_RULE, SYS_LANDLOCK_RESTRICT_SELF = 444, 445, 446
LANDLOCK_CREATE_RULESET_VERSION = 1
LANDLOCK_RULE_PATH_BENEATH = 1
FS_EXECUTE, FS_WRITE_FILE, FS_READ_FILE, FS_READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
FS_REFER, FS_TRUNCATE, FS_IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
NET_BIND_TCP, NET_CONNECT_TCP = 1, 2
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1, 2

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


def _check(result: int, what: str) -> int:
    if result < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")
    return result


LINUX = sys.platform.startswith("linux")


def prctl(option: int, arg: int = 0) -> None:
    """``prctl(2)``; a no-op where it does not exist (not Linux)."""
    if not LINUX:
        return
    _check(_libc.prctl(option, ctypes.c_ulong(arg), ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0)), "prctl")


def unshare(flags: int) -> None:
    _check(_libc.unshare(flags), "unshare")


def mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    enc = lambda s: s.encode() if s is not None else None  # noqa: E731
    _check(_libc.mount(enc(source), enc(target), enc(fstype), ctypes.c_ulong(flags), enc(data)), f"mount {target}")


def die_with_parent(expected_parent: int) -> None:
    """Get SIGKILL when the parent dies; exit now if it already has. Never dump core."""
    import resource
    import signal

    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != expected_parent:
        os._exit(1)


# --- namespaces ---------------------------------------------------------------

def enter_namespaces(network: bool) -> tuple[dict[str, str], bool]:
    """Unshare PID, mount, network (unless ``network``) and, when not root, user namespaces.

    Returns:
        (layers, user_ns): a report ``{layer: "on" | "off: reason"}`` and
        whether a user namespace was created (capabilities must then be
        dropped after mounting).
    """
    report: dict[str, str] = {}
    if not LINUX:
        return {"namespaces": "off: not Linux"}, False
    root = os.geteuid() == 0
    flags = CLONE_NEWPID | CLONE_NEWNS | (0 if network else CLONE_NEWNET)
    uid, gid = os.geteuid(), os.getegid()
    try:
        unshare(flags | (0 if root else CLONE_NEWUSER))
    except OSError as exc:
        for layer in ("pid namespace", "mount namespace", "network namespace"):
            report[layer] = f"off: {exc.strerror}"
        return report, False
    if not root:
        with open("/proc/self/setgroups", "w") as f:
            f.write("deny")
        with open("/proc/self/uid_map", "w") as f:
            f.write(f"0 {uid} 1")
        with open("/proc/self/gid_map", "w") as f:
            f.write(f"0 {gid} 1")
        report["user namespace"] = "on"
    report["pid namespace"] = "on"
    report["mount namespace"] = "on"
    report["network namespace"] = "off: the course allows network" if network else "on"
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

    Args:
        secret: Folders to hide (``/tmp``, the course, the output folder...).
        keep: Folders that must stay reachable, to writable (True) or read-only (False).
    """
    mount(None, "/", None, MS_REC | MS_PRIVATE)
    keep_real = {os.path.realpath(k): w for k, w in keep.items() if os.path.isdir(k)}
    for hidden in _outermost(secret):
        inside = {k: w for k, w in keep_real.items() if k.startswith(hidden.rstrip("/") + "/")}
        fds = {k: os.open(k, os.O_PATH | os.O_DIRECTORY) for k in inside}
        mount("tmpfs", hidden, "tmpfs", MS_NOSUID | MS_NODEV, "mode=755,size=1m")
        for k, writable in sorted(inside.items()):
            os.makedirs(k, exist_ok=True)
            mount(f"/proc/self/fd/{fds[k]}", k, None, MS_BIND | MS_REC)
            if not writable:
                mount(None, k, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
            os.close(fds[k])
        mount(None, hidden, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, "mode=755,size=1m")


def mount_proc() -> None:
    """A /proc of the new PID namespace: processes outside are not listed."""
    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)


def drop_capabilities() -> None:
    """Drop every capability (bounding, effective, permitted, inheritable)."""
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
    """As root: become ``uid`` (and group ``uid``) with no supplementary groups."""
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)


# --- Landlock -------------------------------------------------------------------

def landlock_abi() -> int:
    """The kernel's Landlock ABI version, or 0 when Landlock is unavailable."""
    if not LINUX:
        return 0
    try:
        return max(0, int(_libc.syscall(SYS_LANDLOCK_CREATE_RULESET, None, ctypes.c_size_t(0),
                                        ctypes.c_uint32(LANDLOCK_CREATE_RULESET_VERSION))))
    except (AttributeError, OSError):
        return 0


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def landlock(read: list[str], write: list[str], network: bool) -> str:
    """Restrict this process (and its children) to the given folders.

    Args:
        read: Folders (or files) that may be read and executed.
        write: Folders that may also be written.
        network: Leave TCP alone (otherwise bind/connect are denied, ABI >= 4).

    Returns:
        A report such as ``"on (ABI 7: files, tcp, signals)"``.

    Raises:
        OSError: If Landlock is unavailable or a syscall fails.
    """
    abi = landlock_abi()
    if abi < 1:
        raise OSError(0, "Landlock is not enabled in this kernel")
    fs = (1 << 13) - 1
    fs |= FS_REFER if abi >= 2 else 0
    fs |= FS_TRUNCATE if abi >= 3 else 0
    fs |= FS_IOCTL_DEV if abi >= 5 else 0
    net = (NET_BIND_TCP | NET_CONNECT_TCP) if abi >= 4 and not network else 0
    scoped = (SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL) if abi >= 6 else 0
    attr = _RulesetAttr(fs, net, scoped)
    size = 8 if abi < 4 else (16 if abi < 6 else 24)
    ruleset = _check(_libc.syscall(SYS_LANDLOCK_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size),
                                   ctypes.c_uint32(0)), "landlock_create_ruleset")
    file_rights = FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | (FS_TRUNCATE if abi >= 3 else 0) | (FS_IOCTL_DEV if abi >= 5 else 0)
    try:
        for paths, rights in ((read, FS_EXECUTE | FS_READ_FILE | FS_READ_DIR), (write, fs)):
            for path in paths:
                try:
                    fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
                except OSError:
                    continue
                try:
                    allowed = rights if os.path.isdir(path) else rights & file_rights
                    rule = _PathBeneath(allowed, fd)
                    _check(_libc.syscall(SYS_LANDLOCK_ADD_RULE, ctypes.c_int(ruleset), ctypes.c_int(LANDLOCK_RULE_PATH_BENEATH),
                                         ctypes.byref(rule), ctypes.c_uint32(0)), f"landlock_add_rule {path}")
                finally:
                    os.close(fd)
        prctl(PR_SET_NO_NEW_PRIVS, 1)
        _check(_libc.syscall(SYS_LANDLOCK_RESTRICT_SELF, ctypes.c_int(ruleset), ctypes.c_uint32(0)), "landlock_restrict_self")
    finally:
        os.close(ruleset)
    what = ["files"] + (["tcp"] if net else []) + (["signals"] if scoped else [])
    return f"on (ABI {abi}: {', '.join(what)})"


def system_read_paths() -> list[str]:
    """What the Python interpreter and its extension modules need to read."""
    paths = set(python_paths()) | {"/usr", "/lib", "/lib64", "/lib32", "/bin", "/etc", "/proc"}
    return sorted(p for p in paths if p and os.path.exists(p))


# --- resource limits ---------------------------------------------------------------

STACK_BYTES = 8 << 20
"""C stack of the worker: a runaway C recursion overflows it at once instead of filling memory."""


def count_processes(uid: int) -> int:
    """How many processes ``uid`` runs now (RLIMIT_NPROC counts them all)."""
    count = 0
    if not os.path.isdir("/proc"):
        return 256
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.stat(f"/proc/{entry}").st_uid == uid:
                    count += 1
            except OSError:
                pass
    return count


def apply_limits(limits: dict[str, int], own_user: bool) -> str:
    """Apply POSIX resource limits to this process and its children.

    Args:
        limits: ``{"memory_bytes", "cpu_seconds", "file_bytes", "processes"}``;
            a missing or zero entry leaves that limit unchanged.
        own_user: The process runs as a user id of its own, so the process
            limit counts only its processes; otherwise the limit is added to
            what the user already runs.

    Returns:
        A report of the limits set.
    """
    import resource

    table = {
        "memory_bytes": resource.RLIMIT_AS,
        "cpu_seconds": resource.RLIMIT_CPU,
        "file_bytes": resource.RLIMIT_FSIZE,
        "processes": resource.RLIMIT_NPROC,
    }
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    hard_stack = resource.getrlimit(resource.RLIMIT_STACK)[1]
    stack = STACK_BYTES if hard_stack == resource.RLIM_INFINITY else min(STACK_BYTES, hard_stack)
    resource.setrlimit(resource.RLIMIT_STACK, (stack, hard_stack))
    done = []
    for key, which in table.items():
        value = int(limits.get(key) or 0)
        if value <= 0:
            continue
        if key == "processes" and not own_user:
            value += count_processes(os.getuid())
        soft, hard = resource.getrlimit(which)
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        resource.setrlimit(which, (value, value if key != "cpu_seconds" else value + 1))
        done.append(key)
    return "on (" + ", ".join(done + ["8 MiB stack", "core dumps off"]) + ")"


def status(report: dict[str, Any]) -> dict[str, str]:
    """Normalise a layer report to plain strings."""
    return {str(k): str(v) for k, v in report.items()}
