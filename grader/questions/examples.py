"""The examples a concept check shows its students, and those that would score: an example must never be a key.

A student reads examples of each answer's form in the handout (its ```` ```yaml ```` blocks and its inline code), on
the sheet, in the answers template's comments and in the grader's messages (:mod:`grader.questions.forms`).
:func:`examples_in` finds them in a text: every inline code span, every value of a YAML block's mapping, and what
follows "e.g.", "such as" or "for example" where no backticks mark it. :func:`scoring_examples` marks each against
every question with the grader's own marking (:func:`grader.questions.marking.mark_at`): a number question at every
draw of its numbers that can change its key (:func:`grader.questions.params.every_draw` of the parameters a formula
reads; :data:`SAMPLED` students' draws where there are too many), an expression question as any student's answer.
An example that earns any points is one, and so is one that names a letter of a choice question, right or wrong: a
wrong letter shown as an example rules that choice out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import yaml

from grader.questions.answer_sheet import Answer
from grader.questions.expressions import ExpressionError, parse_expression
from grader.questions.marking import choice_letters, mark_at
from grader.questions.params import Number, draw, every_draw, every_value, seed_of
from grader.questions.questions import KeyEntry, Question, key_value

SAMPLED = 2_000
"""Students whose numbers stand for a question's every draw when it has more than
:func:`~grader.questions.params.every_draw` enumerates."""
_FENCED = re.compile(r"^(`{3,}|~{3,})[ \t]*(\w*)[^\n]*\n(.*?)^\1[ \t]*$", re.M | re.S)
_CODE = re.compile(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)")
_INTRODUCED = re.compile(r"\b(?:e\.g\.|such as|for example)[:,]?[ \t]+(?!`)([^\n]+)")
_END = re.compile(r"""["']|\s\(|[;,:]\s|\.(?:\s|$)|\s+or\s""")


@dataclass(frozen=True)
class Scoring:
    """An example that would score.

    Attributes:
        example: The example, as written.
        question: The question it would score on.
        why: How, naming the question (``is slope's answer at a = 4, b = -3``, ``names choice q of pick_one``).
    """

    example: str
    question: str
    why: str


def examples_in(text: str) -> list[str]:
    """Every example ``text`` shows, once each, in order: inline code spans, a YAML block's values (a list as YAML
    writes it: ``[p, r]``; ``student:`` left out), and the words after "e.g.", "such as" or "for example" not in
    backticks (up to a bracket, a comma, a colon, a full stop, a quote or an "or"; each side of an "or")."""
    found: list[str] = []
    prose = _FENCED.sub(lambda m: _block(m.group(2), m.group(3), found), text)
    found += [m.group(2).strip() for m in _CODE.finditer(prose)]
    for m in _INTRODUCED.finditer(text):
        clause = m.group(1)
        if clause.startswith("["):
            found.append(clause[: clause.find("]") + 1] if "]" in clause else clause)
            continue
        end = _END.search(clause)
        found += [part.strip() for part in re.split(r"\s+or\s+", clause[: end.start() if end else len(clause)])]
    return [e for e in dict.fromkeys(found) if e]


def _block(info: str, body: str, found: list[str]) -> str:
    """A fenced block's YAML values added to ``found``; the block, blanked, for the prose's search."""
    if info.lower() in ("yaml", "yml"):
        try:
            data = yaml.safe_load(body)
        except yaml.YAMLError:
            data = None
        if isinstance(data, dict):
            found += [_written(v) for k, v in data.items() if k != "student" and v is not None]
    return ""


def _written(value: Any) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(str(v) for v in value) + "]"
    return str(value)


def as_answer(example: str) -> Answer:
    """An example as the answers file would hand it to marking: ``[p, r]`` a list of letters, else the text."""
    if example.startswith("[") and example.endswith("]"):
        try:
            items = yaml.safe_load(example)
        except yaml.YAMLError:
            return example
        if isinstance(items, list):
            return [str(item) for item in items]
    return example


def scoring_examples(examples: Iterable[str], questions: Iterable[Question], key: Mapping[str, KeyEntry],
                     assignment: str, reference: Any = None) -> list[Scoring]:
    """Each of ``examples`` that would score on one of ``questions`` (or names a choice's letter), with where.

    Raises:
        ValueError: If a key needs ``reference`` and none is given, or its reference function gives no number.
    """
    examples = list(examples)
    found: list[Scoring] = []
    for question in questions:
        entry = key[question.id]
        if question.kind == "number":
            draws = _distinct_keys(question, entry, assignment, reference)
        for example in examples:
            answer = as_answer(example)
            if question.kind == "choice":
                letters = choice_letters(question, answer)
                why = f"names choice {', '.join(letters)} of {question.id}" if isinstance(letters, list) else ""
            elif question.kind == "number":
                why = _scores_on_number(question, entry, answer, draws, reference)
            else:
                why = _scores_on_expression(question, entry, answer, assignment)
            if why:
                found.append(Scoring(example, question.id, why))
    return found


def _draws(question: Question, entry: KeyEntry, assignment: str) -> Iterator[Mapping[str, Number]]:
    """Every draw of ``question``'s numbers that can change its key: where the key is a formula, only the parameters
    it reads vary (the others keep their first value)."""
    specs = question.params
    if entry.formula is not None:
        used = entry.formula.used
        fixed = {k: every_value(spec)[0] for k, spec in specs.items() if k not in used}
        varied = every_draw({k: spec for k, spec in specs.items() if k in used})
        every = None if varied is None else [{k: {**fixed, **v}[k] for k in specs} for v in varied]
    else:
        every = every_draw(specs)
    if every is not None:
        yield from every
    else:
        for i in range(SAMPLED):
            yield draw(specs, assignment, question.id, f"example-check-{i}")


def _distinct_keys(question: Question, entry: KeyEntry, assignment: str, reference: Any) -> list[Mapping[str, Number]]:
    """One draw for each distinct key value the question's draws give (none for a draw where the key has no value:
    ``grader validate`` says so of the key itself)."""
    by_key: dict[float, Mapping[str, Number]] = {}
    for values in _draws(question, entry, assignment):
        try:
            by_key.setdefault(key_value(entry, {k: float(v) for k, v in values.items()}, reference), values)
        except ExpressionError:
            continue
    return list(by_key.values())


def _scores_on_number(question: Question, entry: KeyEntry, answer: Answer, draws: list[Mapping[str, Number]],
                      reference: Any) -> str:
    if isinstance(answer, list):
        return ""
    if isinstance(answer, str):
        try:  # what marking would read it as: an example that is no number scores nowhere
            parse_expression(answer, (), question.functions)({})
        except ExpressionError:
            return ""
    for values in draws:
        if mark_at(question, entry, answer, values, 0, reference=reference).points > 0:
            at = ", ".join(f"{k} = {v}" for k, v in values.items())
            return f"is {question.id}'s answer" + (f" at {at}" if at else "")
    return ""


def _scores_on_expression(question: Question, entry: KeyEntry, answer: Answer, assignment: str) -> str:
    if isinstance(answer, list):
        return ""
    seed = seed_of(assignment, question.id, "example-check", "points")
    return f"is {question.id}'s answer" if mark_at(question, entry, answer, {}, seed).points > 0 else ""
