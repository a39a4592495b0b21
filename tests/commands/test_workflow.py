"""The platform matrix workflow (.github/workflows/ci.yml) runs nothing this suite does not run here (but for
the Classroom 50 job's installation of the pinned grader, which needs a real runner).

GitHub's macOS and Windows runners cannot run on this machine, so the
workflow is held to commands the Linux CI exercises: the install of the
README's test command, the whole suite with only the Chromium test left out
(the linux_only tests skip themselves there), and the release tests that set
up a fresh virtual environment and run a student's ``grader check``.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys

import yaml
from checkout import ROOT

WORKFLOW = ROOT / ".github" / "workflows" / "ci.yml"


def workflow() -> dict:
    return yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))


def collected(*args: str) -> list[str]:
    """The test ids ``pytest ARGS`` runs. Collected without assertion rewriting (``--assert=plain``), which changes no
    id and is most of the cost of collecting when no bytecode may be written (``PYTHONDONTWRITEBYTECODE``)."""
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "--assert=plain", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, check=True)
    return [line for line in done.stdout.splitlines() if "::" in line]


def test_the_matrix_is_the_platforms_and_pythons_courses_use():
    job = workflow()["jobs"]["test"]
    matrix = job["strategy"]["matrix"]
    assert set(matrix["os"]) == {"ubuntu-24.04", "macos-latest", "windows-latest"}
    assert matrix["python"] == ["3.10", "3.13"]
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert 'requires-python = ">=3.10"' in pyproject
    assert job["strategy"]["fail-fast"] is False


def test_every_step_is_a_command_this_suite_runs():
    runs = [step["run"] for step in workflow()["jobs"]["test"]["steps"] if "run" in step]
    install, suite, release = (shlex.split(run) for run in runs)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert install == ["python", "-m", "pip", "install", "-e", ".[test]"]
    assert "pip install -e '.[test]' && python -m pytest" in readme  # the same install as the README's test command
    assert suite[:3] == ["python", "-m", "pytest"] and release[:3] == ["python", "-m", "pytest"]
    everything = collected()
    kept = collected(*suite[3:])
    assert [t for t in everything if t not in kept] == [
        "tests/outputs/test_report.py::test_the_report_renders_in_chromium_with_visible_charts",
        "tests/similarity/test_similarity.py::"
        "test_the_similar_submissions_section_in_chromium_shows_flagged_pairs_and_escaped_names"]
    student = collected(*release[3:])
    assert "tests/course/test_release.py::test_the_readme_set_up_gives_a_working_grader_check_in_a_fresh_virtual_environment" \
        in student
    assert "tests/course/test_release.py::test_the_self_check_runs_inside_the_release" in student


def test_tests_that_need_linux_are_marked_so_macos_and_windows_skip_them():
    for module in ("test_sandbox", "test_hostile", "test_stress", "test_degradation", "test_normal_user",
                   "test_gradescope"):
        text = next((ROOT / "tests").rglob(f"{module}.py")).read_text(encoding="utf-8")
        assert re.search(r"^pytestmark = .*linux_only", text, re.M), module


def test_the_classroom50_job_runs_the_autograder_as_the_suite_does_but_with_the_real_installation():
    """The one job this machine cannot run: the pinned installation and the `sudo sysctl` step on a real
    ubuntu-latest runner. Its environment is the one tests/course/test_classroom50_autograders.py sets."""
    job = workflow()["jobs"]["classroom50"]
    assert job["runs-on"] == "ubuntu-latest"
    script = "\n".join(step.get("run", "") for step in job["steps"])
    assert "grader release -o" in script and "autograder.py" in script and "validate(d)" in script
    assert "MICROGRAD_GRADER_PYTHON" not in script  # the real installation, from the pins
    env = next(step["env"] for step in job["steps"] if "env" in step)
    assert set(env) | {"SUBMISSION_TAG", "CLASSROOM50_BUNDLE_DIR"} == {
        "CLASSROOM", "ASSIGNMENT", "USERNAME", "OWNER", "ASSIGNMENT_TYPE", "COMMIT_URL", "RELEASE_URL", "REVIEW_URL",
        "SUBMISSION_TAG", "CLASSROOM50_BUNDLE_DIR"}
