"""`grader check` shows each public test as it ends (on stderr), before a hanging test's limit is up, and leaves the
report (stdout) as it was."""

from __future__ import annotations

import io
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
from grader.course.course import Course
from grader.grading import follow
from grader.grading.follow import CheckProgress
from grader.grading.one import self_check
from grader.inert import terminal
from grader.judge.probe_seconds import FILE as PROBE_SECONDS
from grader.judge.progress_feed import Counts, Ended, Started
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
    # without the release's call times the loop waits its test's whole limit: the gap the progress must show
    (dest / "assignments" / PROBE_SECONDS).unlink()
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


# --- a student's whole output (stderr's progress and stdout's report), counted in lines --------------------------

MAX_LINES_FOR_ONE_ERROR = 40
"""A student's whole `grader check` output for one syntax error fits a terminal screen."""


def student_copy(release: Path, dest: Path, engine_edit: tuple[str, str] | None = None, append: str = "") -> Path:
    """A copy of the release (the untouched template), its engine.py edited: ``(old, new)`` replaced once, ``append``
    added at the end."""
    shutil.copytree(release, dest, ignore=shutil.ignore_patterns("__pycache__", ".venv"))
    engine = dest / "micrograd" / "engine.py"
    code = engine.read_text(encoding="utf-8")
    if engine_edit is not None:
        assert engine_edit[0] in code
        code = code.replace(*engine_edit, 1)
    engine.write_text(code + append, encoding="utf-8")
    return dest


