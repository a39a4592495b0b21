"""A graded folder's adjustments: read for the folder (``grader merge``, ``grader adjust``) and applied to its outputs.

``grader grade`` reads ``adjustments.csv`` with the term's other inputs (:func:`grader.grading.term_check.
load_term_inputs`); a command that works on a graded folder alone finds the file through the course
(``adjustments`` in ``assignments/course.yaml``) and checks its students against the roster and the students with
results in the folder (:func:`folder_adjustments`). :func:`refresh` makes the folder's outputs again from its stored
results with the adjustments: nothing is graded, nothing applied twice (:mod:`grader.outputs.adjusted`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from grader.course.adjustments import Adjustment, Adjustments, append_row, load_adjustments
from grader.course.config import Assignment
from grader.course.course import Course
from grader.course.roster import read_roster
from grader.errors import GraderError
from grader.files import write_atomic
from grader.outputs.adjusted import cell
from grader.outputs.class_outputs import ClassOutputs, folder_class, write_class_outputs
from grader.outputs.store import ResultStore


def folder_adjustments(course: Course, store: ResultStore, path: Path | None = None) -> Adjustments:
    """The adjustments of ``store``'s folder: ``path``, else the course's (none without either), each student
    resolved through the course's roster and the students with results in the folder.

    Raises:
        ConfigError: Naming the file, the line and the column, for a row refused
            (:func:`grader.course.adjustments.load_adjustments`), or a broken roster or ``course.yaml``.
    """
    term = course.term
    path = path or term.adjustments
    if path is None:
        return Adjustments()
    roster = read_roster(term.roster) if term.roster is not None else []
    names = {student for _, student, _ in store.stored()}
    return load_adjustments(path, {a.id: a.points for a in course.assignments()}, roster, names)


def refresh(course: Course, store: ResultStore, adjustments: Adjustments) -> ClassOutputs:
    """Make ``store``'s folder's outputs again from its stored results: every ``results.json`` and ``feedback.md``
    with ``adjustments``, ``grades.csv`` and ``item_analysis.csv``.

    Raises:
        ConfigError: When an adjustment takes a score out of range (nothing is written then).
    """
    book, students = folder_class(store, course.assignments(), [])
    return write_class_outputs(store, book, students, adjustments=adjustments)


@dataclass(frozen=True)
class Recorded:
    """What :func:`record` did.

    Attributes:
        row: The row added, its student the course's id and its line the file's.
        path: The adjustments file.
        before: The student's score on the assignment before the row, in points (None: no result, or withheld).
        after: Their score with it, in points (None: as for ``before``).
        points: What the assignment is worth, in points.
        refreshed: Whether the graded folder's outputs were made again (it has results).
    """

    row: Adjustment
    path: Path
    before: float | None
    after: float | None
    points: float
    refreshed: bool


def record(course: Course, store: ResultStore, row: Adjustment, path: Path | None = None) -> Recorded:
    """Add ``row`` at the end of the adjustments file (``path``, else the course's), check the whole file with it
    against the class of ``store``'s folder, and make the folder's outputs again with it.

    The file is read and checked before and after: a row refused leaves it as it was, byte for byte.

    Raises:
        GraderError: If no adjustments file is named (``path``, or ``adjustments`` in ``assignments/course.yaml``).
        ConfigError: If the file already refuses a row, or refuses the new one (naming its line), or the row takes
            the score out of range.
    """
    path = path or course.term.adjustments
    if path is None:
        raise GraderError("no adjustments file: name one with --file CSV, or adjustments in assignments/course.yaml")
    earlier = folder_adjustments(course, store, path) if path.exists() else Adjustments(path=path)
    original = path.read_bytes() if path.exists() else None
    append_row(path, row)
    try:
        now = folder_adjustments(course, store, path)
        added = now.rows[-1]
        assignment = course.assignment(added.assignment)
        result = store.get(added.assignment, added.student)
        before, after = (None, None) if result is None or result.withheld else (
            _score(store, assignment, added.student, earlier, result.score),
            _score(store, assignment, added.student, now, result.score))
        refreshed = bool(store.stored())
        if refreshed:
            refresh(course, store, now)
    except BaseException:
        if original is None:
            path.unlink()
        else:
            write_atomic(path, original.decode("utf-8"))  # as it was, byte-order mark included
        raise
    return Recorded(added, path, before, after, assignment.points, refreshed)


def _score(store: ResultStore, assignment: Assignment, student: str, adjustments: Adjustments, stored: float) -> float:
    made = cell(store, assignment, student, adjustments)
    return made.score if made is not None else stored
