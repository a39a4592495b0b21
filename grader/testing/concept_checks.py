"""The tests of a concept check (``kind: questions``): one per question, and a public one for the answers' form.

An assignment's test modules are two lines each (``grader new-assignment --kind questions`` writes them)::

    # tests/hidden/test_answers.py
    from grader.testing.concept_checks import answer_tests
    test_answer = answer_tests(__file__)

    # tests/public/test_answers_form.py
    from grader.testing.concept_checks import form_test
    test_answers_form = form_test(__file__)

``answer_tests`` reads the assignment's ``questions.yaml`` when the module is collected and makes one test per
question, worth its points (``@pytest.mark.points``), each marking that question's answer for the submission's own
id (the roster's, never the ``student:`` written in the file) against the key the judge reads from the reference
(``reference/answers/<id>.yaml``). ``form_test`` is worth 0 points: it says what ``grader check`` may say before the
due date (:func:`grader.questions.sheet.form_problems`), never whether an answer is right.

The answers reach the test as text the grader read at intake (:class:`Submitted`, from the judge's ``concept_check``
fixture), so no test opens a file of the submission, and nothing of it runs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

import pytest

from grader.course.config import QUESTIONS
from grader.questions.answer_sheet import Answers, AnswersError, read_answers
from grader.questions.marking import mark
from grader.questions.questions import KeyEntry, Question, load_key, load_questions
from grader.questions.sheet import form_problems
from grader.testing.cases import Check
from grader.testing.outcomes import Failure, GraderFault, StudentFault

MAX_PROMPT = 300
"""The longest a question's text is shown as its case's title, in characters."""


@dataclass(frozen=True)
class Submitted:
    """One submission's answers to one concept check, as the judge hands them to its tests.

    Attributes:
        assignment: The assignment's id (a parameter's seed is drawn from it).
        student: The submission's id on the roster: each student's numbers are drawn from it.
        text: The answers file's text, read at intake (:attr:`grader.judge.manifest.Part.answers`).
        error: Why the submission has no answers to mark ("" when it has).
        key: The answer key's path (``reference/answers/<id>.yaml``), or None in a self-check.
        reference: Loads the concept check's reference module (``reference/answers/<id>.py``, for a key that calls it;
            None when there is none); None in a self-check.
    """

    assignment: str
    student: str
    text: str
    error: str = ""
    key: Path | None = None
    reference: Callable[[], Any] | None = None

    def answers(self) -> Answers:
        """The answers, read as bounded data.

        Raises:
            StudentFault: If there are none (the intake's error, which the feedback shows once for the assignment).
            Failure: If the file cannot be read at all (too large, not YAML, not one mapping, an alias): every
                question scores 0 and says why.
        """
        if self.error:
            raise StudentFault("unavailable", self.error)
        try:
            return _read(self.text)
        except AnswersError as exc:
            raise Failure(f"{exc}: fix the file (grader check says what it reads)") from None


@lru_cache(maxsize=4)
def _read(text: str) -> Answers:
    """``text`` read as answers, once for all the tests of a submission (read-only: the tests never change it)."""
    return read_answers(text.encode("utf-8"))


@cache
def questions_of(root: Path) -> tuple[Question, ...]:
    """The questions of the assignment folder ``root`` (its ``questions.yaml``), read once per process."""
    return tuple(load_questions(root / QUESTIONS))


@cache
def key_of(path: Path, root: Path) -> dict[str, KeyEntry]:
    """The answer key at ``path`` for the questions of ``root``, read once per process."""
    return load_key(path, list(questions_of(root)))


def _root(test_file: str) -> Path:
    """The assignment folder of a test module at ``<assignment>/tests/<public|hidden>/test_*.py``."""
    return Path(test_file).resolve().parents[2]


def answer_tests(test_file: str) -> Callable[..., None]:
    """The hidden test of the concept check whose test module is ``test_file``: one test per question, worth the
    question's points, scored by :func:`grader.questions.marking.mark` (a share of the points for a multiple-choice
    answer partly right).

    Raises:
        ConfigError: If the assignment's ``questions.yaml`` is malformed (at collection: the session stops, naming
            the file and key).
    """
    root = _root(test_file)
    by_id = {q.id: q for q in questions_of(root)}
    params = [pytest.param(q.id, marks=pytest.mark.points(q.points), id=q.id) for q in by_id.values()]

    @pytest.mark.parametrize("question", params)
    def test_answer(question: str, concept_check: Submitted, check: Check) -> None:
        """Question {question}"""
        asked = by_id[question]
        answers = concept_check.answers()
        if concept_check.key is None or concept_check.reference is None:
            raise GraderFault("a concept check's answers are marked only where the judge has the answer key")
        entry = key_of(concept_check.key, root)[question]
        try:
            got = mark(asked, entry, answers.given.get(question), concept_check.assignment, concept_check.student,
                       answers.unreadable.get(question, ""),
                       reference=concept_check.reference() if entry.reference is not None else None)
        except ValueError as exc:  # the key has no value at these numbers: the course's fault, never the student's
            raise GraderFault(f"the answer key of {question} could not be computed: {exc}") from None
        check.share = got.points / got.max_points
        prompt = " ".join(got.prompt.split())
        with check.case(prompt if len(prompt) <= MAX_PROMPT else prompt[: MAX_PROMPT - 3] + "..."):
            if not got.right:
                drawn = f" (at the numbers drawn for {concept_check.student})" if asked.params else ""
                raise Failure((got.feedback or "not right") + drawn)

    return test_answer


def form_test(test_file: str) -> Callable[..., None]:
    """The public test of the concept check whose test module is ``test_file``: worth 0 points, failing with every
    problem of the answers' form listed (a question left out or unknown, an answer of the wrong kind, a letter that
    is no choice, an expression that does not read), and never a word on whether an answer is right."""
    root = _root(test_file)

    @pytest.mark.points(0)
    def test_answers_form(concept_check: Submitted, check: Check) -> None:
        """Your answers file: every question answered, each in its form"""
        questions = questions_of(root)
        problems = form_problems(questions, concept_check.answers())
        with check.case(f"{len(questions)} questions answered, each in its form"):
            if problems:  # one case, every problem listed: a student fixes them all in one go
                raise Failure(f"{len(problems)} to fix:\n" + "\n".join(f"- {p}" for p in problems))

    return test_answers_form
