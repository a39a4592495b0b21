"""Submission intake: discovering, reading and staging student submissions.

One entry of the submissions folder is one student's submission; the
student id is the entry's name (without ``.zip``/``.ipynb``):

* a folder, in package layout (``micrograd/engine.py``) or flat layout
  (``engine.py``), possibly one folder deeper, or holding one notebook;
* a ``.zip`` of such a folder (read in memory, never extracted: absolute
  paths, ``..`` entries and symbolic links are ignored, sizes are capped);
* a ``.ipynb`` notebook (code cells; IPython syntax is never run).

Only folders and regular files are read, each read bounded: a FIFO or a device named like a submission is that
submission's error and is never opened, and a file or folder that cannot be read (its permissions) is named in it.

An instructor's download from an LMS is read as one entry per student (:mod:`grader.intake.layouts`): the files of
Canvas's bulk download, grouped by student, and the folders of a Gradescope export, named by its metadata.

Environment and cache folders (:data:`SKIP_DIRS`, hidden folders) are neither read nor counted, in folders, zips
and git trees alike. Every file read goes through one :class:`Budget`: a notebook too large for a source file is
read (up to :data:`MAX_NOTEBOOK_BYTES`) without its outputs, and only its code counts against the cap.

A folder may hold both ``.py`` files and notebooks (the student release
does): :func:`resolve` grades, per assignment, the one the student worked
on (:mod:`grader.intake.candidates`). Reading never executes anything. Staging
writes only the files the assignment names into a fresh ``micrograd/``
package with an empty ``__init__.py``.
"""

from __future__ import annotations

import calendar
import os
import stat
import struct
import zipfile
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from grader.errors import GraderError, SubmissionError
from grader.intake.candidates import choose
from grader.intake.entry import Submission
from grader.intake.layouts import LayoutEntry
from grader.intake.layouts import find as find_layouts
from grader.intake.layouts import read as read_layout
from grader.intake.notebook import CLEAR_OUTPUTS, cap, without_outputs
from grader.intake.regular_files import not_regular, open_regular, read_upto

MAX_FILE_BYTES = 1 << 20
"""Largest source file kept from a submission, in bytes: a ``.py`` file, or a notebook without its outputs."""
MAX_NOTEBOOK_BYTES = 20 << 20
"""Largest notebook read, outputs included, in bytes; over :data:`MAX_FILE_BYTES`, its outputs are dropped
(:func:`grader.intake.notebook.without_outputs`) and what is left must fit :data:`MAX_FILE_BYTES`."""
MAX_TOTAL_BYTES = 20 << 20
"""Largest total of the files kept from one submission (notebooks without their outputs), in bytes."""
MAX_READ_BYTES = 100 << 20
"""Largest total of the files read from one submission (notebooks with their outputs), in bytes."""
MAX_ENTRIES = 5000
"""Most files in one submission, outside environment and cache folders (:data:`SKIP_DIRS`, hidden folders)."""
MAX_ZIP_MEMBERS = 100_000
"""Most members of a zip looked at, environment and cache folders included (a zip's own bound on the work)."""
MAX_ZIP_DIRECTORY_BYTES = 16 << 20
"""Largest central directory (the list of members) of a zip read, in bytes."""
MAX_DEPTH = 12
"""Deepest folder level read in a submission folder (deeper folders are ignored, with a note)."""
SKIP_DIRS = {"__pycache__", "__MACOSX", ".git", ".ipynb_checkpoints", "node_modules", ".venv", "venv"}
"""Environment and cache folders, never read nor counted (nor is any folder whose name starts with ``.``)."""
READ_SUFFIXES = (".py", ".ipynb", ".yaml")
"""The files of a submission read: code, notebooks, and a concept check's answers (``answers/<id>.yaml``)."""
SUBMISSION_SUFFIXES = (".zip", ".ipynb", ".ZIP", ".IPYNB")
"""File suffixes of a submission entry (discover() accepts any case; these are the spellings checked for rivals)."""
SUBMIT_ONLY = "keep only your package's and notebooks/ files (grader submit-zip makes a zip of just those)"
"""What to do about a submission with too many files."""
MAKE_READABLE = "make it readable (unzip keeps a member's permissions from the zip: chmod -R a+rX fixes them) and grade again"
"""What to do about a file or folder of a submission that could not be read."""
ZIP_END_SEARCH = 22 + 0xFFFF
"""Most bytes at the end of a zip that hold its end record (22 bytes, then a comment of at most 65535)."""
def skipped(folder: str) -> bool:
    """Whether a folder of that name is an environment or cache folder, never read (:data:`SKIP_DIRS`, hidden)."""
    return folder in SKIP_DIRS or folder.startswith(".")


