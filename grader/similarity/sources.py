"""Each submission's code for an assignment, read the way intake reads it and never run.

A submission entry is read with :func:`grader.intake.submission.read_submission` (or, for a class
graded with ``--deadline``, its git repository at the deadline), and the files standing for an
assignment are chosen by :func:`grader.intake.candidates.choose`: the ``.py`` files the assignment
names, or the student's notebook, whose code cells become one module. A *document* is that code: the
files' texts one after the other (engine, then network), or the notebook's code cells.

A corpus folder holds submissions in the same layouts (folders, ``.zip``, ``.ipynb``), read the same
way, and may also hold plain ``.py`` files at its top level: each is one document, compared with
every assignment's code.

Nothing here stops a run: whatever cannot be read (not UTF-8, binary, too large, not a notebook,
missing files) becomes a :class:`Note` for that submission, with the reason.
"""

from __future__ import annotations

import dataclasses
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from grader.course.config import Assignment
from grader.errors import SubmissionError
from grader.intake.candidates import choose, find_files, find_notebook
from grader.intake.entry import Submission
from grader.intake.git_history import is_repository, read_at_commits, read_at_deadline
from grader.intake.notebook import cap
from grader.intake.regular_files import read_upto
from grader.intake.submission import MAX_FILE_BYTES, discover, read_submission, student_id

MAX_DOCUMENT_CHARS = 200_000
"""Longest document compared, in characters (a submission's files for one assignment, together; a whole engine and
network take about 20,000). Tokenising 200,000 characters of the worst kind takes about a second."""
CLASS = "class"
"""The origin of the class's own submissions (a corpus document's origin is its folder's name)."""


@dataclass(frozen=True)
class Document:
    """The code of one submission (or corpus file) for one assignment.

    Attributes:
        origin: ``"class"``, or the name of the corpus folder it comes from.
        owner: The student id (the entry's name; for a plain corpus file, its file name).
        label: What was compared, for people (``micrograd/engine.py``, ``notebooks/mlp.ipynb (code cells)``).
        text: The code: the files one after the other.
        parts: ``(offset in text, file label)`` where each file starts.
        notebook: Whether the code is a notebook's code cells.
    """

    origin: str
    owner: str
    label: str
    text: str
    parts: tuple[tuple[int, str], ...]
    notebook: bool = False


@dataclass(frozen=True)
class Note:
    """Why a submission was not compared (or was compared only in part) for an assignment.

    Attributes:
        origin: ``"class"`` or the corpus folder's name.
        owner: The student id or corpus entry.
        assignment: The assignment's id ("" for every assignment).
        note: One line saying what happened.
    """

    origin: str
    owner: str
    assignment: str
    note: str


@dataclass
class Source:
    """A folder of submissions as read: each assignment's documents, and notes on what could not be compared.

    Attributes:
        origin: ``"class"`` or the corpus folder's name.
        documents: Assignment id to its documents, in the folder's order.
        notes: Submissions (or files) not compared, with why.
        entries: How many entries were read.
    """

    origin: str
    documents: dict[str, list[Document]]
    notes: list[Note]
    entries: int = 0


def read_entry(entry: Path, deadline: datetime | None) -> Submission:
    """One entry: with a ``deadline``, a git repository at its latest submission before it; else as it is."""
    if deadline is not None and is_repository(entry):
        return read_at_deadline(entry, deadline)
    return read_submission(entry)


