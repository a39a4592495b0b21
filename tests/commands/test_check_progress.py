"""`grader check` shows each public test as it ends (on stderr), before a hanging test's limit is up, and leaves the
report (stdout) as it was."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

from checkout import ROOT

from grader.cli import main
from grader.course.config import Course
from grader.grading.one import self_check
from grader.inert import terminal
from grader.outputs import formats

EXAMPLES = ROOT / "examples" / "submissions"
LIMIT = 3
"""The looping test's time limit in these tests (the course's is 10 s)."""


def looping_release(release: Path, dest: Path) -> Path:
    """A copy of the release whose micrograd is correct but for a ``backward()`` that never returns."""
    shutil.copytree(release, dest, ignore=shutil.ignore_patterns("__pycache__", ".venv"))
    for name in ("engine.py", "nn.py"):
        shutil.copy(EXAMPLES / "correct_recursive" / "micrograd" / name, dest / "micrograd" / name)
    engine = dest / "micrograd" / "engine.py"
    code = engine.read_text(encoding="utf-8")
    assert "    def backward(self):\n" in code
    engine.write_text(code.replace("    def backward(self):\n", "    def backward(self):\n        while True:\n"
                                   "            pass\n", 1), encoding="utf-8")
    config = dest / "assignments" / "backward" / "assignment.yaml"
    text = config.read_text(encoding="utf-8")
    assert "test_seconds: 10" in text
    config.write_text(text.replace("test_seconds: 10", f"test_seconds: {LIMIT}"), encoding="utf-8")
    return dest


def timed_lines(stream: object, into: list[tuple[float, str]]) -> threading.Thread:
    def read() -> None:
        for line in stream:  # type: ignore[attr-defined]
            into.append((time.monotonic(), line.rstrip("\n")))

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread


def test_progress_shows_passed_tests_before_a_looping_backward_runs_out_of_time(release, tmp_path):
    folder = looping_release(release, tmp_path / "student")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "GRADER_PROGRESS"))}
    started = time.monotonic()
    err: list[tuple[float, str]] = []
    out: list[tuple[float, str]] = []
    with subprocess.Popen([sys.executable, "-m", "grader", "check", "-a", "value_ops", "-a", "backward"], cwd=folder,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, encoding="utf-8",
                          env=env) as process:
        readers = [timed_lines(process.stderr, err), timed_lines(process.stdout, out)]
        assert process.wait(timeout=300) == 1
        ended = time.monotonic()
        for reader in readers:
            reader.join(10)
    lines = [line for _, line in err]
    assert lines[0].startswith("Checking Assignment 1: Value operations") and lines[0].endswith(": 6 public tests")
    assert "  ✓ Value.__add__: forward value and local gradients (2 / 2)" in lines
    looping = "backward() on tanh(x0 * x1 + x0) matches finite differences"
    timed_out = next(t for t, line in err if line.startswith(f"  ✗ {looping} (0 / 3, ran out of time after "))
    first_pass = next(t for t, line in err if line.startswith("  ✓ "))
    # the passed tests were shown as they ended, at least the looping test's limit before it ended
    assert first_pass <= timed_out - 0.9 * LIMIT, [(round(t - started, 2), line) for t, line in err]
    assert first_pass <= ended - 0.9 * LIMIT
    assert all(t <= timed_out for t, line in err if line.startswith("  ✓ Value.tanh"))
    assert lines[-1] == "" and not any(line.startswith("Checking") for line in lines[1:] if "Assignment 2" not in line)
    assert re.fullmatch(r"  ✗ backward\(\) adds up every path.*\(0 / 2, ran out of time after \d+\.\d s\)",
                        next(line for line in lines if "adds up every path" in line))
    # the report on stdout is what `grader check` printed before progress existed
    result = self_check(Course(folder), folder, ["value_ops", "backward"])
    assert "\n".join(line for _, line in out) == terminal(formats.text(result))
    assert not any(line.startswith(("Checking", "  ✓", "  ...")) for _, line in out)


def test_json_stays_clean_on_stdout_and_progress_goes_to_stderr_on_the_portable_backend(capsys):
    status = main(["--course", str(ROOT), "check", str(EXAMPLES / "bug_wrong_tanh"), "-a", "backward",
                   "--format", "json", "--sandbox", "portable"])
    captured = capsys.readouterr()
    assert status == 1
    assert json.loads(captured.out)["assignments"]["backward"]["score"] == 9
    err = captured.err.splitlines()
    assert err[0].startswith("Sandbox: portable")
    assert err[1].startswith("Checking Assignment 2: backward()") and err[1].endswith(": 8 public tests")
    assert "  ✗ Value.tanh: forward value and local gradient, a reused input, the edges of its domain (0 / 1)" in err
    assert sum(line.startswith("  ✓ ") for line in err) == 7 and err[-1] == ""
    assert "expected" not in captured.err and "Hint" not in captured.err  # titles and points, never feedback


def test_a_notebooks_check_shows_progress_too(capsys):
    status = main(["--course", str(ROOT), "check", str(EXAMPLES / "notebook.ipynb"), "-a", "value_ops"])
    err = capsys.readouterr().err
    assert status in (0, 1)
    assert err.startswith("Checking Assignment 1: Value operations") and err.count("\n  ✓ ") + err.count("\n  ✗ ") == 6
