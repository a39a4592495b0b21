"""Judge-side state of grading one submission: its workers, budgets and results.

A :class:`SubmissionRun` owns one sandbox worker per assignment (started on
the first probe, reused by every test of that assignment, restarted after a
timeout or crash), enforces the time budgets (per call, per test, per
assignment: the student's seconds, :mod:`grader.judge.call_clock`), turns sandbox outcomes into :class:`~grader.testing.cases.StudentFault`
and collects one result per test. :meth:`SubmissionRun.finish` kills every
worker and writes the results file atomically.
"""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grader.course.config import Assignment
from grader.intake.cellmap import LineMap, failed_import, locate, locate_imports
from grader.judge.answers import MalformedAnswer, with_record
from grader.judge.answers import parse as parse_answer
from grader.judge.backends import Sandbox, WorkerSpec, choose
from grader.judge.call_clock import ASLEEP_MULTIPLE, HELD_MULTIPLE, Patience, WorkerHeldUp
from grader.judge.deadlines import ProbeLimit, backstop_seconds, probe_limit, request_key
from grader.judge.manifest import Job, Part
from grader.judge.worker_handle import (
    SandboxSetupError,
    Worker,
    WorkerCrashed,
    WorkerFault,
    WorkerTimeout,
)
from grader.judge.worker_reports import error_record, module_file
from grader.outputs.failures import NOTEBOOK_ADVICE, TOP_LEVEL_ADVICE, input_advice
from grader.outputs.records import CallTiming, GradedTest, JudgeRecord
from grader.outputs.store import ResultStore
from grader.sandbox.probes import NEEDS
from grader.sandbox.protocol import LayerStatus
from grader.testing.judged import Judged
from grader.testing.outcomes import GraderFault, StudentFault, describe_error, fault_text

MAX_RESTARTS_PER_TEST = 3
"""Crashed workers restarted within one test before its remaining calls fail at once."""
BACKSTOP_MARGIN = 2.0
"""Seconds before a test's backstop (:func:`~grader.judge.deadlines.backstop_seconds`) the judge stops waiting for a
call held up by the machine, so the call is withheld with its reason rather than by pytest-timeout."""


MISSING_MODULE = re.compile(r"No module named '([\w.]+)'")


def import_message(module: str, error: dict[str, Any], own: Collection[str] = ()) -> str:
    """Student-facing message for a module that failed to import.

    An import of a package outside the standard library (``numpy``,
    ``matplotlib``: 7 of 23 real engines import one) says why it fails here; ``own`` are the names of the
    submission's own modules and package (``micrograd``, ``engine``), which are not such packages.
    """
    text = f"your {failed_import(module, error)}: it {describe_error(error)}"
    missing = MISSING_MODULE.search(str(error.get("message", ""))) if error.get("type") == "ModuleNotFoundError" else None
    name = missing.group(1).split(".")[0] if missing else ""
    if name and name not in sys.stdlib_module_names and name not in own:
        text += (f"\n  (the grader runs your code with Python's standard library only: {name} and other packages "
                 "are not installed; remove the import, or the code that needs it)")
    elif advice := input_advice(error):
        text += f"\n  ({advice})"
    return text


def startup_message(exc: WorkerFault, importing: str, assignment: Assignment, line_map: LineMap | None) -> str:
    """Student-facing message for code that could not be loaded at all: it crashed, or ran out of time, while
    importing.

    A timeout names the file being imported when time ran out (``importing``, the module the worker last said it
    was importing; "" when it said none: then every file the assignment imports), the limit, and the usual cause:
    code at the top level of the file, which runs when it is imported.
    """
    if not isinstance(exc, WorkerTimeout):
        return f"your code could not be loaded: {exc}"
    files = [module_file(m) for m in ([importing] if importing else assignment.modules)]
    if line_map is not None and line_map.get("module") in files:
        where, advice = f"running the code cells of {line_map.get('notebook', 'your notebook')}", NOTEBOOK_ADVICE
    else:
        where, advice = "importing " + ", ".join(files[:-1]) + " or " * (len(files) > 1) + files[-1], TOP_LEVEL_ADVICE
    return (f"your code could not be loaded: time ran out while {where} (the limit for loading your code is "
            f"{assignment.limits.startup_seconds:g} s)\n  {advice}")


