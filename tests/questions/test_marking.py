"""A concept check's questions, each student's numbers, a student's answers file, and the marks they earn."""

from __future__ import annotations

import time
from types import SimpleNamespace

import pytest
from checkout import ROOT

from grader.errors import ConfigError
from grader.judge.reference import load_reference
from grader.questions.answer_sheet import MAX_BYTES, AnswersError, read_answers
from grader.questions.marking import mark
from grader.questions.params import draw, fill
from grader.questions.questions import key_value, load_key, load_questions
from grader.questions.sheet import answers_template, form_problems, question_sheet

QUESTIONS = """
functions:
  relu: "(x + abs(x))/2"
questions:
  - id: reverse_order
    kind: choice
    points: 1
    prompt: "backward() calls each node's _backward in which order?"
    choices: {a: "the order the forward pass made them", b: "reverse topological order", c: "any order"}
  - id: why_accumulate
    kind: choice
    multiple: true
    points: 2
    prompt: "Which need += in _backward?"
    choices: {a: "a + a", b: "a leaf used once", c: "a diamond: x used by two nodes", d: "the output"}
  - id: chain_rule
    kind: number
    points: 2
    prompt: "f = (a*b + c)**2 at a = {a}, b = {b}, c = {c}: what is df/da?"
    params: {a: {int: [1, 5]}, b: {int: [-5, -1]}, c: {int: [2, 10]}}
    tolerance: {abs: 1.0e-6, rel: 1.0e-6}
  - id: dtanh
    kind: expression
    points: 1
    prompt: "d/dx tanh(x), in x"
    variables: {x: [-2, 2]}
  - id: drelu
    kind: expression
    points: 1
    prompt: "relu(x) * x: its derivative for x > 0"
    variables: {x: [0.1, 3]}
"""
KEY = """
reverse_order:
  right: b
  feedback: {a: "a node's gradient is complete only once every node that uses it has run"}
why_accumulate: [a, c]
chain_rule: "2*(a*b + c)*b"
dtanh: "1/cosh(x)**2"
drelu: "2*relu(x)"
"""


@pytest.fixture
def check(tmp_path):
    (tmp_path / "questions.yaml").write_text(QUESTIONS, encoding="utf-8")
    (tmp_path / "key.yaml").write_text(KEY, encoding="utf-8")
    questions = load_questions(tmp_path / "questions.yaml")
    return {q.id: q for q in questions}, load_key(tmp_path / "key.yaml", questions)


def marked(check, qid, answer, student="alice"):
    questions, key = check
    return mark(questions[qid], key[qid], answer, "checkpoint", student)


def test_a_single_choice_is_right_or_wrong_and_a_wrong_one_says_why(check):
    assert marked(check, "reverse_order", "b").points == 1
    assert marked(check, "reverse_order", "B").points == 1
    wrong = marked(check, "reverse_order", "a")
    assert wrong.points == 0 and "every node that uses it" in wrong.feedback
    assert marked(check, "reverse_order", "a, b").points == 0  # one answer only
    assert "not one of the choices" in marked(check, "reverse_order", "z").feedback


@pytest.mark.parametrize(("answer", "points"), [
    (["a", "c"], 2.0), ("a, c", 2.0), (["a"], 1.0), (["a", "b"], 0.0), (["a", "c", "d"], 1.0), (["b", "d"], 0.0),
])
def test_several_right_choices_earn_a_share_each_less_one_per_wrong_choice(check, answer, points):
    assert marked(check, "why_accumulate", answer).points == points


def test_each_student_gets_their_own_numbers_the_same_on_every_run(check):
    questions, _ = check
    spec = questions["chain_rule"].params
    drawn = [tuple(draw(spec, "checkpoint", "chain_rule", f"s{i:03d}").values()) for i in range(60)]
    assert drawn == [tuple(draw(spec, "checkpoint", "chain_rule", f"s{i:03d}").values()) for i in range(60)]
    assert len(set(drawn)) >= 40
    assert all(1 <= a <= 5 and -5 <= b <= -1 and 2 <= c <= 10 for a, b, c in drawn)
    shown = fill(questions["chain_rule"].prompt, draw(spec, "checkpoint", "chain_rule", "s001"))
    a, b, c = drawn[1]
    assert f"a = {a}, b = {b}, c = {c}" in shown


