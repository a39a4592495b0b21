"""Each student's due date on each assignment, and what the late policy made of their submission.

An assignment's due date is its ``due`` (``assignment.yaml``), or ``grader grade --deadline`` for one run; a student's
own is that date moved by their extension (``extensions.csv``: :mod:`grader.course.extensions`). A submission's
:class:`LateTerms` record the due date that applied, when it was submitted and by what evidence, and what the policy
(:mod:`grader.course.late_policy`) took: the judge stores them in ``results.json``, and :func:`final_score` is the one
place a penalty is taken from a score.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import TypedDict

from grader.course.config import Assignment
from grader.course.extensions import Extension, extension_for
from grader.course.late_policy import LATEST, Lateness, LatePolicy, assess, penalised


class LateTerms(TypedDict):
    """What the due date and the late policy made of one submission on one assignment (stored in ``results.json``,
    ``extra_data.grader.late``).

    Attributes:
        due: The student's due date (ISO 8601 with its offset), their extension included.
        assignment_due: The assignment's due date for everyone (or the command line's ``--deadline``).
        extension: One sentence on the student's extension, or "".
        policy: The late policy in one sentence (:meth:`LatePolicy.describe`).
        submitted: When the work was submitted (ISO 8601, UTC), or "" when nothing records it.
        source: What that time is (the graded commit's committer date, the files' modification times).
        seconds: How late, in seconds (0: on time or no recorded time).
        counted: The lateness as the policy counts it (``2 started days``, ``within the grace period``).
        units: The started days or hours the penalty counts.
        per: ``day`` or ``hour``.
        penalty: The fraction of the points taken (0 to 1).
        graded: False when the work came after the cut-off (it scores nothing).
        sentence: What was applied, in one sentence, for the student and the class report.
    """

    due: str
    assignment_due: str
    extension: str
    policy: str
    submitted: str
    source: str
    seconds: int
    counted: str
    units: int
    per: str
    penalty: float
    graded: bool
    sentence: str


@dataclass(frozen=True)
class DueDate:
    """One student's due date on one assignment.

    Attributes:
        due: The student's own due date (aware).
        assignment_due: The assignment's due date for everyone.
        policy: The assignment's late policy.
        extension: The extension that moved it, or None.
    """

    due: datetime
    assignment_due: datetime
    policy: LatePolicy
    extension: Extension | None = None

    def window(self) -> tuple[datetime, datetime | None]:
        """(due, last moment the policy still grades work), for choosing a git repository's commit."""
        cutoff = self.policy.cutoff
        if cutoff is None:
            return self.due, None
        try:  # in UTC: adding to a time of a named zone follows its wall clock, one hour off across a DST change
            return self.due, self.due.astimezone(timezone.utc) + timedelta(seconds=cutoff)
        except OverflowError:  # a placeholder due date at the end of 9999
            return self.due, LATEST

    def terms(self, submitted: datetime | None, source: str) -> LateTerms:
        """What the policy makes of work submitted at ``submitted`` (None: no time is recorded, so none is assessed;
        ``source`` says where the time came from)."""
        when = _iso(self.due)
        extension = self.extension.describe(self.assignment_due) if self.extension is not None else ""
        if submitted is None:
            return LateTerms(due=when, assignment_due=_iso(self.assignment_due), extension=extension,
                             policy=self.policy.describe(), submitted="", source=source, seconds=0,
                             counted="no time recorded", units=0,
                             per=self.policy.per, penalty=0.0, graded=True,
                             sentence=f"No submission time is recorded for this work ({source}): the due date "
                                      f"({when}) was not applied.")
        late = assess(submitted, self.due, self.policy)
        at = submitted.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        return LateTerms(due=when, assignment_due=_iso(self.assignment_due), extension=extension,
                         policy=self.policy.describe(),
                         submitted=at, source=source,
                         seconds=late.seconds, counted=_counted(late, self.policy), units=late.units, per=self.policy.per, penalty=late.penalty,
                         graded=late.graded,
                         sentence=f"{late.sentence(self.policy)} Submission time: {at}, from {source}.")


def due_date(assignment: Assignment, student_ids: Sequence[str], extensions: Sequence[Extension],
             override: datetime | None = None) -> DueDate | None:
    """The due date of the student known by ``student_ids`` (their submission's name, their roster id) on
    ``assignment``: ``override`` (``--deadline``) or the assignment's ``due``, moved by their extension; None when
    the assignment has no due date."""
    due = override or assignment.due
    if due is None:
        return None
    extension = extension_for(extensions, student_ids, assignment.id)
    own = extension.applied_to(due) if extension is not None else due
    return DueDate(own, due, assignment.late, extension)


def final_score(terms: LateTerms, raw: float, points: float) -> tuple[float, float]:
    """(points taken, final score) of a raw score under ``terms`` (``points``: what the assignment is worth): the
    only place a penalty is applied (:func:`grader.course.late_policy.penalised`)."""
    final = penalised(raw, points, terms["penalty"], terms["graded"])
    return round(raw - final, 4), final


def _counted(late: Lateness, policy: LatePolicy) -> str:
    """The lateness as the policy counts it: ``2 started days``, ``within the grace period``, ``on time``..."""
    if not late.seconds:
        return "on time"
    if not late.graded:
        return "after the cut-off"
    if not late.units:
        return "within the grace period" if late.seconds <= policy.grace else "late, no penalty"
    return f"{late.units} started {policy.per}{'s' if late.units != 1 else ''}"


def _iso(when: datetime) -> str:
    return when.isoformat(timespec="seconds")
