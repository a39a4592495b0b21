"""Instructors' downloads of a class, read as one submission per student: Canvas's bulk download and Gradescope's
export. :func:`find` recognises them in a submissions folder; :func:`grader.intake.submission.discover` lists each
student's submission as a :class:`LayoutEntry` (a path whose id, files and time come from the layout), and
:func:`grader.intake.submission.read_submission` reads it with :func:`read`, which hands each file or folder to the
reader it is given. Everything else in the folder is read as before.

**Canvas** ("Download Submissions"): a flat folder of files named ``<name>_<user id>_<file id>_<original name>``,
``<name>_LATE_...`` for late work, ``[LATE_]anon_<id>_<file id>_<original name>`` under anonymous grading, and
``<name>_<user id>_text.html`` (``_link.html``) for a text entry or a link. ``<name>`` is the sortable name in lower
case, letters, digits and ``_`` only; Canvas numbers file ids in upload order, and adds ``-1``, ``-2``... before
the extension of a name the student's files already had (``engine-1.py``). A folder is a Canvas download when more
than half of its files, among them a ``.py``, ``.ipynb`` or ``.zip``, are named so. Files are grouped by user id,
each under its original name without the ``-N``; of two of one name, the last upload counts (higher file id, then
``N``, then modification time); a ``.zip`` is read as a zip submission under its name without ``.zip``. The id is
``<name>`` (``<name>_<user id>`` for namesakes, ``anon_<id>`` when anonymous); LATE is a note. The download records
no submission time (its files' times are when Canvas made the zip): no due date is applied, and the feedback says so
and whether Canvas marked the work LATE.

**Gradescope** ("Export Submissions"): ``assignment_<id>_export/`` holds a ``submission_<id>/`` folder of each
submission's files and ``submission_metadata.yml``, mapping each folder's name to ``:submitters:`` (``:name:``,
``:sid:``, ``:email:``), ``:created_at:``, ``:score:``, ``:results:``, ``:history:``... The submissions folder is
the export or holds exports. Each folder is read as a folder submission, its id the first submitter's ``:sid:``,
else ``:email:``, else the folder's name (a group's note names the others), its time ``:created_at:``.

What a student controls is untrusted: a Canvas original name with a path separator or a control character, or
``.``/``..``, is ignored with a note; links are never followed; ids from metadata keep letters, digits and
``@._+-`` (the rest becomes ``_``), lose leading dots, are capped (:data:`MAX_ID_CHARS`) and fall back to the
folder's name (Canvas: ``<name>_<user id>``) when another submission has them. The metadata is read, never through a
link, up to :data:`~grader.intake.metadata_yaml.MAX_METADATA_BYTES` with YAML's safe loader, its values counted with aliases expanded (never
expanded) before they are built: larger, more than :data:`~grader.intake.metadata_yaml.MAX_METADATA_VALUES` values, not UTF-8 YAML or not a
mapping is one :class:`~grader.errors.GraderError` naming the file; a record unlike Gradescope's is a note on its
submission, and a ``:created_at:`` that is not text or a YAML timestamp is not a date.

Sources (formats only, no code copied): Canvas's ``lib/content_zipper.rb`` (``get_filename``,
``add_upload_submission``, ``sanitize_user_name``, ``sanitize_attachment_filename``) and
``Attachment.make_unique_filename``, https://github.com/instructure/canvas-lms; Canvas_submission_sort (``LATE``,
``-N``), https://github.com/TimHanneman/Canvas_submission_sort; otter-grader's ``otter/grade/metadata.py`` (Canvas
names; metadata keyed by folder, ``:submitters:``), https://github.com/ucbds-infra/otter-grader; Gradescope's
submission metadata (``created_at`` is the submission time),
https://gradescope-autograders.readthedocs.io/en/latest/submission_metadata/.
"""

from __future__ import annotations

import re
import stat
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path, PosixPath, WindowsPath

from grader.errors import SubmissionError
from grader.intake.entry import Recorded, Submission
from grader.intake.metadata_yaml import own_stat, read_metadata

