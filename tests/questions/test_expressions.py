"""Math written as text (a student's answer, an answer key's formula), evaluated by a tree walk, never run."""

from __future__ import annotations

import math
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.questions.expressions import FUNCTIONS, MAX_CHARS, ExpressionError, course_function, parse_expression


def test_the_usual_answers_have_the_values_math_gives():
    x = 0.7
    assert parse_expression("1 - tanh(x)**2", ("x",))({"x": x}) == pytest.approx(1 - math.tanh(x) ** 2)
    assert parse_expression("2*(a*b + c)*b", ("a", "b", "c"))({"a": 2, "b": -3, "c": 10}) == -24.0
    sigmoid = {"sigmoid": course_function("sigmoid", "1/(1 + exp(-x))")}
    assert parse_expression("sigmoid(x)*(1 - sigmoid(x))", ("x",), sigmoid)({"x": 0.3}) == pytest.approx(
        math.exp(-0.3) / (1 + math.exp(-0.3)) ** 2)
    with pytest.raises(ExpressionError, match="only functions of one number"):
        parse_expression("sigmoid(x)", ("x",))  # a course's function only where its questions file defines it
    assert {"exp", "log", "sqrt", "tanh", "cosh", "sin", "erf", "abs"} <= set(FUNCTIONS)
    assert not {"factorial", "isnan", "pow", "frexp", "modf"} & set(FUNCTIONS)
    for name in FUNCTIONS:  # every one gives a number or "no value", never another error
        for x in (-1e308, -2.5, -1.0, 0.0, 0.5, 1.0, 3.0, 1e308):
            try:
                parse_expression(f"{name}(x)", ("x",))({"x": x})
            except ExpressionError:
                pass
    assert parse_expression("-e**-x + pi", ("x",))({"x": 1.0}) == pytest.approx(-math.exp(-1) + math.pi)
    assert parse_expression("3/4")({}) == 0.75


def trees(names=("x", "y")):
    """Expressions as text, over ``names``, built from every construct the reader allows."""
    leaves = st.one_of(st.sampled_from(names), st.integers(0, 9).map(str),
                       st.floats(0.1, 5, allow_nan=False).map(lambda f: f"{f:.3f}"), st.just("pi"))

    def grow(inner):
        return st.one_of(
            st.tuples(inner, st.sampled_from(["+", "-", "*", "/"]), inner).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
            st.tuples(inner, st.integers(0, 3)).map(lambda t: f"({t[0]})**{t[1]}"),
            inner.map(lambda s: f"-{s}"),
            st.tuples(st.sampled_from(sorted(PYTHON_FUNCTIONS)), inner).map(lambda t: f"{t[0]}({t[1]})"),
        )

    return st.recursive(leaves, grow, max_leaves=12)


PYTHON_FUNCTIONS = ("exp", "log", "sqrt", "tanh", "sinh", "cosh", "sin", "cos", "atan", "erf", "abs")
PYTHON = {**{k: getattr(math, k) for k in PYTHON_FUNCTIONS if k != "abs"}, "pi": math.pi, "abs": abs}


@settings(max_examples=150, deadline=None, derandomize=True)
@given(trees(), st.floats(-3, 3), st.floats(-3, 3))
def test_any_allowed_expression_has_the_value_python_gives_it_or_says_it_has_none(text, x, y):
    """The tree walk agrees with Python's own evaluation of the same text wherever Python finds a finite float."""
    expression = parse_expression(text, ("x", "y"))
    try:
        want = eval(text, {"__builtins__": {}}, {**PYTHON, "x": x, "y": y})  # noqa: S307 - the test's own text
        want = float(want) if not isinstance(want, complex) else math.nan
    except (ZeroDivisionError, OverflowError, ValueError):
        want = math.nan
    if not math.isfinite(want):
        with pytest.raises(ExpressionError):
            expression({"x": x, "y": y})
        return
    try:
        got = expression({"x": x, "y": y})
    except ExpressionError:  # math.pow refuses what ** turns complex (a negative base, fractional exponent)
        return
    assert got == pytest.approx(want, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize(("text", "said"), [
    ("__import__('os').system('true')", "only functions of one number"),
    ("().__class__", "not allowed"),
    ("x.real", "not allowed"),
    ("lambda: 1", "not allowed"),
    ("[x for x in (1, 2)]", "not allowed"),
    ("x if x else 1", "not allowed"),
    ("'abc'", "not a number"),
    ("True", "not a number"),
    ("1j", "not a number"),
    ("x ^ 2", "write x**2"),
    ("x // 2", "//"),
    ("2x", "not an expression"),
    ("exp(x, 2)", "one argument"),
    ("exp(x=1)", "one argument"),
    ("exp", "is a function"),
    ("y + 1", "unknown name 'y'"),
    ("", "empty"),
    ("(" * 500 + "x" + ")" * 500, "more than"),
    ("+".join(["x"] * 150), "parts"),
    ("x" * (MAX_CHARS + 1), "characters"),
])
def test_anything_but_math_is_refused_with_a_reason(text, said):
    with pytest.raises(ExpressionError, match=None) as raised:
        parse_expression(text, ("x",))
    assert said in str(raised.value), str(raised.value)


@pytest.mark.parametrize("text", ["9**9**9", "exp(exp(exp(x)))", "1/(x - x)", "log(-1 - x*x)", "sqrt(-1)",
                                  "9" * 300 + ".0 ** 2", "1e308 * 10"])
def test_a_value_too_large_or_undefined_is_an_error_not_a_hang_or_a_number(text):
    expression = parse_expression(text, ("x",))
    started = time.perf_counter()
    with pytest.raises(ExpressionError):
        expression({"x": 5.0})
    assert time.perf_counter() - started < 0.5
