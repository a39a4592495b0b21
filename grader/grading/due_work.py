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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone, tzinfo
from pathlib import Path

from grader.course.config import Assignment, Course
from grader.course.due_dates import DueDate, LateTerms, due_date
from grader.course.extensions import Extension, read_extensions
from grader.course.roster import Student, match, read_roster
from grader.grading.freshness import part_fingerprint
from grader.intake.entry import Submission
from grader.intake.git_history import is_repository, read_at_deadlines
from grader.intake.pushes import Push, read_push_folder
from grader.intake.submission import read_submission

FILE_TIMES = "the latest modification time of its files"
"""The evidence that dates a folder or a notebook (:func:`submitted_at`), which a copy without times makes the copy's
(:mod:`grader.grading.copied_times`)."""
ZIP_EPOCH = calendar.timegm((1980, 1, 1, 0, 0, 0))
"""The earliest date a zip member records: a zip written without dates holds it."""


@dataclass
class TermRules:
    """What decides each student's due dates in one run.

    Attributes:
        extensions: The course's extensions (``extensions.csv``).
        roster: The course roster: a submission named by a GitHub user name finds the extensions keyed by the
            course's student id through it (:func:`grader.course.roster.match`).
        override: ``--deadline``: every assignment's due date for this run (None: each assignment's ``due``).
        zone: The course's time zone (a zip's dates are read in it; this machine's without one).
        pushes: The server's push records by submission name (``--pushes``; None: none given).
        extensions_file: Where the extensions were read from (for errors naming its lines), or None.
        roster_file: Where the roster was read from, or None.
        pushes_dir: The folder of push records, or None.
    """

    extensions: Sequence[Extension] = ()
    roster: Sequence[Student] = ()
    override: datetime | None = None
    zone: tzinfo | None = None
    pushes: Mapping[str, Sequence[Push]] | None = None
    extensions_file: Path | None = None
    roster_file: Path | None = None
    pushes_dir: Path | None = None

    def pushes_of(self, student: str) -> Sequence[Push] | None:
        """The push record of the submission named ``student`` (an empty one when records were given but not its:
        its repository is then dated by committer dates, with a note)."""
        return None if self.pushes is None else self.pushes.get(student, ())

    def dues(self, student: str, assignments: Sequence[Assignment]) -> dict[str, DueDate | None]:
        """Each assignment's due date for the submission named ``student`` (None: no due date)."""
        row = match(self.roster, [student]).matched.get(student) if self.roster else None
        # the submission's name, the roster's id and GitHub name: an extension row may give any of them
        ids = [i for i in dict.fromkeys([student, *((row.student, row.github) if row is not None else ())]) if i]
        return {a.id: due_date(a, ids, self.extensions, self.override) for a in assignments}


def term_rules(course: Course, override: datetime | None = None,
               roster: Path | None = None, extensions: Path | None = None, pushes: Path | None = None) -> TermRules:
    """The rules of a run: the course's time zone, its roster and extensions (``roster`` and ``extensions`` name other
    files than ``assignments/course.yaml`` does), ``--deadline`` and the folder of push records (``--pushes``).

    Raises:
        ConfigError: If ``course.yaml``, the roster, the extensions or a push record are invalid (naming the file,
            line and column, or record).
    """
    term = course.term
    roster = roster or term.roster
    extensions = extensions or term.extensions
    return TermRules(
        extensions=read_extensions(extensions, term.time_zone, course.assignment_ids())
        if extensions is not None else (),
        roster=read_roster(roster) if roster is not None else (), override=override, zone=term.time_zone,
        pushes=read_push_folder(pushes) if pushes is not None else None, extensions_file=extensions,
        roster_file=roster, pushes_dir=pushes)


@dataclass(frozen=True)
class DueWork:
    """One submission as graded on one assignment.

    Attributes:
        submission: What was read (at the student's due date, for a git repository).
        late: What the due date and the policy made of it (None: the assignment has no due date).
    """

    submission: Submission
    late: LateTerms | None

    @property
    def fingerprint(self) -> str:
        """What the result is made from (:func:`grader.grading.freshness.part_fingerprint`)."""
        return part_fingerprint(self.submission, self.late)


def read_due_work(entry: Path, dues: Mapping[str, DueDate | None], zone: tzinfo | None,
                  pushes: Sequence[Push] | None = None) -> dict[str, DueWork]:
    """Read ``entry`` for each assignment of ``dues`` (assignment id to the student's due date, or None); a git
    repository by the server's ``pushes`` when given (:func:`grader.intake.git_history.read_at_deadlines`)."""
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
        work[aid] = DueWork(sub, due.terms(*submitted_at(sub, zone)) if due is not None else None)
    return work


def submitted_at(sub: Submission, zone: tzinfo | None) -> tuple[datetime | None, str]:
    """When ``sub`` was submitted, and by what evidence (see the module docstring); None when nothing records it.

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
    if sub.error or not sub.mtimes:
        return None, "no file was read from it"
    latest = max(sub.mtimes.values())
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


def due_lines(assignments: Sequence[Assignment], rules: TermRules) -> list[str]:
    """What a run's due dates are, for the terminal: one line per assignment with one, and the extensions."""
    lines = []
    for a in assignments:
        due = rules.override or a.due
        if due is not None:
            where = "--deadline" if rules.override else "assignment.yaml"
            lines.append(f"Due: {a.id} {due.isoformat(timespec='seconds')} "
                         f"({due.astimezone(timezone.utc):%Y-%m-%dT%H:%M:%SZ}, {where}); {a.late.describe()}")
    ids = {a.id for a in assignments}
    if count := sum(1 for e in rules.extensions if e.assignment in ids or e.assignment == "*"):
        lines.append(f"Extensions: {count} row(s) of the extensions file apply to these assignments")
    return lines
