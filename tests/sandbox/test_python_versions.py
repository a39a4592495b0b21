"""The student self-check on the oldest and newest Python the course supports (3.10 and 3.13).

Each interpreter that this machine has (pyenv's 3.10 and 3.13 on the CI
image; skipped where absent) gets a fresh virtual environment with the
project installed as a student installs the release, then runs
``grader check`` on a buggy solution and on a correct one of every assignment: the same exit status and
the same scores as the suite's own Python. Needs PyPI (about 20 s each).
"""

from __future__ import annotations

import contextlib
import glob
import io
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from checkout import ROOT
from conftest import once_per_run

from grader.cli import main

EXAMPLES = ROOT / "examples" / "submissions"
PYENV = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"


def interpreter(minor: str) -> str | None:
    found = sorted(glob.glob(str(PYENV / f"{minor}.*" / "bin" / "python3")))
    return found[-1] if found else shutil.which(f"python{minor}")


def solution_in(folder: Path) -> Path:
    """A copy of the reference as a student's solution: every assignment's files, the later ones' too."""
    solution = folder / "solution"
    shutil.copytree(ROOT / "reference" / "micrograd", solution / "micrograd", ignore=shutil.ignore_patterns("__pycache__"))
    return solution


def checks(solution: Path) -> list[tuple[Path, list[str]]]:
    """What each interpreter's ``grader check`` runs on: a buggy engine (its assignment), the solution (every one)."""
    return [(EXAMPLES / "bug_wrong_tanh", ["-a", "backward"]), (solution, [])]


@pytest.fixture(scope="session")
def expected(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[int, str]]:
    """The suite's own Python's self-check of each of :func:`checks` (exit status, output), made once for the run
    (:func:`conftest.once_per_run`): both interpreters' tests compare with it."""

    def make(folder: Path) -> None:
        made = []
        for example, args in checks(solution_in(folder)):
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                status = main(["--course", str(ROOT), "check", str(example), *args])
            made.append((int(status), out.getvalue()))
        (folder / "expected.json").write_text(json.dumps(made), encoding="utf-8")

    folder = once_per_run(tmp_path_factory, "python-versions-expected", make)
    return [(int(status), str(out)) for status, out in json.loads((folder / "expected.json").read_text(encoding="utf-8"))]


@pytest.mark.parametrize("minor", ["3.10", "3.13"])
def test_the_student_check_runs_on_the_oldest_and_newest_supported_python(minor, tmp_path, request):
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
    for (example, args), (expected_status, expected_out) in zip(checks(solution_in(tmp_path)),
                                                                request.getfixturevalue("expected"), strict=True):
        done = subprocess.run([str(bindir / "grader"), "--course", str(project), "check", str(example),
                               *args], capture_output=True, text=True, timeout=600, check=False)
        assert done.returncode == expected_status, done.stdout[-2000:] + done.stderr[-2000:]
        scores = re.compile(r"^.*(?:public points|task .*: [\d.]+ / [\d.]+)$", re.M)
        assert scores.findall(done.stdout) == scores.findall(expected_out), (minor, example)
