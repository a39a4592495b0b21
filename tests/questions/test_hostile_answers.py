"""A hostile answers file fails its own questions, or the file, with a reason: nothing a student writes raises out of
the judge, where any exception other than the student's failure withholds the score as the grader's fault."""

from __future__ import annotations

import json
import time
from pathlib import Path

import nbformat
import pytest
from checkout import ROOT

from grader.errors import SubmissionError
from grader.intake.answers_file import answers_text
from grader.intake.entry import Submission
from grader.judge.reference import load_answers_module
from grader.questions.answer_sheet import MAX_ANSWER_CHARS, AnswersError, read_answers
from grader.questions.marking import mark
from grader.questions.questions import load_key, load_questions
from grader.questions.sheet import form_problems
from grader.testing.concept_checks import Submitted
from grader.testing.outcomes import Failure

QUESTIONS = load_questions(ROOT / "assignments" / "checkpoint" / "questions.yaml")
KEY = load_key(ROOT / "reference" / "answers" / "checkpoint.yaml", QUESTIONS)


@pytest.mark.parametrize("char", ["\x00", "\x07", "\x1b", "\x7f", "\x80", "\x9f"])
def test_a_control_character_makes_the_file_the_students_unreadable_one_naming_it_and_its_line(char):
    data = f"student: alice\nforward_builds: b{char}\n".encode()
    with pytest.raises(AnswersError, match=f"control character U\\+{ord(char):04X} on line 2"):
        read_answers(data)
    with pytest.raises(Failure, match="control character"):  # the judge's reading: the student's 0, never withheld
        Submitted("checkpoint", "alice", data.decode()).answers()


HOSTILE_VALUES = {
    "hex_huge": ("0x" + "f" * 5000, "too large"),  # an int YAML builds, with more digits than Python prints
    "decimal_huge": ("9" * 5000, "not read"),  # more digits than Python reads
    "pasted_digits": ("9" * 20_001, "a whole number of 20,001 digits, more than the 4,300 read"),
    "sexagesimal": ("1" + ":59" * 3000, "too large"),  # YAML 1.1's base 60
    "overflow": ("1.0e+999", "not a finite number"),
    "nan": (".nan", "not a finite number"),
    "infinity": ("-.inf", "not a finite number"),
    "no_date": ("2020-13-45", "not read"),
    "date": ("2020-01-01", "not a date"),
    "python_object": ("!!python/object/apply:os.system ['true']", "not read"),
    "binary": ("!!binary aGVsbG8=", "not a bytes"),
    "a_set": ("!!set {p, q}", "not a set"),
    "mapping": ("{p: 1}", "not a dict"),
    "nested": ("[" * 60 + "]" * 60, "letters in brackets"),
    "numbers_list": ("[1, 2]", "letters in brackets"),
    "long_letter": ("[" + "q" * 41 + "]", "letters in brackets"),
    "too_long": ("x" * (MAX_ANSWER_CHARS + 1), "more than the 400 read"),
    "half_character": ('"\\ud800"', "half of a character"),
    "truth": ("yes", "true/false"),
    "empty": ("", "no answer"),
}


def test_each_hostile_answer_is_its_own_questions_unreadable_answer_and_the_others_are_read():
    text = "student: alice\nforward_builds: b\n" + "".join(f"{k}: {v}\n" for k, (v, _) in HOSTILE_VALUES.items())
    started = time.perf_counter()
    answers = read_answers(text.encode())
    assert time.perf_counter() - started < 1.0
    assert answers.given == {"forward_builds": "b"} and answers.student == "alice"
    for qid, (_, said) in HOSTILE_VALUES.items():
        assert said in answers.unreadable[qid], (qid, answers.unreadable[qid])
        assert len(answers.unreadable[qid]) < 300


