"""The points an assignment declares against what its questions are worth, checked before any judge runs.

``points:`` in ``assignment.yaml`` must equal the sum of the assignment's tests' points. For a concept check
(``kind: questions``) those tests are made from its ``questions.yaml``, one per question and worth its points, so the
sum is known without running anything: :func:`check_points` says a mismatch as the configuration error it is, naming
the file and the key, before ``grader grade``, ``grader validate`` or ``grader autograde`` start a judge (which would
otherwise refuse to start, the same error then reported as a judge failure). A code assignment's tests' points are
known only once its tests are collected: the judge checks those (:func:`grader.judge.plugin.verify_points_total`).
"""

from __future__ import annotations

from collections.abc import Iterable

from grader.course.config import QUESTIONS, Assignment
from grader.errors import ConfigError
from grader.questions.questions import load_questions

TOLERANCE = 1e-9
"""How far apart two totals of points may be and still be equal (the judge's own check uses the same)."""


def check_points(assignments: Iterable[Assignment]) -> None:
    """Check that each concept check among ``assignments`` declares the points its questions add up to.

    Raises:
        ConfigError: For the first one that does not (``assignment.yaml``, key ``points``), or whose
            ``questions.yaml`` is malformed.
    """
    for assignment in assignments:
        if not assignment.is_concept_check:
            continue
        total = sum(q.points for q in load_questions(assignment.root / QUESTIONS))
        if abs(total - assignment.points) > TOLERANCE:
            raise ConfigError(assignment.root / "assignment.yaml", "points",
                              f"{assignment.points:g}, but its questions' points add up to {total:g} ({QUESTIONS})")
