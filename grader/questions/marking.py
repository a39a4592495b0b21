"""Marking one answer to one question against the answer key, for one student.

- **choice**: one right letter; or, with ``multiple``, a share of the points for each right letter chosen, less
  one share for each wrong one, never below 0 (the "right minus wrong" partial credit of Canvas's multiple-answers
  questions). Each wrong letter chosen shows its feedback.
- **number**: right when ``|answer - key| <= max(abs, rel * |key|)``, the key computed at the student's own
  parameters (:mod:`grader.questions.params`); an answer may be arithmetic (``2/7 - 1``).
- **expression**: compared with the key's formula at :data:`POINTS` points drawn in the variables' intervals
  (from a seed of the assignment, question and student), with the same tolerance; points where the key has no
  value are drawn again.

The student's text is evaluated by :mod:`grader.questions.expressions` (a tree walk, never Python's ``eval``).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from grader.questions.answer_sheet import Answer
from grader.questions.expressions import ExpressionError, parse_expression
from grader.questions.forms import NUMBER_EXAMPLE, expression_example
from grader.questions.params import Number, draw, fill, seed_of
from grader.questions.questions import KeyEntry, Question, key_value

POINTS = 8
"""Points an expression answer is compared at."""
DRAWS = 200
"""Most points drawn to find :data:`POINTS` where the key has a value."""


@dataclass(frozen=True)
class Mark:
    """The mark of one answer.

    Attributes:
        question: The question's id.
        points: Points earned, from 0 to ``max_points``.
        max_points: The question's points.
        prompt: The question as this student saw it (their parameters filled in).
        feedback: What was wrong, for the student ("" when right).
    """

    question: str
    points: float
    max_points: float
    prompt: str
    feedback: str

    @property
    def right(self) -> bool:
        return self.points == self.max_points


def mark(question: Question, key: KeyEntry, answer: Answer | None, assignment: str, student: str,
         unreadable: str = "", reference: Any = None) -> Mark:
    """Mark ``answer`` (None: not answered; ``unreadable`` says why when it could not be read) for ``student``
    (``reference``: the judge's loaded reference solution, for a key that calls it): :func:`mark_at` that student's
    numbers, an expression compared at points drawn from a seed of the assignment, question and student.

    Raises:
        ValueError: If the key has no value at this student's parameters, or needs a reference that is not given
            (:class:`~grader.questions.expressions.ExpressionError` is one): a fault of the course, not the student's,
            so the caller withholds the score. Nothing in ``answer`` raises.
    """
    return mark_at(question, key, answer, draw(question.params, assignment, question.id, student),
                   seed_of(assignment, question.id, student, "points"), unreadable, reference)


def mark_at(question: Question, key: KeyEntry, answer: Answer | None, values: Mapping[str, Number], seed: int,
            unreadable: str = "", reference: Any = None) -> Mark:
    """Mark ``answer`` at the parameter ``values`` of a number question (the prompt filled in with them), an
    expression compared at points drawn from ``seed``: what :func:`mark` does once it has drawn a student's numbers.

    Raises:
        ValueError: If the key has no value at ``values``, or needs a reference that is not given.
    """
    prompt = fill(question.prompt, values)
    if answer is None:
        return Mark(question.id, 0.0, question.points, prompt, unreadable or "no answer")
    if question.kind == "choice":
        points, feedback = _choice(question, key, answer)
    elif question.kind == "number":
        want = key_value(key, {k: float(v) for k, v in values.items()}, reference)
        points, feedback = _number(question, want, answer)
    else:
        points, feedback = _expression(question, key, answer, seed)
    return Mark(question.id, points, question.points, prompt, feedback)


def _close(got: float, want: float, tolerance: tuple[float, float]) -> bool:
    return abs(got - want) <= max(tolerance[0], tolerance[1] * abs(want))


def choice_letters(question: Question, answer: Answer) -> list[str] | str:
    """The choices ``answer`` names (one letter, letters split by commas or spaces, or a list of letters; any case,
    each once), or what is wrong with its form: a letter that is no choice, none at all, several for a single-choice
    question. The one reading of a choice answer, for marking and for the self-check's form check alike."""
    raw = answer if isinstance(answer, list) else str(answer).replace(",", " ").split()
    by_lower = {c.lower(): c for c in question.choices}
    letters: list[str] = []
    for item in raw:
        letter = by_lower.get(item.strip().strip("()").lower())
        if letter is None:
            return f"{item[:40]} is not one of the choices ({', '.join(question.choices)})"
        if letter not in letters:
            letters.append(letter)
    if not letters:
        return "no choice given"
    if not question.multiple and len(letters) > 1:
        return "choose one answer"
    return letters


def _choice(question: Question, key: KeyEntry, answer: Answer) -> tuple[float, str]:
    letters = choice_letters(question, answer)
    if isinstance(letters, str):
        return 0.0, letters
    wrong = [c for c in letters if c not in key.choices]
    right = [c for c in letters if c in key.choices]
    notes = [f"{c}: {key.feedback[c]}" if c in key.feedback else f"{c} is not right" for c in wrong]
    if not question.multiple:
        return (question.points if not wrong else 0.0), "; ".join(notes)
    share = question.points / len(key.choices)
    missed = len(key.choices) - len(right)
    if missed:
        notes.append(f"{missed} right choice{'s' if missed > 1 else ''} not chosen")
    return max(0.0, share * (len(right) - len(wrong))), "; ".join(notes)


def _number(question: Question, want: float, answer: Answer) -> tuple[float, str]:
    if isinstance(answer, list):
        return 0.0, "expected a number, not a list"
    if isinstance(answer, float):
        got = answer
    else:
        try:
            got = parse_expression(answer, (), question.functions)({})
        except ExpressionError as exc:
            return 0.0, f"expected a number or arithmetic such as `{NUMBER_EXAMPLE}`: {exc}"
    if _close(got, want, question.tolerance):
        return question.points, ""
    return 0.0, f"{got:.10g} is not right (within {question.tolerance[0]:g} or {question.tolerance[1]:g} relative)"


def _expression(question: Question, key: KeyEntry, answer: Answer, seed: int) -> tuple[float, str]:
    if isinstance(answer, float):
        answer = repr(answer)  # a constant is an expression too
    if not isinstance(answer, str):
        return 0.0, (f"expected an expression in {', '.join(question.variables)} as text, such as "
                     f"`{expression_example(tuple(question.variables))}`")
    try:
        given = parse_expression(answer, tuple(question.variables), question.functions)
    except ExpressionError as exc:
        return 0.0, str(exc)
    rng = random.Random(seed)
    compared = 0
    for _ in range(DRAWS):
        point = {name: rng.uniform(low, high) for name, (low, high) in question.variables.items()}
        try:
            want = key_value(key, point)
        except ExpressionError:
            continue  # outside the key's domain: draw again
        try:
            got = given(point)
        except ExpressionError as exc:
            return 0.0, str(exc)
        if not _close(got, want, question.tolerance):
            at = ", ".join(f"{k} = {v:.4g}" for k, v in point.items())
            return 0.0, f"at {at} your expression is {got:.6g}, the right one {want:.6g}"
        compared += 1
        if compared == POINTS:
            return question.points, ""
    raise ExpressionError(f"the key of {question.id} has a value at fewer than {POINTS} of {DRAWS} points drawn in "
                          "its variables' intervals")