METADATA = "submission_metadata.yml"
"""The name of a Gradescope export's metadata file."""
MAX_ID_CHARS = 100
"""Longest student id taken from a layout, in characters."""
MAX_MEMBERS = 1000
"""Most files of one student read from a Canvas download."""
GRADESCOPE_TIME = "the submission time Gradescope recorded"
"""The evidence of a Gradescope submission's time (:func:`grader.grading.due_work.submitted_at`)."""
CANVAS_SUFFIXES = (".py", ".ipynb", ".zip")
"""The uploads read from a Canvas download (a ``.zip`` as a zip submission); other files are not code."""
EMPTY = "the submission is empty (no .py, .ipynb or .yaml file found)"
EXPORT_FOLDER = re.compile(r"assignment_\d+_export")
SUBMISSION_FOLDER = re.compile(r"submission_\d+")
RANDOM_ATTEMPT = 8
"""The ``N`` given to a name Canvas made unique with a random suffix (it does so after ``-7``)."""

_UPLOAD = re.compile(r"(?P<name>\w+?)(?P<late>_LATE)?_(?P<user>\d+)_(?P<file>\d+)_(?P<original>.+)", re.S)
_ANONYMOUS = re.compile(r"(?P<late>LATE_)?(?P<user>anon_[A-Za-z0-9]+)_(?P<file>\d+)_(?P<original>.+)", re.S)
_TEXT = re.compile(r"(?:(?P<name>\w+?)(?P<late>_LATE)?_(?P<user>\d+)|(?P<alate>LATE_)?(?P<anon>anon_[A-Za-z0-9]+))"
                   r"_(?:text|link)\.html")
_EXTENSION = re.compile(r"(?:\.[A-Za-z][A-Za-z0-9]*)*\.[A-Za-z0-9]*$")  # Canvas's own rule for a name's extension
_TAKEN = re.compile(r"-(?:(?P<n>[1-9][0-9]{0,5})|[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12})$")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_TIME = re.compile(r"(\d{4})-(\d\d)-(\d\d)[T ](\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?\s*(Z|[+-]\d\d(?::?\d\d)?)?")

if sys.platform == "win32":
    _ConcretePath = WindowsPath
else:
    _ConcretePath = PosixPath


@dataclass(frozen=True)
class Member:
    """One file of a student's Canvas submission: its original name, and the file in the download."""

    original: str
    path: Path


class LayoutEntry(_ConcretePath):
    """A submission entry a layout stands for: a student's files in a Canvas download (a path named after the
    student, next to them), or a Gradescope export's ``submission_<id>`` folder. Paths made from it keep the class,
    not its data.

    Attributes:
        student: The student id.
        fallback: The id it takes when another submission has ``student``: the folder's name (Canvas:
            ``<name>_<user id>``).
        notes: What the layout says of it (late in Canvas, files ignored, a group submission), for the feedback.
        recorded: When the platform recorded it as submitted.
        folder: The folder read (Gradescope), or None.
        members: The files read (Canvas).
    """

    student: str = ""
    fallback: str = ""
    notes: tuple[str, ...] = ()
    recorded: Recorded | None = None
    folder: Path | None = None
    members: tuple[Member, ...] = ()

    @classmethod
    def of(cls, path: Path, student: str, fallback: str, notes: list[str], recorded: Recorded | None,
           folder: Path | None = None, members: tuple[Member, ...] = ()) -> LayoutEntry:
        """The entry at ``path`` (a Canvas student's: next to their files, named after them) with these data."""
        entry = cls(path)
        entry.student, entry.fallback, entry.notes, entry.recorded = student, fallback, tuple(notes), recorded
        entry.folder, entry.members = folder, members
        return entry


@dataclass(frozen=True)
class CanvasName:
    """A file name of Canvas's download, parsed.

    Attributes:
        student: Whose file it is: Canvas's user id, or ``anon_<id>`` under anonymous grading.
        name: The student's name as Canvas wrote it (``smithjane``; ``anon_<id>`` when anonymous).
        late: Whether Canvas marked the submission LATE.
        file_id: The uploaded file's id (Canvas numbers them in upload order); -1 for a text entry or a link.
        original: The file's name as uploaded, without Canvas's ``-N`` ("" for a text entry or a link).
        attempt: The ``N`` of the ``-N`` Canvas added (0 without one).
        unsafe: Why the original name is refused ("" when it is safe).
    """

    student: str
    name: str
    late: bool
    file_id: int
    original: str
    attempt: int = 0
    unsafe: str = ""


