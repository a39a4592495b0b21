"""``grader new-assignment ID``: the folder of a new assignment, ready for ``template``, ``validate`` and ``grade``.

What it writes (nothing that exists is overwritten; an existing folder stops it):

* ``assignments/<id>/assignment.yaml``: title, order (after the course's last),
  the student's file ``micrograd/<module>.py``, points and limits;
* ``assignments/<id>/README.md``: a handout skeleton;
* ``assignments/<id>/probes.py``: one probe (``<id>_call``: call a function of
  the student's module on numbers) with its answer's schema, the model to
  follow for the assignment's own probes;
* ``assignments/<id>/tests/public`` and ``tests/hidden``: one test each, the
  public one comparing with a value it computes itself (a student's copy has
  no reference), the hidden one with the reference;
* ``assignments/<id>/bugs.yaml``: an empty bug catalogue;
* ``reference/micrograd/<module>.py`` when there is none: one function with
  its solution markers, so ``grader template`` writes the student's stub.

With ``kind="questions"`` (``grader new-assignment ID --kind questions``) it writes a concept check instead:
``assignment.yaml`` (``kind: questions``), a handout, ``questions.yaml`` with one question of each kind, the two
test modules of :mod:`grader.testing.concept_checks` and the answer key ``reference/answers/<id>.yaml``.

See ``docs/how-to/write-an-assignment.md`` for what goes in each.
"""

from __future__ import annotations

import re
from pathlib import Path

from grader.course.config import ANSWERS, QUESTIONS, UNORDERED
from grader.course.course import Course
from grader.errors import GraderError

ID = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
"""An assignment's id (its folder's name) and a module's name."""

ASSIGNMENT_YAML = '''\
title: "{title}"
order: {order}
files: [{package}/{module}.py]  # what students submit ({package}/NAME.py); the engine too if your tests need it
points: 2                       # the sum of the tests' @pytest.mark.points
visibility: after_due_date      # hidden tests' Gradescope visibility
limits:
  test_seconds: 10
  submission_seconds: 120
  memory_mb: 1024
'''

README = '''\
# {title}

**Total: 2 points** (public tests 1, hidden tests 1) · Task {task}.1 in `{package}/{module}.py`

TODO: what the student builds and why (the handout). Name each task's function or method, its
inputs and outputs, and the formula it implements.

## What to submit

`{package}/{module}.py` (package layout), `{module}.py` (flat layout), or a notebook with the code in
its code cells. Use only the standard library.

## Tasks

**Task {task}.1 `square`.** Return `x * x`.
'''

PROBES = '''\
"""The probes of assignment ``{id}``: they run the student's ``{package}/{module}.py`` in the sandbox.

A probe takes the code under test (``mg``: ``mg.{module}`` is the student's module, or the reference's
in the judge), a ``ctx`` whose ``during`` says what the probe is doing, and plain-data arguments; it
returns plain data (numbers through ``number``). Its answer's schema (``ANSWERS``) bounds every field
by the request's own arguments. See grader.sandbox.probes for the four tables.
"""

from __future__ import annotations

from typing import Any, TypedDict

from probekit import Context, Number, number, numbers, record


class CallAnswer(TypedDict):
    """``{id}_call``: the function's value at each input."""

    values: list[Number]


def call(mg: Any, ctx: Context, name: str, inputs: list[float]) -> dict[str, Any]:
    """Probe ``{id}_call``: ``name(x)`` of the student's module for each ``x`` of ``inputs``."""
    function = getattr(mg.{module}, name)
    values = []
    for x in inputs:
        ctx.during = f"calling {{name}}({{x!r}})"
        values.append(number(function(x)))
    return {{"values": values}}


def parse_call(value: Any, name: str, inputs: list[float]) -> CallAnswer:
    """The answer of ``{id}_call``: one number per input."""
    got = record(value, "{id}_call", ("values",))
    return CallAnswer(values=numbers(got["values"], "values", len(inputs)))


PROBES = {{"{id}_call": lambda mg, ctx, name, inputs: call(mg, ctx, name, inputs)}}
NEEDS = {{"{id}_call": ("{package}.{module}",)}}
ANSWERS = {{"{id}_call": parse_call}}
'''

PUBLIC = '''\
"""Public tests of assignment ``{id}`` (students run them with ``grader check``; there is no reference here)."""

from __future__ import annotations

import pytest

from grader.testing import Failure, close, show


@pytest.mark.points(1)
@pytest.mark.task("{task}.1")
def test_square(student, check):
    """square(x) returns x * x"""
    for x in (2.0, -3.0):
        with check.case(f"square({{x}})", method="square", hint="return x * x"):
            got = student("{id}_call", "square", [x])["values"][0]
            if not close(got, x * x):
                raise Failure(f"square({{x}}) gave {{show(got)}}, expected {{x * x!r}}")
'''

HIDDEN = '''\
"""Hidden tests of assignment ``{id}``: the student's answers against the reference's, on seeded inputs."""

from __future__ import annotations

import random

import pytest

from grader.testing import Failure, close, show


@pytest.mark.points(1)
@pytest.mark.task("{task}.1")
def test_square_on_random_inputs(student, reference, check):
    """square(x) on 5 seeded inputs"""
    rng = random.Random(1)
    inputs = [rng.uniform(-5, 5) for _ in range(5)]
    got, want = student("{id}_call", "square", inputs), reference("{id}_call", "square", inputs)
    for x, g, w in zip(inputs, got["values"], want["values"]):
        with check.case(f"square({{x!r}})", method="square", hint="return x * x"):
            if not close(g, w):
                raise Failure(f"square({{x!r}}) gave {{show(g)}}, expected {{show(w)}}")
'''

