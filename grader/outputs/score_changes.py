"""What moved: the scores that differ between two versions of a gradebook, or of an export, said per assignment.

``grader grade`` over kept results compares ``grades.csv`` before and after the run; ``grader export`` compares
what it writes with what it wrote into the LMS last time (:mod:`grader.outputs.hand_edits`). Either prints one line
per assignment whose scores changed (``mlp: 41 score(s) changed: 41 raised (+2: 41), 0 lowered``) and, with
``--changes FILE``, writes every change as CSV (``student,assignment,before,after,change``), so an instructor sees
before importing that a fixed test raised 41 scores by 2 points and lowered none.
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from grader.course.csv_file import finite_number
from grader.errors import GraderError
from grader.files import write_atomic
from grader.inert import csv_cell
from grader.outputs.lms_export import gradebook_of

Scores = Mapping[str, Mapping[str, str]]
"""Student id to assignment id to a score as written ("" when there is none)."""
AMOUNTS = 3
"""Amounts of change named per direction on a line before ``...``."""


@dataclass(frozen=True)
class Change:
    """One score that changed.

    Attributes:
        student: The student id.
        assignment: The assignment id.
        before: The score before ("" when there was none).
        after: The score now ("" when there is none).
    """

    student: str
    assignment: str
    before: str
    after: str

    @property
    def delta(self) -> float | None:
        """How many points the score moved (None when either side has no score)."""
        a, b = finite_number(self.before), finite_number(self.after)
        return None if a is None or b is None else round(b - a, 4)


def changes(before: Scores, after: Scores, assignments: Sequence[str]) -> list[Change]:
    """Every score of ``assignments`` that differs between ``before`` and ``after`` (by student, then assignment);
    a student or assignment absent from ``before`` has no score there, and one absent from ``after`` is left out."""
    found = []
    for student in sorted(after):
        for aid in assignments:
            old, new = (before.get(student) or {}).get(aid, ""), after[student].get(aid, "")
            a, b = finite_number(old), finite_number(new)
            if (a is None) != (b is None) or (a is not None and b is not None and abs(a - b) > 1e-9) \
                    or (a is None and old.strip() != new.strip()):
                found.append(Change(student, aid, old, new))
    return found


def moved_lines(found: Sequence[Change], assignments: Sequence[str], what: str) -> list[str]:
    """One line per assignment of ``assignments`` with a change, ``what`` saying against what
    (``since the last gradebook``), or one line saying nothing moved."""
    lines = []
    for aid in assignments:
        mine = [c for c in found if c.assignment == aid]
        if not mine:
            continue
        deltas = [d for d in (c.delta for c in mine) if d is not None]
        up, down = Counter(d for d in deltas if d > 0), Counter(d for d in deltas if d < 0)
        new = sum(1 for c in mine if c.delta is None and c.after.strip())
        gone = sum(1 for c in mine if c.delta is None and not c.after.strip())
        parts = [f"{sum(up.values())} raised{_amounts(up)}", f"{sum(down.values())} lowered{_amounts(down)}"]
        parts += [f"{new} new"] if new else []
        parts += [f"{gone} now empty (withheld or not graded)"] if gone else []
        lines.append(f"{aid}: {len(mine)} score(s) changed {what}: {', '.join(parts)}")
    return lines or [f"No score changed {what}."]


def _amounts(counts: Counter[float]) -> str:
    if not counts:
        return ""
    shown = [f"{d:+g}: {n}" for d, n in sorted(counts.items(), key=lambda dn: (-dn[1], abs(dn[0])))]
    return f" ({', '.join(shown[:AMOUNTS])}{', ...' if len(shown) > AMOUNTS else ''})"


def write_changes(path: Path, found: Sequence[Change]) -> None:
    """Write every change as CSV: ``student,assignment,before,after,change`` (``change`` in points, ``-5`` or ``2``;
    empty when either side has no score)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["student", "assignment", "before", "after", "change"])
    for c in found:
        delta = c.delta
        writer.writerow([csv_cell(c.student), csv_cell(c.assignment), csv_cell(c.before), csv_cell(c.after),
                         "" if delta is None else f"{delta:g}"])
    write_atomic(path, buffer.getvalue())


def gradebook_scores(out: Path) -> tuple[list[str], dict[str, dict[str, str]]] | None:
    """The assignments and scores of ``out/grades.csv`` (None: there is none, or it cannot be read)."""
    try:
        book = gradebook_of(out)
    except GraderError:  # no gradebook yet, or not one: nothing to compare with
        return None
    return book.assignments, book.scores


def what_moved(before: tuple[list[str], dict[str, dict[str, str]]] | None, out: Path, path: Path | None
               ) -> list[str]:
    """The lines saying which scores of ``out/grades.csv`` moved since ``before`` (:func:`gradebook_scores` before
    the run; None: no lines), for the assignments both hold; with ``path``, every change written there too."""
    after = gradebook_scores(out)
    if before is None or after is None:
        return []
    ids = [aid for aid in after[0] if aid in before[0]]
    found = changes(before[1], after[1], ids)
    if path is not None:
        write_changes(path, found)
    return moved_lines(found, ids, "since the last gradebook") + ([f"Every change: {path}"] if path else [])