def _too_many(count: int, exact: bool) -> SubmissionError:
    counted = (f"{count if exact else f'more than {MAX_ENTRIES}'} files outside environment and cache folders "
               f"({', '.join(sorted(SKIP_DIRS))} and any folder starting with '.')")
    where = "the zip has" if exact else "the submission has"
    limit = f", more than the {MAX_ENTRIES} allowed" if exact else ""
    return SubmissionError(f"{where} {counted}{limit}; {SUBMIT_ONLY}")


class Budget:
    """What one submission may read and keep, file by file; every reader (folders, zips, a notebook, git trees)
    goes through one.

    :meth:`admit` checks a file's size before it is read (a notebook may be read up to
    :data:`MAX_NOTEBOOK_BYTES`, any other file up to :data:`MAX_FILE_BYTES`) and books it against
    :data:`MAX_READ_BYTES`; :meth:`keep` takes its bytes, drops a large notebook's outputs, and counts what is kept
    against :data:`MAX_TOTAL_BYTES`.

    Args:
        in_zip: Whether the files are a zip's members (for messages).
    """

    def __init__(self, in_zip: bool = False) -> None:
        self.read = 0
        self.kept = 0
        self.in_zip = in_zip

    @staticmethod
    def cap(name: str) -> int:
        """The most bytes read of the file ``name``: :data:`MAX_NOTEBOOK_BYTES` for a notebook, else
        :data:`MAX_FILE_BYTES`."""
        return MAX_NOTEBOOK_BYTES if name.lower().endswith(".ipynb") else MAX_FILE_BYTES

    def _check(self, name: str, size: int) -> None:
        limit = self.cap(name)
        if size > limit:
            text = (f"{name} in the zip is larger than {limit} bytes" if self.in_zip
                    else f"{name} is {size} bytes, more than the {limit} allowed")
            if name.lower().endswith(".ipynb"):
                text += f" for a notebook, outputs included: {CLEAR_OUTPUTS}"
            raise SubmissionError(text)

    def admit(self, name: str, size: int) -> None:
        """Check, before reading it, the file ``name`` of ``size`` bytes (as its file system, zip or git records).

        Raises:
            SubmissionError: If it is too large, or the submission's files read so far are.
        """
        self._check(name, size)
        self.read += size
        if self.read > MAX_READ_BYTES:
            raise SubmissionError(f"the {'zip' if self.in_zip else 'submission'}'s files are more than "
                                  f"{MAX_READ_BYTES} bytes together, notebooks' outputs included: {CLEAR_OUTPUTS}")

    def keep(self, name: str, data: bytes, admitted: int) -> bytes:
        """What is kept of the file ``name`` read as ``data``, admitted as ``admitted`` bytes: a notebook over
        :data:`MAX_FILE_BYTES` without its outputs (its code cells' sources must fit :data:`MAX_FILE_BYTES`),
        anything else as it is.

        Raises:
            SubmissionError: If it is larger than it said or than its cap, its code is over :data:`MAX_FILE_BYTES`,
                it is a large notebook whose outputs cannot be removed, or the files kept are over
                :data:`MAX_TOTAL_BYTES`.
        """
        self._check(name, len(data))
        if len(data) > admitted:  # a file that grew since, or a zip member larger than its record says
            self.admit(name, len(data) - admitted)
        if name.lower().endswith(".ipynb") and len(data) > MAX_FILE_BYTES:
            label = f"{name} in the zip" if self.in_zip else name
            try:
                cleared = without_outputs(data)
            except ValueError as exc:
                raise SubmissionError(f"{label} is {len(data)} bytes, more than the {MAX_FILE_BYTES} allowed, and "
                                      f"its outputs could not be removed ({exc}): {CLEAR_OUTPUTS}") from None
            if cleared.code_bytes > MAX_FILE_BYTES:
                raise SubmissionError(f"{label} is {len(data)} bytes, and its code cells alone {cleared.code_bytes} "
                                      f"bytes, more than the {MAX_FILE_BYTES} allowed for a notebook's code: move "
                                      f"long data out of its code cells (read it from a file), then {CLEAR_OUTPUTS}")
            data = cleared.data
        self.kept += len(data)
        if self.kept > MAX_TOTAL_BYTES:
            raise SubmissionError(f"the {'zip' if self.in_zip else 'submission'}'s source files exceed "
                                  f"{MAX_TOTAL_BYTES} bytes")
        return data


