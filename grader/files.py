"""The grader's own files: removing folders a sandbox worker wrote into, and writing outputs atomically.

A worker's scratch folder may hold anything a submission can make: a chain
of folders thousands deep, folders without any permission (``chmod 000``),
read-only files, links, FIFOs. :func:`remove_tree` removes all of it without
recursion (no depth can exhaust Python's stack or ``PATH_MAX``), giving back
the owner's permissions to a folder before listing it, and never following a
link; where folders cannot be opened relative to each other (Windows) it
walks paths with an explicit stack instead. It is what cleans the grader's working folder at the end
of a run, so one submission's leftovers never break the next run.

:func:`write_atomic` writes every output (results.json, feedback.md, the
gradebook): a reader, or a run interrupted by ``kill -9``, never sees half a file.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from grader.errors import GraderError

MAX_ENTRIES = 2_000_000
"""Most entries removed from one tree (a bound on the work, far above any real scratch folder)."""


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    except PermissionError:  # a read-only file on Windows
        os.chmod(path, stat.S_IWRITE)
        os.unlink(path)


def remove_tree(root: Path | str) -> list[str]:
    """Remove ``root`` and everything below it, iteratively, never following a link.

    On POSIX every step is relative to an open folder (``dir_fd``), and each
    subfolder is first moved up to ``root`` itself, so a chain thousands of
    folders deep is taken apart one level at a time: no path grows past
    ``PATH_MAX`` and no more than two folders are open at once.

    Args:
        root: The folder (or file) to remove; a missing one is not an error.

    Returns:
        What could not be removed (paths with the reason), empty when all went.
    """
    root = os.fspath(root)
    try:
        if not stat.S_ISDIR(os.lstat(root).st_mode):
            _unlink(root)
            return []
    except FileNotFoundError:
        return []
    except OSError as exc:
        return [f"{root}: {exc.strerror or exc}"]
    if os.open in os.supports_dir_fd and os.chmod in os.supports_dir_fd and os.scandir in os.supports_fd and hasattr(os, "O_DIRECTORY"):
        failed = _flatten_and_remove(root)
    else:
        failed = _remove_by_path(root)
    try:
        os.rmdir(root)
    except FileNotFoundError:
        pass
    except OSError as exc:
        failed.append(f"{root}: {exc.strerror or exc}")
    return failed


def _flatten_and_remove(root: str) -> list[str]:
    """Empty ``root``: each folder is moved up to ``root`` under a fresh name, emptied, then removed."""
    failed: list[str] = []
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    try:
        os.chmod(root, stat.S_IRWXU)
        top = os.open(root, flags)
    except OSError as exc:
        return [f"{root}: {exc.strerror or exc}"]
    try:
        pending: list[str | None] = [None]  # None: root itself; otherwise a name in root
        moved = seen = 0
        token = secrets.token_hex(8)  # names no submission can have guessed
        while pending:
            name = pending.pop()
            try:
                here = top if name is None else os.open(name, flags, dir_fd=top)
            except OSError as exc:
                failed.append(f"{root}/{name}: {exc.strerror or exc}")
                continue
            try:
                with os.scandir(here) as entries:
                    listed = list(entries)
                for entry in listed:
                    seen += 1
                    if seen > MAX_ENTRIES:
                        return [*failed, f"{root}: more than {MAX_ENTRIES} entries"]
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            try:  # chmod 000 folders: take back the owner's rights before opening them
                                os.chmod(entry.name, stat.S_IRWXU, dir_fd=here)
                            except OSError:
                                pass
                            if name is None:
                                pending.append(entry.name)
                            else:
                                moved += 1
                                new = f".grader-remove-{token}-{moved}"
                                os.rename(entry.name, new, src_dir_fd=here, dst_dir_fd=top)
                                pending.append(new)
                        else:
                            os.unlink(entry.name, dir_fd=here)
                    except OSError as exc:
                        failed.append(f"{root}/{name or ''}/{entry.name}: {exc.strerror or exc}")
            except OSError as exc:
                failed.append(f"{root}/{name or ''}: {exc.strerror or exc}")
            finally:
                if here != top:
                    os.close(here)
            if name is not None:
                try:
                    os.rmdir(name, dir_fd=top)
                except OSError as exc:
                    failed.append(f"{root}/{name}: {exc.strerror or exc}")
    finally:
        os.close(top)
    return failed


def _remove_by_path(root: str) -> list[str]:
    """Empty ``root`` where folders cannot be opened relative to others (Windows): an explicit stack."""
    failed: list[str] = []
    pending, folders, seen = [root], [], 0
    while pending:
        folder = pending.pop()
        folders.append(folder)
        try:
            os.chmod(folder, stat.S_IRWXU)
            entries = list(os.scandir(folder))
        except OSError as exc:
            failed.append(f"{folder}: {exc.strerror or exc}")
            continue
        for entry in entries:
            seen += 1
            if seen > MAX_ENTRIES:
                return [*failed, f"{root}: more than {MAX_ENTRIES} entries"]
            try:
                if entry.is_dir(follow_symlinks=False):
                    pending.append(entry.path)
                else:
                    _unlink(entry.path)
            except OSError as exc:
                failed.append(f"{entry.path}: {exc.strerror or exc}")
    for folder in reversed(folders[1:]):  # deepest first: each is empty by then
        try:
            os.rmdir(folder)
        except OSError as exc:
            failed.append(f"{folder}: {exc.strerror or exc}")
    return failed


@contextmanager
def temporary_folder(prefix: str) -> Iterator[Path]:
    """A new private folder, removed with :func:`remove_tree` however deep or locked its contents."""
    path = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        yield path
    finally:
        remove_tree(path)


def require_new_folder(dest: Path, what: str) -> None:
    """Check that ``dest`` is missing or an empty folder, before anything is written into it.

    Raises:
        GraderError: If ``dest`` is a file or a folder that holds something (``what`` says what was to go there).
    """
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise GraderError(f"{dest} is not empty; give a new folder for {what}")


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` through a temporary file and a rename, so a reader never sees half of it.

    The temporary file is created new (``O_CREAT | O_EXCL`` under a random name, with the permissions the umask
    gives), so nothing planted in the folder (a symbolic or hard link) is ever written through; the rename replaces a
    link at ``path`` itself instead of following it.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    name = str(path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp"))
    fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(name, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(name)
        raise
