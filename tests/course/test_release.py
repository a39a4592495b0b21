"""`grader release`: what students get, the set-up as the release README gives it, and the self-check inside it."""

from __future__ import annotations

import functools
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import nbformat
import pytest
from checkout import ROOT
from course_runs import reference_code

from grader.cli import main
from grader.course.course import Course
from grader.course.handouts import build_notebook
from grader.intake.notebook import notebook_code
from grader.intake.notebook_imports import OwnCode

OWN = OwnCode("micrograd/engine.py", frozenset({"engine", "nn"}))
"""What a notebook of the course stands for: its code is staged as the engine, and nn imports it."""


REGION = re.compile(r"# BEGIN SOLUTION.*?\n(.*?)# END SOLUTION", re.S)


def release_text(release: Path) -> str:
    """Everything a student reads in the release, the grader's own source included (it holds no part of an
    answer since issue 24: the grader's own engine and network live in ``assignments/shared/parts``)."""
    return "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in release.rglob("*") if p.is_file())


def test_the_release_has_what_students_need(release):
    for path in ("micrograd/engine.py", "micrograd/nn.py", "README.md", "pyproject.toml", "grader/cli.py",
                 ".github/workflows/self-check.yml", "assignments/probe_seconds.json"):
        assert (release / path).is_file(), path
    for aid in ("value_ops", "backward", "mlp"):
        assert (release / "assignments" / aid / "README.md").is_file()
        assert list((release / "assignments" / aid / "tests" / "public").glob("test_*.py"))
        assert (release / "notebooks" / f"{aid}.ipynb").is_file()
    workflow = (release / ".github" / "workflows" / "self-check.yml").read_text()
    assert "grader check --format github" in workflow
    # Classroom 50 reserves .github/workflows/autograde.yaml for its caller workflow
    assert not (release / ".github" / "workflows" / "autograde.yaml").exists()


def test_no_release_file_refers_to_the_retired_github_classroom_reporter(release):
    """GitHub Classroom was shut down on 28 August 2026; nothing reads its reporter's result any more."""
    teacher = release.with_name(release.name + "-classroom50")
    for path in [*release.rglob("*"), *teacher.rglob("*")]:
        if path.is_file():
            text = path.read_text(encoding="utf-8", errors="replace")
            assert "autograding-grading-reporter" not in text and "classroom-resources" not in text, path


def test_the_release_holds_no_reference_body_and_no_hidden_test(release):
    """No solution body: no line, and no two consecutive lines, that are specific to one solution region.
    Boilerplate shared by two or more regions (``return out``, wrapping plain numbers) may appear in
    a handout's pattern; what makes a body a solution may not."""
    text = release_text(release)
    stripped = "\n".join(line.strip() for line in text.splitlines())
    regions = []
    for source in (ROOT / "reference" / "micrograd").glob("*.py"):
        for region in REGION.findall(source.read_text()):
            regions.append([ln.strip() for ln in region.splitlines() if ln.strip() and not ln.strip().startswith("#")])
    boilerplate = {line for line in {ln for r in regions for ln in r} if sum(line in r for r in regions) >= 2}
    assert len(regions) >= 20
    for lines in regions:
        for line in lines:
            if line not in boilerplate and len(line) > 20:
                assert line not in stripped, line
        for first, second in zip(lines, lines[1:]):
            if not (first in boilerplate and second in boilerplate):
                assert f"{first}\n{second}" not in stripped, (first, second)
    released = [*ROOT.glob("assignments/*/tests/public/*.py"), *ROOT.glob("grader/**/*.py"),
                *ROOT.glob("assignments/shared/probes/*.py"), *ROOT.glob("assignments/shared/checks/*.py"),
                *ROOT.glob("assignments/*/*.py")]  # the grader, and the course code a release holds
    public = {ln.strip() for p in released for ln in p.read_text().splitlines()}  # e.g. the grader API's own example
    for hidden in ROOT.glob("assignments/*/tests/hidden/*.py"):
        assert not list(release.rglob(hidden.name))
        for line in hidden.read_text().splitlines():
            line = line.strip()
            if len(line) > 40 and line not in public and not line.startswith(("#", "import", "from", '"""')):
                assert line not in text, (hidden.name, line)
    assert not list(release.rglob("bugs.yaml")) and not (release / "reference").exists()


