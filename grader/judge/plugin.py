"""The grader's pytest plugin: the judge side of grading.

Loaded with ``-p grader.judge.plugin``. With ``--grader-manifest FILE`` (ini:
``grader_manifest``) it grades the submissions the manifest lists:

* every test that uses the ``student`` fixture is parametrized over the
  submissions, or over its assignment's slots, each of which claims a work
  unit (one assignment of one submission) from a queue shared with other
  judges (see :mod:`grader.judge.state`), at session scope; the items are
  ordered slot by slot (submission by submission without a queue), so each
  sandbox worker is started once (forked from the judge's fork server) and
  reused by all the tests of its assignment;
* ``student(probe, *args)`` runs a probe in the submission's sandbox worker,
  ``reference(probe, *args)`` on the reference solution in this process,
  ``check`` collects soft assertions for partial credit;
* each test's outcome becomes a result (points, status, student-facing
  feedback); when a submission's last test ends its workers are killed and
  its results file is written;
* in a self-check that ``grader check`` follows, each test's start and end is appended to its progress feed
  (:mod:`grader.judge.progress_feed`).

Markers: ``points(n)`` (required on every graded test), ``task("1.2")``,
``visibility("visible"|"hidden"|"after_due_date"|"after_published")``, ``methods(...)``,
``time_limit(seconds)`` (:func:`test_seconds`).
Tests under ``tests/public/`` default to visible, others to the
assignment's ``visibility``.
"""

from __future__ import annotations

import functools
import gc
import json
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from grader.course.config import VISIBILITIES
from grader.judge import hypothesis_profile
from grader.judge.answers import MalformedAnswer, with_record
from grader.judge.answers import parse as parse_answer
from grader.judge.deadlines import backstop_seconds
from grader.judge.manifest import Manifest
from grader.judge.probe_seconds import write as write_probe_seconds
from grader.judge.progress_feed import ProgressFeed
from grader.judge.reference import complete_request, judged_for
from grader.judge.scoring import points_earned
from grader.judge.state import SUBMISSION, EmptySlots, GradingState, submission_of
from grader.judge.submission_run import SubmissionRun
from grader.outputs.failures import ending, render_output
from grader.outputs.records import GradedTest
from grader.sandbox.probes import JUDGED
from grader.testing.cases import CaseResult, Check
from grader.testing.contracts import Blocker, Contract
from grader.testing.outcomes import Failure, GraderFault, StudentFault

MARKERS = (
    "points(n): points the test is worth (partial credit by the share of `check` cases passed)",
    "task(id): the handout task the test grades, e.g. task('1.2')",
    f"visibility(v): Gradescope visibility, one of {', '.join(VISIBILITIES)}",
    "methods(*names): the methods a test without `check` cases is about, e.g. methods('Class.method')",
    "contract(contract): the course contract the tests need (a grader.testing.contracts.Contract): "
    "when it does not hold, their failing cases are reported as blocked by the constructor at fault",
    "base_of(factory): (written pytest.mark.base_of.with_args(factory)) factory(student) finds the base operation a failing case's graph called "
    "(grader.testing.cases.Check.base_of), e.g. the course's derived-operation attribution",
    "time_limit(seconds): this test's own wall-clock limit when it is below the assignment's test_seconds (a test "
    "the reference passes in milliseconds, so a submission that hangs on it fails in seconds)",
)


STATE = pytest.StashKey[GradingState]()
CHECK = pytest.StashKey[Check]()
STARTED = pytest.StashKey[float]()
FAULT = pytest.StashKey[Failure]()
FEED = pytest.StashKey[ProgressFeed]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("grader", "the course's grader")
    group.addoption(
        "--grader-manifest",
        dest="grader_manifest",
        default=None,
        help="grade the submissions listed in this manifest (written by `grader grade`)",
    )
    parser.addini("grader_manifest", "default for --grader-manifest", default="")


