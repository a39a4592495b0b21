"""Submission intake: discovering, reading and staging student submissions.

One entry of the submissions folder is one student's submission; the
student id is the entry's name (without ``.zip``/``.ipynb``):

* a folder, in package layout (``micrograd/engine.py``) or flat layout
  (``engine.py``), possibly one folder deeper, or holding one notebook;
* a ``.zip`` of such a folder (read in memory, never extracted: absolute
  paths, ``..`` entries and symbolic links are ignored, sizes are capped);
* a ``.ipynb`` notebook (code cells; IPython syntax is never run).

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
import zipfile
from pathlib import Path, PurePosixPath

from grader.errors import GraderError, SubmissionError
from grader.intake.candidates import choose
from grader.intake.entry import Submission

MAX_FILE_BYTES = 1 << 20
"""Largest source file read from a submission, in bytes."""
MAX_TOTAL_BYTES = 20 << 20
"""Largest total of the files read from one submission, in bytes."""
MAX_ENTRIES = 5000
"""Most files or zip members looked at in one submission."""
MAX_DEPTH = 12
"""Deepest folder level read in a submission folder (deeper folders are ignored, with a note)."""
SKIP_DIRS = {"__pycache__", "__MACOSX", ".git", ".ipynb_checkpoints", "node_modules", ".venv", "venv"}
READ_SUFFIXES = (".py", ".ipynb")
SUBMISSION_SUFFIXES = (".zip", ".ipynb", ".ZIP", ".IPYNB")
"""File suffixes of a submission entry (discover() accepts any case; these are the spellings checked for rivals)."""


def discover(folder: Path) -> list[Path]:
    """List the submission entries of ``folder``, sorted by student id (see :func:`student_id`).

    Folders, ``.zip`` and ``.ipynb`` files count; hidden entries and other
    files (a README, a CSV) are not submissions.

    Raises:
        GraderError: If ``folder`` is not a directory.
    """
    if not folder.is_dir():
        raise GraderError(f"{folder} is not a folder of submissions")
    entries: dict[str, Path] = {}
    for entry in sorted(folder.iterdir()):
        if entry.name.startswith(".") or entry.name in SKIP_DIRS:
            continue
        if entry.is_symlink():
            continue
        if entry.is_dir() or entry.suffix.lower() in (".zip", ".ipynb"):
            entries[student_id(entry)] = entry
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
    name. Bytes of a name that are not UTF-8 appear as ``\\xNN``.
    """
    name = _printable_name(entry)
    if entry.is_dir():
        return name
    raw_stem = entry.name[: -len(entry.suffix)]
    rivals = [entry.parent / raw_stem] + [entry.parent / (raw_stem + suffix) for suffix in SUBMISSION_SUFFIXES]
    taken = any(r != entry and not r.is_symlink() and (r.is_dir() if r.name == raw_stem else r.is_file())
                for r in rivals)
    return name if taken else name[: -len(entry.suffix)]


def read_submission(entry: Path) -> Submission:
    """Read a submission entry into memory; problems go to ``Submission.error``."""
    sub = Submission(student_id(entry), entry)
    try:
        if entry.is_dir():
            _read_folder(entry, sub)
        elif entry.suffix.lower() == ".zip":
            _read_zip(entry, sub)
        else:
            sub.files[entry.name] = _read_capped(entry)
            sub.mtimes[entry.name] = entry.stat().st_mtime
    except SubmissionError as exc:
        sub.error = str(exc)
    if not sub.error and not sub.files:
        sub.error = "the submission is empty (no .py or .ipynb file found)"
    return sub


def _read_capped(path: Path) -> bytes:
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise SubmissionError(f"{path.name} is {size} bytes, more than the {MAX_FILE_BYTES} allowed")
    return path.read_bytes()


def _utf8(name: str) -> bool:
    """Whether a file name decoded from the file system is valid UTF-8 (no surrogate escapes)."""
    try:
        name.encode("utf-8")
        return True
    except UnicodeEncodeError:
        return False


