"""Removing a worker's SysV IPC objects where it had no IPC namespace of its own (Linux).

With an IPC namespace, shared memory, semaphores and message queues die with
the worker. Without one (a container that refuses namespaces, as Docker's
default profile does, so Gradescope's images), they live in the host's
namespace until removed. The launcher removes them after the worker's whole
tree has ended, but only where it can tell them apart: the worker ran under
a user id of its own (the separate-user layer), so every object created or
owned by that id is the worker's. Run as the grading user instead, a
worker's objects look like the grader's (and the desktop's: X11 shared
memory, browsers), so nothing is removed and the isolation report says the
objects may outlive it.

``/proc/sysvipc/{shm,sem,msg}`` list the namespace's objects with a header
line naming the columns (``shmid``/``semid``/``msqid``, ``uid``, ``cuid``);
``IPC_RMID`` through ``shmctl``/``semctl``/``msgctl`` removes one (see
``proc(5)`` and ``sysvipc(7)``). Standard library only (this module runs in
the sandbox's private copy).
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable

IPC_RMID = 0
KINDS = {"shm": "shmid", "sem": "semid", "msg": "msqid"}


def owned_by(uid: int, root: str = "/proc/sysvipc") -> list[tuple[str, int]]:
    """``(kind, id)`` of every SysV IPC object created or owned by ``uid`` (kind ``shm``, ``sem`` or ``msg``)."""
    found: list[tuple[str, int]] = []
    for kind, id_column in KINDS.items():
        try:
            with open(f"{root}/{kind}", encoding="ascii", errors="replace") as f:
                header, *rows = f.read().splitlines()
        except (OSError, ValueError):
            continue
        names = header.split()
        try:
            ident, owner, creator = names.index(id_column), names.index("uid"), names.index("cuid")
        except ValueError:
            continue
        for row in rows:
            cells = row.split()
            try:
                if uid in (int(cells[owner]), int(cells[creator])):
                    found.append((kind, int(cells[ident])))
            except (IndexError, ValueError):
                continue
    return found


def _removers() -> dict[str, Callable[[int], int]]:
    libc = ctypes.CDLL(None, use_errno=True)
    return {
        "shm": lambda i: libc.shmctl(i, IPC_RMID, None),
        "sem": lambda i: libc.semctl(i, 0, IPC_RMID),
        "msg": lambda i: libc.msgctl(i, IPC_RMID, None),
    }


def remove_owned_by(uid: int, root: str = "/proc/sysvipc") -> int:
    """Remove every SysV IPC object created or owned by ``uid``; return how many went (never raises)."""
    try:
        objects = owned_by(uid, root)
        if not objects:
            return 0
        removers = _removers()
    except (OSError, AttributeError):
        return 0
    return sum(1 for kind, ident in objects if removers[kind](ident) == 0)