def pytest_configure(config: pytest.Config) -> None:
    for marker in MARKERS:
        config.addinivalue_line("markers", marker)
    path = config.getoption("grader_manifest") or config.getini("grader_manifest")
    if path:
        config.stash[STATE] = state = GradingState(Manifest.load(path))
        if any(a.is_concept_check for a in state.assignments.values()):  # its fixture, and its readers, only then
            config.pluginmanager.import_plugin("grader.judge.concept_check_fixture")
        config.pluginmanager.register(EmptySlots(state), "grader-empty-slots")
        feed = ProgressFeed.requested(state, test_name, test_seconds)  # `grader check` follows a self-check
        if feed is not None:
            config.stash[FEED] = feed
            config.pluginmanager.register(feed, "grader-progress")
        hypothesis_profile.use_when_imported()  # only the course's tests that use it import it


def pytest_report_header(config: pytest.Config) -> list[str]:
    state = config.stash.get(STATE, None)
    if state is None:
        return []
    manifest = config.getoption("grader_manifest") or config.getini("grader_manifest")
    return [
        f"grader: {len(state.manifest.jobs)} submission(s)"
        + (f" shared through {state.manifest.queue}, {len(state.params)} slot(s), one work unit each" if state.queue else "")
        + f", assignments {', '.join(state.manifest.assignments)}",
        f"grader: repeat with: python -m pytest -p grader.judge.plugin --grader-manifest {manifest}",
    ]


@pytest.hookimpl(trylast=True)
def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    state = metafunc.config.stash.get(STATE, None)
    if state is not None and SUBMISSION in metafunc.fixturenames:
        params = state.params_for(Path(str(metafunc.definition.path)))
        metafunc.parametrize(SUBMISSION, params, ids=params, scope="session")


def pytest_collection_finish(session: pytest.Session) -> None:
    """Exempt what collection made (the items of every slot, the test modules) from the garbage collector: they live
    until the session ends, and walking them again in every full collection paused the judge mid-call, on its time
    but inside a student's call's limit."""
    if session.config.stash.get(STATE, None) is not None:
        gc.collect()
        gc.freeze()


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    state = config.stash.get(STATE, None)
    if state is None:
        return
    for item in items:
        if item.get_closest_marker("points") is None:
            raise pytest.UsageError(f"{item.nodeid}: every graded test needs @pytest.mark.points(n)")
        limit = state.assignment_of(item).limits.test_seconds
        item.add_marker(pytest.mark.timeout(backstop_seconds(limit)))
    if state.manifest.include_hidden and state.params:
        sample = state.sample_params()
        verify_points_total(state, [it for it in items if submission_of(it) in sample])
    position = {id(item): i for i, item in enumerate(items)}
    items.sort(key=lambda it: (state.order.get(submission_of(it) or "", -1), position[id(it)]))


def verify_points_total(state: GradingState, items: list[pytest.Item]) -> None:
    """Fail the session if an assignment's tests do not add up to its declared points."""
    totals = dict.fromkeys(state.assignments, 0.0)
    for item in items:
        totals[state.assignment_of(item).id] += float(item.get_closest_marker("points").args[0])  # type: ignore[union-attr]
    for aid, total in totals.items():
        declared = state.assignments[aid].points
        if abs(total - declared) > 1e-9:
            raise pytest.UsageError(
                f"{state.assignments[aid].root / 'assignment.yaml'}: points: declares {declared:g} "
                f"but the tests' @pytest.mark.points add up to {total:g}"
            )


@pytest.fixture(scope="session")
def grader_submission() -> str:
    """The id of the submission being graded (parametrized by the plugin)."""
    raise pytest.UsageError("no submission to grade: run through `grader grade` or pass --grader-manifest")


