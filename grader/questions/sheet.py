"""What a student reads and fills in for a concept check, and the self-check of a filled-in sheet's form.

:func:`question_sheet` is the questions as one student sees them (Markdown, their own numbers filled in);
:func:`answers_template` the ``answers.yaml`` they fill in; :func:`form_problems` what ``grader check`` can say of
their answers before the due date without saying whether any is right: a question left out or unknown, an answer
of the wrong kind (a list for a number), a letter that is no choice, an expression that does not read.
"""

from __future__ import annotations

from collections.abc import Sequence

from grader.course.config import QUESTIONS
from grader.course.course import Course
from grader.inert import markdown
from grader.questions.answer_sheet import Answers
from grader.questions.expressions import ExpressionError, parse_expression
from grader.questions.forms import how
from grader.questions.marking import choice_letters
from grader.questions.params import draw, fill
from grader.questions.questions import Question, load_questions


def _how(question: Question) -> str:
    return how(question.kind, question.multiple, tuple(question.variables))


def question_sheet(title: str, questions: Sequence[Question], assignment: str, student: str) -> str:
    """The questions of ``assignment`` as Markdown for ``student`` (their numbers filled in), with how to answer
    each; ``student`` "" leaves the parameters' names in place."""
    lines = [f"# {markdown(title)}", ""]
    if student:
        lines += [f"Your numbers are drawn from your id, `{markdown(student)}`: answer with that id in "
                  f"`answers/{markdown(assignment)}.yaml` (`student: ...`).", ""]
    for i, q in enumerate(questions, 1):
        values = draw(q.params, assignment, q.id, student) if student else {}
        points = f"{q.points:g} point{'s' if q.points != 1 else ''}"
        lines += [f"## {i}. `{q.id}` ({points})", "", fill(q.prompt, values), ""]
        lines += [f"- **{letter}**: {text}" for letter, text in q.choices.items()]
        lines += ([""] if q.choices else []) + [f"*Answer:* {_how(q)}.", ""]
    return "\n".join(lines).rstrip() + "\n"


def answers_template(questions: Sequence[Question]) -> str:
    """An ``answers.yaml`` with every question's key, empty, and how to answer it in a comment."""
    lines = ["# Your answers: one line per question. `grader check` checks the form; the grade comes later.",
             "student: \"\"    # your id on the roster", ""]
    lines += [f"{q.id}:    # {_how(q)}" for q in questions]
    return "\n".join(lines) + "\n"


def form_problems(questions: Sequence[Question], answers: Answers) -> list[str]:
    """What is wrong with the form of ``answers`` (never whether an answer is right), one line each; [] when every
    question has an answer of its kind. The lines hold the student's text, capped but not made inert: the output
    that shows them does that."""
    problems: list[str] = []
    by_id = {q.id: q for q in questions}
    for qid in answers.given:
        if qid not in by_id:
            problems.append(f"{qid[:40]}: no such question (the questions: {', '.join(by_id)})")
    for q in questions:
        if q.id in answers.unreadable:
            problems.append(f"{q.id}: {answers.unreadable[q.id]}")
            continue
        given = answers.given.get(q.id)
        if given is None:
            problems.append(f"{q.id}: no answer")
        elif q.kind == "choice":
            letters = choice_letters(q, given)
            if isinstance(letters, str):
                problems.append(f"{q.id}: {letters}")
        elif isinstance(given, list):
            problems.append(f"{q.id}: expected {_how(q)}, not a list")
        elif isinstance(given, str):
            try:
                parse_expression(given, tuple(q.variables) if q.kind == "expression" else (), q.functions)
            except ExpressionError as exc:
                problems.append(f"{q.id}: {exc}")
    if not answers.student:
        problems.append("student: your id is missing (your numbers are drawn from it)")
    return problems


def answer_templates(course: Course) -> dict[str, str]:
    """Each concept check of ``course`` by its answers file in a release (``answers/<id>.yaml``) to the template
    students fill in (:func:`answers_template`); what :func:`grader.course.student_release.build_release` writes.

    Raises:
        ConfigError: If a concept check's ``questions.yaml`` is malformed.
    """
    return {a.files[0]: answers_template(load_questions(a.root / QUESTIONS))
            for a in course.assignments() if a.is_concept_check}