def test_each_students_expected_answer_is_what_the_reference_engine_computes(check):
    """The key's formula at a student's numbers against backward() of the reference solution's Value."""
    questions, key = check
    mg = load_reference(ROOT / "reference")
    for i in range(25):
        values = draw(questions["chain_rule"].params, "checkpoint", "chain_rule", f"s{i:03d}")
        a, b, c = (mg.engine.Value(float(values[n])) for n in "abc")
        f = (a * b + c) ** 2
        f.backward()
        assert key_value(key["chain_rule"], {k: float(v) for k, v in values.items()}) == pytest.approx(a.grad)
        assert marked(check, "chain_rule", a.grad, student=f"s{i:03d}").points == 2


def test_a_classmates_answer_scores_what_a_wrong_answer_scores(check):
    questions, key = check
    spec = questions["chain_rule"].params
    mine = {k: float(v) for k, v in draw(spec, "checkpoint", "chain_rule", "alice").items()}
    theirs = next(v for i in range(100) if (v := {k: float(x) for k, x in draw(spec, "checkpoint", "chain_rule",
                                                                                 f"s{i}").items()}) != mine
                  and key_value(key["chain_rule"], v) != key_value(key["chain_rule"], mine))
    copied = marked(check, "chain_rule", key_value(key["chain_rule"], theirs), student="alice")
    assert copied.points == 0 and "is not right" in copied.feedback
    assert marked(check, "chain_rule", key_value(key["chain_rule"], mine), student="alice").points == 2


def test_a_number_may_be_arithmetic_and_a_wrong_kind_of_answer_says_so(check):
    questions, key = check
    values = {k: float(v) for k, v in draw(questions["chain_rule"].params, "checkpoint", "chain_rule", "bob").items()}
    a, b, c = values["a"], values["b"], values["c"]
    assert marked(check, "chain_rule", f"2*({a:g}*{b:g} + {c:g})*{b:g}", student="bob").points == 2
    assert "not a list" in marked(check, "chain_rule", ["a"], student="bob").feedback
    assert "arithmetic" in marked(check, "chain_rule", "about 12", student="bob").feedback


def test_an_expression_is_right_when_it_agrees_with_the_key_at_every_point_drawn(check):
    assert marked(check, "dtanh", "1 - tanh(x)**2").points == 1
    wrong = marked(check, "dtanh", "1 - tanh(x)")
    assert wrong.points == 0 and wrong.feedback.startswith("at x = ")
    assert "not a power" in marked(check, "dtanh", "1 - tanh(x)^2").feedback
    undefined = marked(check, "dtanh", "1 - tanh(x)**2 + 0*log(x)")  # no value where x < 0, which points reach
    assert undefined.points == 0 and "has no value at x = -" in undefined.feedback, undefined.feedback
    assert "unknown name" in marked(check, "dtanh", "1 - tanh(y)**2").feedback


def test_no_answer_or_an_unreadable_one_is_worth_nothing_and_says_why(check):
    questions, key = check
    assert mark(questions["dtanh"], key["dtanh"], None, "checkpoint", "alice").feedback == "no answer"
    sheet = read_answers(b"student: alice\nreverse_order: b\ndtanh: {x: 1}\nchain_rule:\n")
    assert sheet.student == "alice" and sheet.given == {"reverse_order": "b"}
    assert set(sheet.unreadable) == {"dtanh", "chain_rule"}
    assert "not a dict" in sheet.unreadable["dtanh"] and sheet.unreadable["chain_rule"] == "no answer"


