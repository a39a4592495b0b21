"""The results store: the one owner of a graded class's output folder.

``OUT/<assignment>/<student>/`` holds each submission's ``feedback.md``
(:mod:`grader.outputs.feedback`) and ``results.json`` (Gradescope's format:
:mod:`grader.outputs.gradescope_results`). ``results.json`` is at once the
output, the state a later run resumes from, and the input of every class-level
view (the gradebook, the isolation summary, item analysis, the report,
freshness, merged shards): all of them take :class:`Result` records from a
:class:`ResultStore`, which parses each file once per version (a file written
again, by this process or a judge, is read again; one that did not change is
not).

Parsing is tolerant and bounded: a file that is missing, larger than
:data:`MAX_RESULTS_BYTES`, not JSON, or without a ``tests`` list is no result
(the submission is graded again); a value of the wrong type reads as empty
(:func:`grader.outputs.entries.entry`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grader.course.config import Assignment
from grader.files import write_atomic
from grader.outputs.entries import TestEntry, entry, is_test
from grader.outputs.failures import LoadError
from grader.outputs.feedback import feedback_markdown
from grader.outputs.gradescope_results import gradescope_results
from grader.outputs.records import JudgeRecord, Stamp, attention_notes
from grader.sandbox.protocol import LayerStatus, read_layer

MAX_RESULTS_BYTES = 64 * 1024 * 1024
"""Largest results.json read back, in bytes (a file above it reads as no result)."""
RESULTS = "results.json"
FEEDBACK = "feedback.md"
INSTRUCTOR = "_instructor"
"""The output folder's own folder (logs, working files, judge errors): never an assignment."""

EVIDENCE = (("push", "the server's push times"), ("committer date", "committer dates"),
            ("modification time", "file modification times"), ("zip", "zip dates"), ("Gradescope", "Gradescope's times"))
"""What a late decision rests on (:attr:`LateWork.evidence`): a word of the stored ``source`` and its name."""


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(str(v) for v in value) if isinstance(value, list) else ()


def _text_map(value: Any) -> dict[str, str]:
    return {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) else {}


@dataclass(frozen=True)
class LateWork:
    """What the due date and the late policy did to one result (``extra_data.grader.late``, written by the judge
    through :func:`grader.outputs.gradescope_results.gradescope_results`).

    Attributes:
        due: The student's due date (ISO 8601).
        assignment_due: The assignment's due date for everyone (ISO 8601).
        policy: The late policy, in one sentence.
        extension: One sentence on the student's extension, or "".
        submitted: When the work was submitted (ISO 8601, UTC), or "" when nothing records it.
        seconds: How late, in seconds.
        counted: The lateness as the policy counts it (``2 started days``).
        penalty_points: The points the penalty took.
        raw_score: The tests' points, before the penalty.
        final_score: The score after it.
        graded: False when the work came after the cut-off.
        sentence: What was applied, in one sentence.
        applied: False when the score is withheld (no penalty is applied to it).
        source: What the submission time is (the server's push time, a commit's committer date, the files'
            modification times...; "" in results written before it was recorded).
    """

    due: str
    assignment_due: str
    policy: str
    extension: str
    submitted: str
    seconds: int
    counted: str
    penalty_points: float
    raw_score: float
    final_score: float
    graded: bool
    sentence: str
    applied: bool
    source: str = ""

    @property
    def late(self) -> bool:
        return self.seconds > 0

    @property
    def evidence(self) -> str:
        """The kind of evidence the decision rests on, as the terminal counts it (:data:`EVIDENCE`): the first whose
        word :attr:`source` (else :attr:`sentence`) holds, or ``other evidence``."""
        source = self.source or self.sentence
        return next((name for word, name in EVIDENCE if word in source), "other evidence")