@pytest.mark.parametrize(("data", "said"), [
    (b"forward_builds: b\n---\nreverse_order: b\n", "single document"),
    (b"--- !!python/object:os.system\nforward_builds: b\n", "map each question"),
    (b"--- !!omap\n- forward_builds: b\n", "map each question"),
    (b"[forward_builds]: b\n", "line 1: a question's id is a name"),
    (b"reverse_order: b\n{a: 1}: b\n", "line 2: a question's id is a name"),
    (b"a: " + b"[" * 60_000 + b"\n", "nests brackets 60,000 deep"),  # before YAML, whose scanner takes seconds
    (b"a: " + b"[{x: " * 35 + b"}]" * 35 + b"\n", "nests brackets 70 deep"),
    (b"just text\n", "map each question"),
])
def test_a_file_that_is_no_one_mapping_of_ids_is_unreadable_with_a_reason(data, said):
    started = time.perf_counter()
    with pytest.raises(AnswersError, match=said.replace("(", r"\(")):
        read_answers(data)
    assert time.perf_counter() - started < 0.5


def test_the_id_and_the_question_ids_are_read_as_written_and_a_bom_is_dropped():
    """``student: 0123`` is the id 0123 (YAML 1.1 would read the octal 83, and the sheet would draw 83's numbers)."""
    assert read_answers(b"\xef\xbb\xbfstudent: alice\nforward_builds: b\n").given == {"forward_builds": "b"}
    for written, student in [(b"0123", "0123"), (b"12:30", "12:30"), (b"0x" + b"f" * 5000, "0x" + "f" * 78),
                             (b"[a, b]", ""), (b"~", ""), (b"{a: 1}", ""), (b'"x\\udfff"', "x\\udfff")]:
        assert read_answers(b"student: " + written + b"\n").student == student, written
    odd = read_answers(b'1: x\nnull: x\ntrue: x\n"q\\ud800": x\n? 0x' + b"f" * 5000 + b"\n: x\n")
    assert set(odd.given) == {"1", "null", "true", "q\\ud800", "0x" + "f" * 38}  # a lone surrogate spelled out
    problems = form_problems(QUESTIONS, odd)
    assert "1: no such question" in problems[0] and len(problems) == 5 + len(QUESTIONS) + 1


HOSTILE_ANSWERS = [
    "1e999", "9" * 400, "(" * 20 + "x" + ")" * 20, "-" * 199 + "x", "x" * 400, "10**10**10", "exp(exp(exp(1000)))",
    "(-8)**(1/3)", "log(-x)", "1/(x - x)", "factorial(30)", "__import__('os')", "().__class__", "lambda: 1", "x.real",
    "１２", "x\u202e", "\U0001d465", "a\x00b", "\ud800", "sigmoid", "sigmoid(x, x)", "exp(*[x])", "x if x else 1",
    "zz", "[q]", "q, r", ["q", "r"], [], ["\x1b[2J"], 1e308, -0.0,
]


@pytest.fixture(scope="module")
def reference():
    return load_answers_module(ROOT / "reference", "micrograd", ROOT / "reference" / "answers" / "checkpoint.py")


@pytest.mark.parametrize("question", QUESTIONS, ids=lambda q: q.id)
def test_marking_a_hostile_answer_fails_that_question_with_a_reason_and_raises_nothing(question, reference):
    started = time.perf_counter()
    for answer in HOSTILE_ANSWERS:
        got = mark(question, KEY[question.id], answer, "checkpoint", "alice", reference=reference)
        assert got.points == 0 and got.feedback, (answer, got)
        assert len(got.feedback) < 1_000, (answer, got.feedback)
    assert time.perf_counter() - started < 2.0


def test_a_notebooks_answers_cell_holding_half_a_character_is_that_submissions_error(tmp_path: Path):
    """JSON spells a lone surrogate (\\ud800), which no UTF-8 text holds: it had raised out of intake and ended the
    whole class's grading run."""
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "%%writefile checkpoint.yaml\nstudent: alice\nforward_builds: \ud800\n")])
    raw = json.dumps(notebook).encode()  # ASCII: the surrogate written as the escape \ud800
    sub = Submission("alice", tmp_path, {"checkpoint.ipynb": raw})
    with pytest.raises(SubmissionError, match="U\\+D800, half of a character"):
        answers_text(sub, "answers/checkpoint.yaml", "checkpoint")