def discover(folder: Path) -> list[Path]:
    """List the submission entries of ``folder``, sorted by student id (see :func:`student_id`).

    Folders, ``.zip`` and ``.ipynb`` files count; hidden entries, symbolic links and other
    files (a README, a CSV) are not submissions. An entry named ``.zip`` or ``.ipynb`` that is not a
    regular file (a FIFO, a device) is listed, and :func:`read_submission` makes it that submission's
    error without opening it. A Canvas download's files and a
    Gradescope export stand for one :class:`~grader.intake.layouts.LayoutEntry` per
    student (:func:`grader.intake.layouts.find`).

    Raises:
        GraderError: If ``folder`` is not a directory or cannot be listed, or a Gradescope export's metadata
            cannot be read.
    """
    if not folder.is_dir():
        raise GraderError(f"{folder} is not a folder of submissions")
    try:
        layouts = find_layouts(folder)
        listed = sorted(folder.iterdir())
    except OSError as exc:
        raise GraderError(f"{folder} could not be read ({exc.strerror or exc})") from None
    entries: dict[str, Path] = {}
    for entry in listed:
        if entry.name.startswith(".") or entry.name in SKIP_DIRS or entry.name in layouts.claimed:
            continue
        try:
            mode = entry.lstat().st_mode
        except FileNotFoundError:
            continue  # gone since the folder was listed
        except OSError as exc:
            raise GraderError(f"{folder} could not be read ({exc.strerror or exc})") from None
        if stat.S_ISLNK(mode):
            continue
        if stat.S_ISDIR(mode) or entry.suffix.lower() in (".zip", ".ipynb"):
            entries[student_id(entry)] = entry  # not a regular file (a FIFO, a device): read_submission says so
    entries.update((e.student, e) for e in layouts.entries(set(entries)))
    return [entries[k] for k in sorted(entries)]


def _printable_name(entry: Path) -> str:
    """The entry's name, with bytes that are not UTF-8 shown as ``\\xNN`` (names are bytes on POSIX)."""
    return os.fsencode(entry.name).decode("utf-8", errors="backslashreplace")


def student_id(entry: Path) -> str:
    """The student id of a submission entry.

    A folder's id is its name; a ``.zip`` or ``.ipynb`` file's id is its name
    without the suffix, unless that would be another entry's id too (``dup/``
    next to ``dup.zip``, or ``dup.zip`` next to ``dup.ipynb``): then it keeps
    its whole file name (``dup.zip``), so both are graded, each under its own
    name. Bytes of a name that are not UTF-8 appear as ``\\xNN``. A layout's
    entry has the id its layout gives it (:mod:`grader.intake.layouts`).
    """
    if isinstance(entry, LayoutEntry):
        return entry.student
    name = _printable_name(entry)
    if entry.is_dir():
        return name
    raw_stem = entry.name[: -len(entry.suffix)]
    rivals = [entry.parent / raw_stem] + [entry.parent / (raw_stem + suffix) for suffix in SUBMISSION_SUFFIXES]
    taken = any(r != entry and not r.is_symlink() and (r.is_dir() if r.name == raw_stem else r.is_file())
                for r in rivals)
    return name if taken else name[: -len(entry.suffix)]


def read_submission(entry: Path) -> Submission:
    """Read a submission entry into memory; problems go to ``Submission.error``.

    Only folders and regular files are read: a FIFO or a device named like a submission is that submission's
    error, never opened; a file or folder that cannot be read (its permissions) is too, named.
    """
    if isinstance(entry, LayoutEntry):  # a student's files of a Canvas download, a Gradescope export's folder
        return read_layout(entry, read_submission, MAX_TOTAL_BYTES)
    sub = Submission(student_id(entry), entry)
    try:
        mode = entry.stat().st_mode  # a link given directly is followed (discover() never lists one)
        if stat.S_ISDIR(mode):
            _read_folder(entry, sub)
        elif not stat.S_ISREG(mode):
            raise not_regular(_inert(_printable_name(entry)), mode)
        elif entry.suffix.lower() == ".zip":
            _read_zip(entry, sub)
        else:
            budget = Budget()
            with open_regular(entry, _inert(_printable_name(entry)), follow=True) as f:
                info = os.fstat(f.fileno())
                budget.admit(entry.name, info.st_size)
                data = f.read(budget.cap(entry.name) + 1)
            sub.files[entry.name] = budget.keep(entry.name, data, info.st_size)
            sub.mtimes[entry.name] = info.st_mtime
    except SubmissionError as exc:
        sub.error = str(exc)
    except OSError as exc:
        sub.error = _unreadable(entry, exc)
    if not sub.error and not sub.files:
        sub.error = "the submission is empty (no .py, .ipynb or .yaml file found)"
    return sub


