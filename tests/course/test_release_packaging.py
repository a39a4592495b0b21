"""What the release installs and with which versions: its own ``pyproject.toml`` (the grader, nothing of the
instructor's tooling), and one ``requirements.lock`` for its self-check workflow and the Classroom 50 autograders."""

from __future__ import annotations

import dataclasses
import functools
import json
import re
import subprocess
import sys
import zipfile
from importlib.metadata import Distribution
from pathlib import Path

import pytest
import yaml
from checkout import ROOT
from packaging.requirements import Requirement

from grader.course import release_pyproject as rp
from grader.course.course import Course
from grader.course.pins import LOCK_NAME, Lock, Pin, read_lock
from grader.course.student_release import build_release, min_python
from grader.errors import GraderError
from grader.questions.sheet import answer_templates

TOML = rp.toml_reader()
needs_toml = pytest.mark.skipif(TOML is None, reason="no tomllib or tomli to read the file back")
INSTRUCTOR_ONLY = ("testpaths", "tests", "ruff", "mypy", "selenium", "chromium", "Chromium", ".ci", "mkdocs",
                   "bench", "optional-dependencies", "copydetect", "examples", "reference", "student_template")
"""Words of the instructor's pyproject.toml that name files, tools or extras a release does not have."""


def instructor() -> dict:
    return TOML.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def requirements(texts) -> list[Requirement]:
    return [Requirement(t) for t in texts]


# --- pyproject.toml ---------------------------------------------------------------------------------------------

@needs_toml
def test_the_release_pyproject_installs_the_grader_and_names_nothing_the_release_lacks(release):
    text = (release / "pyproject.toml").read_text(encoding="utf-8")
    ours, theirs = TOML.loads(text), instructor()

    assert set(ours) == {"build-system", "project", "tool"} and set(ours["tool"]) == {"setuptools"}
    assert set(ours["project"]) == {"name", "version", "description", "requires-python", "dependencies", "scripts"}
    for key in ("name", "version", "description", "requires-python", "dependencies", "scripts"):
        assert ours["project"][key] == theirs["project"][key], key
    assert ours["build-system"] == theirs["build-system"]
    assert ours["tool"]["setuptools"] == {"packages": theirs["tool"]["setuptools"]["packages"],
                                          "package-data": theirs["tool"]["setuptools"]["package-data"]}
    assert not [word for word in INSTRUCTOR_ONLY if word in text]
    assert min_python(text) == theirs["project"]["requires-python"].removeprefix(">=")


def test_package_data_is_every_file_of_the_grader_that_is_not_python(tmp_path):
    package = tmp_path / "grader"
    for rel in ("__init__.py", "outputs/__init__.py", "outputs/templates/report.html.j2", "outputs/report.py",
                "similarity/__init__.py", "similarity/templates/a.j2", "similarity/templates/b.j2",
                "similarity/data/deep/x.json", "similarity/py.typed", "__pycache__/cli.cpython-311.pyc",
                "outputs/__pycache__/notes.txt"):
        (package / rel).parent.mkdir(parents=True, exist_ok=True)
        (package / rel).write_text("", encoding="utf-8")

    assert rp.package_data(package) == {"grader.outputs": ["templates/*.j2"],
                                        "grader.similarity": ["*.typed", "data/deep/*.json", "templates/*.j2"]}


@needs_toml
def test_the_file_is_valid_toml_whatever_the_strings_hold():
    project = rp.Project("micrograd-grader", "1.2.3", 'quotes " and \\ backslash\ttab\x7f\x01 é 🙂', ">=3.10",
                         ('pydot>=3.0,<5', 'tomli>=1; python_version < "3.11"'), (("grader", "grader.cli:main"),))

    parsed = TOML.loads(rp.render(project, {"grader.outputs": ["templates/*.j2"]}))

    assert parsed["project"]["description"] == project.description
    assert parsed["project"]["dependencies"] == list(project.dependencies)
    assert parsed["project"]["scripts"] == {"grader": "grader.cli:main"}
    assert parsed["tool"]["setuptools"]["package-data"] == {"grader.outputs": ["templates/*.j2"]}


def fake_distribution(folder: Path) -> Distribution:
    info = folder / "micrograd_grader-9.9.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: micrograd-grader\nVersion: 9.9\nSummary: An autograder\n"
        "Requires-Python: >=3.10\nRequires-Dist: pytest>=8.0\n"
        'Requires-Dist: tomli>=1; python_version < "3.11"\n'
        'Requires-Dist: selenium>=4.11; extra == "test"\n'
        'Requires-Dist: mkdocs<2,>=1.6; python_version >= "3.8" and extra == "docs"\n'
        "Provides-Extra: test\nProvides-Extra: docs\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[console_scripts]\ngrader = grader.cli:main\n", encoding="utf-8")
    return Distribution.at(info)


def test_without_a_toml_reader_the_project_comes_from_the_installed_metadata(tmp_path, monkeypatch):
    """Python 3.10 without tomli: the runtime requirements (markers kept), never an extra's."""
    dist = fake_distribution(tmp_path)
    monkeypatch.setattr(rp, "toml_reader", lambda: None)
    monkeypatch.setattr(rp.Distribution, "from_name", staticmethod(lambda name: dist))

    project = rp.read_project(tmp_path / "no-such-pyproject.toml")

    assert project == rp.Project("micrograd-grader", "9.9", "An autograder", ">=3.10",
                                 ("pytest>=8.0", 'tomli>=1; python_version < "3.11"'), (("grader", "grader.cli:main"),))


