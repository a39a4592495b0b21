"""A hypothesis test's examples drawn once per judge: the same examples, verdicts and counterexamples as hypothesis."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from grader.testing import Failure, StudentFault, drawn_once

GRADER = settings(derandomize=True, database=None, deadline=None, print_blob=False, report_multiple_bugs=False,
                  suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow], max_examples=40)
"""The grader's profile (grader.judge.plugin) with the backward tests' max_examples."""


def make(body, *, drawn: bool, settings_=GRADER):
    """The same test written twice: under hypothesis alone, and with @drawn_once on top."""

    @settings_
    @given(xs=st.lists(st.integers(-1000, 1000), max_size=8))
    @example(xs=[7])
    def test(student, xs):
        body(student, xs)

    return drawn_once(test) if drawn else test


def runs_of(body, drawn: bool, students: int = 1, settings_=GRADER):
    """The examples each student's run saw (a list per student), and the error each run ended with (or None)."""
    seen: list[list[list[int]]] = []
    errors: list[BaseException | None] = []
    test = make(lambda student, xs: (seen[-1].append(list(xs)), body(student, xs)), drawn=drawn, settings_=settings_)
    for student in range(students):
        seen.append([])
        try:
            test(student=student)
            errors.append(None)
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)
    return seen, errors


def test_a_passing_student_sees_exactly_hypothesis_examples_and_each_later_student_the_same() -> None:
    plain, _ = runs_of(lambda student, xs: None, drawn=False)
    drawn, errors = runs_of(lambda student, xs: None, drawn=True, students=3)
    assert errors == [None, None, None]
    assert len(plain[0]) > 30 and plain[0][0] == [7]  # the explicit example first, then the drawn ones
    assert drawn == [plain[0]] * 3


def test_a_failing_student_gets_hypothesis_own_shrunk_counterexample() -> None:
    def body(student, xs):
        if sum(xs) > 100:
            raise Failure(f"sum({xs}) > 100")

    plain_seen, plain_errors = runs_of(body, drawn=False)
    drawn_seen, drawn_errors = runs_of(body, drawn=True, students=2)
    assert str(plain_errors[0]) == str(drawn_errors[0]) == str(drawn_errors[1])
    assert str(drawn_errors[0]) == "sum([101]) > 100"  # shrunk: hypothesis ran after the replay failed
    # the replay stopped at the first failing example, then hypothesis ran exactly as it runs alone
    first_failing = next(i for i, xs in enumerate(plain_seen[0]) if sum(xs) > 100)
    assert drawn_seen[0][: first_failing + 1] == plain_seen[0][: first_failing + 1]
    assert drawn_seen[0][first_failing + 1:] == plain_seen[0]


def test_a_fault_no_input_changes_ends_the_test_without_hypothesis() -> None:
    calls: list[int] = []

    def body(student, xs):
        calls.append(1)
        if len(calls) > 1:  # the replay's first example was recorded; the second call hits the fault
            raise StudentFault("timeout", "Value.backward took longer than 2 s")

    _, errors = runs_of(body, drawn=True)
    assert isinstance(errors[0], StudentFault) and errors[0].kind == "timeout"
    assert len(calls) == 2  # no hypothesis run after it


def test_without_derandomize_hypothesis_runs_alone() -> None:
    random_profile = settings(GRADER, derandomize=False)
    seen, errors = runs_of(lambda student, xs: None, drawn=True, students=2, settings_=random_profile)
    assert errors == [None, None] and seen[0] != seen[1]  # each run drew its own: nothing was replayed


def test_it_refuses_a_test_without_given() -> None:
    with pytest.raises(TypeError, match="above @given"):
        drawn_once(lambda student: None)
