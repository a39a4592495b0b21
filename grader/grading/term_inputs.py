"""The term's inputs to one run, in one typed record: read once, before anything is graded, then passed down.

What decides a class's grades besides the submissions is the term's: the assignments handed out (each with its due
date and late policy, ``assignment.yaml``), the course's time zone (``assignments/course.yaml``), ``--deadline``, the
extensions, the roster and the git server's push records. :func:`grader.grading.term_check.load_term_inputs` reads
them all into a :class:`TermInputs` and checks them against one another and the class's submissions; grading
(:func:`grader.grading.batch.grade`) and the outputs read them from the record, never from the files again.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone, tzinfo
from pathlib import Path

from grader.course.adjustments import Adjustments
from grader.course.config import Assignment
from grader.course.due_dates import DueDate, due_date
from grader.course.extensions import Extension
from grader.course.roster import Student, match
from grader.intake.pushes import Push


@dataclass(frozen=True)
class TermInputs:
    """The term's inputs to one run (every field empty or None when the course gives none).

    Attributes:
        assignments: The assignments graded (the released ones unless named with ``-a``), in order, each with its
            due date and late policy.
        every: Every assignment of the course, in course order (the columns of a folder's gradebook).
        unreleased: Ids of the assignments not handed out yet, in course order (not graded unless named).
        zone: The course's time zone (a zip's dates are read in it; this machine's without one).
        override: ``--deadline``: every assignment's due date for this run (None: each assignment's ``due``).
        extensions: The extensions (``extensions.csv``), in file order.
        roster: The course roster: a submission named by a GitHub user name finds the extensions keyed by the
            course's student id through it (:func:`grader.course.roster.match`).
        pushes: The server's push records by submission name (``--pushes``; None: none given).
        entries: The class's submission entries the inputs were checked against (all of them, whatever shard is
            graded; empty: none given, so grading lists the folder itself).
        extensions_file: Where the extensions were read from (for errors naming its lines), or None.
        roster_file: Where the roster was read from, or None.
        pushes_dir: The folder of push records, or None.
        adjustments: The scores a person changed (``adjustments.csv``), resolved to the course's ids; applied to
            the outputs, never to a stored result (:mod:`grader.outputs.adjusted`).
        warnings: What checking the inputs together found that does not stop grading, one line each for the
            terminal (:func:`grader.grading.term_check.check_term`).
    """

    assignments: Sequence[Assignment] = ()
    every: Sequence[Assignment] = ()
    unreleased: Sequence[str] = ()
    zone: tzinfo | None = None
    override: datetime | None = None
    extensions: Sequence[Extension] = ()
    roster: Sequence[Student] = ()
    pushes: Mapping[str, Sequence[Push]] | None = None
    entries: Sequence[Path] = ()
    extensions_file: Path | None = None
    roster_file: Path | None = None
    pushes_dir: Path | None = None
    adjustments: Adjustments = Adjustments()
    warnings: Sequence[str] = ()

    def due(self, assignment: Assignment) -> datetime | None:
        """``assignment``'s due date for everyone in this run: ``--deadline``, else its ``due`` (None: none)."""
        return self.override or assignment.due

    def dues(self, student: str, assignments: Sequence[Assignment] | None = None) -> dict[str, DueDate | None]:
        """Each assignment's due date (default: those graded) for the submission named ``student``, their extension
        included (None: no due date)."""
        row = match(self.roster, [student]).matched.get(student) if self.roster else None
        # the submission's name, the roster's id, GitHub name and previous ids: an extension row may give any of them
        ids = [i for i in dict.fromkeys([student, *((n for _, n in row.names()) if row is not None else ())]) if i]
        chosen = self.assignments if assignments is None else assignments
        return {a.id: due_date(a, ids, self.extensions, self.override) for a in chosen}

    def pushes_of(self, student: str) -> Sequence[Push] | None:
        """The push record of the submission named ``student`` (an empty one when records were given but not its:
        its repository is then dated by committer dates, with a note; None when none were given)."""
        return None if self.pushes is None else self.pushes.get(student, ())

    def due_lines(self) -> list[str]:
        """What the run's due dates are, for the terminal: one line per graded assignment with one, and the
        extensions that apply to them."""
        lines = []
        for a in self.assignments:
            due = self.due(a)
            if due is not None:
                where = "--deadline" if self.override else "assignment.yaml"
                lines.append(f"Due: {a.id} {due.isoformat(timespec='seconds')} "
                             f"({due.astimezone(timezone.utc):%Y-%m-%dT%H:%M:%SZ}, {where}); {a.late.describe()}")
        ids = {a.id for a in self.assignments}
        if count := sum(1 for e in self.extensions if e.assignment in ids or e.assignment == "*"):
            lines.append(f"Extensions: {count} row(s) of the extensions file apply to these assignments")
        return lines

    def roster_problems(self, graded: Iterable[str]) -> list[str]:
        """How the ``graded`` student ids met the roster: one line per kind of mismatch (none without a roster)."""
        return match(self.roster, graded).problems() if self.roster else []
