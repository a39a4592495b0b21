"""The one score formula (grader.judge.scoring.points_earned): cases count equally, an early end is one
more failed case, a grader error earns nothing."""

from __future__ import annotations

import pytest

from grader.judge.scoring import points_earned as score


@pytest.mark.parametrize("points, cases, failed, ended_early, grader_error, expected", [
    (4.0, 4, 0, False, False, 4.0),      # everything passed
    (4.0, 0, 0, False, False, 4.0),      # a test without cases that passed
    (4.0, 4, 1, False, False, 3.0),      # one case of four failed
    (3.0, 3, 3, False, False, 0.0),      # every case failed
    (4.0, 3, 0, True, False, 3.0),       # three cases passed, then a fault ended the test: 3 of 4
    (4.0, 3, 1, True, False, 2.0),
    (4.0, 0, 0, True, False, 0.0),       # a fault before any case: nothing
    (4.0, 4, 0, False, True, 0.0),       # the grader failed: no partial credit, whatever passed
    (1.0, 3, 1, False, False, 0.6667),   # rounded to 4 decimals
])
def test_the_score_of_one_test(points, cases, failed, ended_early, grader_error, expected):
    assert score(points, cases, failed, ended_early, grader_error) == expected