def read_folder(folder: Path, origin: str, assignments: list[Assignment], template: Path | None,
                deadline: datetime | None = None, commits: Mapping[str, Mapping[str, str]] | None = None,
                students: Mapping[str, str] | None = None) -> Source:
    """Every document of ``folder`` for each of ``assignments``: one per submission entry, and, for a corpus, one
    per plain top-level ``.py`` file. Each entry is read, its documents kept and the rest let go, one at a time.

    Args:
        folder: The class's submissions folder, or a corpus folder.
        origin: ``"class"`` or the corpus folder's name.
        assignments: The assignments (their ``files`` and ids choose the code, as grading does).
        template: The course's template folder, so an untouched ``.py`` package next to a worked notebook is
            not what is compared (:func:`grader.intake.candidates.choose`); None without one.
        deadline: Read git repositories at their latest submission before it (``grader grade --deadline``).
        commits: Student id to assignment id to the commit graded (what the class's results record): a git
            repository is read at those commits for those assignments (due dates of their own, extensions).
        students: An entry's name to the student it is (the roster's id: :func:`grader.course.roster.identify`, as
            grading does), for the documents' owners and ``commits``; a name not in it is its own student.

    Raises:
        GraderError: If ``folder`` is not a directory.
    """
    source = Source(origin, {a.id: [] for a in assignments}, [])
    for entry in discover(folder):
        source.entries += 1
        owner = (students or {}).get(student_id(entry), student_id(entry))
        graded = (commits or {}).get(owner, {})
        graded = {a.id: graded[a.id] for a in assignments if a.id in graded} if is_repository(entry) else {}
        try:
            at = dict(zip(graded, read_at_commits(entry, list(graded.values())))) if graded else {}
            plain = read_entry(entry, deadline) if len(at) < len(assignments) else next(iter(at.values()))
        except (SubmissionError, OSError) as exc:
            source.notes.append(Note(origin, owner, "", _line(f"could not be read: {exc}")))
            continue
        if owner != plain.id:  # the student the roster says it is, in every pair and note
            at = {aid: dataclasses.replace(sub, id=owner) for aid, sub in at.items()}
            plain = dataclasses.replace(plain, id=owner)
        if origin != CLASS and not plain.files and plain.error.startswith("the submission is empty"):
            continue  # a corpus's folder without code (a wheel's .dist-info): nothing to compare
        for a in assignments:
            sub = at.get(a.id, plain)
            try:
                _keep(source, a, _document(origin, sub, a, template))
            except SubmissionError as exc:
                source.notes.append(Note(origin, sub.id, a.id, _line(str(exc))))
    if origin != CLASS:
        for name, text in _loose(folder, source):
            for a in assignments:
                _keep(source, a, Document(origin, name, name, text, ((0, name),)))
    return source


def _keep(source: Source, assignment: Assignment, doc: Document) -> None:
    """Keep ``doc`` for ``assignment``, unless it is too long to compare (then a note says so)."""
    if len(doc.text) > MAX_DOCUMENT_CHARS:
        source.notes.append(Note(source.origin, doc.owner, assignment.id,
                                 f"its code is {len(doc.text)} characters, more than the {MAX_DOCUMENT_CHARS} "
                                 "compared: not compared (look at it yourself)"))
    else:
        source.documents[assignment.id].append(doc)


def _loose(folder: Path, source: Source) -> list[tuple[str, str]]:
    """A corpus folder's plain top-level ``.py`` files, as (shown name, text); notes for those that cannot be read."""
    found = []
    for path in sorted(folder.iterdir()):
        if path.suffix != ".py" or path.name.startswith("."):
            continue
        name = _shown(path.name)
        try:
            if not stat.S_ISREG(path.lstat().st_mode):
                continue
            data = read_upto(path, MAX_FILE_BYTES, name)  # never a FIFO or a device put there since
            if len(data) > MAX_FILE_BYTES:
                source.notes.append(Note(source.origin, name, "", f"larger than {MAX_FILE_BYTES} bytes: not compared"))
                continue
            found.append((name, data.decode("utf-8-sig")))
        except SubmissionError as exc:
            source.notes.append(Note(source.origin, name, "", _line(str(exc))))
        except UnicodeDecodeError:
            source.notes.append(Note(source.origin, name, "", "not UTF-8 text: not compared"))
        except OSError as exc:
            source.notes.append(Note(source.origin, name, "", _line(f"could not be read: {exc.strerror or exc}")))
    return found


def _document(origin: str, sub: Submission, assignment: Assignment, template: Path | None) -> Document:
    resolved = choose(sub, assignment.files, assignment.id, template, own=assignment.own_modules,
                      classes=assignment.defines)
    if resolved.line_map is not None:  # a notebook: its code cells, as one module
        name = find_notebook(sub, assignment.id) or resolved.line_map["notebook"]
        label = f"{cap(name, 80)} (code cells)"
        code = resolved.sources[resolved.line_map["module"]]  # the notebook's code is the assignment's first file
        return Document(origin, sub.id, label, code, ((0, label),), notebook=True)
    paths = find_files(sub, assignment.files)
    texts, parts, offset = [], [], 0
    for target in assignment.files:
        text = resolved.sources[target]
        if text and not text.endswith("\n"):
            text += "\n"
        parts.append((offset, cap(paths.get(target, target), 80)))
        texts.append(text)
        offset += len(text)
    return Document(origin, sub.id, " and ".join(p for _, p in parts), "".join(texts), tuple(parts))


def _shown(name: str) -> str:
    """A file name for notes and pages: bytes that are not UTF-8 as ``\\xNN``, control characters as ``?``, capped."""
    return cap(name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace"), 80)


def _line(text: str) -> str:
    """One line of at most 300 characters."""
    text = " ".join(text.split())
    return text if len(text) <= 300 else text[:297] + "..."
