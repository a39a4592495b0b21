"""Opening a submission's files only when they are regular files, and reading them bounded.

A FIFO's ``open`` waits for a writer and a device reads without end, so a file from a submission is opened without
blocking and checked by its descriptor (``fstat``), not by its name, before anything is read: a FIFO, a device or a
socket put where a file was expected is that submission's error and is never read.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO

from grader.errors import SubmissionError

_OPEN_FLAGS = (os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
               | getattr(os, "O_CLOEXEC", 0))


def _kind(mode: int) -> str:
    """What a file of this mode is, for a message."""
    kinds = [(stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISCHR, "a character device"),
             (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"), (stat.S_ISLNK, "a symbolic link"),
             (stat.S_ISDIR, "a folder")]
    return next((what for test, what in kinds if test(mode)), "not a regular file")


def not_regular(shown: str, mode: int) -> SubmissionError:
    """The error of a submission whose file ``shown`` (inert) is of ``mode`` (a FIFO, a device...): never read."""
    return SubmissionError(f"{shown} is {_kind(mode)}, not a regular file: not read (submit the file itself)")


def open_regular(path: Path, shown: str, follow: bool = False) -> BinaryIO:
    """``path`` open for reading if it is a regular file.

    Opened without blocking (a FIFO's open waits for a writer) and checked by its descriptor, so a FIFO or a
    device put there is never read; a symbolic link is never followed unless ``follow``.

    Args:
        path: The file.
        shown: Its name for a message (inert).
        follow: Follow a symbolic link at ``path`` (a path given directly, not found in a submission).

    Raises:
        SubmissionError: If it is not a regular file.
        OSError: If it cannot be opened.
    """
    fd = os.open(path, _OPEN_FLAGS | (0 if follow else getattr(os, "O_NOFOLLOW", 0)))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise not_regular(shown, mode)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_upto(path: Path, limit: int, shown: str) -> bytes:
    """The first ``limit + 1`` bytes of the regular file ``path`` at most (one more than allowed tells a file that
    grew), never through a symbolic link (:func:`open_regular`)."""
    with open_regular(path, shown) as f:
        return f.read(limit + 1)
