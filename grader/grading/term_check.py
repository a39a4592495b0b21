"""The term's files read once and checked against one another and the class, before anything is graded.

:func:`load_term_inputs` reads every input of the term into one :class:`~grader.grading.term_inputs.TermInputs`:
``assignments/course.yaml``, ``--deadline``, every ``assignment.yaml``, the extensions, the roster and the push
records. Each is valid on its own when it is read (:mod:`grader.course.extensions`, :mod:`grader.course.roster`,
:mod:`grader.intake.pushes`); what they say about one another is checked here (:func:`check_term`), once per run,
so that a row that matches nothing never changes a grade silently:

* an extension row whose student is neither on the roster nor the name of a submission (a typo: the student it
  was for would be marked late) is an error naming the file, the line and the column; without a roster it can only
  be compared with the submissions, so it is a warning naming the line (the student may not have handed in yet);
* an extension whose new due date is *before* an assignment's due date (an on-time student would turn late, or
  past the cut-off) is an error naming the line and the assignment;
* an extension that moves a due date past the year 9999 (a placeholder due date) is a warning: the due date stays
  at the end of 9999;
* one student given two extensions for one assignment under two of their names (the roster's id and GitHub name)
  is an error naming both lines (:func:`grader.course.extensions.extension_for`);
* with push records (``--pushes``), every repository without a record (it is then dated by the commit dates its
  student wrote) and every record that names no submission are warnings.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from pathlib import Path

from grader.course.adjustments import load_adjustments
from grader.course.course import Course
from grader.course.extensions import EVERY, extension_for, read_extensions
from grader.course.late_policy import parse_deadline
from grader.course.roster import nobody_named, read_roster
from grader.errors import ConfigError
from grader.grading.term_inputs import TermInputs
from grader.inert import terminal
from grader.intake.git_history import is_repository
from grader.intake.pushes import read_push_folder
from grader.intake.submission import discover, student_id

SHOWN = 10
"""Names listed in one warning before ``...``."""


def load_term_inputs(course: Course, submissions: Path, *, assignment_ids: Sequence[str] | None = None,
                     deadline: str | None = None, roster: Path | None = None, extensions: Path | None = None,
                     pushes: Path | None = None, now: datetime | None = None) -> TermInputs:
    """Read the term's inputs once, in this order, and check them together against the class (:func:`check_term`).

    Args:
        course: The course: ``assignments/course.yaml`` and every ``assignment.yaml`` (each read once).
        submissions: The class's folder of submissions (every entry, whatever shard is graded).
        assignment_ids: The assignments to grade (``-a``); None: those released at ``now``.
        deadline: ``--deadline`` as given (ISO 8601; without an offset, in the course's time zone), or None.
        roster: The roster (None: ``roster`` in ``course.yaml``, if any).
        extensions: The extensions (None: ``extensions`` in ``course.yaml``, if any).
        pushes: The folder of push records (``--pushes``), or None.
        now: The moment that decides what is released (aware; None: this moment).

    Returns:
        The record, its :attr:`~grader.grading.term_inputs.TermInputs.warnings` the check's.

    Raises:
        GraderError: If the deadline does not parse, an assignment named is unknown or repeated, none is released,
            or the submissions are not a folder.
        ConfigError: If ``course.yaml``, an ``assignment.yaml``, the extensions, the roster or a push record is
            invalid, or the files disagree (:func:`check_term`), naming the file, the line and the column, or record.
    """
    term = course.term
    override = parse_deadline(deadline, term.time_zone) if deadline else None
    every = course.assignments(term=term)
    graded = course.released_assignments(list(assignment_ids) if assignment_ids else None, now, every)
    roster = roster or term.roster
    extensions = extensions or term.extensions
    folder = submissions.resolve() if submissions.is_dir() else submissions  # as grading lists it; an error: as given
    inputs = TermInputs(
        assignments=tuple(graded), every=tuple(every),
        unreleased=tuple(a.id for a in every if not a.is_released(now)), zone=term.time_zone, override=override,
        extensions=tuple(read_extensions(extensions, term.time_zone, [a.id for a in every])) if extensions else (),
        roster=tuple(read_roster(roster)) if roster else (),
        pushes={name: tuple(p) for name, p in read_push_folder(pushes).items()} if pushes else None,
        entries=tuple(discover(folder)), extensions_file=extensions, roster_file=roster, pushes_dir=pushes)
    inputs = replace(inputs, adjustments=load_adjustments(term.adjustments, {a.id: a.points for a in every},
                                                          inputs.roster, [student_id(e) for e in inputs.entries]))
    return replace(inputs, warnings=tuple(check_term(inputs)) + inputs.adjustments.warnings)


def check_term(inputs: TermInputs) -> list[str]:
    """Check the term's files against one another and the class's submission entries (``inputs.entries``), for the
    assignments graded.

    Returns:
        Warnings for the terminal, one line each (student text made inert).

    Raises:
        ConfigError: Naming the file, the line and the column, for an extension row that matches no student (with a
            roster), that moves a due date earlier, or that gives a student a second extension for one assignment.
    """
    names = [student_id(e) for e in inputs.entries]
    warnings = _extension_rows(inputs, names)
    warnings += _push_records(inputs)
    return warnings


def _extension_rows(inputs: TermInputs, names: Sequence[str]) -> list[str]:
    where: object = inputs.extensions_file or "extensions.csv"
    known = set(names) | {n for s in inputs.roster for _, n in s.names()}
    warnings = []
    for row in inputs.extensions:
        if row.student not in known:
            warnings.append(nobody_named("extension", where, row.line, row.student, known, bool(inputs.roster)))
        for a in inputs.assignments:
            due = inputs.due(a)
            if due is None or row.assignment not in (a.id, EVERY):
                continue
            if row.due is not None and row.due < due:
                raise ConfigError(where, f"line {row.line}, due",
                                  f"{row.due.isoformat(timespec='seconds')} is before {a.id}'s due date "
                                  f"{due.isoformat(timespec='seconds')}: an extension gives more time, never less")
            if row.overflows(due):
                warnings.append(f"Extensions: {where} line {row.line}: {row.student[:60]!r} on {a.id}: "
                                f"{due.isoformat(timespec='seconds')} moved by the extension is past the year 9999: "
                                "the due date stays at the end of 9999")
    _one_per_student(inputs, names)
    return warnings


def _one_per_student(inputs: TermInputs, names: Sequence[str]) -> None:
    """Refuse two extension rows for one student and assignment under two of the student's names."""
    where: object = inputs.extensions_file or "extensions.csv"
    by_student: dict[str, list[str]] = {}
    for s in inputs.roster:
        by_student[s.student] = [n for _, n in s.names()]
    for n in names:
        if not any(n in ids for ids in by_student.values()):
            by_student[n] = [n]
    rows = {e.student for e in inputs.extensions}
    for ids in by_student.values():
        if len(rows.intersection(ids)) > 1:
            for a in inputs.assignments:
                extension_for(inputs.extensions, ids, a.id, where=where)


def _push_records(inputs: TermInputs) -> list[str]:
    if inputs.pushes is None:
        return []
    entries = inputs.entries
    names = {student_id(e) for e in entries}
    unrecorded = [student_id(e) for e in entries if student_id(e) not in inputs.pushes and is_repository(e)]
    strays = sorted(set(inputs.pushes) - names)
    warnings = []
    if unrecorded:
        warnings.append(terminal(f"Push records: no record in {inputs.pushes_dir} for {len(unrecorded)} repository(ies) "
                                 f"({_names(unrecorded)}): each is dated by the commit dates its student wrote, which "
                                 "the student can set", keep=""))
    if strays:
        warnings.append(terminal(f"Push records: {len(strays)} record(s) in {inputs.pushes_dir} name no submission "
                                 f"({_names(strays)}): a record is <submission name>.json", keep=""))
    return warnings


def _names(names: Sequence[str]) -> str:
    shown = ", ".join(n[:60] for n in names[:SHOWN])
    return shown + (f", ... ({len(names) - SHOWN} more)" if len(names) > SHOWN else "")

