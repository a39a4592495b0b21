"""Which submissions a graded folder came from: ``OUT/_instructor/class.json``.

``grader grade`` records the submissions folder it graded (and its ``--deadline``, if any) so that
``grader similarity OUT`` finds the same code without being told again. The file lives with the
instructor's logs, never with student text, and is read defensively: a folder that is not an
absolute path to an existing directory, or a deadline that is not an ISO 8601 time with an offset,
is an error that says to pass ``--submissions``. ``grades.csv`` and every ``results.json`` are
unaffected by it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from grader.errors import GraderError
from grader.files import write_atomic

CLASS_FILE = Path("_instructor") / "class.json"
"""Where, under OUT, ``grader grade`` records the class it graded."""
VERSION = 1
MAX_BYTES = 64 << 10
"""Largest ``class.json`` read."""


@dataclass(frozen=True)
class GradedClass:
    """The class a folder was graded from.

    Attributes:
        submissions: The submissions folder (absolute).
        deadline: ``grader grade --deadline``: git repositories were read at their last submission before it.
    """

    submissions: Path
    deadline: datetime | None = None


def record_class(out: Path, submissions: Path, deadline: datetime | None) -> Path:
    """Write ``OUT/_instructor/class.json`` naming the graded submissions folder; return its path."""
    path = Path(out) / CLASS_FILE
    doc = {"version": VERSION, "submissions": str(Path(submissions).resolve()),
           "deadline": deadline.isoformat() if deadline is not None else None}
    write_atomic(path, json.dumps(doc, indent=2) + "\n")
    return path


def recorded_class(out: Path) -> GradedClass:
    """The class ``grader grade`` recorded in ``out``.

    Raises:
        GraderError: If there is no record, or it is not one ``grader grade`` wrote, or its folder is gone.
    """
    path = Path(out) / CLASS_FILE
    hint = "pass the submissions folder with --submissions DIR"
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_BYTES + 1)
    except OSError as exc:
        raise GraderError(f"{path} cannot be read ({exc.strerror or exc}): was {out} written by `grader grade`? "
                          f"Otherwise {hint}") from None
    if len(raw) > MAX_BYTES:
        raise GraderError(f"{path} is larger than {MAX_BYTES} bytes, so it is not the record `grader grade` writes; {hint}")
    try:
        doc = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise GraderError(f"{path} is not JSON; {hint}") from None
    if not isinstance(doc, dict) or doc.get("version") != VERSION:
        raise GraderError(f"{path} is not a class record of this grader (version {VERSION}); {hint}")
    folder, deadline = doc.get("submissions"), doc.get("deadline")
    if not isinstance(folder, str) or not folder or "\0" in folder or not Path(folder).is_absolute():
        raise GraderError(f"{path}: 'submissions' is not an absolute folder path; {hint}")
    if not Path(folder).is_dir():
        raise GraderError(f"the submissions folder recorded in {path}, {folder}, is not a folder any more; {hint}")
    when: datetime | None = None
    if deadline is not None:
        try:
            when = datetime.fromisoformat(deadline) if isinstance(deadline, str) else None
        except ValueError:
            when = None
        if when is None or when.tzinfo is None:
            raise GraderError(f"{path}: 'deadline' is not an ISO 8601 time with an offset; {hint}")
    return GradedClass(Path(folder), when)
