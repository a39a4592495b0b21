"""The clean zip a student hands in (``grader submit-zip``), built from their copy of the release and read back.

What goes in: for each assignment of the course (or those given with ``-a``), the files it names
(``micrograd/engine.py``...) and its notebook ``notebooks/<id>.ipynb``, when ``FOLDER`` holds them as regular
files (not links). Each notebook goes in without its outputs, execution counts, attachments and widget state
(:func:`grader.intake.notebook.without_outputs`: nothing graded is lost). Nothing else goes in: environment and
cache folders (``.venv``, ``__pycache__``..., :data:`grader.intake.submission.SKIP_DIRS`, any folder starting
with ``.``) are counted, not walked, and every other file is counted as left out.

The zip is deterministic: members sorted by name, no folder entries, the same permissions (0644), compression
and system for each. The one date it records per member is that file's own modification time, written in the
course's time zone (``time_zone`` of ``assignments/course.yaml``, else this machine's), which is how
``grader grade`` reads a zip's dates to tell late work (:mod:`grader.grading.due_work`); a zip keeps it to
2 seconds, rounded down, within 1980 to 2107.

It never overwrites a file it did not write: an existing ``--output`` is replaced only when it is a zip an earlier
``grader submit-zip`` wrote (its comment says so). It then reads the zip back as ``grader grade`` does
(:func:`grader.intake.submission.read_submission`) and says, per assignment, what would be graded, or why not.
"""

from __future__ import annotations

import io
import os
import secrets
import stat
import zipfile
from datetime import datetime, tzinfo
from pathlib import Path

from grader.course.config import Assignment
from grader.errors import GraderError, SubmissionError
from grader.intake.answers_file import answers_text
from grader.intake.candidates import STUB, choose
from grader.intake.notebook import without_outputs
from grader.intake.submission import read_submission, skipped

OUTPUT = "submission.zip"
"""The zip's name in the student's folder when no other is given."""
MARK = b"written by grader submit-zip"
"""The zip comment that lets a later ``grader submit-zip`` replace the zip."""
MAX_WALK = 100_000
"""Most files counted as left out (the count says "more than" beyond it)."""


def course_files(folder: Path, assignments: list[Assignment]) -> list[str]:
    """The files of ``assignments`` (their ``files`` and ``notebooks/<id>.ipynb``) that ``folder`` holds as regular
    files, sorted.

    Raises:
        GraderError: If it holds none of them.
    """
    wanted = sorted({f for a in assignments for f in a.files} | {f"notebooks/{a.id}.ipynb" for a in assignments})
    found = [name for name in wanted if _regular(folder, name)]
    if not found:
        raise GraderError(f"nothing to submit: {folder} holds none of the files the course names "
                          f"({', '.join(wanted[:4])}{', ...' if len(wanted) > 4 else ''}); run grader submit-zip "
                          f"in your copy of the release, where {assignments[0].package if assignments else 'your package'}/ and "
                          "notebooks/ are")
    return found


def write_hand_in(folder: Path, found: list[str], output: Path, zone: tzinfo | None) -> list[str]:
    """Write the zip of ``found`` (files of ``folder``) to ``output``, notebooks without their outputs, each file's
    date in ``zone``; one line per file put in, saying what was done to it."""
    members, shown = [], []
    for name in found:
        data = (folder / name).read_bytes()
        if name.endswith(".ipynb"):
            try:
                data, note = without_outputs(data).data, " (outputs cleared)"
            except ValueError as exc:
                note = f" (put in as it is: its outputs could not be cleared, {exc})"
            shown.append(name + note)
        else:
            shown.append(name)
        members.append((name, data, _zip_time((folder / name).stat().st_mtime, zone)))
    _write(output, members)
    return shown


def _regular(folder: Path, name: str) -> bool:
    """Whether ``folder / name`` is a regular file, not a link, nor in a folder of ``folder`` that is one."""
    parts = name.split("/")
    try:
        return (stat.S_ISREG((folder / name).lstat().st_mode)
                and not any(folder.joinpath(*parts[:i]).is_symlink() for i in range(1, len(parts))))
    except OSError:
        return False


