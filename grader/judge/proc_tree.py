"""What a sandbox's process tree has used, read from ``/proc`` (Linux): the CPU time every limit of student code is
counted on (:mod:`grader.judge.call_clock`), read twice per request.

Reading it by path costs a dozen system calls per process (open, read, close of ``stat``, a listing of ``task/``,
the thread's ``stat`` and ``children``): about 0.4 ms per process on a busy machine, so over a millisecond per look
at a worker's three processes (launcher, namespace init, worker), twice per round trip. A :class:`TreeReader`
keeps the ``stat`` and ``children`` files of the first few processes it meets open and reads them again with
``pread`` (a ``/proc`` file read from offset 0 is made afresh): two system calls per single-threaded process. An
open ``/proc/PID`` file belongs to that process, not to its number: once it has ended (and been reaped) a read fails
with ``ESRCH``, even if the number is given to another process, so a kept descriptor never reads a stranger.

A process with more than one thread (or a zombie) is read as before, by path, thread by thread: its state is then
not its first thread's alone.
"""

from __future__ import annotations

import errno
import os

from grader.judge.call_clock import Usage

CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
"""Units of ``/proc/PID/stat``'s CPU times per second."""
MAX_TREE = 4096
"""The most processes of one sandbox :meth:`TreeReader.usage` reads (more than its ``processes`` limit allows)."""
MAX_KEPT = 8
"""The most processes whose files a reader keeps open (two descriptors each); others are read by path."""
STAT_BYTES = 4096
"""One read of a ``stat`` file (its one line is a few hundred bytes)."""
WHOLE_BYTES = 1024
"""A first read shorter than this is a whole ``/proc`` file (its pieces are a page, 4 KiB, less one record)."""
GONE = (errno.ESRCH, errno.ENOENT)
"""What reading a kept file of a process that has ended fails with."""


class TreeReader:
    """Reads the :class:`~grader.judge.call_clock.Usage` of one process tree, keeping its files open between reads.
    Call :meth:`close` when the tree is gone."""

    def __init__(self) -> None:
        self._kept: dict[int, tuple[int, int]] = {}
        """Process id to its open ``stat`` and ``task/PID/children``."""

    def usage(self, root: int) -> Usage | None:
        """What every process of ``root``'s tree has used: CPU seconds of every thread, those of children already
        reaped included, and whether any thread is running or waiting for a core; from ``/proc`` (``stat``: state,
        field 3; user and system time, 14 and 15; reaped children's, 16 and 17; threads, 20;
        ``task/TID/children``; see ``proc(5)``). None if they cannot be read or ``root`` has ended."""
        try:
            ticks, runnable, todo = 0, False, [root]
            seen: set[int] = set()
            while todo and len(seen) < MAX_TREE:
                pid = todo.pop()
                if pid in seen:
                    continue
                seen.add(pid)
                fields = self._stat(pid)
                if fields is None:  # a process that has just ended (its time is its parent's once reaped)
                    if pid == root:
                        self.close()
                        return None
                    continue
                kept = self._kept.get(pid)
                if kept is not None and fields[17] == b"1" and fields[0] != b"Z":
                    # one thread, the process's first: its state and children are the process's
                    ticks += sum(int(x) for x in fields[11:15])
                    runnable = runnable or fields[0] == b"R"
                    todo.extend(int(p) for p in _read_kept(kept[1]).split())
                    continue
                try:
                    tids = os.listdir(f"/proc/{pid}/task")
                except FileNotFoundError:
                    if pid == root:
                        return None
                    continue
                ticks += sum(int(x) for x in fields[11:15])
                for tid in tids:
                    try:
                        runnable = runnable or _fields(_read_path(f"/proc/{pid}/task/{tid}/stat"))[0] == b"R"
                        todo.extend(int(p) for p in _read_path(f"/proc/{pid}/task/{tid}/children").split())
                    except FileNotFoundError:  # a thread that has just ended
                        continue
            self._forget([pid for pid in self._kept if pid not in seen])
            return Usage(cpu_seconds=ticks / CLOCK_TICKS, runnable=runnable)
        except (OSError, ValueError, IndexError):
            return None

    def _stat(self, pid: int) -> list[bytes] | None:
        """The fields of ``pid``'s ``stat`` (its files kept open if there is room), or None once it has ended. A kept
        file of an earlier process of that number (it has ended) is closed and the number read afresh."""
        kept = self._kept.get(pid)
        if kept is not None:
            try:
                return _fields(os.pread(kept[0], STAT_BYTES, 0))
            except OSError as exc:
                if exc.errno not in GONE:
                    raise
                self._forget([pid])
        if len(self._kept) >= MAX_KEPT:
            try:
                return _fields(_read_path(f"/proc/{pid}/stat"))
            except FileNotFoundError:
                return None
        try:
            stat = os.open(f"/proc/{pid}/stat", os.O_RDONLY | os.O_CLOEXEC)
        except FileNotFoundError:
            return None
        children = -1
        try:
            children = os.open(f"/proc/{pid}/task/{pid}/children", os.O_RDONLY | os.O_CLOEXEC)
            data = os.pread(stat, STAT_BYTES, 0)
        except OSError as exc:
            for fd in (stat, children):
                if fd >= 0:
                    os.close(fd)
            if isinstance(exc, FileNotFoundError) or exc.errno in GONE:
                return None
            raise
        self._kept[pid] = (stat, children)
        return _fields(data)

    def _forget(self, pids: list[int]) -> None:
        for pid in pids:
            for fd in self._kept.pop(pid, ()):
                os.close(fd)

    def close(self) -> None:
        """Close every kept file. Idempotent (the reader can be used again)."""
        self._forget(list(self._kept))


def _fields(data: bytes) -> list[bytes]:
    """The fields of a ``/proc`` stat file after ``pid (comm)`` (the name may hold spaces and parentheses): the state
    is the first."""
    return data[data.rindex(b")") + 2:].split()


def _read_path(path: str) -> bytes:
    """The whole of a ``/proc`` file, opened by path."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        return _read_all(fd, 0)
    finally:
        os.close(fd)


def _read_kept(fd: int) -> bytes:
    """The whole of a kept ``children`` file, read afresh (a process that has ended has none)."""
    try:
        return _read_all(fd, 0)
    except OSError as exc:
        if exc.errno in GONE:
            return b""
        raise


def _read_all(fd: int, offset: int) -> bytes:
    """Read ``fd`` from ``offset`` to its end. A ``/proc`` file comes in pieces of about a page (a read ends short
    where the next record would not fit its page), so a first read well short of a page is the whole file."""
    parts: list[bytes] = []
    while True:
        chunk = os.pread(fd, 1 << 16, offset)
        if not parts and len(chunk) < WHOLE_BYTES:
            return chunk
        if not chunk:
            return b"".join(parts)
        parts.append(chunk)
        offset += len(chunk)
