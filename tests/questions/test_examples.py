"""No example a student reads is an answer: every example of the handout, the sheet, the answers template, the
grader's messages and docstrings, and the example submissions, marked against every question of the checkpoint at
every draw of its numbers, by the grader's own marking."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

import pytest
from checkout import ROOT

from grader.course.course import Course
from grader.grading.concept_validation import example_misses
from grader.judge.reference import load_answers_module
from grader.questions import answer_sheet, examples, expressions, forms, marking, params, questions, sheet
from grader.questions.answer_sheet import read_answers
from grader.questions.examples import examples_in, scoring_examples
from grader.questions.marking import mark
from grader.questions.params import draw, every_draw
from grader.questions.questions import load_key, load_questions
from grader.questions.sheet import answers_template, form_problems, question_sheet

CHECKPOINT = ROOT / "assignments" / "checkpoint"
QUESTIONS = load_questions(CHECKPOINT / "questions.yaml")
KEY = load_key(ROOT / "reference" / "answers" / "checkpoint.yaml", QUESTIONS)
MALFORMED = ["zz", ["zz"], "x ^ 2", "2x", "about 12", "exp(-x", ["q", 1]]
"""Answers of the wrong form for every kind: what makes the grader's messages show their examples."""


@pytest.fixture(scope="module")
def reference():
    return load_answers_module(ROOT / "reference", "micrograd", ROOT / "reference" / "answers" / "checkpoint.py")


def messages(reference) -> str:
    """Every message marking and the form check give of a malformed answer to each question, one a line."""
    lines: list[str] = []
    for answer in MALFORMED:
        given = read_answers(f"answer: {answer}\n".replace("'", "").encode())
        lines += [*given.unreadable.values()]
        for q in QUESTIONS:
            lines += form_problems(QUESTIONS, read_answers(f"student: alice\n{q.id}: {answer}\n".replace("'", "")
                                                           .encode()))
            if not isinstance(answer, list) or all(isinstance(a, str) for a in answer):
                lines.append(mark(q, KEY[q.id], answer, "checkpoint", "alice", reference=reference).feedback)
    return "\n".join(lines)


def texts_students_read(reference) -> dict[str, str]:
    texts = {
        "the handout": (CHECKPOINT / "README.md").read_text(encoding="utf-8"),
        "the answers template": answers_template(QUESTIONS),
        "the sheet": question_sheet("Checkpoint", QUESTIONS, "checkpoint", "alice"),
        "the messages": messages(reference),
    }
    for module in (answer_sheet, examples, expressions, forms, marking, params, questions, sheet):  # in the release
        texts[f"{module.__name__}'s docstring"] = module.__doc__ or ""
    for path in sorted((ROOT / "examples" / "submissions").glob("*/answers/*.yaml")):
        texts[str(path.relative_to(ROOT))] = path.read_text(encoding="utf-8")
    return texts


def test_no_example_a_student_reads_would_score_or_names_a_choice(reference):
    started = time.perf_counter()
    texts = texts_students_read(reference)
    shown = {where: examples_in(text) for where, text in texts.items()}
    scoring = [f"{where}: {s.example!r} {s.why}" for where, found in shown.items()
               for s in scoring_examples(found, QUESTIONS, KEY, "checkpoint", reference)]
    assert scoring == []
    assert {"q", "[p, r]", "-7/3", "3*x**2 - exp(-x)"} <= set(shown["the handout"])  # its YAML block was read
    assert forms.NUMBER_EXAMPLE in shown["the answers template"] and forms.NUMBER_EXAMPLE in shown["the messages"]
    assert forms.expression_example(("x",)) in shown["the sheet"]
    assert time.perf_counter() - started < 5.0


OLD_TEXTS = """
forward_builds:    # one letter, e.g. b
why_accumulate:    # every right letter, e.g. [a, c] (each wrong one chosen takes a share back)
chain_rule:    # a number, or arithmetic such as 3/4
expected a number, a text or a list of letters such as [a, c]
Arithmetic is fine: `3/4`, `2*(5*-3 + 6)*-3`. Any equal form is right (`1 - tanh(x)**2` and `1/cosh(x)**2` both are).

```yaml
student: YOUR_ID
zero_grad: c                    # one letter
chain_rule: -84                 # a number, or arithmetic such as 2*(-6 + 10)*-3
```
"""


def test_an_example_that_is_an_answer_or_names_a_choice_is_found_with_where(reference):
    """The texts before examples were checked: their examples were the key (the handout's block as handed in scored
    3 of 12), and a wrong letter shown (c) rules a choice out."""
    found = {(s.example, s.question): s.why
             for s in scoring_examples(examples_in(OLD_TEXTS), QUESTIONS, KEY, "checkpoint", reference)}
    assert found[("b", "forward_builds")] == "names choice b of forward_builds"
    assert found[("[a, c]", "why_accumulate")] == "names choice a, c of why_accumulate"
    assert found[("c", "zero_grad")] == "names choice c of zero_grad"
    assert found[("3/4", "hand_gradient")].startswith("is hand_gradient's answer at x = ")
    assert found[("2*(5*-3 + 6)*-3", "chain_rule")] == "is chain_rule's answer at a = 4, b = -3, c = 3"
    assert found[("2*(-6 + 10)*-3", "chain_rule")].startswith("is chain_rule's answer at ")
    assert ("1 - tanh(x)**2", "dtanh") not in found  # no longer: the question asks for tanh(x)**2's derivative
    assert ("-84", "chain_rule") not in found  # no a, b, c gives it
    hand = next(q for q in QUESTIONS if q.id == "hand_gradient")  # 3/4 handed in: right for some students
    assert any(mark(hand, KEY["hand_gradient"], "3/4", "checkpoint", f"s{i}").points == 1 for i in range(3_000))


def test_every_draw_is_every_set_of_numbers_a_student_can_draw():
    chain = next(q for q in QUESTIONS if q.id == "chain_rule")
    every = every_draw(chain.params)
    assert every is not None and len(every) == 5 * 5 * 11
    drawn = {tuple(draw(chain.params, "checkpoint", "chain_rule", f"s{i}").values()) for i in range(3_000)}
    assert drawn == {tuple(v.values()) for v in every}
    assert every_draw(chain.params, most=100) is None
    x = next(q for q in QUESTIONS if q.id == "hand_gradient").params["x"]
    drawn_x = {draw({"x": x}, "checkpoint", "hand_gradient", f"s{i}")["x"] for i in range(2_000)}
    assert drawn_x == set(params.every_value(x)) and len(drawn_x) == 41
    spec = params.ParamSpec("uniform", 0.04, 0.3, 1, exclude=(0.2,))  # 0.04 rounds down to 0.0, below its low end
    assert params.every_value(spec) == (0.0, 0.1, 0.3)


def test_validate_names_an_example_of_the_handout_that_is_an_answer(tmp_path: Path, reference):
    assignment = dataclasses.replace(Course(ROOT).assignment("checkpoint"), root=tmp_path)
    assert example_misses(assignment, QUESTIONS, KEY, reference) == []  # no handout: the sheet and template only
    (tmp_path / "README.md").write_text("Write `3*exp(3*x)` for 3 e to the 3x.\n", encoding="utf-8")
    assert example_misses(assignment, QUESTIONS, KEY, reference) == [
        "checkpoint: the handout shows `3*exp(3*x)` as an example, and it is exp_local's answer: an example must be no "
        "answer"]