@pytest.fixture
def student(request: pytest.FixtureRequest, grader_submission: str) -> Callable[..., Any]:
    """``student(probe, *args)``: run a probe on the submission, in its sandbox.

    Raises (from the call) :class:`~grader.testing.cases.StudentFault` when the
    student's code raises, crashes, times out or cannot be imported.
    """
    state = request.config.stash[STATE]
    run = state.run(grader_submission)
    assert run is not None, "EmptySlots ends an empty slot's tests before their fixtures"
    assignment = state.assignment_of(request.node)
    seconds = test_seconds(request.node, assignment.limits.test_seconds)
    started = time.monotonic()
    test_id = request.node.nodeid

    def call(probe: str, *args: Any) -> Any:
        values = complete_request(probe, args)
        try:
            return run.call(assignment.id, probe, values, test_id, started, seconds,
                            state.reference_seconds(probe, values), judged_for(probe, values))
        except StudentFault as fault:
            if fault.input_independent and hypothesis_profile.in_test():
                raise GiveUp(fault) from None  # no input can make it pass: hypothesis must not shrink
            raise

    return call


def test_seconds(item: pytest.Item, assignment_seconds: float) -> float:
    """A test's limit, in the student's seconds (what its calls were charged, :mod:`grader.judge.call_clock`): its
    ``time_limit(seconds)`` marker when that is below the assignment's ``test_seconds``, else the assignment's.

    Raises:
        pytest.UsageError: If the marker's limit is not a positive number.
    """
    marker = item.get_closest_marker("time_limit")
    if marker is None:
        return assignment_seconds
    limit = marker.args[0] if marker.args else None
    if isinstance(limit, bool) or not isinstance(limit, (int, float)) or not limit > 0:
        raise pytest.UsageError(f"{item.nodeid}: time_limit(seconds) needs a positive number, not {limit!r}")
    return min(float(limit), assignment_seconds)


class GiveUp(BaseException):
    """Ends a hypothesis test at once (not an ``Exception``, so hypothesis neither retries nor shrinks).

    Raised for faults no input can change (unimplemented method, code that
    cannot be imported, a time limit used up): shrinking would call the
    student's code hundreds of times to find a "smallest" input that does
    not exist.
    """

    def __init__(self, fault: StudentFault) -> None:
        super().__init__(str(fault))
        self.fault = fault


@pytest.fixture
def reference(request: pytest.FixtureRequest) -> Callable[..., Any]:
    """``reference(probe, *args)``: run a probe on the reference solution (hidden tests only)."""
    state = request.config.stash[STATE]
    state.reference  # noqa: B018 - a self-check has no reference: fail before the first call

    def call(probe: str, *args: Any) -> Any:
        values = complete_request(probe, args)
        try:
            raw = json.loads(state.reference_answer(probe, values))
            if probe in JUDGED:  # the answer and what the judge counted while the reference ran
                return with_record(parse_answer(probe, values, raw["value"]), raw["judged"])
            return parse_answer(probe, values, raw)
        except MalformedAnswer as exc:  # the reference and the schema disagree: a bug of the grader, never the student's
            raise GraderFault(f"the reference's answer to {probe!r} does not fit its schema: {exc}") from None

    return call


@pytest.fixture
def check(request: pytest.FixtureRequest) -> Check:
    """Soft assertions with partial credit; see :class:`grader.testing.cases.Check`."""
    result = Check()
    request.node.stash[CHECK] = result
    state = request.config.stash[STATE]
    result.uses_table = state.assignment_of(request.node).uses
    base_of = request.node.get_closest_marker("base_of")
    if base_of is not None and "student" in request.fixturenames:
        if not base_of.args or not callable(base_of.args[0]):
            raise pytest.UsageError(f"{request.node.nodeid}: base_of(factory) needs a callable")
        result.base_of = base_of.args[0](request.getfixturevalue("student"))
    marker = request.node.get_closest_marker("contract")
    if marker is not None:
        contract = marker.args[0] if marker.args else None
        if not isinstance(contract, Contract):
            raise pytest.UsageError(f"{request.node.nodeid}: contract(...) needs a grader.testing.contracts.Contract")
        run = state.run(request.getfixturevalue(SUBMISSION))
        if run is not None and test_name(request.node) != contract.test:
            memo = run.parts[state.assignment_of(request.node).id].contracts
            result.blocked = Blocker(contract, request.getfixturevalue("student"), memo)
    return result


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Any:
    state = item.config.stash.get(STATE, None)
    item.stash[STARTED] = time.monotonic()
    try:
        return (yield)
    finally:
        sub = submission_of(item)
        run = state.runs.get(sub) if state is not None and sub is not None else None
        if run is not None and (nextitem is None or submission_of(nextitem) != sub):
            run.finish()


