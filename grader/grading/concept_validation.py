"""``grader validate`` of a concept check: the key's own answers score full marks, a wrong answer costs its question
only, the empty template scores 0, and a classmate's answers score what wrong answers score.

A concept check has no code to mutate, so its catalogue is made from its answer key, for a few students' ids:

* ``key--<name>``: every answer right at that student's numbers (the key's letters, the key's value at the student's
  parameters, the key's formula as text): full marks, or a miss;
* ``wrong--<question>``: the same with that question's answer wrong (a letter the key does not hold, the key's value
  plus one, the key's formula plus one): it must lose that question's points and no other;
* ``copied--<name>``: the first student's right answers handed in under another id: every question whose numbers
  are drawn per student must lose its points (the issue's "a student who submits a classmate's answers scores what
  a wrong answer scores");
* ``_template``: the release's empty answers file: 0.

Each is graded by :func:`grader.grading.batch.grade` like any class, so the check covers intake, the judge's tests
and the scores together. Beside them, every example a student reads (the handout's, the sheet's, the answers
template's) is marked against every question at every draw of its numbers: one that would score, or names a
choice's letter, is a miss (:mod:`grader.questions.examples`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from grader.course.config import QUESTIONS, Assignment
from grader.course.course import Course
from grader.grading.batch import grade
from grader.judge.reference import load_answers_module
from grader.outputs.store import ResultStore
from grader.questions.examples import examples_in, scoring_examples
from grader.questions.params import draw
from grader.questions.questions import KeyEntry, Question, key_value, load_key, load_questions
from grader.questions.sheet import answers_template, question_sheet

STUDENTS = ("ada", "grace", "alan")
"""The ids the key's answers are made for (each draws its own numbers)."""
TEMPLATE = "_template"
SPREAD = 20
"""How many students' numbers a question drawing them must give more than one right answer for."""


def right_answer(question: Question, entry: KeyEntry, assignment: str, student: str, reference: Callable[[], Any]) -> Any:
    """The key's answer to ``question`` for ``student``, as a student would write it."""
    if question.kind == "choice":
        letters = sorted(entry.choices)
        return letters if question.multiple else letters[0]
    if question.kind == "expression":
        assert entry.formula is not None
        return entry.formula.text
    values = {k: float(v) for k, v in draw(question.params, assignment, question.id, student).items()}
    return key_value(entry, values, reference() if entry.reference is not None else None)


def wrong_answer(question: Question, entry: KeyEntry, right: Any) -> Any:
    """An answer to ``question`` that is not right: a letter the key does not hold (with the right ones, for several;
    one right one left out where every choice is right), the right number plus one (or plus 1%, the larger), the
    right formula plus one."""
    if question.kind == "choice":
        wrong = next((c for c in question.choices if c not in entry.choices), None)
        if wrong is None:
            return right[:-1]
        return [*right, wrong] if question.multiple else wrong
    if question.kind == "expression":
        return f"({right}) + 1"
    return right + max(1.0, abs(right) * 0.01)


def _yaml(student: str, answers: dict[str, Any]) -> str:
    return yaml.safe_dump({"student": student, **answers}, sort_keys=False, allow_unicode=True)


def _write(subs: Path, name: str, assignment: Assignment, text: str) -> None:
    path = subs / name / assignment.files[0]
    path.parent.mkdir(parents=True)
    path.write_text(text, encoding="utf-8")


