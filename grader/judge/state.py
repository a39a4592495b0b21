"""The judge's per-session grading state: which submissions it grades, in which slots, and their runs.

Kept by :mod:`grader.judge.plugin` in ``config.stash``. Tests that use the
``student`` fixture are parametrized over :attr:`GradingState.params`: the
submission ids of the manifest, or, when judges share a claim queue
(:mod:`grader.judge.claims`), slots that each claim a work unit (one
assignment of one submission) when their first test starts.
"""

from __future__ import annotations

import gc
import json
import time
from pathlib import Path
from typing import Any

import pytest

from grader.course.config import Assignment
from grader.course.course import Course
from grader.errors import GraderError
from grader.judge.backends import Sandbox
from grader.judge.claims import ClaimQueue
from grader.judge.deadlines import request_key
from grader.judge.manifest import Manifest
from grader.judge.probe_seconds import FILE as PROBE_SECONDS
from grader.judge.probe_seconds import hashed
from grader.judge.probe_seconds import read as read_probe_seconds
from grader.judge.reference import judged_for, load_reference, run_probe
from grader.judge.submission_run import SubmissionRun
from grader.sandbox import course_code, own_parts
from grader.sandbox.probes import JUDGED
from grader.testing import attribution

SUBMISSION = "grader_submission"
"""The fixture the plugin parametrizes: its value is a slot or submission id."""


def submission_of(item: pytest.Item) -> str | None:
    """The slot or submission id an item is parametrized with (None for unparametrized items)."""
    callspec = getattr(item, "callspec", None)
    return callspec.params.get(SUBMISSION) if callspec is not None else None


def use_course_parts(course: Course, assignments: list[Assignment], required: bool) -> list[str]:
    """Load the course's code into this process: its probe modules (:mod:`grader.sandbox.course_code`), then its
    parts (:mod:`grader.sandbox.own_parts`): those the assignments name for their workers (``grader_parts``, the
    reference runs its probes in this process) and for the judge (``judge_parts``).

    Args:
        course: The course; its parts are in ``assignments/shared/parts`` (a student's release has none).
        assignments: The assignments graded; their ``grader_parts`` are loaded too (the reference runs its
            probes in this process).
        required: Hidden grading of a course with hidden tests: every part is needed, since without them the tests
            would run another way.

    Returns:
        The parts loaded.

    Raises:
        GraderError: If a probe module fails to load, or a part is needed but missing, or fails to import.
    """
    course_code.use(course.assignments_dir)
    try:
        course_code.load_probes(judge=True)
    except course_code.CourseCodeError as exc:
        raise GraderError(str(exc)) from None
    attribution.use(course.handout)  # the feedback names methods by the course's handout
    folder = course.parts_dir
    own_parts.use(str(folder) if folder.is_dir() else None)
    loaded = []
    for name in sorted({p for a in assignments for p in (*a.judge_parts, *a.grader_parts)}):
        if not own_parts.available(name):
            if required:
                raise GraderError(f"hidden grading needs the grader's part {name!r}, but {folder / (name + '.py')} "
                                  "is missing")
            continue
        try:
            own_parts.load(name)
        except own_parts.PartsError as exc:
            raise GraderError(str(exc)) from None
        loaded.append(name)
    return loaded