def canvas_name(file_name: str) -> CanvasName | None:
    """``file_name`` parsed as Canvas names a file of its download, or None when it is not such a name (one that
    holds ``/`` or is not UTF-8 never is)."""
    if "/" in file_name or len(file_name) > 1024 or any("\udc80" <= c <= "\udcff" for c in file_name):
        return None  # a path, or bytes that are not UTF-8 (os.fsdecode's escapes)
    if m := _UPLOAD.fullmatch(file_name) or _ANONYMOUS.fullmatch(file_name):
        original, attempt = _without_attempt(m["original"])
        return CanvasName(m["user"], m.groupdict().get("name") or m["user"], bool(m["late"]), int(m["file"]),
                          original, attempt, _unsafe(m["original"]))
    if m := _TEXT.fullmatch(file_name):
        return CanvasName(m["user"] or m["anon"], m["name"] or m["anon"], bool(m["late"] or m["alate"]), -1, "")
    return None


def _unsafe(original: str) -> str:
    if original in (".", ".."):
        return f"{original!r} names a folder"
    return "it holds a path separator or a control character" if "\\" in original or _CONTROL.search(original) else ""


def _without_attempt(original: str) -> tuple[str, int]:
    """``original`` without the ``-N`` Canvas adds before the extension, and ``N`` (0 without one)."""
    found = _EXTENSION.search(original)
    extension = found.group() if found else ""
    base = original[: len(original) - len(extension)]
    taken = _TAKEN.search(base)
    if taken is None or taken.start() == 0:
        return original, 0
    return base[: taken.start()] + extension, int(taken["n"]) if taken["n"] else RANDOM_ATTEMPT


def _shown(name: str) -> str:
    """A file name for a note: control characters as ``?``, capped."""
    text = _CONTROL.sub("?", name)
    return text if len(text) <= 120 else text[:117] + "..."


def safe_id(value: object) -> str:
    """A student id made of a metadata value (a string or an integer), safe as one folder's name: letters, digits
    and ``@._+-`` kept, anything else ``_``, no leading dot, at most :data:`MAX_ID_CHARS`; "" when nothing is left."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        return ""
    text = str(value)[: 4 * MAX_ID_CHARS].strip()
    text = "".join(c if c.isalnum() or c in "@._+-" else "_" for c in text).lstrip(".")[:MAX_ID_CHARS]
    return text if text.strip("_") else ""


@dataclass
class Layouts:
    """What :func:`find` recognised in a submissions folder.

    Attributes:
        claimed: Names of the folder's own entries a layout stands for (Canvas's files, a Gradescope export, its
            folders and metadata): none of them is a submission of its own.
        found: The submissions they stand for.
    """

    claimed: set[str] = field(default_factory=set)
    found: list[LayoutEntry] = field(default_factory=list)

    def entries(self, taken: set[str]) -> list[LayoutEntry]:
        """The layouts' entries beside entries whose ids are ``taken`` (which gets theirs): an id already taken
        falls back to the entry's :attr:`~LayoutEntry.fallback`, with a note."""
        entries = []
        for e in self.found:
            student, k = e.student, 2
            if student in taken:
                student = e.fallback
                while student in taken:
                    student, k = f"{e.fallback}-{k}", k + 1
                e = LayoutEntry.of(e.parent / student if e.folder is None else e, student, e.fallback,
                                   [*e.notes, f"graded as {student}: {e.student} is another submission's id too"],
                                   e.recorded, e.folder, e.members)
            taken.add(student)
            entries.append(e)
        return entries


def find(folder: Path) -> Layouts:
    """The Gradescope exports (``folder`` itself, or its ``assignment_<id>_export`` folders) and the Canvas download
    (``folder``'s own files) in ``folder``.

    Raises:
        GraderError: If an export's metadata cannot be read: a link or not a file, larger than
            :data:`~grader.intake.metadata_yaml.MAX_METADATA_BYTES`, not UTF-8 YAML, or not a mapping.
    """
    layouts = Layouts()
    top = own_stat(folder / METADATA) is not None
    exports = [folder] if top else [p for p in sorted(folder.iterdir()) if EXPORT_FOLDER.fullmatch(p.name)
                                    and _is_dir(p) and own_stat(p / METADATA) is not None]
    for export in exports:
        metadata = read_metadata(export / METADATA)
        layouts.claimed.update([METADATA] if top else [export.name])
        for sub in sorted(export.iterdir()):
            if (SUBMISSION_FOLDER.fullmatch(sub.name) or sub.name in metadata) and not sub.name.startswith(".") \
                    and _is_dir(sub):
                layouts.found.append(_gradescope(sub, metadata.get(sub.name)))
                if top:
                    layouts.claimed.add(sub.name)
    if not top:
        _canvas(folder, layouts)
    return layouts