@pytest.mark.parametrize(("data", "said"), [
    (b"student: alice\n\tzero_grad: a\n", "line 2 holds a tab, which YAML does not allow there: write spaces"),
    (b"student: alice\nzero_grad:\ta\n", "line 2 holds a tab"),
    (b"student: alice\nzero_grad: a: b\n", "not YAML: line 2, column 13: mapping values are not allowed here"),
    (b"a: &x [l, l, l, l, l]\nb: &y [*x, *x, *x, *x]\nc: [*y, *y, *y, *y]\n", "alias"),
    (b"- just\n- a list\n", "map each question"),
    (b"a: [unclosed\n", "not YAML"),
    (b"\xff\xfe not utf-8", "UTF-8"),
    (b"a: " + b"x" * MAX_BYTES, "bytes"),
    (("\n".join(f"q{i}: [a, b, c]" for i in range(700))).encode(), "values"),
    (b"--- !!python/object/apply:os.system ['true']\n", "map each question"),  # (one answer's tag: its own 0)
])
def test_a_hostile_or_broken_answers_file_is_refused_quickly_with_a_reason(data, said):
    started = time.perf_counter()
    with pytest.raises(AnswersError) as raised:
        read_answers(data)
    assert said in str(raised.value), str(raised.value)
    assert time.perf_counter() - started < 1.0


@pytest.mark.parametrize(("questions", "key", "where"), [
    (QUESTIONS.replace("kind: number", "kind: numeric"), KEY, "questions[2].kind"),
    (QUESTIONS.replace("{int: [1, 5]}", "{int: [5, 1]}"), KEY, "questions[2].params.a.int"),
    (QUESTIONS.replace("{int: [2, 10]}", "{int: [2, 2], exclude: [2]}"), KEY, "questions[2].params.c.exclude"),
    (QUESTIONS.replace("variables: {x: [-2, 2]}", "tolerance: {abs: 0.1}"), KEY, "questions[3].variables"),
    (QUESTIONS, KEY.replace("feedback: {a:", "feedback: {z:"), "reverse_order.feedback.z"),
    (QUESTIONS.replace("multiple: true", "multiple: true\n    feedback: {b: no}"), KEY, "questions[1].feedback"),
    (QUESTIONS.replace("id: dtanh", "id: chain_rule"), KEY, "questions[3].id"),
    (QUESTIONS, KEY.replace("right: b", "right: [a, b]"), "reverse_order"),
    (QUESTIONS, KEY.replace("[a, c]", "[a, e]"), "why_accumulate"),
    (QUESTIONS, KEY.replace("2*(a*b + c)*b", "2*(a*b + d)*b"), "chain_rule"),
    (QUESTIONS, KEY.replace('dtanh: "1/cosh(x)**2"', ""), "dtanh"),
    (QUESTIONS, KEY + "extra: 1\n", "extra"),
])
def test_a_malformed_questions_file_or_key_names_the_file_and_the_key(tmp_path, questions, key, where):
    (tmp_path / "questions.yaml").write_text(questions, encoding="utf-8")
    (tmp_path / "key.yaml").write_text(key, encoding="utf-8")
    with pytest.raises(ConfigError) as raised:
        load_key(tmp_path / "key.yaml", load_questions(tmp_path / "questions.yaml"))
    assert raised.value.key == where, str(raised.value)


def test_the_sheet_shows_each_student_their_own_numbers_and_no_answer(check):
    questions, _ = check
    alice = question_sheet("Checkpoint", list(questions.values()), "checkpoint", "alice")
    bob = question_sheet("Checkpoint", list(questions.values()), "checkpoint", "bob")
    a = draw(questions["chain_rule"].params, "checkpoint", "chain_rule", "alice")
    assert f"a = {a['a']}, b = {a['b']}, c = {a['c']}" in alice and alice != bob
    assert "2*(a*b + c)*b" not in alice and "cosh" not in alice  # the key is never an input of the sheet
    assert "- **b**: reverse topological order" in alice and "`alice`" in alice


