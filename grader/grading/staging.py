"""Staging one submission for the judges: which of its assignments need grading, and each one's staged part.

:func:`stale_assignments` says which kept results no longer stand (:mod:`grader.grading.freshness`); :func:`intake`
stages the submission's files for each assignment to grade, as the student it is (:class:`grader.course.roster.Known`),
into a :class:`~grader.judge.manifest.Job` the judges grade (its notes say what intake found).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, replace
from pathlib import Path

from grader.course.config import Assignment
from grader.course.roster import Identities, Known
from grader.errors import SubmissionError
from grader.grading.due_work import DueWork
from grader.grading.freshness import stale
from grader.grading.identity import written_student
from grader.intake.answers_file import answers_text
from grader.intake.candidates import choose
from grader.intake.submission import stage
from grader.judge.manifest import Job, Part
from grader.outputs.store import ResultStore


def stale_assignments(store: ResultStore, assignments: list[Assignment], student: str, prints: dict[str, str],
                      course: dict[str, dict[str, str]]) -> dict[str, str]:
    """The assignments whose kept result does not stand, each with why (:func:`grader.grading.freshness.stale`;
    ``"new"`` without a result, ``"withheld"`` for a score the grader could not give)."""
    why: dict[str, str] = {}
    for a in assignments:
        result = store.get(a.id, student)
        if result is None:
            why[a.id] = "new"
        elif result.withheld:
            why[a.id] = "withheld"
        elif reason := stale(result, prints[a.id], course[a.id]):
            why[a.id] = reason
    return why


def intake(student: str | Known, work: Mapping[str, DueWork], index: int, assignments: list[Assignment],
           stage_root: Path, template: Path | None = None, identities: Identities | None = None) -> Job:
    """Stage ``student``'s submission for each of ``assignments`` (``work``: assignment id to what was read for it
    and its late terms; ``template``: the course's template folder), as the student it is (:class:`Known`; a name:
    its own student; ``identities``: the roster, for what a concept check's answers file says of its student). Work
    after the policy's cut-off is not staged."""
    who = student if isinstance(student, Known) else Known(student, student, "", student)
    job = Job(who.student, numbers_from=who.numbers_from if who.numbers_from != who.student else "")
    for a in assignments:
        sub, late = work[a.id].submission, work[a.id].late
        origin = asdict(sub.origin) if sub.origin is not None else {}
        notes = ([sub.origin.note] if sub.origin is not None else []) + sub.notes
        part = Part(notes=notes[:20], fingerprint=work[a.id].fingerprint, origin=origin, late=late)
        base = stage_root / f"{index:06d}" / a.id
        try:
            if late is not None and not late["graded"]:
                raise SubmissionError(late["sentence"])
            if a.is_concept_check:  # answers as text in the manifest: the judge never opens the submission's file
                text, path = answers_text(sub, a.files[0], a.id)
                said = written_student(text, who, identities)
                job.parts[a.id] = replace(part, answers=text, notes=(notes + [f"graded {path}"] + said)[:20])
                continue
            chosen = choose(sub, a.files, a.id, template, own=a.own_modules, classes=a.defines)  # .py files or notebook; notes say which
            stage(chosen.sources, base / "code")
            part = replace(part, code_dir=str(base / "code"), scratch=str(base / "scratch"),
                           notes=(notes + chosen.notes)[:20], line_map=chosen.line_map)
        except SubmissionError as exc:
            part = replace(part, error=str(exc))
        job.parts[a.id] = part
    return job