def validate_concept_check(course: Course, assignment: Assignment, work: Path, jobs: int) -> tuple[list[str], int]:
    """Grade the key's answers, one wrong answer per question, copied answers and the template; return the misses
    (one line each) and how many answer sets were graded."""
    questions = load_questions(assignment.root / QUESTIONS)
    key = load_key(course.reference_dir / assignment.files[0], questions)

    def reference() -> Any:
        path = (course.reference_dir / assignment.files[0]).with_suffix(".py")
        return load_answers_module(course.reference_dir, course.package, path)

    def answers(student: str) -> dict[str, Any]:
        return {q.id: right_answer(q, key[q.id], assignment.id, student, reference) for q in questions}

    subs, out = work / assignment.id / "subs", work / assignment.id / "out"
    right = {s: answers(f"key--{s}") for s in STUDENTS}
    for s in STUDENTS:
        _write(subs, f"key--{s}", assignment, _yaml(f"key--{s}", right[s]))
    for q in questions:  # graded as wrong--<id>: the right answers at that id's numbers, but for one question
        mine = answers(f"wrong--{q.id}")
        _write(subs, f"wrong--{q.id}", assignment,
               _yaml(f"wrong--{q.id}", {**mine, q.id: wrong_answer(q, key[q.id], mine[q.id])}))
    first = f"key--{STUDENTS[0]}"
    for s in STUDENTS[1:]:  # graded as copied--<s>: the first student's answers, at the first student's numbers
        _write(subs, f"copied--{s}", assignment, _yaml(first, right[STUDENTS[0]]))
    _write(subs, TEMPLATE, assignment, answers_template(questions))
    store = grade(course, subs, [assignment.id], out, jobs, force=True).store
    assert store is not None
    misses = _misses(store, assignment, questions, answers, right)
    needs_reference = any(key[q.id].reference is not None for q in questions)
    return misses + example_misses(assignment, questions, key, reference() if needs_reference else None), \
        sum(1 for _ in subs.iterdir())


def example_misses(assignment: Assignment, questions: list[Question], key: dict[str, KeyEntry],
                   reference: Any = None) -> list[str]:
    """Each example that the handout (``README.md``), the sheet or the answers template of ``assignment`` shows and
    that would score on a question, or names a choice's letter, one line each (``reference``: the loaded reference
    module, for a key that calls it)."""
    handout = assignment.root / "README.md"
    texts = {"the handout": handout.read_text(encoding="utf-8") if handout.is_file() else "",
             "the sheet": question_sheet(assignment.title, questions, assignment.id, STUDENTS[0]),
             "the answers template": answers_template(questions)}
    return [f"{assignment.id}: {where} shows `{s.example}` as an example, and it {s.why}: an example must be no answer"
            for where, text in texts.items()
            for s in scoring_examples(examples_in(text), questions, key, assignment.id, reference)]


def _question(test_name: str) -> str:
    """The question a test is about: ``test_answer[chain_rule]`` gives ``chain_rule``."""
    found = re.search(r"\[(\w+)\]$", test_name)
    return found.group(1) if found else test_name


def _misses(store: ResultStore, assignment: Assignment, questions: list[Question],
            answers: Callable[[str], dict[str, Any]], right: dict[str, dict[str, Any]]) -> list[str]:
    def lost(student: str) -> dict[str, float]:
        result = store.get(assignment.id, student)
        if result is None:
            return {"(no result)": assignment.points}
        return {_question(t.test_name): round(t.max_score - t.score, 4) for t in result.tests
                if t.max_score - t.score > 1e-9}

    misses = []
    for s in STUDENTS:
        if lost(f"key--{s}"):
            misses.append(f"{assignment.id}: the key's own answers for {s} lose points in {lost(f'key--{s}')}")
    for q in questions:
        where = lost(f"wrong--{q.id}")
        if where.get(q.id, 0) <= 0:
            misses.append(f"{assignment.id}: a wrong answer to {q.id} is not caught")
        if set(where) - {q.id}:
            misses.append(f"{assignment.id}: a wrong answer to {q.id} also loses points in {sorted(set(where) - {q.id})}")
    drawn = {q.id for q in questions if q.params}
    others = [answers(f"student{i:02d}") for i in range(SPREAD)]  # not graded: the key's answers only
    for qid in sorted(drawn):
        if len({repr(other[qid]) for other in others}) == 1:
            misses.append(f"{assignment.id}: {qid} draws numbers per student, but its answer is the same for "
                          f"{SPREAD} students' numbers: a classmate's answer scores")
    for s in STUDENTS[1:]:
        where = lost(f"copied--{s}")
        theirs = answers(f"copied--{s}")
        same = [qid for qid in drawn if qid not in where and theirs[qid] != right[STUDENTS[0]][qid]]
        if same:
            misses.append(f"{assignment.id}: {STUDENTS[0]}'s answers handed in by {s} score on {sorted(same)}")
    template = store.get(assignment.id, TEMPLATE)
    if template is None or sum(t.score for t in template.tests) != 0:
        misses.append(f"{assignment.id}: the empty answers template does not score 0")
    return misses
