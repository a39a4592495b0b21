"""The hostile-submission suite: one class of hostile and broken submissions,
graded once, each compared with its honest baseline (the same engine without
the attack). See tests/hostile_submissions.py for the attacks."""

from __future__ import annotations

import csv
import json
import os
import socket
import threading
from pathlib import Path

import hostile_submissions as H
import pytest
from checkout import ROOT

from grader.cli import main

pytestmark = pytest.mark.linux_only  # the Linux backend, /proc, namespaces or Linux process semantics

ASSIGNMENTS = ["value_ops", "backward"]
CRASH_ATTACKS = {
    "big_print": H.BIG_PRINT, "segfault": H.SEGFAULT, "recursion": H.RECURSION, "c_stack_overflow": H.C_STACK,
}
HANG_ATTACKS = {"loop": H.LOOP, "fork_bomb": H.FORK_BOMB, "memory_bomb": H.MEMORY}  # these take time
METHOD_ATTACKS = {**CRASH_ATTACKS, **HANG_ATTACKS}


def sandbox_processes(out: Path) -> list[int]:
    """Sandbox processes started for this class (their command line names its output folder)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
                if b"_grader_sandbox" in cmdline and str(out).encode() in cmdline:
                    found.append(int(entry))
            except OSError:
                pass
    return found


class Listener:
    """A TCP server on localhost (or a world-connectable UNIX socket at ``path``) that records what a sandbox sends."""

    def __init__(self, path: str | None = None) -> None:
        if path is None:
            self.sock = socket.create_server(("127.0.0.1", 0))
        else:
            self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.sock.bind(path)
            os.chmod(path, 0o777)
            self.sock.listen()
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1] if path is None else 0
        self.received = b""
        self.stop = False
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self) -> None:
        while not self.stop:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            with conn:
                self.received += conn.recv(100)

    def close(self) -> None:
        self.stop = True
        self.thread.join()
        self.sock.close()


@pytest.fixture(scope="module")
def hostile_class(tmp_path_factory):
    base = tmp_path_factory.mktemp("hostile")
    course = H.copy_course(base / "course", ASSIGNMENTS, test_seconds=2)  # short limits: hangs cost little
    for aid in ASSIGNMENTS:  # the assignment's budget stays generous
        path = course / "assignments" / aid / "assignment.yaml"
        path.write_text(path.read_text().replace("submission_seconds: 120", "submission_seconds: 100"))
    subs = base / "subs"
    out = base / "out"
    listener = Listener()
    # a host daemon's socket: under /run as root, as /run is; in the host's /tmp otherwise (hidden just the same)
    run_dir = "/run" if os.access("/run", os.W_OK) else "/tmp"
    unix_path = os.path.join(run_dir, f"grader-hostile-{os.getpid()}.sock")
    unix_listener = Listener(unix_path)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:  # reachable from outside the sandbox
        probe.connect(unix_path)
    victims = {
        "course": str(course / "reference" / "micrograd" / "engine.py"),
        "hidden": str(course / "assignments" / "value_ops" / "tests" / "hidden" / "test_value_ops_hidden.py"),
        "other_student": str(subs / "baseline_no_pow" / "micrograd" / "engine.py"),
        "output": str(out / "grades.csv"),
    }
    H.write(subs / "baseline_correct", H.CORRECT)
    H.write(subs / "baseline_no_pow", H.NO_POW)
    H.write(subs / "baseline_template", (ROOT / "student_template" / "micrograd" / "engine.py").read_text())
    H.write(subs / "tamper", H.with_import_code(H.TAMPER))
    H.write(subs / "exit_sys", H.with_import_code(H.EXIT_SYS))
    H.write(subs / "exit_os", H.with_import_code(H.EXIT_OS))
    H.write(subs / "atexit", H.with_import_code(H.ATEXIT))
    H.write(subs / "protocol_imitation", H.with_import_code(H.PROTOCOL))
    H.write(subs / "liar_floats", H.with_import_code(H.LIAR))
    H.write(subs / "shadow_files", H.NO_POW, {
        name: "raise SystemExit('shadow module ran')\n"
        for name in ("conftest.py", "sitecustomize.py", "pytest.py", "json.py", "random.py", "micrograd/math.py",
                     "micrograd/conftest.py", "usercustomize.py")
    })
    H.zip_with_tricks(subs / "zip_tricks.zip", H.NO_POW)
    H.write(subs / "spy", H.with_import_code(
        H.SPY_TEMPLATE.format(paths=victims), H.with_pow("raise NotImplementedError('Task 1.3 ' + SPY_REPORT)")))
    H.write(subs / "daemon", H.with_import_code(H.DAEMON.format(targets=list(victims.values()))))
    H.write(subs / "network", H.with_import_code(H.NETWORK_TEMPLATE.format(port=listener.port)))
    H.write(subs / "unix_socket", H.with_import_code(H.UNIX_SOCKET_TEMPLATE.format(path=unix_path)))
    H.write(subs / "sysv_ipc", H.with_import_code(H.SYSV_IPC))
    H.write(subs / "litter", H.with_import_code(H.LITTER))
    H.write(subs / "scratch_flood", H.with_import_code(H.SCRATCH_FLOOD))
    H.write(subs / "plant", H.with_import_code(H.PLANT_TEMPLATE.format(targets=list(victims.values())),
                                               H.with_pow(H.PLANT_CRASH)))
    H.write(subs / "loud", H.with_pow(H.LOUD))
    for name, body in METHOD_ATTACKS.items():
        H.write(subs / name, H.with_pow(body))
    before = {name: Path(path).read_bytes() for name, path in victims.items() if Path(path).exists()}
    status = main(["--course", str(course), "grade", str(subs), "-o", str(out), "-j", "2",
                   *[x for a in ASSIGNMENTS for x in ("-a", a)]])
    listener.close()
    unix_listener.close()
    os.unlink(unix_path)
    yield {"status": status, "out": out, "course": course, "subs": subs, "victims": victims, "before": before,
           "received": listener.received, "unix_received": unix_listener.received, "base": base}


def scores(out: Path) -> dict[str, dict[str, str]]:
    with open(out / "grades.csv", encoding="utf-8") as f:
        return {row["student"]: row for row in csv.DictReader(f)}


def test_the_batch_completes_with_exit_status_0(hostile_class):
    assert hostile_class["status"] == 0
    students = scores(hostile_class["out"])
    assert set(students) == {H.student_id(p) for p in hostile_class["subs"].iterdir()}
    for a in ASSIGNMENTS:
        for s in students:
            assert (hostile_class["out"] / a / s / "results.json").is_file()


def test_baselines_score_as_expected(hostile_class):
    got = scores(hostile_class["out"])
    assert got["baseline_correct"]["total"] == "90"
    assert got["baseline_template"]["total"] == "0"
    assert 0 < float(got["baseline_no_pow"]["total"]) < 90


@pytest.mark.parametrize("student", ["tamper", "exit_sys", "exit_os", "atexit", "protocol_imitation",
                                     "liar_floats", "spy", "daemon", "network", "loud", "plant", "sysv_ipc", "litter"])
def test_tampering_scores_no_more_than_the_honest_engine(hostile_class, student):
    got = scores(hostile_class["out"])
    for a in ASSIGNMENTS:
        assert float(got[student][a]) <= float(got["baseline_no_pow"][a]), (student, a)


def test_each_test_of_a_tamperer_scores_no_more_than_the_honest_engine(hostile_class):
    out = hostile_class["out"]
    for a in ASSIGNMENTS:
        honest = {t["name"]: t["score"] for t in json.loads((out / a / "baseline_no_pow" / "results.json").read_text())["tests"]}
        for student in ("tamper", "protocol_imitation", "liar_floats"):
            for t in json.loads((out / a / student / "results.json").read_text())["tests"]:
                assert t["score"] <= honest[t["name"]], (student, a, t["name"])


@pytest.mark.parametrize("student", ["shadow_files", "zip_tricks"])
def test_extra_files_and_zip_tricks_change_nothing(hostile_class, student):
    got = scores(hostile_class["out"])
    assert {a: got[student][a] for a in ASSIGNMENTS} == {a: got["baseline_no_pow"][a] for a in ASSIGNMENTS}


def test_unsafe_zip_entries_are_never_written_and_are_noted(hostile_class):
    assert not Path("/tmp/grader_zip_escape.py").exists()
    assert not (hostile_class["base"] / "grader_zip_escape2.py").exists()
    feedback = (hostile_class["out"] / "value_ops" / "zip_tricks" / "feedback.md").read_text()
    assert "ignored unsafe zip entry" in feedback and "ignored symbolic link" in feedback


def results_of(out: Path, assignment: str, student: str) -> dict[str, tuple[str, float]]:
    doc = json.loads((out / assignment / student / "results.json").read_text())
    return {t["name"]: (t["status"], t["score"]) for t in doc["tests"]}


@pytest.mark.parametrize("attack", sorted(CRASH_ATTACKS))
def test_a_crash_in_one_method_costs_only_the_cases_that_call_it(hostile_class, attack):
    """1 GB print, segfault, RecursionError, C-stack overflow: each call fails at once, nothing else does."""
    for a in ASSIGNMENTS:
        honest = results_of(hostile_class["out"], a, "baseline_no_pow")
        assert results_of(hostile_class["out"], a, attack) == honest, (attack, a)


@pytest.mark.parametrize("attack", sorted(HANG_ATTACKS))
def test_a_hang_in_one_method_costs_only_the_tests_that_call_it(hostile_class, attack):
    """An infinite loop, a fork bomb or a memory bomb (slow to fill 1 GiB) uses up the time of the
    tests that call it, and only theirs."""
    for a in ASSIGNMENTS:
        honest = results_of(hostile_class["out"], a, "baseline_no_pow")
        hostile = results_of(hostile_class["out"], a, attack)
        assert {k: v[0] for k, v in hostile.items()} == {k: v[0] for k, v in honest.items()}, (attack, a)
        for name, (status, score) in hostile.items():
            assert score <= honest[name][1]
            if status == "passed":
                assert score == honest[name][1]


def test_the_sandbox_cannot_read_or_import_the_answers(hostile_class):
    feedback = (hostile_class["out"] / "value_ops" / "spy" / "feedback.md").read_text()
    for label in ("course", "hidden", "other_student", "output"):
        assert f"{label}=denied" in feedback
    for name in ("reference", "_grader_reference_micrograd", "grader", "conftest"):
        assert f"{name}=denied" in feedback
    assert "=READ" not in feedback and "=IMPORTED" not in feedback


def test_nothing_outlives_grading_and_nothing_outside_scratch_changed(hostile_class):
    assert H.processes_named("hostiledaemon") == []
    assert sandbox_processes(hostile_class["out"]) == []
    for name, content in hostile_class["before"].items():
        assert Path(hostile_class["victims"][name]).read_bytes() == content, name
    assert "tampered" not in (hostile_class["out"] / "grades.csv").read_text()


def test_a_scratch_folder_that_is_hard_to_clean_leaves_nothing_behind(hostile_class, tmp_path):
    """3000 folders deep and chmod 000: the run's working folder is gone, and the next run works."""
    assert list((hostile_class["out"] / "_instructor").glob("work-*")) == []
    subs = tmp_path / "subs"
    H.write(subs / "again", H.NO_POW)
    assert main(["--course", str(hostile_class["course"]), "grade", str(subs), "-o", str(hostile_class["out"]),
                 "-a", "value_ops"]) == 0


