"""What the class report shows of due dates: the "Due dates and late work" section.

For each assignment with a due date (its results record one: ``extra_data.grader.late``), the due date, the late
policy in one sentence, and how many submissions were on time, late without a penalty, penalised, after the
cut-off, or without a recorded time, with the extensions applied and the points the penalties took; then one row per
student whose work was late or extended, with the sentence their feedback states. With a roster
(``assignments/course.yaml``), the students on it with no submission (missing), the submissions it does not know,
and the students two submissions claim. Nothing here changes a score: the judge applied each penalty once
(:func:`grader.course.due_dates.final_score`).

Every text here is shown as one inert, capped line (:func:`grader.outputs.attention.one_line`): student ids (which
students choose through their folder or file names), the roster's ids, and the due dates, policies, lateness and
sentences results.json records (the judge wrote them, from the submission's dates and commits).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from grader.course.config import Assignment
from grader.course.roster import Student, match
from grader.outputs.attention import MAX_ID, MAX_MESSAGE, one_line, shown_id
from grader.outputs.gradebook import points
from grader.outputs.store import Result

MAX_ROWS = 2000
"""Late or extended submissions listed (the gradebook has them all)."""


@dataclass
class AssignmentDue:
    """One assignment's due date and what its policy did across the class.

    Attributes:
        assignment: The assignment id.
        due: Its due date for everyone (ISO 8601), as the results record it.
        policy: Its late policy, in one sentence.
        counts: Outcome (``on time``, ``late, no penalty``, ``penalised``, ``after the cut-off``, ``no time
            recorded``) to the number of submissions.
        extensions: Submissions graded under an extension.
        penalty_points: Points the penalties took, over the class.
    """

    assignment: str
    due: str
    policy: str
    counts: dict[str, int] = field(default_factory=dict)
    extensions: int = 0
    penalty_points: float = 0.0


@dataclass
class LateRow:
    """One late or extended submission.

    Attributes:
        student: The student id (shown: inert, capped).
        assignment: The assignment id.
        counted: The lateness as the policy counts it.
        penalty: The points taken, for display ("" for none).
        sentence: The extension and what was applied, as the student's feedback says it.
    """

    student: str
    assignment: str
    counted: str
    penalty: str
    sentence: str


@dataclass
class LateSection:
    """The report's "Due dates and late work" section.

    Attributes:
        assignments: Each assignment with a due date, in course order.
        rows: Late or extended submissions (at most :data:`MAX_ROWS`), by assignment then student.
        missing: Roster students with no submission (empty without a roster), ids shown inert and capped.
        unknown: Submissions the roster does not know (ids shown inert and capped).
        claimed_twice: Roster students more than one submission matched, each with those submissions.
        roster: Whether a roster was read.
    """

    assignments: list[AssignmentDue]
    rows: list[LateRow]
    missing: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    claimed_twice: list[str] = field(default_factory=list)
    roster: bool = False

    @property
    def policies(self) -> list[tuple[str, list[str]]]:
        """Each distinct late policy with the assignments it applies to, in course order of first use: the report
        states a policy once, above the outcomes, rather than in a narrow column of each row."""
        grouped: dict[str, list[str]] = {}
        for due in self.assignments:
            grouped.setdefault(due.policy, []).append(due.assignment)
        return list(grouped.items())


def outcome(result: Result) -> str:
    """What the policy did to one result: one of :class:`AssignmentDue`'s ``counts`` keys."""
    late = result.late
    assert late is not None
    if not late.submitted:
        return "no time recorded"
    if not late.graded:
        return "after the cut-off"
    if not late.late:
        return "on time"
    return "penalised" if late.penalty_points else "late, no penalty"


def late_section(assignments: Sequence[Assignment], results: Mapping[str, Mapping[str, Result | None]],
                 students: Sequence[str], roster: Sequence[Student] | None = None) -> LateSection | None:
    """The section, from each assignment's results (assignment id to student to result); None when no result
    records a due date and there is no roster."""
    dues: list[AssignmentDue] = []
    rows: list[LateRow] = []
    for a in assignments:
        dated = [(s, r) for s, r in results.get(a.id, {}).items() if r is not None and r.late is not None]
        if not dated:
            continue
        first = dated[0][1].late
        assert first is not None
        due = AssignmentDue(a.id, one_line(first.assignment_due, MAX_ID), one_line(first.policy, MAX_MESSAGE))
        for student, result in dated:
            late = result.late
            assert late is not None
            kind = outcome(result)
            due.counts[kind] = due.counts.get(kind, 0) + 1
            due.extensions += bool(late.extension)
            taken = late.penalty_points if late.applied else 0.0
            due.penalty_points = round(due.penalty_points + taken, 4)
            if late.late or late.extension or kind == "no time recorded":
                rows.append(LateRow(shown_id(student), a.id, one_line(late.counted, MAX_ID),
                                    points(taken) if taken else "",
                                    " ".join(one_line(x, MAX_MESSAGE) for x in (late.extension, late.sentence) if x)))
        dues.append(due)
    if not dues and not roster:
        return None
    section = LateSection(dues, rows[:MAX_ROWS], roster=bool(roster))
    if roster:
        found = match(roster, students)
        section.missing = [shown_id(s.student) for s in found.missing]
        section.unknown = [shown_id(u) for u in found.unknown]
        section.claimed_twice = [f"{shown_id(sid)} ({', '.join(shown_id(i) for i in ids)})"
                                 for sid, ids in found.claimed_twice.items()]
    return section
