"""The portable sandbox backend (macOS, Windows, restricted hosts), forced on Linux.

The same worker-level contract as the Linux backend (tests/sandbox/test_sandbox.py)
and the hostile attacks that apply to a backend without namespaces or
Landlock: hangs, crashes, exits, output floods, memory bombs, fork bombs
within the process limit (as a normal user: root ignores RLIMIT_NPROC),
tampering with its own process. Attacks on the host (reading files, the
network, killing other processes) are out of its reach by nature, which is
why `grader grade` warns when it grades on this backend.
"""

from __future__ import annotations

import csv
import json
import os
import sys
import time
from pathlib import Path

import hostile_submissions as H
import psutil
import pytest

from grader.cli import main
from grader.course.config import Limits
from grader.judge.worker_handle import WorkerCrashed, WorkerTimeout

ADD_SPEC = {"leaves": [2.0, 3.0], "nodes": [["add", 0, 1]], "mode": "backward", "backward": [-1]}
POW_SPEC = {"leaves": [2.0], "nodes": [["pow", 0, {"const": 3.0}]], "mode": "local", "seed": 1.0, "output": -1}
AS_ROOT = getattr(os, "geteuid", lambda: -1)() == 0


@pytest.mark.parametrize("worker_factory", ["portable"], indirect=True)
def test_a_correct_engine_answers_plain_numbers_and_reports_the_backend(worker_factory):
    worker = worker_factory(H.CORRECT)
    assert worker.start() == {"micrograd.engine": None}
    assert worker.request("graph", [ADD_SPEC], 5.0, "test")["value"] == {"data": [2.0, 3.0, 5.0],
                                                                         "grad": [1.0, 1.0, 1.0]}
    assert worker.isolation["sandbox"]["reason"].startswith("portable")
    assert not worker.isolation["landlock"]["active"] and not worker.isolation["pid namespace"]["active"]
    assert worker.isolation["resource limits"]["active"]


@pytest.mark.parametrize("worker_factory", ["portable"], indirect=True)
def test_an_infinite_loop_times_out_and_its_whole_process_tree_dies(worker_factory):
    engine = H.with_pow("import subprocess, sys\nsubprocess.Popen([sys.executable, '-c', 'while True: pass'])\n"
                        "while True:\n    pass")
    worker = worker_factory(engine)
    worker.start()
    root = psutil.Process(worker.pid)
    with pytest.raises(WorkerTimeout):
        worker.request("graph", [POW_SPEC], 1.0, "test")
    assert not worker.alive
    assert H.dead_within(root), f"the worker (pid {root.pid}) still runs 10 s after its timeout"


@pytest.mark.parametrize("worker_factory", ["portable"], indirect=True)
@pytest.mark.skipif(os.name == "nt", reason="Windows has no file size limit for a process")
def test_a_flood_of_output_stops_at_the_file_size_limit(worker_factory):
    worker = worker_factory(H.with_pow(H.BIG_PRINT), Limits(file_mb=1))
    worker.start()
    try:  # Python ignores SIGXFSZ, so the write fails with EFBIG (an exception) unless the signal ends it first
        response = worker.request("graph", [POW_SPEC], 10.0, "test")
        assert response["ok"] is False and "too large" in response["error"]["message"]
    except WorkerCrashed as exc:
        assert "file size limit" in str(exc)
    worker.kill()
    assert len(worker.output_excerpt(4 << 20)) <= 1 << 20


# --- a hostile class graded on the portable backend ------------------------------------------------

ASSIGNMENTS = ["value_ops", "backward"]
LINUX = sys.platform.startswith("linux")
CRASHES = {"segfault": H.SEGFAULT, "recursion": H.RECURSION, "c_stack_overflow": H.C_STACK,
           **({"big_print": H.BIG_PRINT} if os.name == "posix" else {})}
HANGS = {"loop": H.LOOP, **({"memory_bomb": H.MEMORY} if LINUX else {}),
         **({"fork_bomb": H.FORK_BOMB} if os.name == "posix" and not AS_ROOT else {})}
"""Only the attacks each OS's limits bound: root ignores RLIMIT_NPROC, macOS RLIMIT_AS, Windows has no limits."""


