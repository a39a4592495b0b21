"""A student's answers to a concept check (``answers.yaml``): read as bounded data, never trusted.

The file a student fills in::

    student: alice              # your id on the roster (your numbers are drawn from it)
    reverse_order: b
    several_right: [a, c]       # or "a, c"
    chain_rule: -84             # a number, or arithmetic such as 3/4 or 2*(-6 + 10)*-3
    dtanh: 1 - tanh(x)**2

The text is capped at :data:`MAX_BYTES` and parsed with PyYAML's safe loader only after its node tree is counted
(:data:`MAX_VALUES`), with no alias (``*name``) allowed: a student's answers need none, and a chain of aliases
can stand for billions of values. Each answer becomes a plain ``str``, number or list of ``str``, at most
:data:`MAX_ANSWER_CHARS` characters; anything else is that question's *unreadable* answer, worth 0 and said so.
"""

from __future__ import annotations

from dataclasses import dataclass

import yaml

from grader.intake.entry import MAX_ANSWERS_BYTES as MAX_BYTES

MAX_VALUES = 2_000
"""The most YAML nodes (keys, values, list items) an answers file may hold."""
MAX_ANSWER_CHARS = 400
"""The longest answer kept, in characters."""

Answer = str | float | list[str]


class AnswersError(ValueError):
    """An answers file that cannot be read at all (not UTF-8, too large, not YAML, not a mapping, an alias): every
    question scores 0, and the message, for the student, says why."""


@dataclass(frozen=True)
class Answers:
    """What a student answered.

    Attributes:
        student: The id the student wrote (``student:``), "" when none; grading uses the roster's id, never this.
        given: Each question id to its answer.
        unreadable: Each question id whose answer is of no kind an answer can be, to why.
    """

    student: str
    given: dict[str, Answer]
    unreadable: dict[str, str]


def read_answers(data: bytes) -> Answers:
    """The answers in ``data`` (the bytes of ``answers.yaml``).

    Raises:
        AnswersError: If it is more than :data:`MAX_BYTES`, not UTF-8, not one YAML mapping, holds an alias, or more
            than :data:`MAX_VALUES` nodes.
    """
    if len(data) > MAX_BYTES:
        raise AnswersError(f"the answers file is {len(data):,} bytes, more than the {MAX_BYTES:,} read")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise AnswersError("the answers file is not UTF-8 text") from None
    loader = yaml.SafeLoader(text)
    try:
        try:
            node = loader.get_single_node()
            if node is not None:
                _count(node)
                doc = loader.construct_document(node)
            else:
                doc = {}
        except (yaml.YAMLError, ValueError, TypeError, OverflowError, RecursionError) as exc:
            first = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else type(exc).__name__
            raise AnswersError(f"the answers file is not YAML ({first})") from None
    finally:
        loader.dispose()
    if not isinstance(doc, dict):
        raise AnswersError("the answers file must map each question's id to your answer (id: answer, one a line)")
    student = doc.pop("student", "")
    given: dict[str, Answer] = {}
    unreadable: dict[str, str] = {}
    for key, value in doc.items():
        qid = str(key)[:40]
        answer, why = _answer(value)
        if answer is None:
            unreadable[qid] = why
        else:
            given[qid] = answer
    return Answers(str(student)[:80] if isinstance(student, (str, int)) else "", given, unreadable)


def _count(root: yaml.Node) -> None:
    seen: set[int] = set()
    pending = [root]
    while pending:
        node = pending.pop()
        if id(node) in seen:
            raise AnswersError("the answers file uses an alias (*name): write each answer out")
        seen.add(id(node))
        if len(seen) > MAX_VALUES:
            raise AnswersError(f"the answers file holds more than {MAX_VALUES:,} values")
        if isinstance(node, yaml.SequenceNode):
            pending.extend(node.value)
        elif isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                pending.extend((key, value))


def _answer(value: object) -> tuple[Answer | None, str]:
    """An answer as plain data, or None and why it is unreadable."""
    if value is None:
        return None, "no answer"
    if isinstance(value, bool):
        return None, "true/false is no answer here"
    if isinstance(value, (int, float)):
        try:
            return float(value), ""
        except OverflowError:
            return None, "the number is too large"
    if isinstance(value, str):
        return value.strip()[:MAX_ANSWER_CHARS], ""
    if isinstance(value, list):
        if len(value) > 26 or not all(isinstance(v, str) for v in value):
            return None, "expected a number, a text or a list of letters such as [a, c]"
        return [v.strip()[:40] for v in value], ""
    return None, f"expected a number, a text or a list of choices, not a {type(value).__name__}"