def test_notebooks_hold_the_handout_the_stubs_and_a_self_check(release):
    nb = nbformat.read(release / "notebooks" / "mlp.ipynb", as_version=4)
    nbformat.validate(nb)
    code = [c.source for c in nb.cells if c.cell_type == "code"]
    assert nb.cells[0].cell_type == "markdown" and "Assignment 3" in nb.cells[0].source
    assert any("NotImplementedError(\"Task 3.1" in c for c in code)
    assert code[-1].splitlines()[-1].strip() == (
        '!"{sys.executable}" -m grader check "{saved_notebook(\'mlp.ipynb\')}" -a mlp')
    assert "if __name__ == \"__main__\":" in code[-1] and "Path.cwd()" in code[-1]  # the course, from where it runs
    assert "student_template" not in (release / "notebooks" / "mlp.ipynb").read_text()


def test_the_check_cell_is_never_run_when_the_notebook_is_graded(release):
    raw = (release / "notebooks" / "value_ops.ipynb").read_bytes()

    code = notebook_code(raw, "value_ops.ipynb", OWN)

    checks = [line for line in code.splitlines() if "-m grader" in line]
    assert checks and all(line.lstrip().startswith("pass  # removed by the grader: !") for line in checks)
    assert not any(line.lstrip().startswith("!") for line in code.splitlines())
    assert "import sys" in code and compile(code, "engine.py", "exec")


def test_the_release_keeps_an_untouched_copy_of_the_template(release):
    for name in ("engine.py", "nn.py"):
        assert (release / "student_template" / "micrograd" / name).read_bytes() == (
            ROOT / "student_template" / "micrograd" / name).read_bytes()


def test_the_self_check_runs_inside_the_release(release, capsys):
    assert main(["--course", str(release), "check", str(release), "-a", "value_ops"]) == 1
    assert "0 / 10 public points" in capsys.readouterr().out
    solved = release.parent / "solved"
    shutil.copytree(release, solved)
    shutil.copytree(ROOT / "reference" / "micrograd", solved / "micrograd", dirs_exist_ok=True)
    assert main(["--course", str(solved), "check", str(solved)]) == 1  # the checkpoint's answers are still empty
    shutil.copy(ROOT / "examples" / "submissions" / "correct_recursive" / "answers" / "checkpoint.yaml",
                solved / "answers" / "checkpoint.yaml")
    assert main(["--course", str(solved), "check", str(solved)]) == 0


def test_a_notebook_is_graded_exactly_like_the_same_py_files(tmp_path):
    course = Course(ROOT)
    sources = {f"micrograd/{p.name}": p.read_text() for p in (ROOT / "examples" / "submissions" / "bug_wrong_tanh"
                                                               / "micrograd").glob("*.py")}
    subs = tmp_path / "subs"
    shutil.copytree(ROOT / "examples" / "submissions" / "bug_wrong_tanh", subs / "as_files")
    mlp = course.assignment("mlp")
    nb = build_notebook(mlp, sources, "# handout")
    nb.cells.insert(1, nbformat.v4.new_code_cell("%matplotlib inline\n!pip install graphviz"))
    nbformat.write(nb, subs / "as_notebook.ipynb")
    out = tmp_path / "out"
    engine_and_network = ("value_ops", "backward", "mlp")  # graded from engine.py and nn.py, all the example holds
    assert main(["--course", str(ROOT), "grade", str(subs), "-o", str(out),
                 *[x for aid in engine_and_network for x in ("-a", aid)]]) == 0
    for aid in engine_and_network:
        files = json.loads((out / aid / "as_files" / "results.json").read_text())["tests"]
        notebook = json.loads((out / aid / "as_notebook" / "results.json").read_text())["tests"]
        assert [(t["name"], t["score"], t["status"]) for t in files] == [
            (t["name"], t["score"], t["status"]) for t in notebook], aid


# --- The set-up works as written ----------------------------------------------------------------------

BUILDS_EDITABLE_OFFLINE = """\
import importlib.util
try:
    import setuptools
except ImportError:
    print(False)
else:
    version = tuple(int(part) for part in setuptools.__version__.split(".")[:2])
    print(version >= (70, 1) or (version >= (64, 0) and importlib.util.find_spec("wheel") is not None))
"""