def _late(value: Any) -> LateWork | None:
    """The stored late block, each field checked (texts capped at 1,000 characters); None if absent or malformed."""
    if not isinstance(value, dict):
        return None
    texts = [value.get(k) for k in ("due", "assignment_due", "policy", "extension", "submitted", "counted", "sentence")]
    numbers = [value.get(k) for k in ("penalty_points", "raw_score", "final_score")]
    seconds, graded, applied = value.get("seconds"), value.get("graded"), value.get("applied")
    if not (all(isinstance(t, str) for t in texts)
            and all(isinstance(n, (int, float)) and not isinstance(n, bool) and math.isfinite(n) for n in numbers)
            and isinstance(seconds, int) and not isinstance(seconds, bool) and seconds >= 0
            and isinstance(graded, bool) and isinstance(applied, bool)):
        return None
    due, assignment_due, policy, extension, submitted, counted, sentence = (str(t)[:1000] for t in texts)
    taken, raw, final = (float(n) for n in numbers if isinstance(n, (int, float)))
    source = value.get("source")
    return LateWork(due, assignment_due, policy, extension, submitted, seconds, counted, taken, raw, final, graded,
                    sentence, applied, str(source)[:1000] if isinstance(source, str) else "")


@dataclass(frozen=True)
class Result:
    """One submission's result on one assignment, as its ``results.json`` records it.

    Attributes:
        assignment: The assignment id.
        student: The student id.
        tests: Each test, in order.
        withheld: Why the score is withheld (the grader's own machinery failed), or "".
        fingerprint: SHA-256 of the submission's content it was made from ("" if unrecorded).
        course: Part of the course to its SHA-256 when it was made (None if unrecorded:
            :mod:`grader.grading.freshness`).
        origin: The git commit graded (``commit``, ``time``, ``late``...), as recorded (unchecked); empty if none.
        problems: One-line reasons why (part of) the submission could not be graded.
        load_errors: The student modules that could not be loaded (problem and detail).
        isolation: Isolation layer to its status (stored as ``"on (...)"``, ``"off: reason"``:
            :func:`grader.sandbox.protocol.read_layer`).
        notes: Intake's notes (files chosen, names escaped...).
        late: What the due date and the late policy did (None when the assignment had no due date).
        program_output: A capped excerpt of what the program printed.
        document: The whole document (Gradescope's schema), for what copies or converts it.
    """

    assignment: str
    student: str
    tests: tuple[TestEntry, ...]
    withheld: str = ""
    fingerprint: str = ""
    course: dict[str, str] | None = None
    origin: dict[str, Any] = field(default_factory=dict)
    problems: tuple[str, ...] = ()
    load_errors: tuple[LoadError, ...] = ()
    isolation: dict[str, LayerStatus] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    @property
    def attention(self) -> list[str]:
        """The intake notes an instructor should look at (:func:`grader.outputs.records.attention_notes`)."""
        return attention_notes(self.notes)
    late: LateWork | None = None
    program_output: str = ""
    document: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def raw_score(self) -> float:
        """Points earned, summed over the tests (before any late penalty)."""
        return round(sum(t.score for t in self.tests), 4)

    @property
    def score(self) -> float:
        """The score: the tests' points, less the late penalty the judge applied (:attr:`late`)."""
        late = self.late
        return late.final_score if late is not None and late.applied and late.raw_score == self.raw_score \
            else self.raw_score

    @property
    def max_score(self) -> float:
        """Points possible, summed over the tests."""
        return round(sum(t.max_score for t in self.tests), 4)


