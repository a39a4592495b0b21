"""One student's submission as read from disk: the record intake hands to the rest of the grader.

Its own module, below :mod:`.candidates` and :mod:`.submission`, which both use it (so neither imports the
other for its type).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

MAX_ANSWERS_BYTES = 64 * 1024
"""The largest concept check's answers intake hands on, in bytes (a filled-in file of a few dozen questions is 1-4 KiB):
:mod:`grader.intake.answers_file` refuses larger ones and :mod:`grader.questions.answer_sheet` reads no more. Here, in
the record's module, so the judge's reader imports nothing else of intake."""


@dataclass(frozen=True)
class Origin:
    """Which commit of a student's git repository was graded (``grader grade --deadline``).

    Attributes:
        commit: The graded commit's full object id (hex).
        time: Its committer date in UTC, ``YYYY-MM-DDTHH:MM:SSZ`` (written by the student's machine), or
            when the server received its push (:mod:`grader.intake.pushes`).
        ref: The tag graded (``submit/2026-11-20T220103Z-a3f9c1d``), or ``HEAD``.
        late: Whether that commit is after the deadline (no submission was made in time).
        note: One line for the feedback and the terminal: what was graded, on time or how late.
        evidence: What ``time`` is, for the feedback ("" for the committer date of ``commit``).
        other_branch: When the graded commit holds nothing of the student's and another branch has commits, that
            evidence in one line for the instructor (the gradebook's notes, the report's attention list), else ""
            (:mod:`grader.intake.other_branches`).
        other_branch_feedback: The same evidence for the student's feedback, with what to do, else "".
    """

    commit: str
    time: str
    ref: str
    late: bool
    note: str
    evidence: str = ""
    other_branch: str = ""
    other_branch_feedback: str = ""


@dataclass(frozen=True)
class Recorded:
    """When the platform a submission was handed in on says it was submitted, as its download records it
    (:mod:`grader.intake.layouts`): a Gradescope export's ``:created_at:``, or a Canvas download's lack of any time.

    Attributes:
        time: The submission time it recorded (aware), or None when its download records none.
        evidence: Where the time comes from (or why there is none), for the feedback: "the submission time
            Gradescope recorded".
    """

    time: datetime | None
    evidence: str


@dataclass
class Submission:
    """One student's submission as read from disk.

    Attributes:
        id: The student id.
        source: The entry it was read from.
        files: Relative POSIX path to content, for ``.py``/``.ipynb`` files.
        notes: Things skipped while reading (symbolic links, unsafe zip entries).
        error: Why it cannot be read at all ("" if it can).
        mtimes: Relative POSIX path to modification time (seconds since the epoch;
            for a zip member, its recorded date and time read as UTC; for a git
            repository, the graded commit's committer date).
        origin: The commit graded when read from a git repository at a deadline
            (:func:`grader.intake.git_history.read_at_deadline`), else None.
        recorded: When the platform it was downloaded from recorded it as submitted (a Gradescope export, a
            Canvas download: :mod:`grader.intake.layouts`), else None (its files' own times say).
    """

    id: str
    source: Path
    files: dict[str, bytes] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    error: str = ""
    mtimes: dict[str, float] = field(default_factory=dict)
    origin: Origin | None = None
    recorded: Recorded | None = None