def _read_folder(root: Path, sub: Submission) -> None:
    total = count = 0
    too_deep = False
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
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
            d for d in dirnames
            if d not in SKIP_DIRS and not d.startswith(".") and _utf8(d) and not (here / d).is_symlink()
        )
        for name in sorted(filenames):
            if not _utf8(name):
                sub.notes.append(f"ignored a file whose name is not UTF-8: {_shown(here / name, root)}")
                continue
            count += 1
            if count > MAX_ENTRIES:
                raise SubmissionError(f"the submission has more than {MAX_ENTRIES} files")
            path = Path(dirpath) / name
            rel = path.relative_to(root).as_posix()
            mode = path.lstat().st_mode
            if stat.S_ISLNK(mode):
                sub.notes.append(f"ignored symbolic link {rel}")
                continue
            if not stat.S_ISREG(mode) or not name.endswith(READ_SUFFIXES):
                continue
            data = _read_capped(path)
            total += len(data)
            if total > MAX_TOTAL_BYTES:
                raise SubmissionError(f"the submission's source files exceed {MAX_TOTAL_BYTES} bytes")
            sub.files[rel] = data
            sub.mtimes[rel] = path.lstat().st_mtime


def _shown(path: Path, root: Path) -> str:
    """A path inside a submission for a note: relative, bytes that are not UTF-8 as ``\\xNN``, capped."""
    text = os.fsencode(path.relative_to(root).as_posix()).decode("utf-8", errors="backslashreplace")
    return text if len(text) <= 200 else text[:197] + "..."


def _read_zip(path: Path, sub: Submission) -> None:
    try:
        with zipfile.ZipFile(path) as zf:
            infos = zf.infolist()
            if len(infos) > MAX_ENTRIES:
                raise SubmissionError(f"the zip has more than {MAX_ENTRIES} entries")
            total = 0
            for info in infos:
                name = info.filename
                parts = PurePosixPath(name.replace("\\", "/")).parts
                if info.is_dir() or not name.endswith(READ_SUFFIXES):
                    continue
                if name.startswith(("/", "\\")) or ".." in parts or (parts and ":" in parts[0]):
                    sub.notes.append(f"ignored unsafe zip entry {name!r}")
                    continue
                if any(p in SKIP_DIRS or p.startswith(".") for p in parts[:-1]):
                    continue
                if stat.S_ISLNK(info.external_attr >> 16):
                    sub.notes.append(f"ignored symbolic link {name!r} in the zip")
                    continue
                if info.file_size > MAX_FILE_BYTES:
                    raise SubmissionError(f"{name} in the zip is larger than {MAX_FILE_BYTES} bytes")
                with zf.open(info) as member:
                    data = member.read(MAX_FILE_BYTES + 1)
                if len(data) > MAX_FILE_BYTES:
                    raise SubmissionError(f"{name} in the zip is larger than {MAX_FILE_BYTES} bytes")
                total += len(data)
                if total > MAX_TOTAL_BYTES:
                    raise SubmissionError(f"the zip's source files exceed {MAX_TOTAL_BYTES} bytes")
                sub.files["/".join(parts)] = data
                sub.mtimes["/".join(parts)] = float(calendar.timegm((*info.date_time, 0, 0, 0)))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, NotImplementedError, RuntimeError) as exc:
        raise SubmissionError(f"{path.name} is not a readable zip file ({exc})") from None
    except OSError as exc:
        raise SubmissionError(f"{path.name} could not be read ({exc.strerror or exc})") from None


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
    """Write the resolved files into ``code_dir/micrograd/`` with an empty ``__init__.py``."""
    package = code_dir / "micrograd"
    package.mkdir(parents=True, exist_ok=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    for target, text in sources.items():
        (code_dir / target).write_text(text, encoding="utf-8")