@dataclass
class PartState:
    """Grading state of one submission on one assignment."""

    assignment: Assignment
    part: Part
    worker: Worker | None = None
    imports: dict[str, Any] = field(default_factory=dict)
    startup_fault: StudentFault | None = None
    setup_error: str = ""
    used: float = 0.0
    """The student's seconds the assignment's calls were charged so far (:mod:`grader.judge.call_clock`)."""
    test_used: tuple[str, float] = ("", 0.0)
    """The test under way and the seconds its calls were charged so far."""
    fault_test: str | None = None
    fault: StudentFault | None = None
    crash_test: str | None = None
    crashes: int = 0
    hung: dict[str, StudentFault] = field(default_factory=dict)
    """Each probe request that timed out (:func:`~grader.judge.deadlines.request_key`) to its fault; not empty once
    the submission has timed out in this assignment."""
    slowest: dict[str, CallTiming] = field(default_factory=dict)
    started: float | None = None
    results: list[GradedTest] = field(default_factory=list)
    output: str = ""
    isolation: dict[str, LayerStatus] = field(default_factory=dict)
    contracts: dict[str, Any] = field(default_factory=dict)
    """What each contract's probe found (:class:`grader.testing.contracts.Blocker`), measured once."""


class SubmissionRun:
    """Grading of one submission (a :class:`~grader.judge.manifest.Job`) in the judge.

    Args:
        job: The submission and its staged parts.
        assignments: Assignment id to configuration.
        runtime: The sandbox runtime folder.
        hide: Folders the sandbox must not see.
        out: Output folder for results.json and feedback.md (written by :meth:`finish`), or None.
        sandbox: The judge's sandbox (backend, fork server, layers this host refused), shared by all its
            runs; None: one of its own, on the backend this host supports.
        fingerprints: Assignment id to the course's fingerprints for it, stored with each result
            (:attr:`grader.judge.manifest.Manifest.fingerprints`).
    """

    def __init__(
        self,
        job: Job,
        assignments: dict[str, Assignment],
        runtime: Path,
        hide: list[str] | None = None,
        out: Path | None = None,
        sandbox: Sandbox | None = None,
        fingerprints: dict[str, dict[str, str]] | None = None,
    ) -> None:
        self.job = job
        self.sandbox = sandbox or Sandbox(choose("auto").kind, runtime)
        self.out = out
        self.hide = list(hide or [])
        self.runtime = runtime
        self.fingerprints = fingerprints or {}
        self.parts = {aid: PartState(assignments[aid], part) for aid, part in job.parts.items()}
        self.finished = False

    def call(self, assignment_id: str, probe: str, args: list[Any], test_id: str, test_started: float,
             test_seconds: float, reference_seconds: float | None = None, judged: Judged | None = None) -> Any:
        """Run a probe on the student's code and return its answer, parsed (:mod:`grader.judge.answers`); the
        questions it asks on the way are answered by ``judged`` (:mod:`grader.testing.judged`), whose record the
        answer carries as ``"judged"``.

        ``test_started`` is when the test started (``time.monotonic()``); ``test_seconds`` its limit, in the student's
        seconds: what its calls are charged (:mod:`grader.judge.call_clock`), as is the assignment's
        ``submission_seconds``. ``reference_seconds`` is what the same probe took the reference solution (None:
        unknown); the probe's own limit is derived from it (:mod:`grader.judge.deadlines`). A probe identical to one
        that already timed out in this assignment fails at once, with that timeout's feedback.

        Raises:
            StudentFault: The code raised, could not be imported, crashed, ran
                out of time, or its process sent an answer that does not fit
                the probe's schema; the message is written for the student.
            GraderFault: The machine held the call up past the judge's patience, or the sandbox could not start:
                the score is withheld, never charged.
        """
        state = self.parts[assignment_id]
        limits = state.assignment.limits
        if state.part.error:
            raise StudentFault("unavailable", state.part.error)
        if state.started is None:  # before the submission's time starts: the judge's own start is not its time
            self._settle(state)
            state.started = time.monotonic()
        if state.fault_test == test_id and state.fault is not None:
            raise state.fault
        if state.test_used[0] != test_id:
            state.test_used = (test_id, 0.0)
        if state.used >= limits.submission_seconds:
            raise StudentFault(
                "timeout",
                f"the time limit for the whole assignment ({limits.submission_seconds:g} s) was used up "
                "before this test could run",
            )
        if state.test_used[1] >= test_seconds:
            raise StudentFault("timeout", f"the time limit for this test ({test_seconds:g} s) was used up")
        if state.hung and (hung := state.hung.get(request_key(probe, args))) is not None:
            raise hung
        worker = self._worker(state)
        for module in NEEDS.get(probe) or state.assignment.modules[:1]:
            error = state.imports.get(module)
            if error:
                raise StudentFault("import", import_message(module, error, state.assignment.own_names), error)
            if module not in state.imports:
                raise StudentFault("unavailable", f"{module.replace('.', '/')}.py is not part of this assignment")
        own, which, limit, patience = self._limit(state, test_started, test_seconds, reference_seconds)
        try:
            response = worker.request(probe, judged.public(args) if judged is not None else args, limit,
                                      "running your code", judged, patience=patience)
        except WorkerFault as exc:
            self._charge(state, test_id, worker.charged)
            fault = self._fault(state, exc, which, test_seconds, own if which == "own" else None)
            if state.crash_test != test_id:
                state.crash_test, state.crashes = test_id, 0
            state.crashes += 1
            # a timeout ends this test (its remaining calls fail at once, as when it used up the test's time);
            # after a few crashes, so does the rest of the test
            if isinstance(exc, WorkerTimeout) or state.crashes >= MAX_RESTARTS_PER_TEST:
                state.fault_test, state.fault = test_id, fault
            if isinstance(exc, WorkerTimeout):
                state.hung[request_key(probe, args)] = fault
            raise fault from None
        except WorkerHeldUp as exc:  # the machine's fault, not the student's: withheld
            raise GraderFault(f"{exc} (the grader's machine was busy)") from None
        self._charge(state, test_id, worker.charged)
        self._timed(state, test_id, worker.charged, limit, reference_seconds)
        if response["ok"]:
            try:
                return with_record(parse_answer(probe, args, response.get("value")),
                                   judged.record() if judged is not None else None)
            except MalformedAnswer as exc:
                raise StudentFault("malformed", f"the answer from your code's process could not be used ({exc}); "
                                                "code that changes the grader's probes or its channel earns nothing") from None
        error = locate(error_record(response.get("error")), state.part.line_map)  # a notebook's errors point at its cells
        raise StudentFault("raised", fault_text(error), error)

    @staticmethod
    def _limit(state: PartState, test_started: float, test_seconds: float, reference_seconds: float | None
               ) -> tuple[ProbeLimit | None, str, float, Patience]:
        """A call's limits: the probe's own (None: no reference time), which of the three limits is the least
        (``"own"``, ``"test"`` or ``"assignment"``), its seconds, and how long the judge waits for the call."""
        limits = state.assignment.limits
        own = probe_limit(limits, reference_seconds, after_timeout=bool(state.hung))
        allowed = {"own": own.seconds if own else float("inf"), "test": test_seconds - state.test_used[1],
                   "assignment": limits.submission_seconds - state.used}
        which = min(allowed, key=allowed.__getitem__)
        limit = allowed[which]
        # a call asleep may wait a few times its probe limit; one held up by the machine, as long as the test's
        # backstop allows (past it, withheld)
        patience = Patience(blocked_cap=ASLEEP_MULTIPLE * limit if which == "own" else limit,
                            held_cap=min(HELD_MULTIPLE * limit, test_started + backstop_seconds(test_seconds)
                                         - BACKSTOP_MARGIN - time.monotonic()))
        return own, which, limit, patience

    @staticmethod
    def _charge(state: PartState, test_id: str, seconds: float) -> None:
        """Add a call's charged seconds to its test's and its assignment's."""
        state.used += seconds
        state.test_used = (test_id, state.test_used[1] + seconds)

    @staticmethod
    def _timed(state: PartState, test_id: str, seconds: float, limit: float, reference_seconds: float | None) -> None:
        """Keep the test's call that came closest to its limit (results.json's ``slowest_call``)."""
        kept = state.slowest.get(test_id)
        if kept is None or seconds / max(limit, 1e-9) > kept["seconds"] / max(kept["limit"], 1e-9):
            state.slowest[test_id] = CallTiming(seconds=round(seconds, 4), limit=round(limit, 4),
                                                reference_seconds=None if reference_seconds is None
                                                else round(reference_seconds, 6))

    def slowest_call(self, assignment_id: str, test_id: str) -> CallTiming | None:
        """The call of a test that came closest to its time limit (None: the test made no call that finished)."""
        return self.parts[assignment_id].slowest.get(test_id)

    @staticmethod
    def _fault(state: PartState, exc: WorkerFault, which: str, test_seconds: float,
               own: ProbeLimit | None) -> StudentFault:
        if isinstance(exc, WorkerTimeout):
            if own is not None:
                limit = own.describe()
            elif which == "test":
                limit = f"this test's time limit ({test_seconds:g} s)"
            else:
                limit = "the time limit of the whole assignment"
            return StudentFault(
                "timeout", f"your code did not finish within {limit}: an infinite loop, or an algorithm far too slow?"
            )
        if isinstance(exc, WorkerCrashed):
            return StudentFault("crash", f"{exc} (a crash in your code, e.g. too deep a recursion or too much memory)")
        return StudentFault("crash", str(exc))

    def _spec(self, state: PartState) -> WorkerSpec:
        return WorkerSpec(Path(state.part.code_dir), Path(state.part.scratch), tuple(state.assignment.modules),
                          state.assignment.limits, tuple(self.hide), state.assignment.allow_network,
                          state.assignment.grader_parts)

    def _settle(self, state: PartState) -> None:
        """Have the judge's sandbox settle its layers (once per judge, before any student code: a no-op after)."""
        if state.setup_error:
            return
        try:
            self.sandbox.settle(self._spec(state))
        except SandboxSetupError as exc:
            state.setup_error = f"the sandbox could not be started on this host: {exc.reason}"

    def _worker(self, state: PartState) -> Worker:
        if state.setup_error:
            raise GraderFault(state.setup_error)
        if state.startup_fault is not None:
            raise state.startup_fault
        if state.worker is not None and state.worker.alive:
            return state.worker
        if state.worker is not None:
            state.output += state.worker.output_excerpt(state.assignment.limits.output_kb * 1024)
            state.worker.close()
        spec = self._spec(state)

        def attempt(worker: Worker) -> None:
            state.worker = worker

        try:
            worker = self.sandbox.start(spec, attempt)
        except SandboxSetupError as exc:
            state.setup_error = f"the sandbox could not be started on this host: {exc.reason}"
            raise GraderFault(state.setup_error) from None
        except WorkerHeldUp as exc:  # loading the code was held up by the machine: withheld, and tried again later
            raise GraderFault(f"{exc} (the grader's machine was busy while your code was loaded)") from None
        except WorkerFault as exc:
            assert state.worker is not None
            state.isolation = state.worker.isolation or state.isolation
            message = startup_message(exc, state.worker.importing, state.assignment, state.part.line_map)
            state.startup_fault = StudentFault("import", message)
            raise state.startup_fault from None
        state.imports = locate_imports(worker.imports, state.part.line_map)
        state.isolation = worker.isolation
        return worker

    def record(self, assignment_id: str, result: GradedTest) -> None:
        """Add one test's result."""
        self.parts[assignment_id].results.append(result)

    def finish(self) -> None:
        """Kill every worker and write each assignment's outputs (results.json, feedback.md) when there is an output folder."""
        for state in self.parts.values():
            if state.worker is not None:
                state.worker.kill()
                state.output += state.worker.output_excerpt(state.assignment.limits.output_kb * 1024)
                state.worker.close()
        self.finished = True
        if self.out is not None:
            store = ResultStore(self.out)
            for state in self.parts.values():
                store.write(state.assignment, self.job.id, self.record_of(state),
                            self.job.stamp(state.assignment.id, self.fingerprints.get(state.assignment.id, {})))

    @staticmethod
    def record_of(state: PartState) -> JudgeRecord:
        """The judge's record of one submission on one assignment (what results.json is written from)."""
        limit = state.assignment.limits.output_kb * 1024
        return JudgeRecord(
            tests=state.results, error=state.part.error, notes=list(state.part.notes), imports=state.imports,
            startup=str(state.startup_fault) if state.startup_fault else "", program_output=state.output[-limit:],
            isolation=state.isolation, grader_error=state.setup_error,
            execution_time=round(time.monotonic() - state.started, 3) if state.started else 0.0,
        )