def test_sysv_ipc_objects_die_with_the_worker(hostile_class):
    """Shared memory, semaphores and message queues live in the worker's IPC namespace, not the host's."""
    assert H.IPC_KEY not in H.sysv_ipc_keys()
    doc = json.loads((hostile_class["out"] / "value_ops" / "sysv_ipc" / "results.json").read_text())
    assert doc["extra_data"]["grader"]["isolation"]["ipc namespace"].startswith("on")


def test_a_worker_writes_no_more_than_its_scratch_budget(hostile_class):
    """Files each under the per-file limit stop at the folder's budget (64 MiB), and the score is the honest one."""
    out = hostile_class["out"]
    feedback = (out / "value_ops" / "scratch_flood" / "feedback.md").read_text()
    written = [int(part.split("MiB")[0]) for part in feedback.split("SCRATCH_WRITTEN=")[1:]]
    assert written and max(written) <= 64
    doc = json.loads((out / "value_ops" / "scratch_flood" / "results.json").read_text())
    assert doc["extra_data"]["grader"]["isolation"]["scratch budget"].startswith("on")
    honest = json.loads((out / "value_ops" / "baseline_no_pow" / "results.json").read_text())
    assert doc["score"] == honest["score"]


def test_no_network_from_the_sandbox(hostile_class):
    assert hostile_class["received"] == b""