def portable_processes(out: Path) -> list[int]:
    """Portable workers of this class still running (their command line names the runtime under ``out``)."""
    found = []
    for proc in psutil.process_iter(["cmdline"]):
        cmdline = " ".join(proc.info.get("cmdline") or [])
        if "_grader_sandbox.portable_worker" in cmdline and str(out) in cmdline:
            found.append(proc.pid)
    return found


@pytest.fixture(scope="module")
def portable_class(tmp_path_factory):
    base = tmp_path_factory.mktemp("portable")
    course = H.copy_course(base / "course", ASSIGNMENTS, test_seconds=2)
    subs, out = base / "subs", base / "out"
    H.write(subs / "baseline_correct", H.CORRECT)
    H.write(subs / "baseline_no_pow", H.NO_POW)
    for name, code in {"tamper": H.TAMPER, "exit_sys": H.EXIT_SYS, "exit_os": H.EXIT_OS,
                       "protocol_imitation": H.PROTOCOL, "liar_floats": H.LIAR}.items():
        H.write(subs / name, H.with_import_code(code))
    H.write(subs / "loud", H.with_pow(H.LOUD))
    for name, body in {**CRASHES, **HANGS}.items():
        H.write(subs / name, H.with_pow(body))
    status = main(["--course", str(course), "grade", str(subs), "-o", str(out), "-j", "2", "--sandbox", "portable",
                   *[x for a in ASSIGNMENTS for x in ("-a", a)]])
    with open(out / "grades.csv", encoding="utf-8") as f:
        grades = {row["student"]: row for row in csv.DictReader(f)}
    return {"status": status, "out": out, "grades": grades}


def results_of(out: Path, assignment: str, student: str) -> dict[str, tuple[str, float]]:
    doc = json.loads((out / assignment / student / "results.json").read_text())
    return {t["name"]: (t["status"], t["score"]) for t in doc["tests"]}


def test_the_portable_class_completes_and_the_baselines_score_as_on_linux(portable_class):
    assert portable_class["status"] == 0
    assert portable_class["grades"]["baseline_correct"]["total"] == "90"
    assert 0 < float(portable_class["grades"]["baseline_no_pow"]["total"]) < 90


@pytest.mark.parametrize("student", ["tamper", "exit_sys", "exit_os", "protocol_imitation", "liar_floats", "loud"])
def test_tampering_on_the_portable_backend_scores_no_more_than_the_honest_engine(portable_class, student):
    out = portable_class["out"]
    for a in ASSIGNMENTS:
        honest = results_of(out, a, "baseline_no_pow")
        for name, (_, score) in results_of(out, a, student).items():
            assert score <= honest[name][1], (student, a, name)


@pytest.mark.parametrize("attack", sorted(CRASHES))
def test_a_crash_costs_only_the_cases_that_call_it_on_the_portable_backend(portable_class, attack):
    for a in ASSIGNMENTS:
        assert results_of(portable_class["out"], a, attack) == results_of(portable_class["out"], a, "baseline_no_pow")


@pytest.mark.parametrize("attack", sorted(HANGS))
def test_a_hang_costs_only_the_tests_that_call_it_on_the_portable_backend(portable_class, attack):
    for a in ASSIGNMENTS:
        honest = results_of(portable_class["out"], a, "baseline_no_pow")
        hostile = results_of(portable_class["out"], a, attack)
        assert {k: v[0] for k, v in hostile.items()} == {k: v[0] for k, v in honest.items()}, (attack, a)


def test_no_portable_worker_outlives_grading(portable_class):
    deadline = time.monotonic() + 5
    while portable_processes(portable_class["out"]) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert portable_processes(portable_class["out"]) == []


def test_results_name_the_portable_backend_and_the_layers_it_lacks(portable_class):
    doc = json.loads((portable_class["out"] / "value_ops" / "baseline_correct" / "results.json").read_text())
    layers = doc["extra_data"]["grader"]["isolation"]
    assert layers["sandbox"].startswith("portable")
    assert all(layers[name].startswith("off") for name in ("pid namespace", "mount namespace", "network namespace", "landlock", "separate user"))
