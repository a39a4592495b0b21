"""The grader as an instructor runs it on their own laptop: a normal user, the distribution's Python.

Run for real when the suite runs as root on Linux (as CI does): a normal user
is created (``useradd``), a virtual environment is built for it from the
distribution's ``python3`` (pyenv's interpreters are readable by root only),
and ``grader grade`` and ``grader check`` run as that user (``runuser``)
with real unprivileged user namespaces. Ubuntu 24.04's AppArmor refusal
(``unshare(CLONE_NEWUSER)`` succeeds, then writing ``uid_map`` fails with
EPERM) is injected at that very step with ``GRADER_SANDBOX_FAULTS``: a
correct solution must still get full marks, with the layers that were off
named. Building the environment needs PyPI (about 30 s).
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import hostile_submissions as H
import psutil
import pytest
from checkout import ROOT

USER = "grader-ci"
SYSTEM_PYTHON = Path("/usr/bin/python3")

pytestmark = [pytest.mark.linux_only, pytest.mark.skipif(
    not sys.platform.startswith("linux") or os.geteuid() != 0 or not shutil.which("useradd")
    or not shutil.which("runuser") or not SYSTEM_PYTHON.exists(),
    reason="needs root on Linux with useradd, runuser and the distribution's python3 (to act as a normal user)",
)]


@pytest.fixture(scope="module")
def as_user():
    """(run, base): ``run(*args, faults="")`` runs the venv's ``grader`` as the normal user in ``base``
    (``as_root=True``: as root, with the distribution's Python, which other users can read)."""
    if subprocess.run(["id", USER], capture_output=True, check=False).returncode != 0:
        subprocess.run(["useradd", "--create-home", "--shell", "/bin/sh", USER], check=True)
    base = Path(tempfile.mkdtemp(prefix="grader-user-", dir="/tmp"))
    base.chmod(0o755)
    project = base / "project"
    for part in ("grader", "assignments", "reference", "student_template", "examples"):
        shutil.copytree(ROOT / part, project / part, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, project / name)
    venv = base / "venv"
    subprocess.run([str(SYSTEM_PYTHON), "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", str(project)], check=True,
                   timeout=600)
    subprocess.run(["chmod", "-R", "a+rX", str(base)], check=True)
    work = base / "work"
    work.mkdir()
    shutil.copytree(ROOT / "examples" / "submissions" / "correct_recursive", work / "subs" / "alice")
    shutil.copytree(ROOT / "examples" / "submissions" / "bug_wrong_tanh", work / "subs" / "bob")
    subprocess.run(["chown", "-R", f"{USER}:{USER}", str(work)], check=True)

    def run(*args: str, faults: str = "", course: Path = project, as_root: bool = False) -> subprocess.CompletedProcess[str]:
        env = ["HOME=/home/" + USER, "PATH=/usr/bin:/bin", "LANG=C.UTF-8", f"GRADER_SANDBOX_FAULTS={faults}"]
        who = [] if as_root else ["runuser", "-u", USER, "--"]
        return subprocess.run([*who, "env", "-i", *env, str(venv / "bin" / "grader"),
                               "--course", str(course), *args], cwd=work, capture_output=True, text=True,
                              timeout=600, check=False)

    yield run, work
    shutil.rmtree(base, ignore_errors=True)


def grades(out: Path) -> dict[str, dict[str, str]]:
    with open(out / "grades.csv", encoding="utf-8") as f:
        return {row["student"]: row for row in csv.DictReader(f)}


def test_a_normal_user_grades_with_user_namespaces(as_user):
    run, work = as_user
    done = run("grade", "subs", "-o", "out-plain", "-a", "value_ops", "-a", "backward")
    assert done.returncode == 0, done.stderr[-3000:]
    assert grades(work / "out-plain")["alice"]["total"] == "90"
    summary = done.stdout.split("Sandbox (linux) isolation:")[1]
    assert "pid namespace" in summary.split("Not active")[0]


def test_a_refused_uid_map_still_gives_full_marks_and_names_the_layers_off(as_user):
    run, work = as_user
    done = run("grade", "subs", "-o", "out-uidmap", "-a", "value_ops", "-a", "backward", faults="uid_map")
    assert done.returncode == 0, done.stderr[-3000:]
    got = grades(work / "out-uidmap")
    assert got["alice"]["total"] == "90" and got["alice"]["notes"] == ""
    plain = grades(work / "out-plain") if (work / "out-plain").exists() else None
    if plain is not None:
        assert got["bob"] == plain["bob"]
    off = done.stdout.split("Not active:")[1]
    assert "pid namespace" in off and "uid_map was refused" in off
    assert "landlock" not in off  # Landlock needs no namespace: it still hides the course


def test_a_students_check_passes_as_a_normal_user_with_a_refused_uid_map(as_user):
    run, _ = as_user
    done = run("check", "subs/alice", "-a", "value_ops", "-a", "backward", "-a", "mlp", faults="uid_map")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "All public tests pass." in done.stdout


def test_a_forged_set_up_failure_turns_off_no_layer_for_a_normal_user(as_user):
    """tests/judge/test_forged_control.py as a normal user: a submission that writes set-up failures at import is
    that submission's fault, and the honest student graded after it in the same judge keeps every layer."""
    run, work = as_user
    folder = work / "forged-subs"
    H.write(folder / "a_honest", H.NO_POW)
    H.write(folder / "b_forger", H.with_import_code(H.FORGED_CONTROL.format(kind="setup_failed")))
    H.write(folder / "z_honest", H.NO_POW)
    subprocess.run(["chown", "-R", f"{USER}:{USER}", str(folder)], check=True)
    done = run("grade", "forged-subs", "-o", "out-forged", "-a", "value_ops", "-j", "1")
    assert done.returncode == 0, done.stderr[-3000:]
    got = grades(work / "out-forged")
    assert got["a_honest"]["value_ops"] == got["z_honest"]["value_ops"] != "0" and got["b_forger"]["value_ops"] == "0"

    def isolation(student: str) -> dict[str, str]:
        doc = json.loads((work / "out-forged" / "value_ops" / student / "results.json").read_text())
        return doc["extra_data"]["grader"]["isolation"]

    assert isolation("z_honest") == isolation("a_honest")
    assert not isolation("z_honest")["pid namespace"].startswith("off")  # user namespaces are allowed here


def test_a_fork_bomb_is_bounded_on_the_portable_backend_for_a_normal_user(as_user):
    """Root ignores RLIMIT_NPROC, so this is the portable backend's fork-bomb bound: a normal user's."""
    run, work = as_user
    course = H.copy_course(work / "short-course", ["value_ops"], test_seconds=2)
    H.write(work / "bomb-subs" / "bomber", H.with_pow(H.FORK_BOMB))
    H.write(work / "bomb-subs" / "honest", H.NO_POW)
    subprocess.run(["chown", "-R", f"{USER}:{USER}", str(course), str(work / "bomb-subs")], check=True)
    done = run("grade", "bomb-subs", "-o", "out-bomb", "-a", "value_ops", "--sandbox", "portable", course=course)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stderr.count("warning: grading on the portable sandbox") == 1
    results = {}
    for student in ("bomber", "honest"):
        doc = json.loads((work / "out-bomb" / "value_ops" / student / "results.json").read_text())
        results[student] = [(t["name"], t["status"]) for t in doc["tests"]]
    assert results["bomber"] == results["honest"]
    def running() -> list[int]:  # a zombie is dead already, waiting for init to reap it
        return [p.pid for p in psutil.process_iter(["username", "status"])
                if p.info.get("username") == USER and p.info.get("status") != psutil.STATUS_ZOMBIE]

    deadline = time.monotonic() + 5
    while running() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert running() == []


CARRY_CASES = [  # (faults, extra arguments, as root, carrier, held, what the report's ipc namespace layer says)
    ("", (), False, H.CARRY_STATE, True, "on"),
    ("uid_map", (), False, H.CARRY_STATE, True, "the IPC filter refuses SysV IPC"),
    ("", ("--sandbox", "portable"), False, H.CARRY_SYSV + H.CARRY_END, True, "the IPC filter refuses SysV IPC"),
    ("unshare,seccomp", (), True, H.CARRY_SYSV + H.CARRY_END, True, "its SysV IPC objects are removed when it ends"),
    ("uid_map,seccomp", (), False, H.CARRY_STATE, False, "may outlive it and reach the submission's later workers"),
]


@pytest.mark.parametrize(("faults", "extra", "root", "carrier", "held", "says"), CARRY_CASES,
                         ids=["user-namespaces", "user-no-namespaces", "user-portable", "root-container", "user-nothing-holds"])
def test_a_submissions_later_workers_find_no_ipc_state_on_every_host_kind(as_user, faults, extra, root, carrier,
                                                                          held, says):
    """The IPC class of tests/sandbox/test_ipc.py where it was open: a normal user whose namespaces are refused (the
    IPC filter holds it), the portable backend (the filter), a container as root with neither namespaces nor filter
    (the worker's own user id: its objects are removed), and, to show the test can fail, a host where nothing holds
    it: the carrier then loses its later assignment, and the report says why."""
    run, work = as_user
    H.remove_carried_state()
    folder = work / f"carry-{faults or 'none'}-{len(extra)}"
    H.write(folder / "carrier", H.with_import_code(carrier, H.CORRECT))
    subprocess.run(["chown", "-R", f"{USER}:{USER}", str(folder)], check=True)
    out = f"out-{folder.name}"
    try:
        done = run("grade", folder.name, "-o", out, "-a", "value_ops", "-a", "backward", "-j", "1", *extra,
                   faults=faults, as_root=root)
        left = H.CARRY_KEY in H.sysv_ipc_keys() or Path(H.CARRY_FILE).exists()
    finally:
        H.remove_carried_state()
    assert done.returncode == 0, done.stderr[-3000:]
    row = grades(work / out)["carrier"]
    isolation = json.loads((work / out / "backward" / "carrier" / "results.json").read_text())["extra_data"][
        "grader"]["isolation"]
    assert says in isolation["ipc namespace"], isolation
    if held:
        assert (row["value_ops"], row["backward"], left) == ("40", "50", False), row["notes"]
    else:
        assert row["backward"] == "0" and "state carried from an earlier worker" in row["notes"] and left