def _is_dir(path: Path) -> bool:  # never a link to a folder
    info = own_stat(path)
    return info is not None and stat.S_ISDIR(info.st_mode)


def submitter_id(person: object) -> str:
    """The id a Gradescope submitter is graded under: their ``sid``, else their ``email`` (:func:`safe_id`); "" when
    neither. The export's ``:sid:`` keys and the live autograder's ``sid`` keys alike."""
    return safe_id(_get(person, "sid")) or safe_id(_get(person, "email"))


def _get(record: object, key: str) -> object:
    """``record``'s ``:key`` (as Gradescope writes its keys), else its ``key``; None when absent or not a mapping."""
    if not isinstance(record, dict):
        return None
    return record.get(f":{key}", record.get(key))


def _gradescope(folder: Path, record: object) -> LayoutEntry:
    """One ``submission_<id>`` folder of an export, with its ``record`` in the metadata (None without one)."""
    name, notes = folder.name, []
    submitters = _get(record, "submitters")
    people = [p for p in submitters if isinstance(p, dict)] if isinstance(submitters, list) else []
    ids = [submitter_id(p) for p in people]
    student = ids[0] if ids and ids[0] else name
    if record is None:
        notes.append(f"{METADATA} has no record of {name}: graded under the folder's name")
    elif not isinstance(record, dict) or not people:
        notes.append(f"{METADATA}'s record of {name} names no submitter: graded under the folder's name")
    elif student == name:
        notes.append(f"{METADATA} gives no student id (:sid:) or email for {name}: graded under the folder's name")
    if len(people) > 1:
        others = ", ".join(i or "(no id)" for i in ids[1:11]) + (", ..." if len(ids) > 11 else "")
        notes.append(f"a group submission of {len(people)} students, graded under the first; the others: {others}")
    created = _get(record, "created_at")
    when = _timestamp(created)
    if when is not None:
        recorded = Recorded(when, GRADESCOPE_TIME)
    elif created is None:
        recorded = Recorded(None, "Gradescope's metadata records no submission time for it")
    else:
        notes.append(f"{METADATA}'s :created_at: for {name} is not a date and time")
        recorded = Recorded(None, "Gradescope's recorded submission time could not be read")
    return LayoutEntry.of(folder, student, name, notes, recorded, folder=folder)


def _timestamp(value: object) -> datetime | None:
    """A ``:created_at:`` as an aware datetime (YAML's own timestamp, or its text; without a zone, UTC); None for
    anything else (a list, a mapping: never turned into text, which an alias can make billions of characters)."""
    if not isinstance(value, (str, datetime)):
        return None
    when, m = (value, None) if isinstance(value, datetime) else (None, _TIME.fullmatch(value.strip()[:64]))
    if m is not None:
        try:
            year, month, day, hour, minute, second = (int(g) for g in m.group(1, 2, 3, 4, 5, 6))
            when = datetime(year, month, day, hour, minute, second, int((m[7] or "0")[:6].ljust(6, "0")))
            if m[8] and m[8] != "Z":
                digits = m[8][1:].replace(":", "")
                offset = timedelta(hours=int(digits[:2]), minutes=int(digits[2:] or "0"))
                when = when.replace(tzinfo=timezone(-offset if m[8][0] == "-" else offset))
        except ValueError:
            return None
    return when if when is None or when.tzinfo is not None else when.replace(tzinfo=timezone.utc)


def _canvas(folder: Path, layouts: Layouts) -> None:
    """Add the Canvas download made of ``folder``'s files, if they are one (see the module docstring)."""
    files = [p for p in sorted(folder.iterdir()) if not p.name.startswith(".") and p.name not in layouts.claimed
             and not _is_dir(p)]
    named = [(p, n) for p in files if (n := canvas_name(p.name)) is not None]
    if 2 * len(named) <= len(files) or not any(n.original.lower().endswith(CANVAS_SUFFIXES) for _, n in named):
        return
    students: dict[str, list[tuple[Path, CanvasName]]] = {}
    for path, parsed in named:
        students.setdefault(parsed.student, []).append((path, parsed))
        layouts.claimed.add(path.name)
    names = Counter(group[0][1].name for group in students.values())
    for user, group in sorted(students.items()):
        name = group[0][1].name
        fallback = safe_id(user if user.startswith("anon_") else f"{name}_{user}") or safe_id(user)
        student = (safe_id(name) if names[name] == 1 else "") or fallback
        layouts.found.append(_canvas_student(folder / student, student, fallback, group))