@needs_toml
def test_the_installed_grader_states_the_same_project_as_its_pyproject():
    """Where the metadata fallback is used (Python 3.10 without tomli), it gives what the file says."""
    from_toml = rp.project_from_toml((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    from_metadata = rp.project_from_metadata(Distribution.from_name(rp.DISTRIBUTION))

    assert requirements(from_metadata.dependencies) == requirements(from_toml.dependencies)
    assert from_metadata == dataclasses.replace(from_toml, dependencies=from_metadata.dependencies)


@pytest.mark.parametrize(("text", "words"), [
    ("[project]\nname = 'x'\nversion = '1'\n", "no requires-python"),
    ("[project]\nname = 'x'\ndynamic = ['version']\nrequires-python = '>=3.10'\n", "not dynamic"),
    ("[project]\nname = 'x'\nversion = '1'\nrequires-python = '>=3.10'\ndependencies = ['no good ((']\n",
     "malformed dependency"),
    ("[tool.x]\n", "no [project] table"),
    ("[project\n", "cannot read"),
])
@needs_toml
def test_an_incomplete_pyproject_is_an_error_that_says_what_is_missing(text, words):
    with pytest.raises(GraderError, match=re.escape(words)):
        rp.project_from_toml(text)


BUILDS_OFFLINE = """\
import importlib.util
try:
    import setuptools
except ImportError:
    print(False)
else:
    version = tuple(int(part) for part in setuptools.__version__.split(".")[:2])
    print(version >= (70, 1) or (version >= (68, 0) and importlib.util.find_spec("wheel") is not None))
"""


@pytest.mark.timeout(600)
def test_pip_installs_the_grader_and_its_templates_from_the_release_and_nothing_else(release, tmp_path):
    """What the self-check workflow installs (``pip install --no-deps .``, not editable): a wheel of the grader with
    its package data, without the student's micrograd/ or the course. Built offline when this environment's
    setuptools can, else in pip's build isolation (setuptools from the package registry)."""
    run = functools.partial(subprocess.run, capture_output=True, text=True, timeout=500)
    offline = run([sys.executable, "-c", BUILDS_OFFLINE]).stdout.strip() == "True"
    flags = ["--no-build-isolation", "--no-index"] if offline else []
    built = run([sys.executable, "-m", "pip", "wheel", "--disable-pip-version-check", "--no-deps", *flags,
                 "-w", str(tmp_path / "wheels"), str(release)])
    assert built.returncode == 0, built.stdout + built.stderr
    [wheel] = (tmp_path / "wheels").glob("micrograd_grader-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "grader/outputs/templates/report.html.j2" in names and "grader/cli.py" in names
    assert "grader/similarity/templates/evidence.html.j2" in names
    tops = {n.split("/")[0] for n in names} - {"grader"}
    assert len(tops) == 1 and tops.pop().endswith(".dist-info")  # no micrograd/, assignments/, notebooks/...
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    assert "grader = grader.cli:main" in zipfile.ZipFile(wheel).read(entry_points).decode()


# --- one lock for the self-check workflow and the Classroom 50 autograders ---------------------------------------

def test_the_release_ships_the_classroom50_lock_and_its_workflow_installs_it_on_its_python(release):
    teacher = release.with_name(release.name + "-classroom50")
    lock = (release / LOCK_NAME).read_text(encoding="utf-8")
    bundles = sorted((teacher / "autograders").glob(f"*/dist/{LOCK_NAME}"))
    assert bundles and all(b.read_text(encoding="utf-8") == lock for b in bundles)  # the same pins everywhere
    assert read_lock(lock) and "pytest" in read_lock(lock)
    assert sys.prefix not in lock and str(Path.home()) not in lock  # no folder of the instructor's machine
    python = json.loads((teacher / "runtime.json").read_text(encoding="utf-8"))["python"]
    assert re.search(r"^# python: (\d+\.\d+)\.", lock, re.M).group(1) == python

    spec = yaml.safe_load((release / ".github" / "workflows" / "self-check.yml").read_text(encoding="utf-8"))
    steps = spec["jobs"]["self-check"]["steps"]
    setup = next(s for s in steps if s.get("uses", "").startswith("actions/setup-python@"))
    assert setup["with"]["python-version"] == python
    installs = [line.split() for s in steps for line in s.get("run", "").splitlines() if "pip install" in line]
    assert [[w for w in words if not w.startswith(("--quiet", "--disable-pip"))] for words in installs] == [
        ["python", "-m", "pip", "install", "-r", LOCK_NAME], ["python", "-m", "pip", "install", "--no-deps", "."]]
    runs = [s.get("run", "") for s in steps]
    assert runs.index(next(r for r in runs if "grader check" in r)) > runs.index(next(r for r in runs if "-r " in r))


def test_a_release_built_with_a_lock_ships_that_lock_and_its_python(tmp_path):
    lock = Lock((Pin("pytest", "8.3.4", ("pyproject.toml",)),), "3.12.7", "/somewhere/.venv")

    build_release(Course(ROOT), tmp_path / "release", lock, answer_templates(Course(ROOT)))

    assert (tmp_path / "release" / LOCK_NAME).read_text(encoding="utf-8") == lock.text()
    workflow = (tmp_path / "release" / ".github" / "workflows" / "self-check.yml").read_text(encoding="utf-8")
    assert 'python-version: "3.12"' in workflow and "python -m pip install" in workflow
