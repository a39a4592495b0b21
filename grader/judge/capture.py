"""The capture file of what a worker's program prints: an anonymous file the judge owns, read by descriptor.

The judge opens it before the worker starts and reads it with no path involved, so nothing a worker plants in its
scratch folder (a symbolic link, a FIFO) is ever opened by the judge. Its size is bounded by the worker's file-size
limit (where the OS has one).
"""

from __future__ import annotations

import os
import tempfile


def open_capture() -> int:
    """A new capture file's descriptor (``memfd_create`` on Linux, an unlinked temporary file elsewhere)."""
    memfd_create = getattr(os, "memfd_create", None)
    if memfd_create is not None:
        return int(memfd_create("grader-output", os.MFD_CLOEXEC))
    with tempfile.TemporaryFile() as anonymous:  # unlinked at once on POSIX; deleted on close on Windows
        return os.dup(anonymous.fileno())


def excerpt(fd: int, limit: int) -> str:
    """The last ``limit`` bytes written to capture file ``fd``, decoded leniently ("" for none, or ``fd`` < 0),
    with ``...`` before them when there was more."""
    if fd < 0:
        return ""
    try:
        size = os.fstat(fd).st_size
        os.lseek(fd, max(0, size - limit), os.SEEK_SET)
        data = os.read(fd, limit)
    except OSError:
        return ""
    text = data.decode("utf-8", errors="replace")
    return ("..." + text) if size > limit else text
