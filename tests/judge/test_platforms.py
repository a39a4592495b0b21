"""Hosts this machine is not: an emulated macOS judge, legacy console encodings, the backend choice.

The emulation is fault injection from outside the grader: a ``sitecustomize``
module on ``PYTHONPATH`` (imported by every Python the grader starts with
``site`` on: the CLI and the judges) removes ``os.pidfd_open``,
``signal.pidfd_send_signal`` and ``os.unshare`` and makes
``socketpair(AF_UNIX, SOCK_SEQPACKET)`` fail, as on macOS. The grader must
notice by itself, pick the portable backend, and score every example exactly
as the Linux backend does.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from checkout import ROOT

from grader.cli import main
from grader.errors import GraderError
from grader.judge import backends

EXAMPLES = ROOT / "examples" / "submissions"

MACOS = textwrap.dedent(
    """
    # Emulates a macOS judge for the grader's tests: no pidfd, no unshare, no SOCK_SEQPACKET socket pairs.
    import os, signal, socket
    for owner, name in ((os, "pidfd_open"), (signal, "pidfd_send_signal"), (os, "unshare")):
        if hasattr(owner, name):
            delattr(owner, name)
    _socketpair = socket.socketpair
    def socketpair(family=socket.AF_UNIX, type=socket.SOCK_STREAM, proto=0):
        if type == socket.SOCK_SEQPACKET:
            raise OSError(93, "Protocol not supported (emulated macOS)")
        return _socketpair(family, type, proto)
    socket.socketpair = socketpair
    """
)


@pytest.fixture(scope="module")
def macos_env(tmp_path_factory) -> dict[str, str]:
    site = tmp_path_factory.mktemp("emulated-macos")
    (site / "sitecustomize.py").write_text(MACOS)
    return dict(os.environ, PYTHONPATH=str(site))


def grader(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "grader", "--course", str(ROOT), *args], env=env,
                          capture_output=True, text=True, timeout=600, check=False)


def per_test(out: Path, student: str) -> dict[str, list[tuple[str, str, float]]]:
    found = {}
    for aid in ("value_ops", "backward", "mlp"):
        tests = json.loads((out / aid / student / "results.json").read_text())["tests"]
        found[aid] = [(t["name"], t["status"], t["score"]) for t in tests]
    return found


def test_the_emulation_removes_what_the_linux_backend_needs(macos_env):
    probe = "from grader.judge.backends import linux_missing; print(linux_missing())"
    missing = subprocess.run([sys.executable, "-c", probe], env=macos_env, capture_output=True, text=True,
                             check=True).stdout
    for feature in ("os.pidfd_open", "signal.pidfd_send_signal", "socketpair(AF_UNIX, SOCK_SEQPACKET)"):
        assert feature in missing


def test_an_emulated_macos_grades_every_example_exactly_as_linux(macos_env, graded_class, tmp_path):
    subs = tmp_path / "subs"
    shutil.copytree(EXAMPLES, subs, ignore=shutil.ignore_patterns("__pycache__"))
    done = grader(macos_env, "grade", str(subs), "-o", str(tmp_path / "out"), "-j", "2")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "internal error" not in done.stdout + done.stderr
    assert done.stderr.count("warning: grading on the portable sandbox") == 1
    assert "this host lacks os.pidfd_open" in done.stderr
    assert "Sandbox (portable) isolation" in done.stdout
    with open(tmp_path / "out" / "grades.csv", encoding="utf-8") as f:
        emulated = {row["student"]: row for row in csv.DictReader(f)}
    with open(graded_class / "grades.csv", encoding="utf-8") as f:
        linux = {row["student"]: row for row in csv.DictReader(f)}
    for student in emulated:
        assert emulated[student] == linux[student], student
        assert per_test(tmp_path / "out", student) == per_test(graded_class, student), student


@pytest.mark.parametrize("example,args", [("correct_recursive", []), ("bug_wrong_tanh", ["-a", "backward"]),
                                          ("template_unchanged", ["-a", "value_ops"])])
def test_an_emulated_macos_self_check_prints_what_linux_prints(macos_env, capsys, example, args):
    status = main(["--course", str(ROOT), "check", str(EXAMPLES / example), *args])
    linux = capsys.readouterr()
    done = grader(macos_env, "check", str(EXAMPLES / example), *args)
    assert (done.returncode, done.stdout.strip()) == (status, linux.out.strip())
    assert "internal error" not in done.stdout
    lines = done.stderr.strip().splitlines()
    assert lines[0] == ("Sandbox: portable (this host lacks os.pidfd_open, signal.pidfd_send_signal, "
                        "socketpair(AF_UNIX, SOCK_SEQPACKET))")
    assert lines[1:] == linux.err.strip().splitlines()  # the same progress, test by test


def test_forcing_the_linux_backend_where_it_cannot_run_is_an_instructor_error(macos_env):
    done = grader(macos_env, "check", str(EXAMPLES / "correct_recursive"), "--sandbox", "linux")
    assert done.returncode == 2
    assert "--sandbox linux cannot run here" in done.stderr and "os.pidfd_open" in done.stderr


@pytest.mark.linux_only
def test_auto_picks_linux_here_and_portable_when_a_feature_is_missing(monkeypatch):
    assert backends.choose("auto") == backends.Choice("linux")
    assert backends.choose("portable").kind == "portable"
    monkeypatch.delattr(os, "pidfd_open")
    choice = backends.choose("auto")
    assert choice.kind == "portable" and "os.pidfd_open" in choice.reason
    with pytest.raises(GraderError, match="os.pidfd_open"):
        backends.choose("linux")
    monkeypatch.undo()

    def refuse(*args, **kwargs):
        raise OSError(93, "Protocol not supported")

    monkeypatch.setattr(socket, "socketpair", refuse)
    assert "SOCK_SEQPACKET" in backends.choose("auto").reason


@pytest.mark.parametrize("encoding", ["cp1252", "ascii"])
def test_output_survives_a_legacy_console_encoding(encoding):
    """Windows consoles and some CI logs are cp1252 or ASCII: feedback's ✗ and — must not crash the grader."""
    env = dict(os.environ, PYTHONIOENCODING=encoding, PYTHONUTF8="0")
    done = subprocess.run([sys.executable, "-m", "grader", "--course", str(ROOT), "check",
                           str(EXAMPLES / "bug_wrong_tanh"), "-a", "backward"],
                          env=env, capture_output=True, timeout=300, check=False)
    assert done.returncode == 1, done.stderr.decode(errors="replace")[-2000:]
    text = done.stdout.decode(encoding)
    assert "Value.tanh" in text and "? " in text  # the ✗ marks, replaced
    assert b"Traceback" not in done.stderr


def test_paths_with_spaces_and_non_ascii_names_grade_normally(tmp_path, capsys):
    """A student's folder in "C:\\Users\\José Núñez\\My Work" style: spaces, non-ASCII letters and (where the
    OS allows it in a name) a backslash."""
    home = tmp_path / "José Núñez" / ("My Work" if os.name == "nt" else "My\\Work")
    shutil.copytree(EXAMPLES / "correct_recursive", home / "micrograd project")
    assert main(["--course", str(ROOT), "check", str(home / "micrograd project"), "-a", "value_ops"]) == 0
    subs = tmp_path / "sub missions ü"
    shutil.copytree(EXAMPLES / "correct_recursive", subs / "élève one")
    out = tmp_path / "out put"
    assert main(["--course", str(ROOT), "grade", str(subs), "-o", str(out), "-a", "value_ops"]) == 0
    assert "élève one,40" in (out / "grades.csv").read_text(encoding="utf-8")
    capsys.readouterr()