@pytest.hookimpl(wrapper=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> Any:
    """Turn a student fault into a plain ``pytest.fail`` without a traceback.

    The fault's message is the whole story (the feedback is built from it),
    and pytest's traceback formatting, which parses the source of every
    frame, cost more than the rest of a template submission's grading.
    """
    try:
        return (yield)
    except BaseException as exc:  # noqa: BLE001 - GiveUp and exception groups carry faults too
        failure = find_failure(exc)
        if failure is None:
            raise
        pyfuncitem.stash[FAULT] = failure
        pytest.fail(str(failure), pytrace=False)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    state = item.config.stash.get(STATE, None)
    sub = submission_of(item)
    run = state.runs.get(sub) if state is not None and sub is not None else None
    if state is None or run is None:
        return report
    if report.when == "call" or (report.when == "setup" and report.failed):
        result = make_result(state, item, call, report, run)
        run.record(state.assignment_of(item).id, result)
        feed = item.config.stash.get(FEED, None)
        if feed is not None:
            feed.finished(item, result, item.stash.get(CHECK, None), item.stash.get(FAULT, None))
    return report


def pytest_sessionfinish(session: pytest.Session) -> None:
    state = session.config.stash.get(STATE, None)
    if state is not None:
        for run in state.runs.values():
            if run is not None and not run.finished:
                run.finish()
        state.sandbox.close()
        if state.manifest.probe_seconds:  # a release's timing run: what a self-check's probe limits come from
            write_probe_seconds(Path(state.manifest.probe_seconds), state.measured_seconds())
        hypothesis_profile.quiet_if_unused(session.config.pluginmanager)


# --- turning an outcome into a result ----------------------------------------

def find_failure(exc: BaseException) -> Failure | None:
    """The first :class:`Failure` in ``exc`` (looking inside exception groups)."""
    if isinstance(exc, Failure):
        return exc
    if isinstance(exc, GiveUp):
        return exc.fault
    for inner in getattr(exc, "exceptions", ()) or ():
        found = find_failure(inner)
        if found is not None:
            return found
    return None


def test_name(item: pytest.Item) -> str:
    """The test's title: its docstring's first line (``{param}`` placeholders filled), else its name."""
    func = getattr(item, "function", None)
    doc = (getattr(func, "__doc__", None) or "").strip().splitlines()
    params = {k: v for k, v in getattr(getattr(item, "callspec", None), "params", {}).items() if k != SUBMISSION}
    if doc:
        try:
            return doc[0].strip().format(**params)
        except (KeyError, IndexError, ValueError):
            return doc[0].strip()
    return getattr(item, "originalname", item.name)


def test_key(item: pytest.Item, sub: str) -> str:
    """A stable id of the test across submissions: ``path::name[params]`` without the submission."""
    name = item.name
    suffix = f"[{sub}]"
    if name.endswith(suffix):
        name = name[: -len(suffix)]
    elif name.endswith(f"-{sub}]"):
        name = name[: -len(sub) - 2] + "]"
    return f"{item.nodeid.split('::')[0]}::{name}"


def make_result(state: GradingState, item: pytest.Item, call: pytest.CallInfo[None], report: pytest.TestReport,
                run: SubmissionRun) -> GradedTest:
    """Score one test of ``run``'s submission and write its feedback; mark the report failed if a case failed."""
    assignment = state.assignment_of(item)
    points = float(item.get_closest_marker("points").args[0])  # type: ignore[union-attr]
    task = item.get_closest_marker("task")
    public = is_public(assignment.public_tests, str(item.path))
    vis_marker = item.get_closest_marker("visibility")
    visibility = vis_marker.args[0] if vis_marker else ("visible" if public else assignment.visibility)
    checks = item.stash.get(CHECK, None) or Check()
    internal = grader_error = ""
    escaped: Failure | None = None
    if call.excinfo is not None and not report.passed:
        exc = call.excinfo.value
        escaped = item.stash.get(FAULT, None) if call.when == "call" else None
        escaped = escaped or find_failure(exc)
        if escaped is None:  # the grader's own machinery failed: the score is withheld, never charged
            if isinstance(exc, GraderFault):
                grader_error = str(exc)
            elif isinstance(exc, pytest.fail.Exception) and ran_past_backstop(item):
                grader_error = "the test ran past the grader's own time limit"  # pytest-timeout's backstop
            else:
                grader_error = f"internal error ({type(exc).__name__})"
            escaped = Failure(f"the grader could not run this test: {grader_error} (not your fault; the score is "
                              "withheld and your instructor can see why)")
            internal = "".join(traceback.format_exception(exc))
    failed_cases = checks.failures
    ended, escaped_method, escaped_hint = None, None, None
    if escaped is not None:
        marker = item.get_closest_marker("methods")
        ended, escaped_method, escaped_hint = ending(checks, escaped, marker.args if marker else (), bool(grader_error))
    output = render_output(checks.cases, ended, checks.notes)
    passed = not failed_cases and escaped is None and report.passed
    if report.passed and not passed:
        report.outcome = "failed"
        report.longrepr = output
    return GradedTest(
        key=test_key(item, submission_of(item) or ""),
        name=test_name(item),
        task=str(task.args[0]) if task else "",
        max_score=points,
        score=points_earned(points, len(checks.cases), len(failed_cases), escaped is not None, bool(grader_error),
                            checks.share),
        status="passed" if passed else "failed",
        visibility=visibility,
        public=public,
        output=output,
        methods=sorted({c.method for c in failed_cases if c.method} | ({escaped_method} if escaped_method else set())),
        about=about_methods(item, checks),
        uses=uses_of(failed_cases + ([checks.stopped] if checks.stopped and escaped is not None else [])),
        hints=[h for h in dict.fromkeys([*(c.hint for c in failed_cases), escaped_hint]) if h],  # the grader's text
        internal_error=internal,
        grader_error=grader_error,
        duration=round(time.monotonic() - item.stash.get(STARTED, time.monotonic()), 4),
        slowest_call=run.slowest_call(assignment.id, item.nodeid),
    )


@functools.cache
def is_public(public_tests: Path, test_file: str) -> bool:
    """Whether the test file is under the assignment's public tests (resolved once per file, not once per test)."""
    return public_tests.resolve() in Path(test_file).resolve().parents


def uses_of(cases: list[CaseResult]) -> dict[str, list[str]]:
    """What the method of each of ``cases`` (failed) was built on, as the case declared it (its ``uses``)."""
    found: dict[str, list[str]] = {}
    for case in cases:
        if case.about and case.uses:
            found[case.about] = sorted({*found.get(case.about, ()), *case.uses})
    return found


def about_methods(item: pytest.Item, checks: Check) -> list[str]:
    """The methods a test is about: its ``methods(...)`` marker's, else those its cases declare (``method`` and
    ``uses``)."""
    marker = item.get_closest_marker("methods")
    if marker is not None:
        return sorted(str(m) for m in marker.args)
    return sorted({c.about for c in checks.cases if c.about} | {m for c in checks.cases for m in c.uses})


def ran_past_backstop(item: pytest.Item) -> bool:
    """Whether the test has run for its whole pytest-timeout backstop (how a pytest-timeout failure is told apart)."""
    state = item.config.stash.get(STATE, None)
    if state is None:
        return False
    elapsed = time.monotonic() - item.stash.get(STARTED, time.monotonic())
    return elapsed >= backstop_seconds(state.assignment_of(item).limits.test_seconds) - 1