def whole_output(folder: Path, *args: str) -> tuple[int, list[str]]:
    """`grader check` run in ``folder`` as a student runs it: its status, and what it printed, stderr and stdout
    together as a terminal shows them."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "GRADER_PROGRESS"))}
    done = subprocess.run([sys.executable, "-m", "grader", "check", *args], cwd=folder, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, encoding="utf-8", env=env, timeout=300)
    return done.returncode, done.stdout.splitlines()


def test_one_syntax_error_fits_a_screen_and_names_the_assignments_it_stops_once(release, tmp_path):
    colon = '    def __mul__(self, other: Union["Value", Number]) -> "Value":\n'
    folder = student_copy(release, tmp_path / "student", (colon, colon.replace(":\n", "\n")))
    line = folder.joinpath("micrograd", "engine.py").read_text(encoding="utf-8").splitlines().index(colon[:-2]) + 1
    status, lines = whole_output(folder)
    text = "\n".join(lines)
    assert status == 1
    assert len(lines) <= MAX_LINES_FOR_ONE_ERROR, text  # before: 195 lines, the error named six times
    assert text.count("SyntaxError: expected ':'") == 1 and f"at micrograd/engine.py line {line}, in <module>" in text
    course = Course(folder)
    stopped = [a for a in course.released_assignments() if "micrograd/engine.py" in a.files]
    names = [a.title.split(": ")[0] for a in stopped[1:]]
    assert f"The same error stops {', '.join(names[:-1])} and {names[-1]}" in text
    for a in course.released_assignments():  # progress: one line per assignment, not one per test it could not run
        progress = [line for line in lines if line.startswith(f"Checking {a.title}: ")]
        assert len(progress) == 1, text
        assert progress[0].endswith(": none could run, your code could not be loaded") == (a in stopped)
    for a in stopped[1:]:  # the report: one line each, pointing to the error
        report = [line for line in lines if line.startswith(f"{a.title}: ")]
        assert len(report) == 1 and report[0].endswith(
            " public points: not run: micrograd/engine.py could not be imported (the error above)"), text
    assert lines[-1].endswith("next: micrograd/engine.py could not be imported (see above)")


def test_the_untouched_release_shows_the_first_assignment_in_detail_and_one_line_for_each_other(release, tmp_path):
    folder = student_copy(release, tmp_path / "student")
    status, lines = whole_output(folder)
    text = "\n".join(lines)
    assert status == 1
    assert len(lines) <= 100, text  # before: 511 lines
    first, *others = Course(folder).released_assignments()
    assert f"{first.title}: 0 / 10 public points" in lines and "  ✗ Value.__add__: forward value and local gradients (0 / 2)" in lines
    for a in others:
        assert sum(line.startswith(f"Checking {a.title}: ") for line in lines) == 1, text  # progress: one line each
        report = [line for line in lines if line.startswith(f"{a.title}: ")]
        assert len(report) == 1 and re.search(r": \d+ of \d+ public tests fail$", report[0]), text
    assert not any(re.match(r"\s+(ok)?\s*task [2-9]", line) for line in lines), text  # no other assignment's tasks
    assert any("`grader check -v`" in line for line in lines)
    assert lines[-1] == f"Total: 0 / 106 public points; next: task 1.1 of {first.title}"


def test_demo_code_at_the_bottom_of_engine_py_is_named_with_its_line_and_the_main_guard(release, tmp_path):
    folder = student_copy(release, tmp_path / "student", append="\n\na = Value(2.0)\nprint(a * 3)\n")
    line = len(folder.joinpath("micrograd", "engine.py").read_text(encoding="utf-8").splitlines())
    status, lines = whole_output(folder)
    text = "\n".join(lines)
    assert status == 1 and len(lines) <= MAX_LINES_FOR_ONE_ERROR, text
    assert text.count(f"at micrograd/engine.py line {line}, at the top level: print(a * 3)") == 1, text
    assert text.count("code at its top level raised NotImplementedError: Task 1.2: implement Value.__mul__") == 1
    assert text.count('put tests and demos under `if __name__ == "__main__":`') == 1
    assert "called micrograd/engine.py line" in text and ", in __mul__: raise NotImplementedError(" in text


# --- the progress lines themselves, from events (no judge) --------------------------------------------------------

COURSE = Course(ROOT)
TITLE_1, TITLE_2 = (COURSE.assignment(aid).title for aid in ("value_ops", "backward"))


def compact(stream: io.StringIO | io.TextIOWrapper | None = None, every_test: bool = False
            ) -> tuple[CheckProgress, io.StringIO]:
    out = io.StringIO()
    return CheckProgress(stream or out, COURSE, every_test=every_test), out  # type: ignore[arg-type]


def test_without_v_each_assignment_is_one_line_with_a_mark_per_test_and_a_blocked_one_says_so_once():
    shown, out = compact()
    with shown:
        shown.event(Counts({"value_ops": 3, "backward": 2}))
        shown.event(Started("value_ops", "add", 10))
        shown.event(Ended("value_ops", "add", 2, 2, True, 0.01, ""))
        shown.event(Ended("value_ops", "mul", 0, 2, False, 0.01, ""))
        shown.event(Ended("value_ops", "pow", 0, 2, False, 0.01, "grader"))
        shown.event(Started("backward", "tanh", 10))
        shown.event(Ended("backward", "tanh", 0, 1, False, 0.0, "not_run"))
        shown.event(Ended("backward", "relu", 0, 1, False, 0.0, "not_run"))
    assert out.getvalue().splitlines() == [
        f"Checking {TITLE_1}: 3 public tests ✓✗!",
        f"Checking {TITLE_2}: 2 public tests: none could run, your code could not be loaded",
        "",
    ]


def test_without_v_a_test_still_running_is_named_on_its_own_line_and_so_is_its_end(monkeypatch):
    monkeypatch.setattr(follow, "STILL_RUNNING_SECONDS", 0.0)
    shown, out = compact()
    with shown:
        shown.event(Counts({"backward": 3}))
        shown.event(Ended("backward", "tanh", 1, 1, True, 0.1, ""))
        shown.event(Started("backward", "backward()", 10))
        shown.tick()
        shown.event(Ended("backward", "backward()", 0, 3, False, 10.0, "timeout"))
        shown.event(Ended("backward", "paths", 2, 2, True, 0.1, ""))
    assert out.getvalue().splitlines() == [
        f"Checking {TITLE_2}: 3 public tests ✓",
        "  ... backward(): still running after 0 s (limit: 10 s)",
        "  ✗ backward() (0 / 3, ran out of time after 10.0 s)",
        "  ✓",
        "",
    ]


def test_with_v_an_assignment_none_of_whose_tests_could_run_is_one_line_not_one_per_test():
    shown, out = compact(every_test=True)
    with shown:
        shown.event(Counts({"value_ops": 2, "backward": 3}))
        for title in ("add", "mul"):
            shown.event(Ended("value_ops", title, 0, 2, False, 0.0, "not_run"))
        shown.event(Ended("backward", "tanh", 0, 1, False, 0.0, "not_run"))  # shown once a test of it ran
        shown.event(Ended("backward", "relu", 1, 1, True, 0.0, ""))
        shown.event(Ended("backward", "exp", 0, 1, False, 0.0, "not_run"))
    assert out.getvalue().splitlines() == [
        f"Checking {TITLE_1}: 2 public tests",
        "  ✗ none of the 2 public tests could run: your code could not be loaded (the report below says why)",
        f"Checking {TITLE_2}: 3 public tests",
        "  ✗ tanh (0 / 1, not run: your code could not be loaded)",
        "  ✓ relu (1 / 1)",
        "  ✗ exp (0 / 1, not run: your code could not be loaded)",
        "",
    ]


def test_without_v_a_legacy_code_page_gets_plain_marks():
    raw = io.BytesIO()
    legacy = io.TextIOWrapper(raw, encoding="cp1252", errors="strict")
    shown, _ = compact(legacy)
    with shown:
        shown.event(Counts({"value_ops": 2}))
        shown.event(Ended("value_ops", "add", 2, 2, True, 0.0, ""))
        shown.event(Ended("value_ops", "mul", 0, 2, False, 0.0, ""))
    legacy.flush()
    assert raw.getvalue().decode("cp1252").splitlines() == [f"Checking {TITLE_1}: 2 public tests .x", ""]
