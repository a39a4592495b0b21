"""The score of one test: the one formula, pure (unit-tested in ``tests/judge/test_scoring.py``).

A test's cases (``check.case``) count equally. A fault that ends the test
before its last case (a crash, a timeout, an unimplemented method raised
outside any case) counts as one more failed case when cases were recorded,
and as the whole test otherwise. When the grader's own machinery failed, the
test earns nothing and the assignment's score is withheld elsewhere
(:func:`grader.outputs.records.withheld`): never partial credit from a test
the grader could not run.
"""

from __future__ import annotations


def points_earned(points: float, cases: int, failed: int, ended_early: bool, grader_error: bool,
                  share: float | None = None) -> float:
    """Points one test earns.

    Args:
        points: The test's points (``@pytest.mark.points``).
        cases: Cases recorded by ``check.case``.
        failed: How many of them failed.
        ended_early: A fault ended the test outside any case (it counts as one failed case more).
        grader_error: The grader's own machinery failed in this test.
        share: The share of the points the test gave itself (``Check.share``, 0 to 1: a concept check's answer
            partly right), or None; a fault that ends the test early still earns nothing.

    Returns:
        ``points * passed / (cases + ended_early)``, rounded to 4 decimals; all
        points when nothing failed; ``points * share`` when the test gave its share and did not end early;
        0 on a grader error.
    """
    if grader_error:
        return 0.0
    if share is not None and not ended_early:
        return round(points * min(1.0, max(0.0, share)), 4)
    if failed == 0 and not ended_early:
        return points
    total = cases + (1 if ended_early and cases else 0)
    return round(points * (cases - failed) / total, 4) if total else 0.0

