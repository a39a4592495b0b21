"""The Gradescope autograder zip, run against a fake /autograder tree."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from grader.cli import main
from grader.config import VISIBILITIES

ROOT = Path(__file__).resolve().parent.parent


def test_the_zip_grades_a_submission_into_gradescope_results_json(tmp_path):
    archive = tmp_path / "autograder.zip"
    assert main(["--course", str(ROOT), "gradescope", "-a", "backward", "-o", str(archive)]) == 0
    names = zipfile.ZipFile(archive).namelist()
    assert {"setup.sh", "run_autograder", "grader/cli.py", "pyproject.toml", "reference/micrograd/engine.py"} <= set(names)
    assert any(n.startswith("assignments/backward/tests/hidden/") for n in names)
    assert not any("bugs.yaml" in n or n.startswith("assignments/mlp/") for n in names)

    root = tmp_path / "autograder"
    with zipfile.ZipFile(archive) as zf:
        zf.extractall(root / "source")
    for script in ("setup.sh", "run_autograder"):
        assert subprocess.run(["bash", "-n", str(root / "source" / script)]).returncode == 0
    shutil.copytree(ROOT / "examples" / "submissions" / "bug_wrong_tanh" / "micrograd", root / "submission" / "micrograd")
    env = dict(os.environ, AUTOGRADER_ROOT=str(root), PATH=f"{Path(sys.executable).parent}:{os.environ['PATH']}")
    done = subprocess.run(["bash", str(root / "source" / "run_autograder")], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]

    results = json.loads((root / "results" / "results.json").read_text())
    assert isinstance(results["score"], (int, float)) and isinstance(results["execution_time"], (int, float))
    assert 0 < results["score"] < 50
    assert results["score"] == sum(t["score"] for t in results["tests"])
    for test in results["tests"]:
        assert test["status"] in ("passed", "failed")
        assert test["visibility"] in VISIBILITIES
        assert {"name", "score", "max_score", "output"} <= set(test)
    visibilities = {t["visibility"] for t in results["tests"]}
    assert visibilities == {"visible", "after_due_date"}
    assert any("Value.tanh" in t["output"] for t in results["tests"] if t["status"] == "failed")
