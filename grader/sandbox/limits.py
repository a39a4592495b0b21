"""POSIX resource limits of a sandbox worker: address space, CPU time, file size, processes, stack, core dumps.

Used by both backends (:mod:`.worker` on Linux, :mod:`.portable` elsewhere).
Each limit is set on its own and reported; a host without a limit (Windows
has none, macOS does not enforce ``RLIMIT_AS``) says so in the report.
"""

from __future__ import annotations

import os
import sys

from .isolation import inject, reason
from .protocol import LayerStatus, off, on

LAYER = "resource limits"
"""The layer this module reports."""

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


def apply_limits(limits: dict[str, int], own_user: bool, in_use: int | None = None) -> LayerStatus:
    """Apply POSIX resource limits to this process and its children.

    Each limit is set on its own: one the host refuses is reported and the
    others still apply. Windows has no ``resource`` module (no limits: the
    judge's deadlines and process-tree kill still apply); macOS accepts
    ``RLIMIT_AS`` but does not enforce it, so it is reported as off there.

    Args:
        limits: ``{"memory_bytes", "cpu_seconds", "file_bytes", "processes"}``;
            a missing or zero entry leaves that limit unchanged.
        own_user: The process runs as a user id of its own, so the process
            limit counts only its processes; otherwise the limit is added to
            what the user already runs.
        in_use: Processes the user runs now, when the caller counted them
            (hosts without ``/proc``); None counts them here.

    Returns:
        The ``resource limits`` layer's status: on, with the limits set (``"memory_bytes, cpu_seconds, ..."``
        and any not set), or off with the reasons.
    """
    try:
        import resource
    except ImportError:
        return off(LAYER, "this OS has no POSIX resource limits (deadlines and the process-tree kill still apply)")
    table = {
        "memory_bytes": resource.RLIMIT_AS,
        "cpu_seconds": resource.RLIMIT_CPU,
        "file_bytes": resource.RLIMIT_FSIZE,
        "processes": resource.RLIMIT_NPROC,
    }
    done: list[str] = []
    failed: list[str] = []
    try:
        inject("rlimit")
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        hard_stack = resource.getrlimit(resource.RLIMIT_STACK)[1]
        stack = STACK_BYTES if hard_stack == resource.RLIM_INFINITY else min(STACK_BYTES, hard_stack)
        resource.setrlimit(resource.RLIMIT_STACK, (stack, hard_stack))
        done += ["8 MiB stack", "core dumps off"]
    except (OSError, ValueError) as exc:
        failed.append(f"stack and core dumps ({reason(exc)})")
    for key, which in table.items():
        value = int(limits.get(key) or 0)
        if value <= 0:
            continue
        if key == "memory_bytes" and sys.platform == "darwin":
            failed.append("memory_bytes (macOS does not enforce an address-space limit)")
            continue
        try:
            inject("rlimit")
            if key == "processes" and not own_user:
                value += in_use if in_use is not None else count_processes(os.getuid())
            soft, hard = resource.getrlimit(which)
            if hard != resource.RLIM_INFINITY:
                value = min(value, hard)
            resource.setrlimit(which, (value, value if key != "cpu_seconds" else value + 1))
            done.append(key)
        except (OSError, ValueError) as exc:
            failed.append(f"{key} ({reason(exc)})")
    if not done:
        return off(LAYER, "; ".join(failed))
    return on(LAYER, ", ".join(done) + (f"; not set: {'; '.join(failed)}" if failed else ""))