def check_output(output: Path) -> None:
    """Refuse an output that is not a ``.zip``, or an existing file an earlier ``grader submit-zip`` did not write.

    Raises:
        GraderError: If so.
    """
    if output.suffix.lower() != ".zip":
        raise GraderError(f"{output} is not a .zip: give the zip to write with -o NAME.zip")
    if not os.path.lexists(output):
        return
    try:
        with zipfile.ZipFile(output) as zf:
            ours = zf.comment == MARK and output.is_file() and not output.is_symlink()
    except (OSError, zipfile.BadZipFile, ValueError):
        ours = False
    if not ours:
        raise GraderError(f"{output} exists and grader submit-zip did not write it: it is left as it is; "
                          "give another name with -o NAME.zip, or move that file away")


def _zip_time(mtime: float, zone: tzinfo | None) -> tuple[int, int, int, int, int, int]:
    """A zip member's date for the modification time ``mtime`` (seconds since the epoch): in ``zone`` (else this
    machine's), within the years a zip can hold."""
    try:
        when = datetime.fromtimestamp(mtime, zone) if zone is not None else datetime.fromtimestamp(mtime)
    except (OverflowError, OSError, ValueError):
        return (1980, 1, 1, 0, 0, 0)
    if when.year < 1980:
        return (1980, 1, 1, 0, 0, 0)
    if when.year > 2107:
        return (2107, 12, 31, 23, 59, 58)
    return (when.year, when.month, when.day, when.hour, when.minute, when.second)


def _write(output: Path, members: list[tuple[str, bytes, tuple[int, int, int, int, int, int]]]) -> None:
    """Write the zip of ``members`` (name, bytes, date) to ``output`` through a new temporary file and a rename."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, data, date in members:
            info = zipfile.ZipInfo(name, date)
            info.create_system = 3  # Unix, whatever this machine is, so the bytes are the same everywhere
            info.external_attr = (stat.S_IFREG | 0o644) << 16
            zf.writestr(info, data, compress_type=zipfile.ZIP_DEFLATED, compresslevel=9)
        zf.comment = MARK
    output.parent.mkdir(parents=True, exist_ok=True)
    temporary = output.with_name(f".{output.name}.{secrets.token_hex(6)}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(buffer.getvalue())
        os.replace(temporary, output)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def left_out(folder: Path, put_in: set[str], output: Path) -> str:
    """One line: how many environment and cache folders (named) and other files of ``folder`` were left out."""
    caches: set[str] = set()
    skipped_folders = others = 0
    for dirpath, dirnames, filenames in os.walk(folder, followlinks=False):
        here = Path(dirpath)
        for d in [d for d in dirnames if skipped(d)]:
            caches.add(d)
            skipped_folders += 1
        dirnames[:] = sorted(d for d in dirnames if not skipped(d))
        for name in filenames:
            path = here / name
            if path.relative_to(folder).as_posix() not in put_in and path != output:
                others += 1
        if others > MAX_WALK:
            return f"Left out: more than {MAX_WALK} files, and environment and cache folders"
    names = ", ".join(sorted(caches)[:6]) + (", ..." if len(caches) > 6 else "")
    folders = (f"{skipped_folders} environment and cache folder{'s' if skipped_folders != 1 else ''} ({names})"
               if skipped_folders else "no environment or cache folder")
    return f"Left out: {folders}, and {others} other file{'s' if others != 1 else ''} the course does not grade"


def read_back(output: Path, assignments: list[Assignment], template: Path) -> tuple[list[str], int]:
    """Read ``output`` as ``grader grade`` does: one line per assignment saying what would be graded or why not
    (or one line when the zip cannot be read at all), and how many assignments are gradable from it."""
    sub = read_submission(output)
    if sub.error:
        return [f"Not gradable as it is: {sub.error}"], 0
    lines, gradable = [f"Read back as the grader reads it ({output.name}):"], 0
    for a in assignments:
        if a.is_concept_check:
            try:
                _, where = answers_text(sub, a.files[0], a.id)
            except SubmissionError as exc:
                lines.append(f"  {a.id}: not gradable: {exc}")
            else:
                gradable += 1
                lines.append(f"  {a.id}: gradable, from {where}")
            continue
        try:
            resolved = choose(sub, a.files, a.id, template if template.is_dir() else None, own=a.own_modules,
                              classes=a.defines)
        except SubmissionError as exc:
            lines.append(f"  {a.id}: not gradable: {exc}")
            continue
        gradable += 1
        source = resolved.line_map["notebook"] if resolved.line_map else " and ".join(a.files)
        stubs = sum(len(STUB.findall(text)) for text in resolved.sources.values())
        left = f", {stubs} NotImplementedError stub{'s' if stubs != 1 else ''} left" if stubs else ""
        lines.append(f"  {a.id}: gradable, from {source}{left}")
    return lines, gradable
