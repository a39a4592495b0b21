"""The submissions an instructor must look at before grades go out: the class report's "needs attention" list.

Each student's ``results.json`` on each assignment (as ``grader grade`` wrote
it) is read for four conditions, in this order (one per assignment):

1. **grader error**: the grader's own machinery failed, so the score is
   withheld (:attr:`grader.outputs.store.Result.withheld`: ``extra_data.grader.
   grader_error``, or a test's ``grader_error``); grade the submission again;
2. **work on another branch**: the commit graded holds nothing of the student's (nothing by the due date, or only the
   repository's first commit) while another branch has commits (``extra_data.grader.origin.other_branch``:
   :mod:`grader.intake.other_branches`); grading that branch is the course's choice;
3. **could not be graded**: there is no results.json although the gradebook
   lists the assignment, no test ran, or intake and loading reported problems
   (``extra_data.grader.problems``: no files found, a module that cannot be
   imported, a crash or hang at import);
4. **template unchanged**: every test failed, each on a template stub (a test worth no points that the
   template's given code passes, a contract test, does not count)
   (``NotImplementedError``): the student handed in the template as it was,
   or the wrong files.

Reasons quote the grader's problems, which hold text from the submission:
they are capped and made inert (:func:`one_line`) here,
and escaped by the report's template. :func:`one_line` and :func:`shown_id` are what every section of the class
report shows a student-controlled string through (ids, notes, messages, test names and late sentences from
results.json): one line, every control, format (bidirectional overrides, zero-width and other invisible characters)
and lone surrogate character as a visible escape, capped.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from grader.inert import terminal
from grader.outputs.store import Result

Kind = Literal["grader error", "work on another branch", "could not be graded", "look at this", "template unchanged"]

KINDS: tuple[Kind, ...] = ("grader error", "work on another branch", "could not be graded", "look at this",
                           "template unchanged")
"""The conditions, most urgent first (the order of the list)."""

MAX_REASON = 300
"""Characters of a reason shown (problems quote the submission's own text)."""
MAX_ID = 160
"""Characters of a student id shown (a submission's folder, zip or notebook name), and of a test's task label or a
method's name."""
MAX_MESSAGE = 400
"""Characters of a message from results.json shown (a hint, a test's title or key, a late sentence)."""

TEMPLATE_REASON = "every test failed on a template stub (NotImplementedError): nothing was implemented"


@dataclass(frozen=True)
class Finding:
    """What one student's results on one assignment need attention for.

    Attributes:
        kind: Which condition.
        reason: Why, in one line (capped, inert).
    """

    kind: Kind
    reason: str


@dataclass(frozen=True)
class Attention:
    """One line of the "needs attention" list: a student, a condition, and where it holds.

    Attributes:
        student: The student id, as the report shows it (:func:`shown_id`).
        kind: Which condition.
        assignments: The assignments where it holds with this reason, in course order.
        reason: Why, in one line (capped, inert).
    """

    student: str
    kind: Kind
    assignments: tuple[str, ...]
    reason: str


def one_line(text: str, cap: int = MAX_REASON) -> str:
    """``text`` as one inert line (:func:`grader.inert.terminal`: control, format and lone surrogate characters as
    escapes) of at most ``cap`` characters."""
    text = " ".join(terminal(text, keep="").split())
    return text if len(text) <= cap else text[: cap - 1] + "…"


def shown_id(student: str) -> str:
    """A student id as the report shows it: one inert line of at most :data:`MAX_ID` characters (:func:`one_line`).

    The id itself (a folder name) still names the student's results and feedback; only what is shown changes.
    """
    return one_line(student, MAX_ID)


def finding(result: Result | None) -> Finding | None:
    """What one result (None: no results.json) needs attention for, or None if it was graded normally."""
    if result is None:
        return Finding("could not be graded", "no results.json: run `grader grade` again")
    if result.withheld:
        return Finding("grader error", one_line(f"score withheld: {result.withheld}"))
    if elsewhere := other_branch(result):
        return Finding("work on another branch", elsewhere)
    if result.problems:
        return Finding("could not be graded", one_line("; ".join(result.problems)))
    tests = result.tests
    if not tests:
        return Finding("could not be graded", "no test ran")
    if all(t.unfinished for t in tests if t.max_score or not t.passed):  # a contract test the template's given
        # constructor passes is worth no points: it does not make the template work
        return Finding("template unchanged", TEMPLATE_REASON)
    return None


def noticed(result: Result | None) -> Finding | None:
    """What a graded result's intake noted for the instructor to look at (:attr:`grader.outputs.store.Result.
    attention`: an answers file naming another student, work on another branch), or None. Unlike :func:`finding`,
    the result still counts in the class's statistics."""
    notes = result.attention if result is not None else []
    return Finding("look at this", one_line("; ".join(notes))) if notes else None


def other_branch(result: Result) -> str:
    """The evidence that the student's work is on another branch than the one graded, as one inert capped line ("" when
    the result records none: ``origin.other_branch``, :mod:`grader.intake.other_branches`)."""
    said = result.origin.get("other_branch")
    return one_line(said) if isinstance(said, str) and said.strip() else ""


def attention_list(findings: Mapping[str, Sequence[tuple[str, Finding]]]) -> list[Attention]:
    """The "needs attention" list: per student, each (condition, reason) once with the assignments it holds in.

    Args:
        findings: Student id to (assignment id, finding) pairs, in course order.

    Returns:
        The lines (each id as :func:`shown_id` shows it), grader errors first, then work on another branch, then
        submissions that could not be graded, then unchanged templates; by student id within each.
    """
    lines = []
    for student, found in findings.items():
        where: dict[tuple[Kind, str], list[str]] = {}
        for assignment, f in found:
            where.setdefault((f.kind, f.reason), []).append(assignment)
        lines += [Attention(shown_id(student), kind, tuple(ids), reason) for (kind, reason), ids in where.items()]
    return sorted(lines, key=lambda a: (KINDS.index(a.kind), a.student))