@pytest.mark.timeout(600)
def test_the_readme_set_up_gives_a_working_grader_check_in_a_fresh_virtual_environment(release, tmp_path):
    """README: ``python3 -m venv .venv``, activate, ``python -m pip install -e .``, ``grader check``.

    The release's dependencies are not downloaded: the new environment sees this test's installed
    packages through a ``.pth`` file (``--system-site-packages`` would give the base interpreter's,
    not this virtual environment's) and pip installs the release with ``--no-deps``. When the
    setuptools the new environment sees can build an editable wheel by itself (70.1+, or 64+ with
    ``wheel``), it builds with ``--no-build-isolation --no-index``, without any network; otherwise pip
    builds in isolation as for a student, fetching setuptools from PyPI.
    """
    course = tmp_path / "micrograd-course"
    shutil.copytree(release, course)
    run = functools.partial(subprocess.run, capture_output=True, text=True, timeout=300)
    made = run([sys.executable, "-m", "venv", ".venv"], cwd=course)
    assert made.returncode == 0, made.stderr
    scripts = course / ".venv" / ("Scripts" if os.name == "nt" else "bin")
    python = scripts / ("python.exe" if os.name == "nt" else "python")
    site = run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip()
    ours = {sysconfig.get_paths()[key] for key in ("purelib", "platlib")}
    (Path(site) / "test-dependencies.pth").write_text("\n".join(sorted(ours)) + "\n", encoding="utf-8")
    # "source .venv/bin/activate": the environment's scripts first on PATH, VIRTUAL_ENV set.
    env = {**os.environ, "VIRTUAL_ENV": str(course / ".venv"), "PATH": f"{scripts}{os.pathsep}{os.environ['PATH']}"}
    env.pop("PYTHONHOME", None)
    backend = run([str(python), "-c", BUILDS_EDITABLE_OFFLINE], cwd=tmp_path, env=env).stdout.strip() == "True"
    flags = ["--no-deps", "--no-build-isolation", "--no-index"] if backend else ["--no-deps"]
    installed = run([str(python), "-m", "pip", "install", "--disable-pip-version-check", *flags, "-e", "."],
                    cwd=course, env=env)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    where = run([str(python), "-c", "import grader; print(grader.__file__)"], cwd=tmp_path, env=env)
    assert Path(where.stdout.strip()).resolve().is_relative_to(course.resolve()), where  # the release's grader

    grader = shutil.which("grader", path=env["PATH"])
    assert grader and Path(grader).parent == scripts, grader  # the console script pip just installed
    checked = run([grader, "check", "-a", "value_ops"], cwd=course, env=env)
    assert checked.returncode == 1, checked.stdout + checked.stderr  # the template passes nothing
    assert "0 / 10 public points" in checked.stdout and "Task 1.1" in checked.stdout, checked.stdout


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_the_gitignore_hides_what_set_up_and_tools_create_and_nothing_of_the_release(release, tmp_path):
    course = tmp_path / "course"
    shutil.copytree(release, course)
    shipped = sorted(p.relative_to(course).as_posix() for p in course.rglob("*") if p.is_file())
    generated = [".venv/bin/python", "venv/pyvenv.cfg", "micrograd_grader.egg-info/PKG-INFO",
                 "grader/__pycache__/cli.cpython-312.pyc", "micrograd/__pycache__/engine.cpython-310.pyc",
                 "build/lib/grader/cli.py", "notebooks/.ipynb_checkpoints/mlp-checkpoint.ipynb",
                 "grading-output/grades.csv", "result.json", "release-body.md", ".pytest_cache/README.md",
                 ".hypothesis/examples/x",
                 ".DS_Store", "notebooks/.DS_Store", "Thumbs.db", "micrograd/Thumbs.db"]
    for rel in generated:
        (course / rel).parent.mkdir(parents=True, exist_ok=True)
        (course / rel).write_text("x", encoding="utf-8")
    git = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}  # only the release's rules
    assert subprocess.run(["git", "init", "-q"], cwd=course, env=git, timeout=60).returncode == 0
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=course, env=git,
                            capture_output=True, text=True, timeout=60)
    listed = sorted(line[3:].strip('"') for line in status.stdout.splitlines())
    assert listed == shipped  # every generated file ignored, every shipped file visible


