"""Scores a person changed, applied to a graded folder's outputs: each time they are made, from ``adjustments.csv``.

A stored result (``results.json``) is the judge's: its tests and its late penalty. What the rows of
``adjustments.csv`` (:mod:`grader.course.adjustments`) make of it is computed here, each time an output is made, and
never stored as a test's points, so a re-grade, a resumed run or a merge of shards applies each row exactly once:

* :func:`adjusted`: the score after the rows: the ``raw`` rows change the tests' points in file order, the late
  penalty is applied again to what they make (a regrade still pays the penalty), then the ``final`` rows change the
  score; a row that takes it below 0 or above the assignment's points is refused, naming its line;
* :func:`decorate_results`: ``results.json`` with the score Gradescope shows (its top-level ``score``), one line of
  ``tests`` per row (``max_score`` 0, its ``score`` the points the row changed, marked
  ``extra_data.adjustment``: :func:`grader.outputs.entries.is_test` leaves it out of every sum) and a sentence in
  ``output``; ``extra_data.grader.adjusted`` keeps what was there before, so the next run strips it exactly;
* :func:`decorate_feedback`: ``feedback.md`` with an "Adjustments" section at its end;
* :func:`apply_to_folder`: both, for every result of a folder (a result whose rows are gone loses its section).

A withheld score is left as it is: the adjustment applies once the submission is graded.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from grader.course.adjustments import Adjustment, Adjustments
from grader.course.config import Assignment
from grader.course.late_policy import penalised
from grader.files import write_atomic
from grader.inert import markdown, terminal
from grader.outputs.entries import ADJUSTMENT, is_test
from grader.outputs.store import FEEDBACK, RESULTS, Result, ResultStore

KEY = "adjusted"
"""The key of ``extra_data.grader`` holding what the adjustments replaced (and what they made)."""
def shown(x: float) -> str:
    """Points for display: at most two decimals, no trailing zeros (as ``grades.csv`` writes them)."""
    return f"{round(x, 2):g}"


MARK = "<!-- grader: adjustments (rewritten from adjustments.csv each time the outputs are made) -->"
"""The line that starts ``feedback.md``'s Adjustments section: everything from it on is the grader's to rewrite."""


@dataclass(frozen=True)
class Adjusted:
    """One result with its adjustments applied.

    Attributes:
        unadjusted: The stored score (the tests' points less the late penalty), in points.
        raw: The tests' points after the ``raw`` rows, in points.
        score: The score after every row, in points.
        rows: The rows applied, in file order.
        changes: The points each row changed the score by (a ``set`` row: the new score less the old), in order.
    """

    unadjusted: float
    raw: float
    score: float
    rows: tuple[Adjustment, ...]
    changes: tuple[float, ...]


def adjusted(result: Result, points: float, rows: Sequence[Adjustment], adjustments: Adjustments) -> Adjusted:
    """The score of ``result`` after ``rows`` (its student's rows on its assignment, in file order).

    Args:
        result: The stored result (not withheld).
        points: What the assignment is worth, in points.
        rows: The rows to apply.
        adjustments: Where they were read (for errors).

    Raises:
        ConfigError: Naming the file, the line and its ``add`` or ``set`` column, when a row takes the score below
            0 or above ``points``.
    """
    raw, changes = result.raw_score, []
    for row in (r for r in rows if r.stage == "raw"):
        raw, change = _step(raw, row, points, adjustments, "the tests' points")
        changes.append((row, change))
    score = result.score
    late = result.late
    if any(r.stage == "raw" for r in rows):
        score = raw if late is None or not late.applied else penalised(raw, points, _fraction(result, points),
                                                                         late.graded)
    for row in (r for r in rows if r.stage == "final"):
        score, change = _step(score, row, points, adjustments, "the score")
        changes.append((row, change))
    order = {id(r): k for k, r in enumerate(rows)}
    changes.sort(key=lambda rc: order[id(rc[0])])
    return Adjusted(result.score, round(raw, 4), round(score, 4), tuple(r for r, _ in changes),
                    tuple(c for _, c in changes))


def _step(before: float, row: Adjustment, points: float, adjustments: Adjustments, what: str) -> tuple[float, float]:
    """The score after ``row``, and the points it changed."""
    after = round(row.points if row.sets else before + row.points, 4)
    if not 0 <= after <= points + 1e-9:
        raise adjustments.error(row, "set" if row.sets else "add",
                                f"{row.change} makes {what} of {row.student[:60]} on {row.assignment} {shown(after)}, "
                                f"outside 0 to {shown(points)} (it was {shown(before)})")
    return after, round(after - before, 4)


def _fraction(result: Result, points: float) -> float:
    """The fraction of the points the late policy took from ``result`` (as the judge stored it)."""
    extra = result.document.get("extra_data")
    grader = extra.get("grader") if isinstance(extra, dict) else None
    late = grader.get("late") if isinstance(grader, dict) else None
    value = late.get("penalty") if isinstance(late, dict) else None
    if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= 1:
        return float(value)
    return (result.late.penalty_points / points) if result.late is not None and points > 0 else 0.0


def undecorated(doc: dict[str, Any]) -> dict[str, Any]:
    """A results.json document without what :func:`decorate_results` added (a copy; the document itself when it
    has nothing of it)."""
    grader = _grader(doc)
    if grader is None or KEY not in grader:
        return doc
    doc = copy.deepcopy(doc)
    grader = _grader(doc)
    assert grader is not None
    before = grader.pop(KEY)
    before = before if isinstance(before, dict) else {}
    doc["tests"] = [t for t in doc.get("tests", []) if is_test(t)]
    doc["output"] = str(before.get("output", doc.get("output", "")))
    doc.pop("score", None)
    if isinstance(before.get("score"), (int, float)):
        doc["score"] = before["score"]
    return doc


def _grader(doc: dict[str, Any]) -> dict[str, Any] | None:
    extra = doc.get("extra_data")
    grader = extra.get("grader") if isinstance(extra, dict) else None
    return grader if isinstance(grader, dict) else None


def decorate_results(doc: dict[str, Any], made: Adjusted | None, points: float) -> dict[str, Any]:
    """The results.json document ``doc`` with ``made`` applied (see the module docstring); without ``made``, the
    document as the judge wrote it."""
    plain = undecorated(doc)
    if made is None or not made.rows:
        return plain
    doc = copy.deepcopy(plain)
    lines = []
    for row, change in zip(made.rows, made.changes):
        lines.append({"name": terminal(f"Adjustment: {row.describe()}", keep=""), "score": change, "max_score": 0,
                      "output": terminal(row.reason, keep=""), "visibility": "visible",
                      "extra_data": {ADJUSTMENT: {"line": row.line, "change": row.change, "stage": row.stage,
                                                  "by": terminal(row.by, keep=""), "date": row.date}}})
    doc["tests"] = [*doc.get("tests", []), *lines]
    doc["score"] = made.score
    said = f"Adjusted score: {shown(made.score)} / {shown(points)} points (before the adjustments: " \
           f"{shown(made.unadjusted)}): " + "; ".join(terminal(f"adjusted: {r.describe()}", keep="") for r in made.rows)
    doc["output"] = f"{said}\n\n{plain.get('output', '')}"
    grader = _grader(doc)
    if grader is not None:
        grader[KEY] = {"score": plain.get("score"), "output": plain.get("output", ""), "unadjusted": made.unadjusted,
                       "raw": made.raw, "final": made.score, "rows": [r.line for r in made.rows]}
    return doc


def decorate_feedback(text: str, made: Adjusted | None, points: float) -> str:
    """``feedback.md``'s text with its Adjustments section for ``made`` (none: the section removed)."""
    plain = text.split(f"\n{MARK}\n", 1)[0]
    if made is None or not made.rows:
        return plain
    lines = ["", MARK, "## Adjustments", "", "A person changed this score:", ""]
    lines += [f"- {markdown(f'adjusted: {r.describe()}')}" for r in made.rows]
    lines += ["", f"**Your score: {shown(made.score)} / {shown(points)} points** (before the adjustments: "
                  f"{shown(made.unadjusted)}).", ""]
    return plain.rstrip("\n") + "\n" + "\n".join(lines)


def cell(store: ResultStore, assignment: Assignment, student: str, adjustments: Adjustments) -> Adjusted | None:
    """One cell's adjustments applied to its stored result (None: no rows, no result, or a withheld one).

    Raises:
        ConfigError: When a row takes the score out of range (:func:`adjusted`).
    """
    rows = adjustments.of(student, assignment.id)
    result = store.get(assignment.id, student) if rows else None
    if result is None or result.withheld:
        return None
    return adjusted(result, assignment.points, rows, adjustments)


def apply_to_folder(store: ResultStore, assignments: Iterable[Assignment], adjustments: Adjustments) -> int:
    """Write every result of ``store``'s folder on ``assignments`` with its adjustments (and without those that are
    no longer in the file): ``results.json`` and ``feedback.md``, only those that change.

    Every row is checked before any file is written, so a row refused leaves every output as it was.

    Returns:
        How many results were written.

    Raises:
        ConfigError: When a row takes a score out of range (:func:`adjusted`).
    """
    by_id = {a.id: a for a in assignments}
    cells = [(by_id[aid], student, folder) for aid, student, folder in store.stored() if aid in by_id]
    made = {(a.id, s): cell(store, a, s, adjustments) for a, s, _ in cells}
    written = 0
    for a, student, folder in cells:
        result = store.get(a.id, student)
        if result is None:
            continue
        mine = made[(a.id, student)]
        doc = decorate_results(result.document, mine, a.points)
        if doc == result.document:
            continue
        feedback = folder / FEEDBACK
        try:
            text = feedback.read_text(encoding="utf-8")
        except OSError:
            text = None
        if text is not None:
            write_atomic(feedback, decorate_feedback(text, mine, a.points))
        write_atomic(folder / RESULTS, json.dumps(doc, indent=2))
        written += 1
    return written
