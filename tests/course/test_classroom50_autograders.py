"""The Classroom 50 autograders `grader release` writes, run as Classroom 50's runner runs them.

A student repository is made from the release with git history and a ``submit/*`` tag, the runner's
environment is set, and ``python3 autograder.py`` runs in the checkout. ``MICROGRAD_GRADER_PYTHON`` points it
at this environment's interpreter (where the grader is installed), so the suite does not install the pinned
grader from the package registry on every run; that step ran for real once (see docs/how-to/classroom50.md).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from checkout import ROOT

from grader.outputs.classroom50 import validate

COMMITTED = "2026-11-20T21:03:04Z"


def git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_DATE": COMMITTED, "GIT_COMMITTER_DATE": COMMITTED, "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_CONFIG_GLOBAL": os.devnull}
    return subprocess.run(["git", "-c", "user.name=Student", "-c", "user.email=s@example.org", "-C", str(repo), *args],
                          env=env, check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def teacher(release: Path) -> Path:
    """The Classroom 50 autograders written next to the release."""
    return release.with_name(release.name + "-classroom50")


def student_repo(release: Path, dest: Path, engine: Path | None = None) -> Path:
    """A student's repository made from the release, committed and tagged as `gh student submit` does."""
    shutil.copytree(release, dest)
    if engine is not None:
        shutil.copy(engine, dest / "micrograd" / "engine.py")
    git(dest, "init", "-q", "-b", "main")
    git(dest, "add", "-A")
    git(dest, "commit", "-q", "-m", "my micrograd")
    git(dest, "tag", "submit/2026-11-20T21-03-04Z-" + git(dest, "rev-parse", "--short=7", "HEAD"))
    return dest


def run_autograder(teacher: Path, slug: str, checkout: Path) -> tuple[subprocess.CompletedProcess[str], dict]:
    sha = git(checkout, "rev-parse", "HEAD")
    base = "https://github.com/cs101-org/cs101-" + slug + "-alice"
    env = {**os.environ, "CLASSROOM": "cs101", "ASSIGNMENT": slug, "USERNAME": "alice", "OWNER": "alice",
           "ASSIGNMENT_TYPE": "individual", "SUBMISSION_TAG": git(checkout, "tag", "--list", "submit/*"),
           "COMMIT_URL": f"{base}/commit/{sha}", "RELEASE_URL": f"{base}/releases/tag/submit%2Fx",
           "REVIEW_URL": f"{base}/compare/a...{sha}", "CLASSROOM50_BUNDLE_DIR": str(teacher / "autograders" / slug),
           "MICROGRAD_GRADER_PYTHON": sys.executable, "RUNNER_TEMP": str(checkout.parent)}
    env.pop("RUNNER_ENVIRONMENT", None)  # not a GitHub-hosted runner: the AppArmor setting is left alone
    done = subprocess.run([sys.executable, str(teacher / "autograders" / slug / "autograder.py")], cwd=checkout,
                          env=env, capture_output=True, text=True, timeout=300, check=False)
    result = checkout / "result.json"
    return done, json.loads(result.read_text()) if result.is_file() else {}


def test_the_bundle_holds_the_public_course_and_the_pinned_grader_and_nothing_hidden(teacher):
    runtime = json.loads((teacher / "runtime.json").read_text())
    assert runtime == {"python": f"{sys.version_info[0]}.{sys.version_info[1]}"}
    for slug, aid in (("value-ops", "value_ops"), ("backward", "backward"), ("mlp", "mlp")):
        folder = teacher / "autograders" / slug
        assert (folder / "autograder.py").is_file() and (folder / "dist" / "requirements.lock").is_file()
        assert (folder / "dist" / "grader" / "cli.py").is_file() and (folder / "dist" / "pyproject.toml").is_file()
        assert list((folder / "dist" / "course" / "assignments" / aid / "tests" / "public").glob("test_*.py"))
        assert (folder / "dist" / "course" / "student_template" / "micrograd" / "engine.py").is_file()
        names = {p.relative_to(folder).as_posix() for p in folder.rglob("*")}
        assert not [n for n in names if "hidden" in n or n.endswith("bugs.yaml") or "reference" in n.split("/")]
        assert f'ASSIGNMENT = "{aid}"' in (folder / "autograder.py").read_text()


