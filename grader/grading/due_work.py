"""A class's submissions read at each student's own due dates, and when each was submitted.

For every student, each assignment with a due date (``due``, or ``grader grade --deadline``) has a due date of its
own (their extension included: :func:`grader.course.due_dates.due_date`). A git repository is read once for all of
them (:func:`grader.intake.git_history.read_at_deadlines`): each assignment grades the latest submission at or
before the student's due date, else the latest at or before the policy's cut-off (late), else the latest of all
(after the cut-off: not graded). Anything else is read once, as it is.

When was the work submitted? The evidence differs by kind of entry, and the feedback says which was used:

* a git repository: the graded commit's committer date (the student's machine writes it), or, given the server's
  push records (``grader grade --pushes``, :mod:`grader.intake.pushes`), when the server received the push;
* a zip: the latest date its members record (a zip's dates have no time zone: read in the course's);
* a folder or a notebook: the latest modification time of its ``.py``/``.ipynb`` files (copy submissions with
  their times kept: ``cp -p``, ``rsync -t``, or unzip);
* nothing recorded (no files, or a zip's empty dates): the due date is not applied, and the feedback says so.
"""

from __future__ import annotations

import calendar
import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone, tzinfo
from pathlib import Path

from grader.course.due_dates import DueDate, LateTerms
from grader.grading.freshness import part_fingerprint
from grader.intake.entry import Submission
from grader.intake.git_history import is_repository, read_at_deadlines
from grader.intake.pushes import Push
from grader.intake.submission import read_submission

FILE_TIMES = "the latest modification time of its files"
"""The evidence that dates a folder or a notebook (:func:`submitted_at`), which a copy without times makes the copy's
(:mod:`grader.grading.copied_times`)."""
ZIP_EPOCH = calendar.timegm((1980, 1, 1, 0, 0, 0))
"""The earliest date a zip member records: a zip written without dates holds it."""


@dataclass(frozen=True)
class DueWork:
    """One submission as graded on one assignment.

    Attributes:
        submission: What was read (at the student's due date, for a git repository).
        late: What the due date and the policy made of it (None: the assignment has no due date).
    """

    submission: Submission
    late: LateTerms | None
    salt: str = ""
    """What else the result depends on ("" for nothing: a concept check's, the id its numbers are drawn from)."""

    @property
    def fingerprint(self) -> str:
        """What the result is made from (:func:`grader.grading.freshness.part_fingerprint`, and the salt)."""
        made = part_fingerprint(self.submission, self.late)
        return hashlib.sha256(f"{made}\0{self.salt}".encode()).hexdigest() if self.salt else made


def read_due_work(entry: Path, dues: Mapping[str, DueDate | None], zone: tzinfo | None,
                  pushes: Sequence[Push] | None = None, answers: Mapping[str, str] | None = None
                  ) -> dict[str, DueWork]:
    """Read ``entry`` for each assignment of ``dues`` (assignment id to the student's due date, or None); a git
    repository by the server's ``pushes`` when given (:func:`grader.intake.git_history.read_at_deadlines`).
    ``answers``: each concept check's answers file (``answers/<id>.yaml``), dated by that file's time alone, while a
    coding assignment is dated by the code's (:func:`dated_files`)."""
    dated = {aid: due for aid, due in dues.items() if due is not None}
    subs: dict[str, Submission] = {}
    if dated and is_repository(entry):
        windows = list(dict.fromkeys(due.window() for due in dated.values()))
        read = dict(zip(windows, read_at_deadlines(entry, windows, pushes)))
        subs = {aid: read[due.window()] for aid, due in dated.items()}
    if len(subs) < len(dues):
        plain = read_submission(entry)
        subs.update({aid: plain for aid in dues if aid not in subs})
    work = {}
    for aid, due in dues.items():
        sub = subs[aid]
        work[aid] = DueWork(sub, due.terms(*submitted_at(sub, zone, dated_files((answers or {}).get(aid))))
                            if due is not None else None)
    return work


def dated_files(answers: str | None) -> Callable[[str], bool]:
    """Which of a submission's files date it for one assignment: for a concept check its answers file
    (``answers/<id>.yaml``, or ``<id>.yaml``) and the notebooks (whose cell may hold the answers); for code, every
    file but the ``.yaml`` ones, so answering a checkpoint after a coding assignment's due date never makes the code
    late."""
    if answers is None:
        return lambda path: not path.endswith(".yaml")
    base = answers.rsplit("/", 1)[-1]
    return lambda path: path.rsplit("/", 1)[-1] == base or path.endswith(".ipynb")

def submitted_at(sub: Submission, zone: tzinfo | None, dated: Callable[[str], bool] | None = None
                 ) -> tuple[datetime | None, str]:
    """When ``sub`` was submitted, and by what evidence (see the module docstring); None when nothing records it.
    ``dated``: which of its files' times count, by path (:func:`dated_files`; None: all of them).

    A submission read from a platform's download (:attr:`~grader.intake.entry.Submission.recorded`) is dated by
    what the platform recorded: a Gradescope export by "the submission time Gradescope recorded" (its
    ``:created_at:``); a Canvas download records no time (its files' times are when the zip was made), so none is
    given, and the reason says whether Canvas marked the work late.
    """
    if sub.origin is not None:
        try:
            when = datetime.strptime(sub.origin.time, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
        except ValueError:
            return None, "the graded commit's date could not be read"
        return when, sub.origin.evidence or f"the committer date of commit {sub.origin.commit[:7]}"
    if sub.recorded is not None:
        return sub.recorded.time, sub.recorded.evidence
    times = [t for path, t in sub.mtimes.items() if dated is None or dated(path)]
    if sub.error or not times:
        return None, "no file was read from it"
    latest = max(times)
    if sub.source.suffix.lower() == ".zip":
        if latest <= ZIP_EPOCH:
            return None, "the zip records no dates"
        naive = datetime.fromtimestamp(latest, timezone.utc).replace(tzinfo=None)
        local = naive.replace(tzinfo=zone) if zone is not None else naive.astimezone()
        return local, "the latest date recorded in the zip for its files"
    try:
        return datetime.fromtimestamp(latest, timezone.utc), FILE_TIMES
    except (OverflowError, OSError, ValueError):
        return None, "its files' times could not be read"
