"""Every isolation layer degrades instead of failing; the grader's own failures withhold a score, never charge it.

Refusals are injected with ``GRADER_SANDBOX_FAULTS`` (see
``grader.sandbox.isolation``): the named step fails with EPERM exactly where
the host would refuse it, after every real step before it has run. The
refusal of Ubuntu 24.04's AppArmor policy (``unshare(CLONE_NEWUSER)``
succeeds, then writing ``uid_map`` is refused) is tested here for the
namespace step itself, in a forked child that really enters the user
namespace, and end to end as a normal user in tests/sandbox/test_normal_user.py.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
from pathlib import Path

import pytest
from checkout import ROOT
from doc_quotes import assert_quoted

from grader.cli import main
from grader.sandbox import isolation

pytestmark = pytest.mark.linux_only  # the Linux backend, /proc, namespaces or Linux process semantics

CORRECT = ROOT / "examples" / "submissions" / "correct_recursive"
AS_ROOT = getattr(os, "geteuid", lambda: -1)() == 0


def in_child(function) -> dict:
    """Run ``function`` in a forked child (namespace steps cannot be undone) and return its JSON result."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child
        os.close(r)
        try:
            result = function()
        except BaseException as exc:  # noqa: BLE001
            result = {"raised": type(exc).__name__, "message": str(exc), "layer": getattr(exc, "layer", "")}
        os.write(w, json.dumps(result).encode())
        os._exit(0)
    os.close(w)
    with os.fdopen(r, "rb") as f:
        data = f.read()
    os.waitpid(pid, 0)
    return json.loads(data)


def user_namespace() -> str:
    return os.readlink("/proc/self/ns/user")


@pytest.mark.parametrize("step", ["setgroups", "uid_map", "gid_map"])
def test_a_refused_map_after_a_successful_unshare_stops_before_any_student_code(step):
    """Ubuntu 24.04's AppArmor: the user namespace is entered, then its maps are refused (EPERM)."""
    before = user_namespace()

    def attempt() -> dict:
        if AS_ROOT:  # take the unprivileged path, as a real unprivileged user: root needs no user namespace
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
            isolation.prctl(isolation.PR_SET_DUMPABLE, 1)  # a change of user made /proc/self root's
        isolation.FAULTS = frozenset({step})
        try:
            isolation.enter_namespaces(network=False)
            raised = {}
        except isolation.SetupFailed as exc:
            raised = {"layer": exc.layer, "message": exc.reason}
        return {**raised, "entered": user_namespace() != before}

    result = in_child(attempt)
    assert result["entered"], "unshare(CLONE_NEWUSER) itself must have succeeded, as on Ubuntu 24.04"
    assert result["layer"] == "namespaces"
    assert step in result["message"] and "namespaces are restricted here" in result["message"]


def test_a_refused_unshare_turns_the_namespaces_off_in_place():
    def attempt() -> dict:
        isolation.FAULTS = frozenset({"unshare"})
        report, user_ns = isolation.enter_namespaces(network=False)
        return {"report": report, "user_ns": user_ns}

    result = in_child(attempt)
    assert result["user_ns"] is False
    assert all(not result["report"][layer]["active"] and result["report"][layer]["reason"].startswith(
        "unshare was refused") for layer in isolation.NAMESPACE_LAYERS)