def test_the_template_reads_back_and_the_form_check_never_tells_right_from_wrong(check):
    questions = list(check[0].values())
    empty = read_answers(answers_template(questions).encode())
    assert form_problems(questions, empty) == [f"{q.id}: no answer" for q in questions] + [
        "student: your id is missing (your numbers are drawn from it)"]
    wrong_but_well_formed = read_answers(b"student: alice\nreverse_order: c\nwhy_accumulate: [b, d]\n"
                                         b"chain_rule: 3/4\ndtanh: 1 - tanh(x)\ndrelu: relu(x)\n")
    assert form_problems(questions, wrong_but_well_formed) == []
    assert all(marked(check, q.id, wrong_but_well_formed.given[q.id]).points == 0 for q in questions)
    malformed = read_answers(b"student: alice\nreverse_order: [a, b]\nwhy_accumulate: [a, q]\nchain_rule: [a]\n"
                             b"dtanh: x ^ 2\nbonus: 1\n")
    assert form_problems(questions, malformed) == [
        "bonus: no such question (the questions: reverse_order, why_accumulate, chain_rule, dtanh, drelu)",
        "reverse_order: choose one answer",
        "why_accumulate: q is not one of the choices (a, b, c, d)",
        "chain_rule: expected a number, or arithmetic such as `(1 + 2/7)*-3`, not a list",
        "dtanh: ^ is not a power here: write x**2 for x squared",
        "drelu: no answer",
    ]


def test_a_function_the_questions_file_defines_is_there_for_the_key_and_the_answers(check):
    assert marked(check, "drelu", "2*x").points == 1
    assert marked(check, "drelu", "relu(x) + x").points == 1
    assert marked(check, "drelu", "relu(x)").points == 0


def test_a_key_may_call_the_reference_solution_which_only_the_judge_holds(tmp_path):
    """``{reference: df_da}``: each student's expected answer is computed by the reference's own Value."""
    (tmp_path / "questions.yaml").write_text(QUESTIONS, encoding="utf-8")
    (tmp_path / "key.yaml").write_text(KEY.replace('"2*(a*b + c)*b"', "{reference: df_da}"),
                                       encoding="utf-8")
    questions = {q.id: q for q in load_questions(tmp_path / "questions.yaml")}
    key = load_key(tmp_path / "key.yaml", list(questions.values()))
    mg = load_reference(ROOT / "reference")

    def df_da(a, b, c):
        va, vb, vc = mg.engine.Value(a), mg.engine.Value(b), mg.engine.Value(c)
        f = (va * vb + vc) ** 2
        f.backward()
        return va.grad

    reference = SimpleNamespace(df_da=df_da)
    for student in ("alice", "bob", "carol"):
        v = draw(questions["chain_rule"].params, "checkpoint", "chain_rule", student)
        right = 2 * (v["a"] * v["b"] + v["c"]) * v["b"]
        assert mark(questions["chain_rule"], key["chain_rule"], float(right), "checkpoint", student,
                    reference=reference).points == 2
    with pytest.raises(ValueError, match="not loaded here"):  # a self-check has no reference: never a mark
        mark(questions["chain_rule"], key["chain_rule"], 1.0, "checkpoint", "alice")
    broken = SimpleNamespace(df_da=lambda a, b, c: mg.engine.Value(1.0))
    with pytest.raises(ValueError, match="not a number"):
        mark(questions["chain_rule"], key["chain_rule"], 1.0, "checkpoint", "alice", reference=broken)
    (tmp_path / "key.yaml").write_text(KEY.replace('"2*(a*b + c)*b"', "{reference: os.system.x}"), encoding="utf-8")
    with pytest.raises(ValueError, match="no function df_da"):
        mark(questions["chain_rule"], key["chain_rule"], 1.0, "checkpoint", "alice", reference=SimpleNamespace())
    with pytest.raises(ConfigError, match="reference: function"):
        load_key(tmp_path / "key.yaml", list(questions.values()))
