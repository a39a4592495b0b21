"""Probe limits from the reference's own cost (issue 16): a hang costs seconds, and the scores stay the same."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from dataclasses import replace

import hostile_submissions as H
import pytest
from checkout import ROOT
from doc_quotes import assert_quoted

from grader.cli import main
from grader.course.config import Limits
from grader.course.course import Course
from grader.errors import ConfigError
from grader.judge.deadlines import ProbeLimit, probe_limit, reference_step, request_key

LIMITS = Limits(probe_floor_seconds=2.0, probe_multiple=20.0, after_timeout_floor_seconds=0.5,
                after_timeout_multiple=5.0)


def test_the_limit_is_a_floor_plus_a_multiple_of_the_reference_time():
    assert probe_limit(LIMITS, 0.01, after_timeout=False) == ProbeLimit(2.2, 0.01, False)
    assert probe_limit(LIMITS, 0.01, after_timeout=True) == ProbeLimit(0.55, 0.01, True)


def test_without_a_reference_time_there_is_no_limit_of_its_own():
    assert probe_limit(LIMITS, None, after_timeout=False) is None
    assert probe_limit(LIMITS, None, after_timeout=True) is None


def test_the_feedback_says_where_the_limit_comes_from():
    assert probe_limit(LIMITS, 0.0042, False).describe() == "2.1 s (the reference solution needs at most 5 ms for this call)"  # type: ignore[union-attr]
    shortened = probe_limit(LIMITS, 0.00001, True).describe()  # type: ignore[union-attr]
    assert shortened.startswith("505 ms (the reference solution needs at most 1 ms for this call; a shortened limit")
    assert "earlier test" in shortened


@pytest.mark.parametrize(("seconds", "step"), [(0.0, 0.001), (float("nan"), 0.001), (0.00001, 0.001), (0.001, 0.001),
                                               (0.0011, 0.002), (0.002, 0.002), (0.0042, 0.005), (0.0051, 0.01),
                                               (0.01, 0.01), (0.3, 0.5), (0.7, 1.0), (1.0, 1.0), (12.0, 20.0)])
def test_a_reference_time_counts_by_its_step_of_the_1_2_5_series(seconds, step):
    assert reference_step(seconds) == step
    assert probe_limit(LIMITS, seconds, False) == ProbeLimit(2.0 + 20.0 * step, step, False)


def test_the_same_submission_gets_the_same_limit_and_feedback_whatever_the_reference_took_this_run():
    """The reference's time of a call moves with the machine's load between runs (0.1 ms, then 0.6 ms): the limit
    derived from it, and the feedback quoting it, do not (they did: 502 ms, then 512 ms)."""
    runs = [probe_limit(Limits(), r, False) for r in (0.0001, 0.0006, 0.00097)]
    assert len({limit.describe() for limit in runs if limit is not None}) == 1
    assert runs[0] is not None and runs[0].describe().startswith("520 ms (the reference solution needs at most 1 ms")


def test_the_same_probe_on_the_same_arguments_is_the_same_request():
    assert request_key("graph", [{"b": 1, "a": 2}]) == request_key("graph", [{"a": 2, "b": 1}])
    assert request_key("graph", [{"a": 1}]) != request_key("graph", [{"a": 2}])


@pytest.mark.parametrize("key", ["probe_floor_seconds", "probe_multiple", "after_timeout_floor_seconds",
                                 "after_timeout_multiple"])
def test_the_limits_are_set_in_assignment_yaml_and_checked(tmp_path, key):
    course = H.copy_course(tmp_path / "course", [], test_seconds=10)
    path = course / "assignments" / "value_ops" / "assignment.yaml"
    text = path.read_text()
    path.write_text(text.replace("limits:\n", f"limits:\n  {key}: 0.25\n", 1))
    assert getattr(Course(course).assignment("value_ops").limits, key) == 0.25
    path.write_text(text.replace("limits:\n", f"limits:\n  {key}: -1\n", 1))
    with pytest.raises(ConfigError, match=key):
        Course(course).assignment("value_ops")


POW = "graphs.binary('pow', 3.0, const(2))"
OTHER_POW = "graphs.binary('pow', 2.0, const(3))"
ADD = "graphs.binary('add', 2.0, -3.0)"
TESTS = f'''
import pytest
from assignments.shared.checks import graphs
from assignments.shared.checks.graphs import const


def run(student, reference, spec):
    assert student("graph", spec) == reference("graph", spec)


@pytest.mark.points(1)
def test_a_pow_first(student, reference):
    run(student, reference, {POW})


@pytest.mark.points(1)
def test_b_add(student, reference):
    run(student, reference, {ADD})


@pytest.mark.points(1)
def test_c_the_same_pow_again(student, reference):
    run(student, reference, {POW})


@pytest.mark.points(1)
def test_d_another_pow(student, reference):
    run(student, reference, {OTHER_POW})


@pytest.mark.points(1)
def test_e_add_again(student, reference):
    run(student, reference, {ADD})
'''


def five_call_course(tmp_path):
    """A copy of the course whose value_ops has only the five tests of :data:`TESTS` (1 point each), 10 s per test."""
    course = H.copy_course(tmp_path / "course", [], test_seconds=10)
    folder = course / "assignments" / "value_ops"
    for old in (folder / "tests").rglob("test_*.py"):
        old.unlink()
    (folder / "tests" / "hidden" / "test_hang.py").write_text(textwrap.dedent(TESTS), encoding="utf-8")
    yaml = folder / "assignment.yaml"
    yaml.write_text(yaml.read_text().replace("points: 40", "points: 5"), encoding="utf-8")
    return course


def test_a_hanging_submission_stops_waiting_in_full_after_its_first_timeout(tmp_path):
    """The first hang waits the reference-derived limit, a later one the shortened limit, the same request none;
    the tests that do not reach the loop still pass: the score is what waiting the full 10 s per test gave."""
    course = five_call_course(tmp_path)
    H.write(tmp_path / "subs" / "hang", H.with_pow(H.LOOP))
    out = tmp_path / "out"
    assert main(["--course", str(course), "grade", str(tmp_path / "subs"), "-o", str(out), "-a", "value_ops",
                 "-j", "1"]) == 0
    tests = {t["extra_data"]["key"].rsplit("::", 1)[-1]: t
             for t in json.loads((out / "value_ops" / "hang" / "results.json").read_text())["tests"]}
    assert {name: t["score"] for name, t in tests.items()} == {
        "test_a_pow_first": 0, "test_b_add": 1, "test_c_the_same_pow_again": 0, "test_d_another_pow": 0,
        "test_e_add_again": 1}
    first = tests["test_a_pow_first"]["output"]
    limit = re.search(r"did not finish within (\d+ ms) \(the reference solution needs [^;)]+ for this call\)", first)
    assert limit is not None, first
    assert_quoted("explanation/time-limits.md", 0, first)
    # the same request is not run again: it fails with the first one's feedback
    assert limit.group(0) in tests["test_c_the_same_pow_again"]["output"]
    assert "a shortened limit, because your code already ran out of time" in tests["test_d_another_pow"]["output"]
    # bounds only a broken implementation reaches (the test's own limit is 10 s): not timings of a working one
    assert tests["test_c_the_same_pow_again"]["extra_data"]["duration"] < 1.0
    assert tests["test_d_another_pow"]["extra_data"]["duration"] < 5.0
    assert tests["test_a_pow_first"]["extra_data"]["duration"] < 9.0
    timing = tests["test_b_add"]["extra_data"]["slowest_call"]
    assert timing["seconds"] < timing["limit"] <= 10 and timing["reference_seconds"] >= 0


def test_a_self_check_without_the_release_s_times_keeps_the_test_limit(tmp_path, capsys):
    """Without the reference (``grader check``) and without the times a release ships (the instructor's own course),
    a probe keeps the test's own limit (here 1 s) and says so (``test_release_probe_seconds.py``: with them)."""
    course = H.copy_course(tmp_path / "course", ["value_ops"], test_seconds=1)
    submission = H.write(tmp_path / "hang", H.with_pow(H.LOOP))
    capsys.readouterr()
    assert main(["--course", str(course), "check", str(submission), "-a", "value_ops", "--format", "json"]) == 1
    tests = json.loads(capsys.readouterr().out)["assignments"]["value_ops"]["tests"]
    pow_test = next(t for t in tests if "__pow__" in t["name"])
    assert "did not finish within this test's time limit (1 s)" in pow_test["output"]


def test_the_reference_time_is_measured_once_and_a_failing_reference_gives_no_limit(tmp_path):
    from grader.judge.manifest import Manifest
    from grader.judge.state import GradingState

    manifest = Manifest(course=str(ROOT), assignments=["value_ops"], jobs=[],
                        runtime=str(tmp_path), out="", include_hidden=True)
    state = GradingState(manifest)
    spec = {"leaves": [3.0], "nodes": [["pow", 0, {"const": 2}]], "mode": "local", "seed": 1.0}
    seconds = state.reference_seconds("graph", [spec])
    assert seconds is not None and seconds >= 0
    assert state.reference_seconds("graph", [spec]) == seconds  # measured once, not again
    assert state.reference_seconds("no_such_probe", []) is None
    assert GradingState(replace(manifest, include_hidden=False)).reference_seconds(
        "graph", [spec]) is None


def original_pow() -> str:
    """The reference's own body of ``__pow__`` (between its solution markers)."""
    region = H.POW_REGION.search(H.CORRECT)
    assert region is not None
    return textwrap.dedent("".join(region.group(0).splitlines(keepends=True)[1:-1]))


@pytest.mark.linux_only
def test_a_call_asleep_past_its_limit_waits_up_to_four_times_it_and_is_charged_the_wait(tmp_path):
    """A probe's limit (0.5 s here: a floor plus 20 times the reference's time) counts CPU time; code that is asleep
    (neither computing nor waiting for a core: here ``time.sleep``) is charged the seconds that go by, and waited for
    up to 4 times its limit, so a call seen asleep for a moment is not stopped for it; code asleep for good times out
    at 4 times its limit, never the test's 10 s."""
    course = five_call_course(tmp_path)
    held_up = "import time\nif not getattr(Value, 'slept', False):\n    Value.slept = True\n    time.sleep(0.9)\n"
    H.write(tmp_path / "subs" / "held_up", H.with_pow(held_up + original_pow()))
    H.write(tmp_path / "subs" / "asleep", H.with_pow("import time\ntime.sleep(1000)"))
    out = tmp_path / "out"
    assert main(["--course", str(course), "grade", str(tmp_path / "subs"), "-o", str(out), "-a", "value_ops",
                 "-j", "1"]) == 0

    def tests(student):
        return {t["extra_data"]["key"].rsplit("::", 1)[-1]: t
                for t in json.loads((out / "value_ops" / student / "results.json").read_text())["tests"]}

    held = tests("held_up")["test_a_pow_first"]
    assert held["score"] == 1, held["output"]  # its 0.9 s were longer than its limit: it was waited for
    assert held["extra_data"]["slowest_call"]["seconds"] > held["extra_data"]["slowest_call"]["limit"]
    asleep = tests("asleep")["test_a_pow_first"]
    assert asleep["score"] == 0 and "did not finish within" in asleep["output"]
    assert asleep["extra_data"]["duration"] < 4 * 0.6 + 1.5  # at most 4 times its limit, never the test's 10 s


def busy_core(count: int) -> tuple[int, list[subprocess.Popen[bytes]]]:
    """``count`` processes that keep one core busy (pinned to it), and that core: a machine busy with other work."""
    core = max(os.sched_getaffinity(0))
    spin = f"import os\nos.sched_setaffinity(0, {{{core}}})\nwhile True: pass"
    return core, [subprocess.Popen([sys.executable, "-c", spin]) for _ in range(count)]


@pytest.mark.linux_only
def test_a_call_the_machine_holds_up_is_never_charged_and_a_loop_on_a_busy_machine_still_times_out(tmp_path):
    """Issue 56: no verdict depends on the machine's load. Emulated: a process of this test keeps one core busy; the
    held-up submission's first call pins itself to that core at a low priority (about a tenth of the core) and then
    computes for 0.3 s of CPU time, under its 0.5 s probe limit: it took 3 s or more of the clock, and is waited for
    (it passes), or, if the machine gives it still less, its score is withheld with why: never a timeout. Before,
    a call with under a quarter of a core was waited for up to 4 times its limit (2 s), then charged a timeout. The
    looping submission, pinned to the same core at the normal priority, uses its limit and times out as before."""
    course = five_call_course(tmp_path)
    core, hogs = busy_core(1)
    pin = f"import os, time\nos.sched_setaffinity(0, {{{core}}})\n"
    held = (pin + "if not getattr(Value, 'held', False):\n    Value.held = True\n    os.nice(10)\n"
            "    t = time.process_time()\n    while time.process_time() - t < 0.3:\n        pass\n")
    H.write(tmp_path / "subs" / "held_up", H.with_pow(held + original_pow()))
    H.write(tmp_path / "subs" / "looping", H.with_pow(pin + H.LOOP))
    out = tmp_path / "out"
    try:
        status = main(["--course", str(course), "grade", str(tmp_path / "subs"), "-o", str(out), "-a", "value_ops",
                       "-j", "1"])
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()

    def first(student):
        results = json.loads((out / "value_ops" / student / "results.json").read_text())
        return next(t for t in results["tests"] if t["extra_data"]["key"].endswith("test_a_pow_first"))

    held_up = first("held_up")
    if held_up["extra_data"].get("grader_error"):  # the machine gave it less than 0.3 s in 10 s: withheld, not charged
        assert status == 1 and "the machine was too busy" in held_up["extra_data"]["grader_error"]
    else:
        assert status == 0 and held_up["score"] == 1, held_up["output"]
        timing = held_up["extra_data"]["slowest_call"]
        assert 0.25 <= timing["seconds"] < timing["limit"]  # charged its CPU time, not the seconds it waited
    looping = first("looping")
    assert looping["score"] == 0 and "did not finish within" in looping["output"], looping["output"]