def parse(doc: Any, assignment: str = "", student: str = "") -> Result | None:
    """A results.json document as a :class:`Result`; None unless it is an object with a ``tests`` list."""
    if not isinstance(doc, dict) or not isinstance(doc.get("tests"), list):
        return None
    extra = doc.get("extra_data")
    data = extra.get("grader") if isinstance(extra, dict) else None
    data = data if isinstance(data, dict) else {}
    tests = tuple(entry(t) for t in doc["tests"] if is_test(t))  # a person's adjustment is no test
    reason = doc.get("grader_error") or data.get("grader_error") or next(
        (t.grader_error for t in tests if t.grader_error), "")
    errors = tuple(LoadError(problem=e["problem"], detail=e["detail"]) for e in data.get("load_errors") or []
                   if isinstance(e, dict) and isinstance(e.get("problem"), str) and isinstance(e.get("detail"), str))
    course = data.get("course")
    origin = data.get("origin")
    return Result(
        assignment=assignment, student=student, tests=tests, withheld=str(reason or ""),
        fingerprint=str(data.get("fingerprint") or ""),
        course=_text_map(course) if isinstance(course, dict) else None,
        origin=dict(origin) if isinstance(origin, dict) else {},
        problems=_strings(data.get("problems")), load_errors=errors,
        isolation={layer: read_layer(layer, text) for layer, text in _text_map(data.get("isolation")).items()},
        notes=_strings(data.get("notes")), late=_late(data.get("late")), program_output=str(data.get("program_output") or ""), document=doc,
    )


class ResultStore:
    """The results of one output folder: written through :meth:`write`, read through :meth:`get` (each version
    of each file parsed once).

    Attributes:
        out: The output folder.
        parses: How many results.json files this store has parsed (a measure: each version once).
    """

    def __init__(self, out: Path) -> None:
        self.out = out
        self.parses = 0
        self._cache: dict[tuple[str, str], tuple[tuple[int, int, int], Result | None]] = {}

    def folder(self, assignment: str, student: str) -> Path:
        """``OUT/<assignment>/<student>``: where one submission's feedback.md and results.json are."""
        return self.out / assignment / student

    def write(self, assignment: Assignment, student: str, record: JudgeRecord, stamp: Stamp | None = None) -> None:
        """Write ``feedback.md``, then ``results.json`` (last: its presence means the pair is complete).

        A test whose grader code failed leaves its traceback in ``OUT/_instructor/judge-errors/`` only: it quotes
        hidden tests, so it is kept out of the student's folder.
        """
        folder = self.folder(assignment.id, student)
        write_atomic(folder / FEEDBACK, feedback_markdown(assignment, student, record, stamp["late"] if stamp else None))
        internal = [t for t in record.get("tests", []) if t.get("internal_error")]
        if internal:
            write_atomic(self.out / INSTRUCTOR / "judge-errors" / f"{assignment.id}--{student}.log",
                         "\n\n".join(f"{t['key']}\n{t['internal_error']}" for t in internal))
        write_atomic(folder / RESULTS, json.dumps(gradescope_results(assignment, record, stamp), indent=2))

    def get(self, assignment: str, student: str) -> Result | None:
        """The result of ``student`` on ``assignment``, or None if it is missing or unreadable."""
        path = self.folder(assignment, student) / RESULTS
        try:
            st = path.stat()
        except OSError:
            return None
        version = (st.st_ino, st.st_mtime_ns, st.st_size)
        kept = self._cache.get((assignment, student))
        if kept is not None and kept[0] == version:
            return kept[1]
        result = None
        if st.st_size <= MAX_RESULTS_BYTES:
            self.parses += 1
            try:
                result = parse(json.loads(path.read_text(encoding="utf-8")), assignment, student)
            except (OSError, ValueError, RecursionError):
                result = None
        self._cache[(assignment, student)] = (version, result)
        return result

    def written_since(self, assignment_ids: Iterable[str], student: str, since: float) -> bool:
        """Whether every given assignment's results.json of ``student`` was written at or after ``since`` (epoch
        seconds)."""
        for aid in assignment_ids:
            try:
                if (self.folder(aid, student) / RESULTS).stat().st_mtime < since:
                    return False
            except OSError:
                return False
        return True

    def stored(self) -> list[tuple[str, str, Path]]:
        """(assignment id, student id, folder) of every results.json in the folder, sorted."""
        found = []
        for path in sorted(self.out.glob(f"*/*/{RESULTS}")):
            aid, student = path.parent.parent.name, path.parent.name
            if not aid.startswith("_") and path.is_file():
                found.append((aid, student, path.parent))
        return found
