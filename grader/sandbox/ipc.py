"""What holds a worker's SysV IPC objects, and removing them where it had no IPC namespace of its own.

SysV shared memory, semaphores and message queues (and POSIX message queues)
outlive the process that made them. Three mechanisms keep one worker's from
reaching the next worker of the same submission, or holding memory no limit
counts, tried in this order and all reported (:func:`layers`):

1. the **IPC filter** (:mod:`.seccomp`, Linux on x86-64 and ARM64): the
   calls fail, so there is nothing to carry (the kernel's keyrings, which
   belong to a user id and no IPC namespace, are refused the same way);
2. an **IPC namespace** (:mod:`.isolation`): the objects die with the worker;
3. **removal**: without a namespace (a container that refuses namespaces,
   as Docker's default profile does, so Gradescope's images), the launcher
   removes them after the worker's whole tree has ended, but only where it
   can tell them apart: the worker ran under a user id of its own (the
   separate-user layer), so every object created or owned by that id is the
   worker's. Run as the grading user instead, a worker's objects look like
   the grader's (and the desktop's: X11 shared memory, browsers), so nothing
   is removed.

With none of them (the portable sandbox on macOS) the report says the
objects may reach the submission's later workers.

``/proc/sysvipc/{shm,sem,msg}`` list the namespace's objects with a header
line naming the columns (``shmid``/``semid``/``msqid``, ``uid``, ``cuid``);
``IPC_RMID`` through ``shmctl``/``semctl``/``msgctl`` removes one (see
``proc(5)`` and ``sysvipc(7)``). Standard library only (this module runs in
the sandbox's private copy).
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Callable

from . import isolation, seccomp
from .protocol import LayerStatus, off, on

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


def layers(report: dict[str, LayerStatus], own_user: bool) -> dict[str, LayerStatus]:
    """Install the IPC filter on this process (:func:`.seccomp.refuse_ipc`) and say what holds its IPC objects.

    Without a namespace the filter holds them; without the filter either, the launcher removes them when the
    worker ends if it ran under a user id of its own (``own_user``), and otherwise nothing does: the report says
    they may reach the submission's later workers.

    Args:
        report: The worker's isolation report so far (its ``ipc namespace`` layer, if any, is read).
        own_user: Whether the worker runs under a user id of its own (the separate-user layer).

    Returns:
        The layers to add to the report: ``ipc filter``, and ``ipc namespace`` restated when it is off. Never
        raises: a filter the host refuses is a layer that is off, with its reason.
    """
    if os.name == "nt":
        return {"ipc filter": on("ipc filter", "Windows has neither SysV IPC nor POSIX message queues")}
    try:
        found = {"ipc filter": seccomp.refuse_ipc()}
    except OSError as exc:
        found = {"ipc filter": off("ipc filter", isolation.reason(exc))}
    if "ipc namespace" in report and report["ipc namespace"]["active"]:
        return found
    why = report["ipc namespace"]["reason"] if "ipc namespace" in report else ""
    if found["ipc filter"]["active"]:
        fate = "the IPC filter refuses SysV IPC and POSIX message queues instead"
    elif own_user:
        fate = "its SysV IPC objects are removed when it ends"
    else:
        fate = "SysV IPC objects it creates may outlive it and reach the submission's later workers"
    found["ipc namespace"] = off("ipc namespace", f"{why}; {fate}" if why else fate)
    return found