def test_a_host_unix_socket_under_run_is_unreachable(hostile_class):
    """A world-connectable socket of the host (under /run) cannot be reached, and the report says so."""
    assert hostile_class["unix_received"] == b""
    doc = json.loads((hostile_class["out"] / "value_ops" / "unix_socket" / "results.json").read_text())
    assert doc["extra_data"]["grader"]["isolation"]["host sockets"].startswith("on")


def test_program_output_in_feedback_is_short_and_marked(hostile_class):
    for student in ("loud", "big_print", "protocol_imitation"):
        feedback = (hostile_class["out"] / "value_ops" / student / "feedback.md").read_text()
        assert len(feedback) < 30_000
        if "x" * 100 in feedback or "passed in" in feedback:
            assert "## Your program's own output" in feedback
        results = json.loads((hostile_class["out"] / "value_ops" / student / "results.json").read_text())
        assert len(results["output"]) < 5_000


def test_results_report_the_isolation_layers(hostile_class):
    doc = json.loads((hostile_class["out"] / "value_ops" / "baseline_correct" / "results.json").read_text())
    layers = doc["extra_data"]["grader"]["isolation"]
    assert layers["resource limits"].startswith("on")
    for layer in ("pid namespace", "mount namespace", "network namespace", "landlock", "separate user"):
        assert layer in layers


