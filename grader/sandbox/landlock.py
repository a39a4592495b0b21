"""Landlock: the sandbox worker's filesystem allowlist, and no TCP or outside signals where the ABI offers them.

Linux 5.13+ with Landlock enabled; no privileges needed. Applied by
:mod:`.worker` after the namespaces and before the limits; a kernel without
Landlock, or a step that fails, turns the layer off with its reason (see
:mod:`.isolation` for fault injection).
"""

from __future__ import annotations

import ctypes
import os

from .isolation import LINUX, PR_SET_NO_NEW_PRIVS, _check, _libc, inject, prctl, python_paths
from .protocol import LayerStatus, on

SYS_LANDLOCK_CREATE_RULESET, SYS_LANDLOCK_ADD_RULE, SYS_LANDLOCK_RESTRICT_SELF = 444, 445, 446
LANDLOCK_CREATE_RULESET_VERSION = 1
LANDLOCK_RULE_PATH_BENEATH = 1
FS_EXECUTE, FS_WRITE_FILE, FS_READ_FILE, FS_READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
FS_REFER, FS_TRUNCATE, FS_IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
NET_BIND_TCP, NET_CONNECT_TCP = 1, 2
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1, 2


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


def landlock(read: list[str], write: list[str], network: bool) -> LayerStatus:
    """Restrict this process (and its children) to the given folders.

    Args:
        read: Folders (or files) that may be read and executed.
        write: Folders that may also be written.
        network: Leave TCP alone (otherwise bind/connect are denied, ABI >= 4).

    Returns:
        The ``landlock`` layer's status, e.g. on, ``"ABI 7: files, tcp, signals"``.

    Raises:
        OSError: If Landlock is unavailable or a syscall fails.
    """
    inject("landlock")
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
    return on("landlock", f"ABI {abi}: {', '.join(what)}")


DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/ptmx", "/dev/pts")
"""The device files a worker may read and write (not the whole of ``/dev``: ``/dev/shm`` would carry files from one
worker to the next where no mount namespace hides it, and hold the desktop's shared memory)."""


def system_read_paths() -> list[str]:
    """What the Python interpreter and its extension modules need to read."""
    paths = set(python_paths()) | {"/usr", "/lib", "/lib64", "/lib32", "/bin", "/etc", "/proc"}
    return sorted(p for p in paths if p and os.path.exists(p))