def _inert(text: str) -> str:
    """A name from a submission for a message: control and bidi characters as ``?``, capped."""
    return cap(text, 200)


def _unreadable(entry: Path, exc: OSError) -> str:
    """The error of the submission ``entry``, part of which (named by ``exc``) could not be read."""
    shown = _printable_name(entry)
    if isinstance(exc.filename, (str, bytes)):
        where = Path(os.fsdecode(exc.filename))
        try:
            inside = where.relative_to(entry)
        except ValueError:
            pass
        else:
            shown = _shown(where, entry) if inside.parts else shown
    return f"{_inert(shown)} could not be read ({exc.strerror or type(exc).__name__}): {MAKE_READABLE}"


def _raise(exc: OSError) -> None:
    raise exc


def _utf8(name: str) -> bool:
    """Whether a file name decoded from the file system is valid UTF-8 (no surrogate escapes)."""
    try:
        name.encode("utf-8")
        return True
    except UnicodeEncodeError:
        return False


def _read_folder(root: Path, sub: Submission) -> None:
    count = 0
    budget = Budget()
    too_deep = False
    for dirpath, dirnames, filenames in os.walk(root, onerror=_raise, followlinks=False):  # an unlistable folder
        # is the submission's error (read_submission), not a folder silently empty
        here = Path(dirpath)
        depth = len(here.relative_to(root).parts)
        for d in dirnames:
            if (here / d).is_symlink():
                sub.notes.append(f"ignored symbolic link {_shown(here / d, root)}")
            elif not _utf8(d):
                sub.notes.append(f"ignored a folder whose name is not UTF-8: {_shown(here / d, root)}")
        if depth >= MAX_DEPTH and dirnames and not too_deep:
            too_deep = True
            sub.notes.append(f"ignored folders more than {MAX_DEPTH} levels deep")
        dirnames[:] = [] if depth >= MAX_DEPTH else sorted(
            d for d in dirnames if not skipped(d) and _utf8(d) and not (here / d).is_symlink()
        )
        for name in sorted(filenames):
            if not _utf8(name):
                sub.notes.append(f"ignored a file whose name is not UTF-8: {_shown(here / name, root)}")
                continue
            count += 1
            if count > MAX_ENTRIES:
                raise _too_many(count, exact=False)
            path = Path(dirpath) / name
            rel = path.relative_to(root).as_posix()
            info = path.lstat()
            mode = info.st_mode
            if stat.S_ISLNK(mode):
                sub.notes.append(f"ignored symbolic link {rel}")
                continue
            if not stat.S_ISREG(mode) or not name.endswith(READ_SUFFIXES):
                continue
            budget.admit(name, info.st_size)
            sub.files[rel] = budget.keep(name, read_upto(path, budget.cap(name), _shown(path, root)), info.st_size)
            sub.mtimes[rel] = info.st_mtime


def _shown(path: Path, root: Path) -> str:
    """A path inside a submission for a note: relative, bytes that are not UTF-8 as ``\\xNN``, capped."""
    text = os.fsencode(path.relative_to(root).as_posix()).decode("utf-8", errors="backslashreplace")
    return text if len(text) <= 200 else text[:197] + "..."


def _zip_directory(fp: BinaryIO) -> tuple[int, int] | None:
    """(members, bytes) of the zip's central directory as its end record says, or None without an end record.

    Read from the end of the file alone, before :mod:`zipfile` parses the directory (ZIP64 records included).
    """
    end = fp.seek(0, os.SEEK_END)
    fp.seek(max(0, end - ZIP_END_SEARCH))
    tail = fp.read(ZIP_END_SEARCH)
    at = len(tail) - 22 if tail[-22:-18] == b"PK\x05\x06" else tail.rfind(b"PK\x05\x06")
    if at < 0 or len(tail) - at < 22:
        return None
    members, size = struct.unpack("<10xHL6x", tail[at : at + 22])
    if members == 0xFFFF or size == 0xFFFFFFFF:  # ZIP64: its end record sits before its locator (20 bytes)
        fp.seek(max(0, end - len(tail) + at - 76))
        record = fp.read(76)
        if len(record) == 76 and record[:4] == b"PK\x06\x06" and record[56:60] == b"PK\x06\x07":
            members, size = struct.unpack("<32xQQ8x", record[:56])
    return members, size


