"""Whether the evidence a late penalty would rest on can bear it: file modification times that are a copy's.

A folder or a notebook is dated by its files' modification times (:func:`grader.grading.due_work.submitted_at`).
Copied without them (``cp -r``, a file manager, a download tool), every file's time is the moment of the copy, so a
class graded after its due date would be zeroed as "after the cut-off" without any student being late. Two signs
tell a copy's times from a submission's, and either withholds the due date from the late work they date:

* **just copied**: the files were modified less than :data:`COPY_WINDOW` before this run began (up to :data:`SKEW`
  after it), that is, while the class was being put in place for grading;
* **copied together**: at least :data:`MIN_CLASS` submissions, and at least half of those dated by file times, have
  times within :data:`COPY_WINDOW` of one another, as no class hands in late (a few copied with their times among
  them do not hide the rest).

Such work is graded without the due date (its feedback says why, as for work with no recorded time), and the
terminal names it with the remedy: copy with ``cp -p``, ``rsync -t`` or unzip, which keep times, and grade again
(the results are then made again from the true times). On-time work is left as it is: its times cost nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta, timezone

from grader.course.due_dates import DueDate
from grader.grading.due_work import FILE_TIMES, DueWork
from grader.inert import terminal

COPY_WINDOW = timedelta(minutes=10)
"""How close file times must be to the run, or to one another, to be taken for a copy's."""
SKEW = timedelta(minutes=1)
"""How far after the run's start a copy's time may lie (another clock: a network drive's). A time later still was set
on purpose (``touch -d``), not by a copy."""
MIN_CLASS = 3
"""The fewest submissions dated by file times whose times, all within :data:`COPY_WINDOW`, show a class copied."""
SHOWN = 10
"""Students named on the terminal before ``...``."""


@dataclass
class CopiedTimes:
    """What :func:`withhold_copied_times` found.

    Attributes:
        students: The students whose late work was graded without its due date, in order.
        why: Why their file times were taken for a copy's, in one phrase.
    """

    students: list[str] = field(default_factory=list)
    why: str = ""

    def warning(self) -> str:
        """The terminal's line naming them and the remedy ("" when there are none)."""
        if not self.students:
            return ""
        shown = ", ".join(s[:60] for s in self.students[:SHOWN])
        more = f", ... ({len(self.students) - SHOWN} more)" if len(self.students) > SHOWN else ""
        return terminal(f"Due dates not applied to the late work of {len(self.students)} submission(s) dated by file "
                        f"modification times that {self.why} ({shown}{more}): such times are a copy's, not a "
                        "submission's. Copy the submissions with cp -p, rsync -t or unzip, which keep times, and grade "
                        "again.", keep="")


def _file_time(work: Mapping[str, DueWork]) -> datetime | None:
    """The submission's time when its files' modification times date it (the same for each assignment)."""
    for w in work.values():
        if w.late is not None and w.late["source"] == FILE_TIMES and w.late["submitted"]:
            return datetime.strptime(w.late["submitted"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
    return None


def withhold_copied_times(works: Mapping[str, Mapping[str, DueWork]], dues: Mapping[str, Mapping[str, DueDate | None]],
                          started: datetime) -> tuple[dict[str, dict[str, DueWork]], CopiedTimes]:
    """Grade without the due date the late work whose file times are a copy's (see the module docstring).

    Args:
        works: Student to assignment id to what was read for it (:func:`grader.grading.due_work.read_due_work`).
        dues: Student to assignment id to their due date (None: none).
        started: When this run began (aware).

    Returns:
        ``works`` with the late terms of that work replaced by terms without a submission time, and who it was.
    """
    times = {s: t for s, w in works.items() if (t := _file_time(w)) is not None}
    just = {s for s, t in times.items() if started - COPY_WINDOW <= t <= started + SKEW}
    together = _copied_together(times)
    suspect = together | just
    if together:
        span = max(times[s] for s in together) - min(times[s] for s in together)
        why = f"lie within {_minutes(span)} of one another ({len(together)} of the {len(times)} dated so)"
    else:
        why = f"are less than {_minutes(COPY_WINDOW)} before this run"
    found = CopiedTimes(why=why)
    out = {s: dict(w) for s, w in works.items()}
    for student in sorted(suspect):
        changed = False
        for aid, work in works[student].items():
            due = dues[student].get(aid)
            if due is None or work.late is None or not work.late["seconds"]:
                continue
            at = work.late["submitted"]
            source = (f"its files' modification times ({at}) {why}, as those of files copied without their times "
                      "are: that is when they were copied, not handed in")
            out[student][aid] = replace(work, late=due.terms(None, source))
            changed = True
        if changed:
            found.students.append(student)
    return out, found


def _copied_together(times: Mapping[str, datetime]) -> set[str]:
    """The largest group of students whose file times lie within :data:`COPY_WINDOW` of one another, when it holds
    at least :data:`MIN_CLASS` of them and at least half of those dated by file times; else none."""
    ordered = sorted(times.items(), key=lambda st: st[1])
    best: list[str] = []
    start = 0
    for end in range(len(ordered)):
        while ordered[end][1] - ordered[start][1] > COPY_WINDOW:
            start += 1
        if end - start + 1 > len(best):
            best = [s for s, _ in ordered[start:end + 1]]
    return set(best) if len(best) >= MIN_CLASS and 2 * len(best) >= len(times) else set()


def _minutes(span: timedelta) -> str:
    minutes = span.total_seconds() / 60
    return f"{minutes:.0f} min" if minutes >= 1 else f"{span.total_seconds():.0f} s"