class GradingState:
    """Per-session grading state, kept in ``config.stash``."""

    def __init__(self, manifest: Manifest) -> None:
        self.manifest = manifest
        self.course = Course(Path(manifest.course))
        self.assignments: dict[str, Assignment] = {a: self.course.assignment(a) for a in manifest.assignments}
        use_course_parts(self.course, list(self.assignments.values()),  # a release has no hidden tests, and no parts
                         required=manifest.include_hidden and any(a.hidden_tests.is_dir()
                                                                  for a in self.assignments.values()))
        self.sandbox = Sandbox(manifest.sandbox, Path(manifest.runtime))  # every worker of this judge starts here
        self.queue = ClaimQueue(Path(manifest.queue), manifest.jobs, manifest.claimant) if manifest.queue else None
        self.jobs = {job.id: job for job in manifest.jobs}
        self.slot_assignment: dict[str, str] = {}
        """A slot to the assignment whose work units it claims (empty without a queue)."""
        self._slots: dict[str, list[str]] = {}  # an assignment's slots, in order
        if self.queue is not None:  # per assignment, slots that each claim a work unit when their first test starts
            units = {aid: sum(aid in u.parts for u in self.queue.units) for aid in self.assignments}
            self.slot_assignment = {f"slot{i:02d}-{aid}": aid for i in range(manifest.slots)
                                    for aid in self.assignments if i < units[aid]}
            self.params = list(self.slot_assignment)
            for param, aid in self.slot_assignment.items():
                self._slots.setdefault(aid, []).append(param)
        else:
            self.params = [job.id for job in manifest.jobs]
        self.order = {param: i for i, param in enumerate(self.params)}
        self.runs: dict[str, SubmissionRun | None] = {}
        """Parametrization value (slot or submission id) to its run; None for a slot left empty."""
        self._roots = {aid: a.root.resolve() for aid, a in self.assignments.items()}
        self._by_file: dict[Path, Assignment] = {}
        self._by_name: dict[str, Assignment] = {}
        """:meth:`assignment_of` by the test file's path as text (an item's path made no second ``Path``)."""
        self._reference: Any = None
        self._reference_answers: dict[str, str] = {}
        self._reference_seconds: dict[str, float | None] = {}
        self._shipped: dict[str, float] | None = None  # a self-check's: the release's table, read on first use

    def params_for(self, path: Path) -> list[str]:
        """What the tests in the file at ``path`` are parametrized with: the slots of its assignment, or every
        submission id (no queue)."""
        if self.queue is None:
            return self.params
        return self._slots.get(self.assignment_at(path).id, [])

    def sample_params(self) -> set[str]:
        """Params whose tests, together, are every test of the session once (to add up each assignment's points)."""
        if self.queue is None:
            return set(self.params[:1])
        return {slots[0] for slots in self._slots.values()}

    def run(self, param: str) -> SubmissionRun | None:
        """The run of a slot or submission, claiming the slot's work unit on first use."""
        if param not in self.runs:
            if self.queue is None:
                job = self.jobs.get(param)
            else:  # a param that is no slot (an empty parameter set) claims nothing
                aid = self.slot_assignment.get(param)
                job = self.queue.claim(aid) if aid is not None else None
            self.runs[param] = None if job is None else SubmissionRun(
                job, self.assignments, Path(self.manifest.runtime),
                self.manifest.hide, Path(self.manifest.out) if self.manifest.out else None, self.sandbox,
                self.manifest.fingerprints,
            )
        return self.runs[param]

    @property
    def reference(self) -> Any:
        if self._reference is None:
            if not self.has_reference:
                raise RuntimeError("the reference solution is not available in a self-check")
            self._reference = load_reference(Path(self.manifest.reference or self.course.reference_dir),
                                             self.course.package)
        return self._reference

    @property
    def has_reference(self) -> bool:
        """Whether this judge runs the reference: hidden grading, and a release's timing run
        (:attr:`Manifest.probe_seconds`); never a self-check."""
        return self.manifest.include_hidden or bool(self.manifest.probe_seconds)

    def reference_answer(self, probe: str, args: list[Any]) -> str:
        """The reference solution's answer to a probe, as JSON (with what its judge side counted, under
        ``"judged"``, for a probe that asks the judge: :mod:`grader.testing.judged`); run once per judge (every
        submission gets the same inputs), timed for :meth:`reference_seconds`.

        Raises:
            RuntimeError: In a self-check, which has no reference.
            grader.errors.GraderError: If the probe fails on the reference (a bug of the test).
        """
        return self._answer(request_key(probe, args), probe, args)

    def _answer(self, key: str, probe: str, args: list[Any]) -> str:
        if key not in self._reference_answers:
            mg = self.reference
            collecting = gc.isenabled()
            gc.disable()  # the reference's own time, not a collection of this judge's many objects that happened to
            try:          # fall into it (one XOR training measured 22 to 86 ms with it)
                judged = judged_for(probe, args)
                started = time.thread_time()  # CPU time, as the student's calls are charged: not the machine's load
                result = run_probe(mg, probe, args, judged)
                self._reference_seconds[key] = time.thread_time() - started
                if probe in JUDGED:  # the reader unwraps every answer of such a probe (a side may be None)
                    result = {"value": result, "judged": judged.record() if judged is not None else None}
            finally:
                if collecting:
                    gc.enable()
            self._reference_answers[key] = json.dumps(result)
        return self._reference_answers[key]

    def reference_seconds(self, probe: str, args: list[Any]) -> float | None:
        """Seconds the reference solution took for this probe (run now if it has not been), or None when the
        probe fails on it: the probe then gets no limit of its own (:mod:`grader.judge.deadlines`). A self-check
        has no reference: it reads the times the release ships (:mod:`grader.judge.probe_seconds`), None for a
        probe they do not hold."""
        key = request_key(probe, args)
        if not self.has_reference:
            if self._shipped is None:
                self._shipped = read_probe_seconds(self.course.assignments_dir / PROBE_SECONDS)
            return self._shipped.get(hashed(key))
        if key not in self._reference_seconds:
            try:
                self._answer(key, probe, args)
            except Exception:  # noqa: BLE001 - a test that calls the reference itself gets the error there
                self._reference_seconds[key] = None
        return self._reference_seconds[key]

    def measured_seconds(self) -> dict[str, float | None]:
        """Every probe's time measured on the reference so far, by request key (what a release ships)."""
        return dict(self._reference_seconds)

    def assignment_of(self, item: pytest.Item) -> Assignment:
        """The assignment whose folder holds the item's test file."""
        name = str(item.path)
        found = self._by_name.get(name)
        if found is None:
            found = self._by_name[name] = self.assignment_at(Path(name))
        return found

    def assignment_at(self, path: Path) -> Assignment:
        """The assignment whose folder holds the test file at ``path``.

        Raises:
            pytest.UsageError: If the file is inside no graded assignment's folder.
        """
        if path not in self._by_file:
            parents = Path(path).resolve().parents
            found = [a for a, root in self._roots.items() if root in parents]
            if not found:
                raise pytest.UsageError(f"{path}: test is not inside a graded assignment's folder")
            self._by_file[path] = self.assignments[found[0]]
        return self._by_file[path]


class EmptySlots:
    """Ends, without running or reporting them, the tests of a slot whose claim found the queue empty, and the tests
    of an assignment its submission is not graded on in this run (its kept result still stands)."""

    def __init__(self, state: GradingState) -> None:
        self.state = state

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> bool | None:
        param = submission_of(item)
        if param is None:
            return None
        run = self.state.run(param)
        if run is None or self.state.assignment_of(item).id not in run.job.parts:
            return True
        return None
