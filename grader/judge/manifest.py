"""The manifest: what a judge process is asked to grade, and where to write.

Written by the batch runner (:mod:`grader.grading.batch`), read by the pytest plugin
in the judge process. Plain JSON so the judge can be run by hand::

    python -m pytest -p grader.judge.plugin --grader-manifest manifest.json assignments/value_ops/tests
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from grader.course.due_dates import LateTerms
from grader.intake.cellmap import LineMap
from grader.outputs.records import Stamp


@dataclass
class Part:
    """One submission staged for one assignment.

    Attributes:
        code_dir: Folder holding the staged ``micrograd/`` package, or "" when not staged.
        scratch: Empty folder the sandbox worker may write to.
        error: Why the submission cannot be graded on this assignment ("" if it can).
        notes: What was skipped while reading the submission (symbolic links, unsafe zip entries),
            and which of its files or notebooks was graded when it held several.
        line_map: For a notebook, where each line of the staged module comes from in
            it (the judge locates the sandbox's errors with it); None otherwise.
        fingerprint: SHA-256 of what was read from the submission for this assignment, with its late terms
            (:func:`grader.grading.freshness.part_fingerprint`); stored in results.json so a re-run knows
            whether a result is for this content and these terms.
        origin: For a submission read from git, the commit graded (:class:`grader.intake.entry.Origin` as a
            dict); empty otherwise.
        late: What the due date and late policy made of the submission
            (:class:`grader.course.due_dates.LateTerms`), or None when the assignment has no due date.
        answers: For a concept check (``kind: questions``), the text of the submission's answers file, read at
            intake (:func:`grader.intake.answers_file.answers_text`) and never opened by the judge; "" otherwise.
    """

    code_dir: str = ""
    scratch: str = ""
    error: str = ""
    notes: list[str] = field(default_factory=list)
    line_map: LineMap | None = None
    fingerprint: str = ""
    origin: dict[str, Any] = field(default_factory=dict)
    late: LateTerms | None = None
    answers: str = ""


@dataclass
class Job:
    """One submission to grade.

    Attributes:
        id: The student id: the roster's id of the student the submission's name names, else its name
            (:func:`grader.course.roster.identify`).
        parts: Assignment id to :class:`Part`.
        numbers_from: The id a concept check's numbers are drawn from when it is not ``id`` (the student's first id
            this term, when the id changed); "" for ``id``.

    Only the assignments in ``parts`` are graded: a re-run grades again only the
    assignments whose kept result no longer stands.
    """

    id: str
    parts: dict[str, Part] = field(default_factory=dict)
    numbers_from: str = ""

    def stamp(self, assignment: str, course: dict[str, str]) -> Stamp:
        """What this submission's result on ``assignment`` is made from, with that assignment's ``course``
        fingerprints (:attr:`Manifest.fingerprints`); stored in its results.json."""
        part = self.parts[assignment]
        return Stamp(fingerprint=part.fingerprint, course=dict(course), origin=dict(part.origin), late=part.late)


@dataclass
class Manifest:
    """Everything a judge session needs.

    Attributes:
        course: The course directory (holds ``assignments/`` and ``reference/``).
        runtime: Folder prepared by :func:`grader.judge.linux_handle.prepare_runtime`.
        assignments: Assignment ids to grade, in order.
        include_hidden: Run hidden tests too (False for a student self-check).
        jobs: The submissions.
        hide: Folders sandbox workers must not see (course, submissions, output, working folder).
        out: The output folder: the judge writes each submission's results.json
            and feedback.md there as soon as the submission is graded ("" to skip).
        queue: A :class:`grader.judge.claims.ClaimQueue` folder shared with other
            judges: the judge grades, in ``slots`` slots per assignment, the work
            units (one assignment of one submission, :func:`grader.judge.claims.work_units`)
            of ``jobs`` it claims there. "" grades every job of ``jobs``.
        slots: Most work units of each assignment the judge claims (with ``queue``).
        claimant: The judge's name, written into its claims.
        sandbox: The sandbox backend, ``"linux"`` or ``"portable"`` (chosen by :func:`grader.judge.backends.choose`).
        fingerprints: Assignment id to the course's fingerprints for it
            (:func:`grader.grading.freshness.course_fingerprints`), stored with each result.
        probe_seconds: A release's timing run (``grader release``: the reference checked on the public tests of the
            release, ``course``): the judge measures every probe the tests make on the reference (from ``reference``),
            as hidden grading does, and writes the times to this file (:mod:`grader.judge.probe_seconds`). "" for none.
        reference: The folder holding the reference's package when it is not the course's ``reference/`` (a timing
            run's course is the release, which has none); "" for the course's.
    """

    course: str
    runtime: str
    assignments: list[str]
    include_hidden: bool = True
    jobs: list[Job] = field(default_factory=list)
    hide: list[str] = field(default_factory=list)
    out: str = ""
    queue: str = ""
    slots: int = 0
    claimant: str = ""
    sandbox: str = "linux"
    fingerprints: dict[str, dict[str, str]] = field(default_factory=dict)
    probe_seconds: str = ""
    reference: str = ""

    def dump(self, path: Path) -> None:
        """Write the manifest as JSON."""
        path.write_text(json.dumps(asdict(self), indent=1), encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> Manifest:
        """Read a manifest written by :meth:`dump`."""
        raw: dict[str, Any] = json.loads(Path(path).read_text(encoding="utf-8"))
        jobs = [
            Job(j["id"], {a: Part(**p) for a, p in j["parts"].items()}, j.get("numbers_from", ""))
            for j in raw.pop("jobs")
        ]
        return cls(**raw, jobs=jobs)