def _canvas_student(path: Path, student: str, fallback: str, group: list[tuple[Path, CanvasName]]) -> LayoutEntry:
    """One student's files of a Canvas download: the last upload of each original name, and the notes."""
    notes: list[str] = []
    late = any(n.late for _, n in group)
    if late:
        notes.append("Canvas marked this submission LATE (handed in after its due date in Canvas)")
    if any(n.file_id < 0 for _, n in group):
        notes.append("Canvas holds a text entry or a link for this submission: only uploaded files are graded")
    latest: dict[str, tuple[tuple[int, int, float], Path, list[str]]] = {}
    for path, parsed in group:
        if parsed.file_id < 0:
            continue
        if parsed.unsafe:
            notes.append(f"ignored {_shown(path.name)}: its original name is not a safe file name ({parsed.unsafe})")
            continue
        info = own_stat(path)
        order = (parsed.file_id, parsed.attempt, info.st_mtime if info is not None else 0.0)
        kept = latest.get(parsed.original)
        if kept is None or order > kept[0]:
            latest[parsed.original] = (order, path, (kept[2] + [kept[1].name]) if kept else [])
        else:
            kept[2].append(path.name)
    for original, (_, path, older) in sorted(latest.items()):
        if older:
            notes.append(f"{_shown(original)}: graded the last upload, {_shown(path.name)}, not "
                         f"{', '.join(_shown(o) for o in sorted(older))}")
    evidence = ("Canvas's download records no submission time; Canvas marked it LATE" if late
                else "Canvas's download records no submission time; Canvas did not mark it late")
    members = tuple(Member(original, path) for original, (_, path, _) in sorted(latest.items()))
    return LayoutEntry.of(path, student, fallback, notes, Recorded(None, evidence), members=members)


def read(entry: LayoutEntry, read_path: Callable[[Path], Submission], max_bytes: int) -> Submission:
    """Read a layout's ``entry``: its folder, or its files each under its original name, with ``read_path``
    (:func:`grader.intake.submission.read_submission`, whose caps apply to each), keeping ``max_bytes`` at most
    together; problems go to ``Submission.error``."""
    sub = Submission(entry.student, entry, notes=list(entry.notes), recorded=entry.recorded)
    try:
        if entry.folder is not None:
            part = read_path(entry.folder)
            sub.notes += part.notes
            if part.error:
                raise SubmissionError(part.error)
            sub.files, sub.mtimes = part.files, part.mtimes
        if len(entry.members) > MAX_MEMBERS:
            raise SubmissionError(f"Canvas's download holds {len(entry.members)} files of this submission, more "
                                  f"than the {MAX_MEMBERS} read")
        for member in entry.members:
            _read_member(sub, member, read_path, max_bytes)
    except SubmissionError as exc:
        sub.error = str(exc)
    if not sub.error and not sub.files:
        sub.error = EMPTY
    return sub


def _read_member(sub: Submission, member: Member, read_path: Callable[[Path], Submission], max_bytes: int) -> None:
    """Add one Canvas file to ``sub``: a ``.py`` or ``.ipynb`` under its original name, a ``.zip``'s files under
    its name without ``.zip``; a link is never followed, other files are not code."""
    info = own_stat(member.path)
    lower = member.original.lower()
    if info is not None and stat.S_ISLNK(info.st_mode):
        sub.notes.append(f"ignored symbolic link {_shown(member.path.name)}")
        return
    if info is None or not lower.endswith(CANVAS_SUFFIXES):
        return
    if not stat.S_ISREG(info.st_mode):
        if not stat.S_ISDIR(info.st_mode):
            sub.notes.append(f"ignored {_shown(member.path.name)}: not a regular file (a FIFO or a device)")
        return
    part = read_path(Path(member.path))
    zipped = lower.endswith(".zip")
    sub.notes += [f"{_shown(member.original)}: {note}" for note in part.notes]
    if zipped and part.error == EMPTY:
        return  # a zip of other things than code
    if part.error:
        raise SubmissionError(f"{_shown(member.original)} ({_shown(member.path.name)}): {part.error}")
    for rel, data in part.files.items():
        key = f"{member.original[:-4]}/{rel}" if zipped else member.original
        sub.files[key], sub.mtimes[key] = data, part.mtimes.get(rel, 0.0)
    if sum(len(data) for data in sub.files.values()) > max_bytes:
        raise SubmissionError(f"the submission's source files exceed {max_bytes} bytes")
