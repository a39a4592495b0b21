"""The judge's fixture for a concept check's tests (``kind: questions``): registered by :mod:`grader.judge.plugin`
only in a session that grades one, so no other judge imports the answers' readers.
"""

from __future__ import annotations

from typing import Any

import pytest

from grader.judge.plugin import STATE
from grader.judge.reference import load_answers_module
from grader.testing.concept_checks import Submitted


@pytest.fixture
def concept_check(request: pytest.FixtureRequest, grader_submission: str) -> Submitted:
    """The submission's answers to a concept check (``kind: questions``), read at intake, with the id they are marked
    for (the roster's, or the student's first id when it changed: :attr:`grader.judge.manifest.Job.numbers_from`) and,
    in hidden grading, the answer key's path (:mod:`grader.testing.concept_checks`)."""
    state = request.config.stash[STATE]
    run = state.run(grader_submission)
    assert run is not None, "EmptySlots ends an empty slot's tests before their fixtures"
    assignment = state.assignment_of(request.node)
    if not assignment.is_concept_check:
        raise pytest.UsageError(f"{request.node.nodeid}: concept_check is for an assignment of kind: questions")
    part = run.parts[assignment.id].part
    hidden = state.manifest.include_hidden
    key = state.course.reference_dir / assignment.files[0]

    def reference() -> Any:
        return load_answers_module(state.course.reference_dir, state.course.package, key.with_suffix(".py"))

    return Submitted(assignment.id, run.job.numbers_from or run.job.id, part.answers, part.error, key=key if hidden else None,
                     reference=reference if hidden else None)
