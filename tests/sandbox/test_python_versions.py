"""The student self-check on the oldest and newest Python the course supports (3.10 and 3.13).

Each interpreter that this machine has (pyenv's 3.10 and 3.13 on the CI
image; skipped where absent) gets a fresh virtual environment with the
project installed as a student installs the release, then runs
``grader check`` on a buggy solution and on a correct one of every assignment: the same exit status and
the same scores as the suite's own Python. Needs PyPI (about 20 s each).
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from checkout import ROOT

from grader.cli import main

EXAMPLES = ROOT / "examples" / "submissions"
PYENV = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"


def interpreter(minor: str) -> str | None:
    found = sorted(glob.glob(str(PYENV / f"{minor}.*" / "bin" / "python3")))
    return found[-1] if found else shutil.which(f"python{minor}")


EXPECTED: dict[tuple[str, ...], tuple[int, str]] = {}
"""The suite's own Python's self-check of each example (exit status, output), made once for both interpreters."""


def expected_check(example: Path, args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    key = (str(example), *args)
    if key not in EXPECTED:
        capsys.readouterr()
        status = main(["--course", str(ROOT), "check", str(example), *args])
        EXPECTED[key] = (int(status), capsys.readouterr().out)
    return EXPECTED[key]


@pytest.mark.parametrize("minor", ["3.10", "3.13"])
def test_the_student_check_runs_on_the_oldest_and_newest_supported_python(minor, tmp_path, capsys):
    python = interpreter(minor)
    if python is None:
        pytest.skip(f"no Python {minor} on this machine")
    venv = tmp_path / "venv"
    subprocess.run([python, "-m", "venv", str(venv)], check=True)
    bindir = venv / ("Scripts" if os.name == "nt" else "bin")
    project = tmp_path / "project"
    for part in ("grader", "assignments", "student_template"):
        shutil.copytree(ROOT / part, project / part, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, project / name)
    subprocess.run([str(bindir / "python"), "-m", "pip", "install", "--quiet", str(project)], check=True, timeout=600)
    version = subprocess.run([str(bindir / "python"), "--version"], capture_output=True, text=True, check=True)
    assert version.stdout.startswith(f"Python {minor}.")
    solution = tmp_path / "solution"  # the reference: every assignment's files, the later ones' too
    shutil.copytree(ROOT / "reference" / "micrograd", solution / "micrograd", ignore=shutil.ignore_patterns("__pycache__"))
    for example, args in ((EXAMPLES / "bug_wrong_tanh", ["-a", "backward"]), (solution, [])):  # (every assignment)
        done = subprocess.run([str(bindir / "grader"), "--course", str(project), "check", str(example),
                               *args], capture_output=True, text=True, timeout=600, check=False)
        expected_status, expected = expected_check(example, args, capsys)
        assert done.returncode == expected_status, done.stdout[-2000:] + done.stderr[-2000:]
        scores = re.compile(r"^.*(?:public points|task .*: [\d.]+ / [\d.]+)$", re.M)
        assert scores.findall(done.stdout) == scores.findall(expected), (minor, example)