def test_the_template_gets_a_valid_zero_and_a_correct_solution_full_marks(release, teacher, tmp_path):
    done, doc = run_autograder(teacher, "value-ops", student_repo(release, tmp_path / "template"))
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert validate(doc) == [], doc
    assert doc["score"] == 0 and doc["max-score"] > 0 and doc["assignment"] == "value-ops"
    assert doc["datetime"] == COMMITTED and doc["submission"].startswith("submit/2026-11-20T21-03-04Z-")
    assert (tmp_path / "template" / "release-body.md").read_text().strip()

    done, doc = run_autograder(teacher, "value-ops", student_repo(release, tmp_path / "correct",
                                                                  ROOT / "reference" / "micrograd" / "engine.py"))
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert validate(doc) == [] and doc["score"] == doc["max-score"] > 0
    assert all(t["passed"] for t in doc["tests"])


def test_a_student_cannot_grade_with_their_own_copy_of_the_grader_or_of_the_public_tests(release, teacher, tmp_path):
    """The checkout holds the release's grader/ and tests, which the student can edit: the autograder runs the
    installed grader in isolated mode (the checkout is not on sys.path) with the bundle's course files."""
    repo = tmp_path / "forger"
    shutil.copytree(release, repo)
    forged = {"schema": "classroom50/result/v1", "score": 999}
    (repo / "grader" / "__main__.py").write_text(
        f"import json, pathlib\npathlib.Path('result.json').write_text(json.dumps({forged!r}))\n")
    public = repo / "assignments" / "value_ops" / "tests" / "public"
    for test in public.glob("test_*.py"):
        test.write_text("import pytest\n\n@pytest.mark.points(40)\ndef test_free():\n    pass\n")
    student_repo(repo, tmp_path / "checkout")
    done, doc = run_autograder(teacher, "value-ops", tmp_path / "checkout")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert validate(doc) == [] and doc["score"] == 0 and len(doc["tests"]) > 1


def test_a_taken_folder_for_the_autograders_stops_the_release_before_anything_is_written(tmp_path, capsys):
    from grader.cli import main

    (tmp_path / "student-classroom50").mkdir()
    (tmp_path / "student-classroom50" / "notes.txt").write_text("the teacher's own file")
    assert main(["--course", str(ROOT), "release", "-o", str(tmp_path / "student")]) == 2
    assert "student-classroom50 is not empty" in capsys.readouterr().err
    assert not (tmp_path / "student").exists()
    assert main(["--course", str(ROOT), "release", "-o", str(tmp_path / "student"),
                 "--classroom50", str(tmp_path / "teacher")]) == 0
    assert (tmp_path / "teacher" / "autograders" / "mlp" / "autograder.py").is_file()


@pytest.mark.parametrize("aid", ["modules", "checkpointing"])
def test_a_later_assignments_autograder_gives_a_correct_solution_its_public_points(aid, release, teacher, tmp_path):
    """Assignments 9 and 10, as the others: the bundle holds their public tests and probes and nothing hidden, and
    grades a correct engine and module (copied from the reference, markers and all) at full public marks on the
    student's own engine (a self-check's counts for checkpointing)."""
    folder = teacher / "autograders" / aid
    assert list((folder / "dist" / "course" / "assignments" / aid / "tests" / "public").glob("test_*.py"))
    assert not [p for p in folder.rglob("*") if "hidden" in p.name or p.name == "bugs.yaml"]
    checkout = student_repo(release, tmp_path / "correct", ROOT / "reference" / "micrograd" / "engine.py")
    shutil.copy(ROOT / "reference" / "micrograd" / f"{aid}.py", checkout / "micrograd" / f"{aid}.py")
    git(checkout, "commit", "-qam", aid)
    done, doc = run_autograder(teacher, aid, checkout)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert validate(doc) == [] and doc["score"] == doc["max-score"] == 15, doc
