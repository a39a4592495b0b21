"""The records the judge hands to the outputs: one test's result, and one submission's record on one assignment.

Built in the judge (:func:`grader.judge.plugin.make_result`,
:meth:`grader.judge.submission_run.SubmissionRun.record_of`), read by
:mod:`grader.outputs.gradescope_results` (``results.json``, Gradescope's
format) and :mod:`grader.outputs.feedback` (``feedback.md``), which the
results store (:mod:`grader.outputs.store`) writes. Every text in them that came from the
submission is already capped; the outputs make it inert for each medium.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal, TypedDict

from grader.course.due_dates import LateTerms
from grader.outputs.failures import LoadError, load_errors
from grader.sandbox.protocol import LayerStatus


class CallTiming(TypedDict):
    """One call of the student's code (one probe), timed by the judge.

    Attributes:
        seconds: How long it took, in seconds (the sandbox's round trip included).
        limit: How long it was allowed to take, in seconds (:mod:`grader.judge.deadlines`).
        reference_seconds: What the same probe took the reference solution, in seconds (None: unknown).
    """

    seconds: float
    limit: float
    reference_seconds: float | None


class BuiltOn(TypedDict, total=False):
    """What a record of one test may hold besides :class:`GradedTest`'s keys (an older judge's record has none)."""

    uses: dict[str, list[str]]


class GradedTest(BuiltOn):
    """One test of one submission, scored.

    Attributes:
        key: A stable id of the test across submissions (``path::name[params]``).
        name: The test's title (its docstring's first line).
        task: The handout task it grades, e.g. ``"1.2"`` ("" if none).
        max_score: Its points.
        score: Points earned: ``max_score * passed cases / cases`` (0 when the grader itself failed).
        status: ``"passed"`` or ``"failed"``.
        visibility: Gradescope's visibility of the test.
        public: Whether the test is one of the public tests students have.
        output: The feedback: failed cases, their messages and hints.
        methods: The student's methods named by the failed cases.
        about: The methods the test is about: those its cases declare (with the methods the handout builds
            them from), or its ``methods(...)`` marker's.
        uses: What each method of a failed case was built on in this submission (the case's ``uses``: the
            handout's table, unless the test found the student's method does not use a base), for "Start here"'s
            "built on"; a record without it (an older judge's) reads the handout's table.
        hints: The hints of the failed cases (the test's own text only).
        internal_error: A traceback when the grader's own code failed ("" otherwise).
        grader_error: Why the grader could not run the test ("" otherwise; the score is then withheld).
        duration: Wall-clock time of the test, in seconds.
        slowest_call: The test's call of the student's code that came closest to its limit (None: no call
            finished); how near a correct submission comes to a false timeout.
    """

    key: str
    name: str
    task: str
    max_score: float
    score: float
    status: Literal["passed", "failed"]
    visibility: str
    public: bool
    output: str
    methods: list[str]
    about: list[str]
    hints: list[str]
    internal_error: str
    grader_error: str
    duration: float
    slowest_call: CallTiming | None


class JudgeRecord(TypedDict):
    """Everything the judge knows about one submission on one assignment when it is done.

    Attributes:
        tests: Each test's result, in order.
        error: Why the submission could not be graded at all (intake), or "".
        notes: Notes from intake (files chosen, names escaped...).
        imports: Student module to None (imported) or its import error.
        startup: Why the code could not be loaded (a crash or hang at import), or "".
        program_output: The last part of what the program printed (capped).
        isolation: Isolation layer to its status, as the worker reported it (:class:`~grader.sandbox.protocol.LayerStatus`).
        grader_error: Why the grader's own machinery failed (the score is then withheld), or "".
        execution_time: Wall-clock time from the first probe to the end, in seconds.
    """

    tests: list[GradedTest]
    error: str
    notes: list[str]
    imports: dict[str, Any]
    startup: str
    program_output: str
    isolation: dict[str, LayerStatus]
    grader_error: str
    execution_time: float


class Stamp(TypedDict):
    """What a result was made from, stored in its results.json so a later run knows whether it still stands
    (:mod:`grader.grading.freshness`) and an instructor knows which commit was graded.

    Attributes:
        fingerprint: SHA-256 of what was read from the submission.
        course: Part of the course to its SHA-256 (:func:`grader.grading.freshness.course_fingerprints`).
        origin: For a submission read from a git repository at a deadline, the commit graded
            (:class:`grader.intake.entry.Origin` as a dict: ``commit``, ``time``, ``ref``, ``late``,
            ``note``); empty otherwise.
        late: What the due date and the late policy made of the submission, or None without a due date.
    """

    fingerprint: str
    course: dict[str, str]
    origin: dict[str, Any]
    late: LateTerms | None


def empty_record(error: str = "", grader_error: str = "") -> JudgeRecord:
    """The record of a submission no test ran for: it could not be graded (``error``), or its judge failed
    (``grader_error``: the score is withheld)."""
    return JudgeRecord(tests=[], error=error, notes=[], imports={}, startup="", program_output="", isolation={},
                       grader_error=grader_error, execution_time=0.0)


def record_load_errors(record: Mapping[str, Any]) -> list[LoadError]:
    """The modules of the submission that could not be loaded (:func:`grader.outputs.failures.load_errors`)."""
    return load_errors(record.get("imports") or {}, str(record.get("startup") or ""))


ATTENTION = "attention: "
"""How an intake note that an instructor should look at starts (the submission was graded, but something about it
is off: its answers file names another student, its work is on another branch). Such a note reaches the student's
feedback like every note, and the gradebook's notes column and the report's "needs attention" list
(:func:`attention_notes`)."""


def attention_notes(notes: Iterable[str]) -> list[str]:
    """The notes an instructor should look at (:data:`ATTENTION`), without the prefix."""
    return [n[len(ATTENTION):] for n in notes if n.startswith(ATTENTION)]


def problems(record: Mapping[str, Any]) -> list[str]:
    """One-line reasons why (part of) the submission could not be graded: intake's, then each module that could not
    be loaded (:func:`grader.outputs.failures.load_errors`)."""
    reasons = [str(record["error"])] if record.get("error") else []
    return reasons + [e["problem"] for e in record_load_errors(record)]


def withheld(record: Mapping[str, Any]) -> str:
    """Why the score of a judge record is withheld ("" when it is not).

    A score is withheld when the grader's own machinery failed (the sandbox
    could not be set up, an internal error in a test, a judge that died):
    such a result is never counted, as 0 or otherwise, and a re-run grades
    the submission again.
    """
    reason = record.get("grader_error")
    if not reason:
        reason = next((t.get("grader_error") for t in record.get("tests", []) if isinstance(t, dict)
                       and t.get("grader_error")), "")
    return str(reason or "")


def score_of(record: Mapping[str, Any]) -> tuple[float, float]:
    """(score, max score) summed over the tests of a judge record."""
    tests = record.get("tests", [])
    return round(sum(t["score"] for t in tests), 4), round(sum(t["max_score"] for t in tests), 4)


OUTPUT_EXCERPT = 2000
"""Characters of the program's own output quoted in feedback."""


def program_output(record: Mapping[str, Any]) -> str:
    """A capped excerpt of what the program printed, or ""."""
    text = str(record.get("program_output") or "").strip()
    if len(text) > OUTPUT_EXCERPT:
        text = "..." + text[-OUTPUT_EXCERPT:]
    return text