def _read_zip(path: Path, sub: Submission) -> None:
    shown = _inert(_printable_name(path))
    try:
        with open_regular(path, shown, follow=True) as fp:
            declared = _zip_directory(fp)
            if declared is not None and declared[1] > MAX_ZIP_DIRECTORY_BYTES:
                raise SubmissionError(f"the zip's list of members is {declared[1]} bytes, more than the "
                                      f"{MAX_ZIP_DIRECTORY_BYTES} read; {SUBMIT_ONLY}")
            if declared is not None and declared[0] > MAX_ZIP_MEMBERS:
                raise SubmissionError(f"the zip has {declared[0]} members, more than the {MAX_ZIP_MEMBERS} "
                                      f"looked at; {SUBMIT_ONLY}")
            with zipfile.ZipFile(fp) as zf:
                _read_members(zf, sub)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, NotImplementedError, RuntimeError) as exc:
        raise SubmissionError(f"{shown} is not a readable zip file ({exc})") from None
    except OSError as exc:
        raise SubmissionError(f"{shown} could not be read ({exc.strerror or exc}): {MAKE_READABLE}") from None


def _read_members(zf: zipfile.ZipFile, sub: Submission) -> None:
    """Read the zip's ``.py``/``.ipynb`` members outside environment and cache folders, counted as a folder's."""
    infos = zf.infolist()
    if len(infos) > MAX_ZIP_MEMBERS:  # its end record understated them
        raise SubmissionError(f"the zip has {len(infos)} members, more than the {MAX_ZIP_MEMBERS} looked at; "
                              f"{SUBMIT_ONLY}")
    counted: list[tuple[zipfile.ZipInfo, tuple[str, ...], bool]] = []
    for info in infos:
        name = info.filename
        parts = PurePosixPath(name.replace("\\", "/")).parts
        unsafe = name.startswith(("/", "\\")) or ".." in parts or bool(parts and ":" in parts[0])
        if not info.is_dir() and (unsafe or not any(skipped(p) for p in parts[:-1])):
            counted.append((info, parts, unsafe))
    if len(counted) > MAX_ENTRIES:
        raise _too_many(len(counted), exact=True)
    budget = Budget(in_zip=True)
    for info, parts, unsafe in counted:
        name = info.filename
        if not name.endswith(READ_SUFFIXES):
            continue
        if unsafe:
            sub.notes.append(f"ignored unsafe zip entry {name!r}")
            continue
        if stat.S_ISLNK(info.external_attr >> 16):
            sub.notes.append(f"ignored symbolic link {name!r} in the zip")
            continue
        budget.admit(name, info.file_size)
        with zf.open(info) as member:
            data = member.read(budget.cap(name) + 1)
        sub.files["/".join(parts)] = budget.keep(name, data, info.file_size)
        sub.mtimes["/".join(parts)] = float(calendar.timegm((*info.date_time, 0, 0, 0)))


def resolve(
    sub: Submission, wanted: tuple[str, ...], assignment_id: str = "", template: Path | None = None
) -> dict[str, str]:
    """Map each wanted package path (``micrograd/engine.py``) to its source text.

    Looks for the package layout first (``.../micrograd/engine.py``), then the
    flat layout (``.../engine.py``), shallowest first, and for the notebook
    ``<assignment_id>.ipynb`` (else the only notebook); when both hold work,
    :func:`grader.intake.candidates.choose` decides (use it directly for the notes on
    that choice and a notebook's line map). A notebook's code becomes
    ``engine.py`` and ``nn.py`` re-exports it.

    Args:
        sub: The submission as read.
        wanted: The package paths the assignment names.
        assignment_id: The assignment's id ("" accepts only a lone notebook).
        template: The course's template folder (``Course.template_dir``), or None.

    Raises:
        SubmissionError: If a file is missing, ambiguous, or not UTF-8 text.
    """
    return choose(sub, wanted, assignment_id, template).sources


def stage(sources: dict[str, str], code_dir: Path) -> None:
    """Write the resolved files (package paths: ``micrograd/engine.py``) into ``code_dir``, each package folder with
    an empty ``__init__.py``."""
    for target, text in sources.items():
        package = (code_dir / target).parent
        package.mkdir(parents=True, exist_ok=True)
        (package / "__init__.py").write_text("", encoding="utf-8")
        (code_dir / target).write_text(text, encoding="utf-8")