def test_the_dev_container_installs_the_grader_with_python_and_jupyter(release):
    spec = json.loads((release / ".devcontainer" / "devcontainer.json").read_text(encoding="utf-8"))  # plain JSON
    image, _, tag = spec["image"].partition(":")
    assert image == "mcr.microsoft.com/devcontainers/python"
    version = re.search(r"(?:^|-)(3\.\d+)(?:-|$)", tag).group(1)
    oldest = re.search(r'requires-python = ">=(3\.\d+)"', (release / "pyproject.toml").read_text()).group(1)
    assert tuple(map(int, version.split("."))) >= tuple(map(int, oldest.split("."))), (version, oldest)
    words = shlex.split(spec["postCreateCommand"])
    assert words[:4] == ["python", "-m", "pip", "install"] and "-e" in words and words[words.index("-e") + 1] == "."
    assert {"ms-python.python", "ms-toolsai.jupyter"} <= set(spec["customizations"]["vscode"]["extensions"])
    readme = (release / "README.md").read_text(encoding="utf-8")
    assert f"You need Python {oldest} or newer" in readme


# notebooks graded like the files they stand for ---------------------------------------


def test_the_self_check_runs_the_network_on_the_students_engine_and_names_an_engine_bug_first(release, capsys,
                                                                                              monkeypatch):
    """A release holds no grader parts (they are a working engine and network): the network's public tests run on
    the student's own engine, and a wrong engine operation is named as the method to fix first."""
    work = release.parent / "engine-bug"
    shutil.copytree(release, work)
    for name in ("engine", "nn"):
        text = "".join(line for line in (ROOT / "reference" / "micrograd" / f"{name}.py").read_text().splitlines(True)
                       if "# BEGIN SOLUTION" not in line and "# END SOLUTION" not in line)
        (work / "micrograd" / f"{name}.py").write_text(text.replace("t = math.tanh(self.data)",
                                                                    "t = math.tanh(self.data) * 0.5"))
    assert (work / "assignments" / "shared" / "probes").is_dir() and not (work / "assignments" / "shared" / "parts").exists()
    capsys.readouterr()
    assert main(["--course", str(work), "check", str(work), "-a", "mlp"]) == 1
    out = capsys.readouterr().out
    assert "Value.tanh: the self-check runs the network on your own Value" in out
    assert "fix Value.tanh first" in out
    monkeypatch.chdir(work)  # Classroom 50's release body, with its "Start here"
    assert main(["--course", str(work), "check", str(work), "-a", "mlp", "--format", "classroom50"]) == 0
    body = (work / "release-body.md").read_text()
    assert "Value.tanh" in body.split("Start here")[1].splitlines()[0] + body.split("Start here")[1][:300]
    assert "made by the grader" not in out  # no grader parts were used, so the feedback does not say so
    # the untouched template: the network's own stubs come first, not the engine's
    assert main(["--course", str(release), "check", str(release), "-a", "mlp"]) == 1
    assert "Neuron.__init__: your code raised NotImplementedError" in capsys.readouterr().out



WHOLE_GRAPH = '''

def checkpointed_backward(layers, checkpoints, every, upstream=1.0):  # right gradients, the whole graph alive
    start = Value(checkpoints[0])
    h = start
    for layer in layers:
        h = layer(h)
    (h * upstream).backward()
    return start.grad
'''


def test_the_checkpointing_self_check_counts_on_the_students_engine(release, tmp_path, capsys):
    """No grader's parts in a student's copy: the probe counts in the worker, with the same verdicts (a correct pass
    gets every public point, one backward() over the whole chain loses the count cases)."""
    scores = {}
    for name, extra in (("right", ""), ("whole", WHOLE_GRAPH)):
        work = tmp_path / name
        shutil.copytree(release, work)
        (work / "micrograd" / "engine.py").write_text(reference_code("engine.py"))
        (work / "micrograd" / "checkpointing.py").write_text(reference_code("checkpointing.py") + extra)
        capsys.readouterr()
        status = main(["--course", str(work), "check", str(work), "-a", "checkpointing", "-v"])
        scores[name] = (status, capsys.readouterr().out)
    assert scores["right"][0] == 0 and "Total: 15 / 15 public points" in scores["right"][1], scores["right"][1][-3000:]
    status, printed = scores["whole"]
    assert status == 1 and "ran backward() 1 times, holding up to 7 activations at once" in printed, printed[-3000:]