def _without_timings(value):
    if isinstance(value, dict):
        return {k: _without_timings(v) for k, v in value.items() if k not in ("duration", "execution_time", "slowest_call")}
    if isinstance(value, list):
        return [_without_timings(v) for v in value]
    return value


def test_classmates_results_are_identical_with_and_without_hostile_neighbours(hostile_class, tmp_path):
    """The honest baselines graded alone give byte-identical results.json and feedback.md (timings aside)."""
    alone = tmp_path / "alone"
    for name in ("baseline_correct", "baseline_no_pow"):
        H.write(alone / "subs" / name, H.CORRECT if name == "baseline_correct" else H.NO_POW)
    assert main(["--course", str(hostile_class["course"]), "grade", str(alone / "subs"), "-o", str(alone / "out"),
                 *[x for a in ASSIGNMENTS for x in ("-a", a)]]) == 0
    for aid in ASSIGNMENTS:
        for name in ("baseline_correct", "baseline_no_pow"):
            ours, theirs = (root / aid / name for root in (alone / "out", hostile_class["out"]))
            assert _without_timings(json.loads((ours / "results.json").read_text())) == \
                _without_timings(json.loads((theirs / "results.json").read_text())), (aid, name)
            assert (ours / "feedback.md").read_bytes() == (theirs / "feedback.md").read_bytes(), (aid, name)
