"""The IPC filter: a seccomp filter that refuses SysV IPC and POSIX message queues to the worker (Linux).

SysV shared memory, semaphores and message queues, and POSIX message queues,
are kernel objects that outlive the process that made them: without an IPC
namespace of its own, what one worker leaves there is read by the next
worker of the same submission (state carried from probe to probe), and a
filled, detached shared memory segment holds memory that no address-space
limit counts. A micrograd submission has no use for them, so the worker
refuses them outright: once the filter is on, ``shmget``, ``shmat``,
``semget``, ``msgget``, ``mq_open`` and the rest of their families fail
with ``EPERM`` in the worker and in every process it starts (a seccomp
filter is inherited and cannot be removed). So do the kernel's keyrings
(``add_key``, ``request_key``, ``keyctl``), which belong to a user id and
outlive a worker with no user id of its own just the same. POSIX shared memory and
semaphores (``shm_open``, ``sem_open``: what ``multiprocessing`` uses) are
files under ``/dev/shm``, which the mount namespace hides and Landlock does
not let the worker write.

The filter is a classic BPF program over ``struct seccomp_data`` (``nr`` at
offset 0, ``arch`` at offset 4), installed with ``prctl(PR_SET_SECCOMP,
SECCOMP_MODE_FILTER)`` after ``PR_SET_NO_NEW_PRIVS`` (no privilege needed).
Calls of any other architecture (a 64-bit process can make 32-bit system
calls, and x86-64's x32 numbers start at ``0x40000000``) are refused too,
since their IPC calls have other numbers. System call numbers are those of
the kernel's tables (``arch/x86/entry/syscalls/syscall_64.tbl`` and
``include/uapi/asm-generic/unistd.h``); see ``seccomp(2)`` and
``Documentation/userspace-api/seccomp_filter.rst``. Standard library only
(this module runs in the sandbox's private copy).
"""

from __future__ import annotations

import ctypes
import errno
import platform

from .isolation import LINUX, PR_SET_NO_NEW_PRIVS, _check, _libc, inject, prctl
from .protocol import LayerStatus, on

PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 22, 2
SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO = 0x7FFF0000, 0x00050000
BPF_LD_W_ABS, BPF_JEQ_K, BPF_JGE_K, BPF_RET_K = 0x20, 0x15, 0x35, 0x06
OFFSET_NR, OFFSET_ARCH = 0, 4
X32_BIT = 0x40000000

IPC_CALLS = ("shmget", "shmat", "shmdt", "shmctl", "semget", "semop", "semtimedop", "semctl", "msgget", "msgsnd",
             "msgrcv", "msgctl", "mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive", "mq_notify",
             "mq_getsetattr", "add_key", "request_key", "keyctl")
"""The system calls refused: every call of SysV IPC, of POSIX message queues and of the kernel's keyrings (a user's
keyring is the user's, not an IPC namespace's: keys one worker adds, the next worker of the same user finds)."""

_GENERIC = {"add_key": 217, "request_key": 218, "keyctl": 219, **dict(zip(
    ("mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive", "mq_notify", "mq_getsetattr", "msgget", "msgctl",
     "msgrcv", "msgsnd", "semget", "semctl", "semtimedop", "semop", "shmget", "shmctl", "shmat", "shmdt"),
    range(180, 198)))}
ARCHITECTURES: dict[str, tuple[int, dict[str, int]]] = {
    "x86_64": (0xC000003E, {"shmget": 29, "shmat": 30, "shmctl": 31, "semget": 64, "semop": 65, "semctl": 66,
                            "shmdt": 67, "msgget": 68, "msgsnd": 69, "msgrcv": 70, "msgctl": 71, "semtimedop": 220,
                            "mq_open": 240, "mq_unlink": 241, "mq_timedsend": 242, "mq_timedreceive": 243,
                            "mq_notify": 244, "mq_getsetattr": 245, "add_key": 248, "request_key": 249,
                            "keyctl": 250}),
    "aarch64": (0xC00000B7, _GENERIC),
}
"""Machine (``platform.machine()``) to its ``AUDIT_ARCH_*`` value and the numbers of :data:`IPC_CALLS`."""
ARCHITECTURES["amd64"] = ARCHITECTURES["x86_64"]
ARCHITECTURES["arm64"] = ARCHITECTURES["aarch64"]


class _Instruction(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8), ("k", ctypes.c_uint32)]


class _Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_Instruction))]


def program(machine: str) -> list[tuple[int, int, int, int]]:
    """The filter for ``machine`` as ``(code, jt, jf, k)`` instructions.

    Raises:
        OSError: If ``machine`` is not one the filter knows (its system call numbers differ).
    """
    if machine not in ARCHITECTURES:
        raise OSError(errno.ENOSYS, f"no IPC filter for the {machine or 'unknown'} architecture")
    arch, numbers = ARCHITECTURES[machine]
    calls = sorted({numbers[name] for name in IPC_CALLS})
    refuse = (BPF_RET_K, 0, 0, SECCOMP_RET_ERRNO | errno.EPERM)
    allow = (BPF_RET_K, 0, 0, SECCOMP_RET_ALLOW)
    body: list[tuple[int, int, int, int]] = [(BPF_LD_W_ABS, 0, 0, OFFSET_NR)]
    if arch == ARCHITECTURES["x86_64"][0]:
        body.append((BPF_JGE_K, 0, 0, X32_BIT))  # jt patched below: x32 calls are refused
    body += [(BPF_JEQ_K, 0, 0, nr) for nr in calls]  # jt patched below
    for i, (code, _, jf, k) in enumerate(body):  # a jump counts from the next instruction: skip the rest and allow
        if code in (BPF_JEQ_K, BPF_JGE_K):
            body[i] = (code, len(body) - i, jf, k)
    return [(BPF_LD_W_ABS, 0, 0, OFFSET_ARCH), (BPF_JEQ_K, 0, len(body) + 1, arch), *body, allow, refuse]


def refuse_ipc() -> LayerStatus:
    """Install the filter on this process (and so on everything it starts).

    Returns:
        The ``ipc filter`` layer's status.

    Raises:
        OSError: Not Linux, an architecture the filter does not know, or the host refused ``prctl``.
    """
    inject("seccomp")
    if not LINUX:
        raise OSError(errno.ENOSYS, "seccomp is Linux's")
    code = program(platform.machine().lower())
    instructions = (_Instruction * len(code))(*(_Instruction(*i) for i in code))
    fprog = _Program(len(code), instructions)
    prctl(PR_SET_NO_NEW_PRIVS, 1)
    _check(_libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0), "prctl(PR_SET_SECCOMP)")
    return on("ipc filter", "seccomp: SysV IPC, POSIX message queue and keyring calls fail")