def grade_one(tmp_path: Path, faults: str, *extra: str) -> tuple[int, dict[str, str], dict]:
    subs = tmp_path / "subs"
    if not subs.exists():
        shutil.copytree(CORRECT, subs / "alice", ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp_path / "out"
    env = os.environ.get("GRADER_SANDBOX_FAULTS")
    os.environ["GRADER_SANDBOX_FAULTS"] = faults
    try:
        status = main(["--course", str(ROOT), "grade", str(subs), "-o", str(out), "-a", "value_ops", *extra])
    finally:
        if env is None:
            os.environ.pop("GRADER_SANDBOX_FAULTS")
        else:
            os.environ["GRADER_SANDBOX_FAULTS"] = env
    with open(out / "grades.csv", encoding="utf-8") as f:
        row = next(csv.DictReader(f))
    return status, row, json.loads((out / "value_ops" / "alice" / "results.json").read_text())


LAYER_OF = {  # injected step -> the layer the report must show as off (as root / as a normal user)
    "unshare": "pid namespace",
    "mount": "mount namespace",
    "proc": "pid namespace",
    "landlock": "landlock",
    "rlimit": "resource limits",
    "seccomp": "ipc filter",
    **({"setuid": "separate user", "chown": "separate user"} if AS_ROOT else {"capabilities": "capabilities"}),
}


@pytest.mark.parametrize("step", sorted(LAYER_OF))
def test_a_refused_layer_costs_the_student_nothing_and_is_named(tmp_path, capsys, step):
    status, row, doc = grade_one(tmp_path, step)
    assert status == 0 and row["value_ops"] == "40" and row["notes"] == ""
    layers = doc["extra_data"]["grader"]["isolation"]
    report = layers[LAYER_OF[step]]
    assert "injected fault" in report and ("off" in report or step == "proc"), report
    if step != "proc":
        assert LAYER_OF[step] in capsys.readouterr().out.split("Not active:")[1]


def test_a_sandbox_that_cannot_start_withholds_the_score_and_exits_3(tmp_path, capsys):
    status, row, doc = grade_one(tmp_path, "launcher")
    err = capsys.readouterr().err
    assert status == 3
    assert "score(s) withheld because the grader itself failed" in err and "sandbox could not be started" in err
    assert_quoted("reference/exit-statuses.md", 1, err)
    assert row["value_ops"] == "" and row["total"] == ""
    assert "grader error, score withheld" in row["notes"]
    assert "score" not in doc and doc["extra_data"]["grader"]["grader_error"]
    feedback = (tmp_path / "out" / "value_ops" / "alice" / "feedback.md").read_text()
    assert "score withheld" in feedback and "not your code" in feedback
    status, row, doc = grade_one(tmp_path, "")  # the cause fixed: a re-run grades it, nothing kept
    assert status == 0 and row["value_ops"] == "40" and doc["score"] == 40


def test_a_portable_sandbox_that_cannot_start_withholds_the_score(tmp_path, capsys):
    status, row, _ = grade_one(tmp_path, "launcher", "--sandbox", "portable")
    assert status == 3 and row["value_ops"] == ""


def test_a_self_check_that_cannot_start_says_it_is_not_the_students_fault(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("GRADER_SANDBOX_FAULTS", "launcher")
    assert main(["--course", str(ROOT), "check", str(CORRECT), "-a", "value_ops"]) == 3
    out = capsys.readouterr().out
    assert "not your code" in out and "0 / 10" not in out


def test_a_judge_that_dies_withholds_its_submissions_scores(tmp_path, capsys, monkeypatch):
    import grader.grading.batch as batch

    real = batch.run_judge

    def dying_judge(manifest, path, log):
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_text("killed\n")
        manifest.dump(path)
        from grader.judge.claims import ClaimQueue

        ClaimQueue(Path(manifest.queue), manifest.jobs, manifest.claimant).claim()  # it took one, then died
        return -9

    monkeypatch.setattr(batch, "run_judge", dying_judge)
    subs = tmp_path / "subs"
    shutil.copytree(CORRECT, subs / "alice")
    assert main(["--course", str(ROOT), "grade", str(subs), "-o", str(tmp_path / "out"), "-a", "value_ops"]) == 2
    with open(tmp_path / "out" / "grades.csv", encoding="utf-8") as f:
        row = next(csv.DictReader(f))
    assert row["value_ops"] == "" and "judge process ended with status -9" in row["notes"]
    monkeypatch.setattr(batch, "run_judge", real)
    assert main(["--course", str(ROOT), "grade", str(subs), "-o", str(tmp_path / "out"), "-a", "value_ops"]) == 0


def test_a_judge_that_crashes_before_grading_anything_stops_the_run_instead_of_being_started_forever(
        tmp_path, capsys, monkeypatch):
    """An uncaught exception in a judge (the grader's bug at its start) ends its interpreter with status 1, which is
    also pytest's "some tests failed": a judge that claimed nothing cannot have failed a test, so the run stops with
    the grader's error instead of starting judge after judge (seen: 3,197 of them in a benchmark)."""
    import grader.grading.batch as batch

    started = []

    def crashing_judge(manifest, path, log):
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_text("Traceback (most recent call last):\nAttributeError: the grader's own bug\n")
        started.append(path)
        return 1

    monkeypatch.setattr(batch, "run_judge", crashing_judge)
    subs = tmp_path / "subs"
    shutil.copytree(CORRECT, subs / "alice")
    assert main(["--course", str(ROOT), "grade", str(subs), "-o", str(tmp_path / "out"), "-a", "value_ops"]) == 2
    assert len(started) <= 2 and "the grader's own bug" in capsys.readouterr().err  # one per job slot at most


def test_gradescope_autograde_writes_no_results_when_the_grader_fails(tmp_path, capsys, monkeypatch):
    """On Gradescope a missing results.json is a failed autograder run the instructor re-runs, not a 0."""
    monkeypatch.setenv("GRADER_SANDBOX_FAULTS", "launcher")
    results = tmp_path / "results" / "results.json"
    status = main(["--course", str(ROOT), "autograde", str(CORRECT), "-a", "value_ops", "-o", str(results)])
    assert status == 3 and not results.exists()
    assert "not the student's code" in capsys.readouterr().err
