"""The test authors' API, fast: comparisons (numbers, graphs) and cases (partial credit, hints)."""

from __future__ import annotations

import math

import pytest

from assignments.shared.checks import graphs
from assignments.shared.checks.graph_checks import compare_graph
from grader.testing import Check, Failure, StudentFault, close

SPEC = graphs.spec([2.0, -3.0], [["mul", 0, 1]], mode="local")  # n2 = x0 * x1


@pytest.mark.parametrize("got, expected, same", [
    (1.0, 1.0, True), (1.0 + 1e-9, 1.0, True), (1.1, 1.0, False), (math.nan, math.nan, True),
    (math.inf, math.inf, True), (1.0, math.nan, False), ({"nonnumeric": "Value", "repr": "x"}, 1.0, False),
    (True, 1.0, False),  # a bool is not a number
])
def test_close_compares_numbers_within_tolerance(got, expected, same):
    assert close(got, expected) is same


def test_compare_graph_names_the_forward_value_first_then_the_gradient():
    expected = {"data": [2.0, -3.0, -6.0], "grad": [-3.0, 2.0, 1.0]}
    compare_graph({"data": [2.0, -3.0, -6.0], "grad": [-3.0, 2.0, 1.0]}, expected, SPEC)
    with pytest.raises(Failure, match=r"forward pass: x0 \* x1 .* gave -5\.0, expected -6\.0"):
        compare_graph({"data": [2.0, -3.0, -5.0], "grad": [0.0, 0.0, 1.0]}, expected, SPEC)
    with pytest.raises(Failure, match=r"x1\.grad was 0\.0, expected 2\.0"):
        compare_graph({"data": [2.0, -3.0, -6.0], "grad": [-3.0, 0.0, 1.0]}, expected, SPEC)


def test_a_case_records_its_failure_with_the_method_and_the_hint():
    check = Check()
    with check.case("x0 * x1", method="Value.__mul__", hint="multiply by the other operand"):
        raise Failure("gave 1, expected 2")
    with check.case("passes"):
        pass
    assert [c.title for c in check.failures] == ["x0 * x1"]
    assert check.failures[0].message == "Value.__mul__: gave 1, expected 2\nHint: multiply by the other operand"
    assert check.failures[0].hint == "multiply by the other operand"


def test_unfinished_code_gets_no_hint_and_an_unexpected_error_is_not_swallowed():
    check = Check()
    fault = StudentFault("raised", "your code raised NotImplementedError", {"type": "NotImplementedError"})
    with check.case("x0 * x1", method="Value.__mul__", hint="multiply by the other operand"):
        raise fault
    assert check.failures[0].hint is None and "Hint" not in check.failures[0].message
    with pytest.raises(KeyError):  # a bug in the test itself: the judge withholds the score
        with check.case("buggy test"):
            {}["missing"]


def test_expect_error_accepts_only_the_named_error():
    from assignments.shared.checks.graph_checks import expect_error

    def raising(kind, error_type):
        def student(probe, spec):
            raise StudentFault(kind, "your code raised", {"type": error_type})
        return student

    spec = graphs.unary("exp", 710.0)
    expect_error(raising("raised", "OverflowError"), spec, ["OverflowError"], "Value(710.0).exp()")
    with pytest.raises(StudentFault):  # another error is the student's failure as it is
        expect_error(raising("raised", "ZeroDivisionError"), spec, ["OverflowError"], "Value(710.0).exp()")
    with pytest.raises(Failure, match=r"Value\(710.0\).exp\(\) gave inf, expected OverflowError"):
        expect_error(lambda probe, spec: {"data": [710.0, math.inf], "grad": [0.0, 1.0]}, spec, ["OverflowError"],
                     "Value(710.0).exp()")
