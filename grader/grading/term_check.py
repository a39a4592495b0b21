"""The term's files checked against one another and the class, before anything is graded.

Each term file is valid on its own when it is read (:mod:`grader.course.extensions`, :mod:`grader.course.roster`,
:mod:`grader.intake.pushes`); what they say about one another is checked here, once per run, so that a row that
matches nothing never changes a grade silently:

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

import difflib
from collections.abc import Sequence
from pathlib import Path

from grader.course.config import Assignment
from grader.course.extensions import EVERY, extension_for
from grader.errors import ConfigError
from grader.grading.due_work import TermRules
from grader.inert import terminal
from grader.intake.git_history import is_repository
from grader.intake.submission import student_id

SHOWN = 10
"""Names listed in one warning before ``...``."""


def check_term(rules: TermRules, assignments: Sequence[Assignment], entries: Sequence[Path]) -> list[str]:
    """Check the term's files against one another and the class's submission ``entries`` (all of them, whatever
    shard is graded), for the ``assignments`` graded.

    Returns:
        Warnings for the terminal, one line each (student text made inert).

    Raises:
        ConfigError: Naming the file, the line and the column, for an extension row that matches no student (with a
            roster), that moves a due date earlier, or that gives a student a second extension for one assignment.
    """
    names = [student_id(e) for e in entries]
    warnings = _extension_rows(rules, assignments, names)
    warnings += _push_records(rules, entries)
    return warnings


def _extension_rows(rules: TermRules, assignments: Sequence[Assignment], names: Sequence[str]) -> list[str]:
    where: object = rules.extensions_file or "extensions.csv"
    known = set(names) | {s.student for s in rules.roster} | {s.github for s in rules.roster if s.github}
    warnings = []
    for row in rules.extensions:
        if row.student not in known:
            close = difflib.get_close_matches(row.student, sorted(known), n=1)
            hint = f"; did you mean {close[0][:60]!r}?" if close else ""
            if rules.roster:
                raise ConfigError(where, f"line {row.line}, student",
                                  f"{row.student[:60]!r} is neither on the roster nor the name of a submission: its "
                                  f"extension would apply to nobody{hint}")
            warnings.append(terminal(f"Extensions: {where} line {row.line}: {row.student[:60]!r} names no submission "
                                     f"(and there is no roster to find them on): it applies to nobody in this "
                                     f"run{hint}", keep=""))
        for a in assignments:
            due = rules.override or a.due
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
    _one_per_student(rules, assignments, names)
    return warnings


def _one_per_student(rules: TermRules, assignments: Sequence[Assignment], names: Sequence[str]) -> None:
    """Refuse two extension rows for one student and assignment under two of the student's names."""
    where: object = rules.extensions_file or "extensions.csv"
    by_student: dict[str, list[str]] = {}
    for s in rules.roster:
        by_student[s.student] = [i for i in (s.student, s.github) if i]
    for n in names:
        if not any(n in ids for ids in by_student.values()):
            by_student[n] = [n]
    rows = {e.student for e in rules.extensions}
    for ids in by_student.values():
        if len(rows.intersection(ids)) > 1:
            for a in assignments:
                extension_for(rules.extensions, ids, a.id, where=where)


def _push_records(rules: TermRules, entries: Sequence[Path]) -> list[str]:
    if rules.pushes is None:
        return []
    names = {student_id(e) for e in entries}
    unrecorded = [student_id(e) for e in entries if student_id(e) not in rules.pushes and is_repository(e)]
    strays = sorted(set(rules.pushes) - names)
    warnings = []
    if unrecorded:
        warnings.append(terminal(f"Push records: no record in {rules.pushes_dir} for {len(unrecorded)} repository(ies) "
                                 f"({_names(unrecorded)}): each is dated by the commit dates its student wrote, which "
                                 "the student can set", keep=""))
    if strays:
        warnings.append(terminal(f"Push records: {len(strays)} record(s) in {rules.pushes_dir} name no submission "
                                 f"({_names(strays)}): a record is <submission name>.json", keep=""))
    return warnings


def _names(names: Sequence[str]) -> str:
    shown = ", ".join(n[:60] for n in names[:SHOWN])
    return shown + (f", ... ({len(names) - SHOWN} more)" if len(names) > SHOWN else "")