BUGS = '''\
# Known student bugs of assignment {id}, as mutants of reference/{package}/{module}.py.
# Checked by `grader validate`: each mutant must lose points in every test its caught_by names.
# An entry:
# - id: square_adds
#   method: square
#   description: 'square returns x + x: right at 2, wrong everywhere else'
#   file: {package}/{module}.py
#   find: |2
#         return x * x
#   replace: |2
#         return x + x
#   caught_by: [test_square, test_square_on_random_inputs]
[]
'''

REFERENCE = '''\
"""TODO: what ``{package}/{module}.py`` holds (assignment ``{id}``)."""

from __future__ import annotations


def square(x: float) -> float:
    """Return ``x`` squared.

    Args:
        x: A number.
    """
    # BEGIN SOLUTION Task {task}.1
    return x * x
    # END SOLUTION
'''


QUESTIONS_YAML = '''\
# The questions students read (the release holds this file). {{name}} in a prompt is the student's own number.
questions:
  - id: add_local
    kind: choice
    points: 1
    prompt: "out = a + b: what does out._backward add to a.grad?"
    choices: {{a: "out.grad", b: "b * out.grad"}}
  - id: chain
    kind: number
    points: 1
    prompt: "f = a * b at a = {{a}}, b = {{b}}: what is df/da?"
    params: {{a: {{int: [1, 5]}}, b: {{int: [-5, -1]}}}}
  - id: dsquare
    kind: expression
    points: 1
    prompt: "d/dx x**2, as an expression in x"
    variables: {{x: [-2, 2]}}
'''

KEY_YAML = '''\
# The answer key of {id}: only the judge reads it (never released). A wrong choice's feedback lives here.
add_local:
  right: a
  feedback: {{b: "b * out.grad is a product's: a sum's local gradient is 1 for each input"}}
chain: "b"          # a formula over the question's parameters (or {{reference: function}} of reference/answers/{id}.py)
dsquare: "2*x"      # a formula over its variables
'''

QUESTIONS_ASSIGNMENT_YAML = '''\
title: "{title}"
kind: questions                 # answered in answers/{id}.yaml; marked by grader.questions, never run
order: {order}
points: 3                       # the questions' points
visibility: after_due_date
'''

QUESTIONS_README = '''\
# {title}

**Total: 3 points** · answered in `answers/{id}.yaml`

TODO: what the questions check. Print your questions, with your own numbers, with
`grader sheet {id} --student YOUR_ID`; check the form of your answers with `grader check -a {id}`.
'''

QUESTIONS_HIDDEN = '''\
"""One test per question, each marked against the answer key at the student's own numbers."""

from grader.testing.concept_checks import answer_tests

test_answer = answer_tests(__file__)
'''

QUESTIONS_PUBLIC = '''\
"""The form of the answers: what ``grader check`` says before the due date."""

from grader.testing.concept_checks import form_test

test_answers_form = form_test(__file__)
'''


def scaffold(course: Course, assignment_id: str, module: str | None = None, title: str | None = None,
             kind: str = "code") -> list[Path]:
    """Write the folder of a new assignment (see the module docstring); return the files written.

    Args:
        course: The course.
        assignment_id: The new assignment's id (lower case, digits and ``_``; its folder's name).
        module: The student's module (``micrograd/<module>.py``); default: the id.
        title: The title; default: one made from the id.
        kind: ``code``, or ``questions`` for a concept check.

    Raises:
        GraderError: If a name is not valid, or the assignment's folder exists already.
    """
    module = module or assignment_id
    for what, name in (("assignment id", assignment_id), ("module name", module)):
        if not ID.match(name) or name == "shared":
            raise GraderError(f"{name!r} is not a valid {what}: use lower case letters, digits and _, "
                              "starting with a letter (and not 'shared')")
    folder = course.assignments_dir / assignment_id
    if folder.exists():
        raise GraderError(f"{folder} exists already: choose another id, or edit that assignment")
    existing = course.assignments()
    order = max((a.order for a in existing if a.order < UNORDERED), default=0) + 1
    values = {"id": assignment_id, "module": module, "order": order, "task": order, "package": course.package,
              "title": (title or f"Assignment {order}: {assignment_id.replace('_', ' ')}").replace('"', "'")}
    files = {
        folder / "assignment.yaml": QUESTIONS_ASSIGNMENT_YAML,
        folder / "README.md": QUESTIONS_README,
        folder / QUESTIONS: QUESTIONS_YAML,
        folder / "tests" / "public" / "test_answers_form.py": QUESTIONS_PUBLIC,
        folder / "tests" / "hidden" / "test_answers.py": QUESTIONS_HIDDEN,
        course.reference_dir / ANSWERS / f"{assignment_id}.yaml": KEY_YAML,
    } if kind == "questions" else {
        folder / "assignment.yaml": ASSIGNMENT_YAML,
        folder / "README.md": README,
        folder / "probes.py": PROBES,
        folder / "tests" / "public" / f"test_{assignment_id}_public.py": PUBLIC,
        folder / "tests" / "hidden" / f"test_{assignment_id}_hidden.py": HIDDEN,
        folder / "bugs.yaml": BUGS,
    }
    reference = course.reference_package / f"{module}.py"
    if kind == "code" and not reference.exists():
        files[reference] = REFERENCE
    taken = [p for p in files if p.exists() and not p.is_relative_to(folder)]
    if taken:
        raise GraderError(f"{taken[0]} exists already: move it, or choose another id")
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text.format(**values), encoding="utf-8")
    return list(files)
