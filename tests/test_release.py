"""`grader release` and the notebooks: what students get, and notebooks graded like .py files."""

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

import nbclient
import nbformat
import pytest
import yaml

from grader.check import CheckResult
from grader.cli import build_parser, main
from grader.config import Course
from grader.formats import github
from grader.notebook import notebook_code
from grader.notebooks import build_notebook

ROOT = Path(__file__).resolve().parent.parent
REGION = re.compile(r"# BEGIN SOLUTION.*?\n(.*?)# END SOLUTION", re.S)


@pytest.fixture(scope="module")
def release(tmp_path_factory):
    dest = tmp_path_factory.mktemp("release") / "micrograd-course"
    assert main(["--course", str(ROOT), "release", str(dest)]) == 0
    return dest


def release_text(release: Path) -> str:
    """Everything a student reads in the release except the grader's own source (see the README's
    note: the sandbox's probes must walk a graph themselves, so the grader cannot hide that)."""
    return "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in release.rglob("*")
                     if p.is_file() and "grader" not in p.relative_to(release).parts[:1])


def test_the_release_has_what_students_need(release):
    for path in ("micrograd/engine.py", "micrograd/nn.py", "README.md", "pyproject.toml", "grader/cli.py",
                 ".github/workflows/classroom.yml"):
        assert (release / path).is_file(), path
    for aid in ("value_ops", "backward", "mlp"):
        assert (release / "assignments" / aid / "README.md").is_file()
        assert list((release / "assignments" / aid / "tests" / "public").glob("test_*.py"))
        assert (release / "notebooks" / f"{aid}.ipynb").is_file()
    workflow = (release / ".github" / "workflows" / "classroom.yml").read_text()
    assert "grader check --format github" in workflow and "autograding-grading-reporter" in workflow


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
    boilerplate = {line for line in {l for r in regions for l in r} if sum(line in r for r in regions) >= 2}
    assert len(regions) >= 20
    for lines in regions:
        for line in lines:
            if line not in boilerplate and len(line) > 20:
                assert line not in stripped, line
        for first, second in zip(lines, lines[1:]):
            if not (first in boilerplate and second in boilerplate):
                assert f"{first}\n{second}" not in stripped, (first, second)
    public = {ln.strip() for p in ROOT.glob("assignments/*/tests/public/*.py") for ln in p.read_text().splitlines()}
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
    assert code[-1] == 'import sys\n!"{sys.executable}" -m grader check mlp.ipynb -a mlp'
    assert "student_template" not in (release / "notebooks" / "mlp.ipynb").read_text()


def test_the_check_cell_is_never_run_when_the_notebook_is_graded(release):
    raw = (release / "notebooks" / "value_ops.ipynb").read_bytes()

    code = notebook_code(raw, "value_ops.ipynb")

    checks = [line for line in code.splitlines() if "grader check" in line]
    assert checks and all(line.startswith("pass  # removed by the grader: !") for line in checks)
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
    assert main(["--course", str(solved), "check", str(solved)]) == 0


def test_the_self_check_of_the_release_grades_the_notebook_the_student_filled(release, tmp_path, capsys):
    copy = tmp_path / "release"
    shutil.copytree(release, copy)
    notebook = copy / "notebooks" / "value_ops.ipynb"
    nb = nbformat.read(notebook, as_version=4)
    next(c for c in nb.cells if c.cell_type == "code").source = reference_text("engine.py")
    nbformat.write(nb, notebook)

    assert main(["--course", str(copy), "check", str(copy), "-a", "value_ops"]) == 0
    out = capsys.readouterr().out
    assert "10 / 10 public points" in out
    assert "note: graded notebooks/value_ops.ipynb; ignored micrograd/engine.py, which is unchanged" in out


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
    assert main(["--course", str(ROOT), "grade", str(subs), "-o", str(out)]) == 0
    for aid in ("value_ops", "backward", "mlp"):
        files = json.loads((out / aid / "as_files" / "results.json").read_text())["tests"]
        notebook = json.loads((out / aid / "as_notebook" / "results.json").read_text())["tests"]
        assert [(t["name"], t["score"], t["status"]) for t in files] == [
            (t["name"], t["score"], t["status"]) for t in notebook], aid


# --- What the release tells a student to type must be true -------------------------------------------

STALE = ("no self-check", "not yet", "coming soon")
FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.S | re.M)
INLINE = re.compile(r"`([^`\n]+)`")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
PYTHON = re.compile(r"^(python3?(\.\d+)?|py|\{sys\.executable\}|.*[/\\]python3?(\.exe)?)$")
OPERATORS = {"&&", "||", ";", "|"}


def grader_arguments(line: str) -> list[list[str]]:
    """The argument lists of every ``grader`` invocation on one shell line: ``grader ...``,
    ``python -m grader ...``, ``"{sys.executable}" -m grader ...``, after a notebook's ``!``."""
    line = line.strip()
    line = line[1:] if line.startswith("!") else line[2:] if line.startswith("$ ") else line
    tokens = shlex.split(line, comments=True)
    commands: list[list[str]] = [[]]
    for token in tokens:
        if token in OPERATORS:
            commands.append([])
        else:
            commands[-1].append(token)
    found = []
    for words in commands:
        if words and (words[0] == "grader" or words[0].endswith(("/grader", "\\grader"))):
            found.append(words[1:])
        elif len(words) >= 3 and PYTHON.match(words[0]) and words[1:3] == ["-m", "grader"]:
            found.append(words[3:])
    return found


def markdown_commands(text: str, where: str, cwd: Path) -> list[tuple[str, Path, list[str]]]:
    """Command lines of a Markdown text: every line of a fenced block, and inline code spans
    that invoke ``grader`` with arguments (a bare "`grader`" in prose names the command)."""
    shown = []
    for block in FENCE.findall(text):
        for line in block.splitlines():
            if re.search(r"\bgrader\b", line):
                shown += [(f"{where}: {line.strip()}", cwd, args) for args in grader_arguments(line)]
    prose = FENCE.sub("", text)
    for span in INLINE.findall(prose):
        if re.search(r"\bgrader\b", span):
            shown += [(f"{where}: `{span}`", cwd, args) for args in grader_arguments(span) if args]
    return shown


def student_texts(release: Path) -> dict[str, str]:
    """Everything a student reads about using the release, by path: README, handouts, notebooks,
    the classroom workflow and the dev container."""
    paths = [release / "README.md", *sorted(release.glob("assignments/*/README.md")),
             *sorted(release.glob("notebooks/*.ipynb")), *sorted(release.glob(".github/workflows/*.yml")),
             *sorted(release.glob(".devcontainer/*.json"))]
    return {p.relative_to(release).as_posix(): p.read_text(encoding="utf-8") for p in paths}


def shown_commands(release: Path) -> list[tuple[str, Path, list[str]]]:
    """(where, working folder, arguments) of every ``grader`` command the release shows a student."""
    shown = []
    for name, text in student_texts(release).items():
        if name.endswith(".md"):
            shown += markdown_commands(text, name, release)
        elif name.endswith(".ipynb"):
            for cell in nbformat.reads(text, as_version=4).cells:
                if cell.cell_type == "markdown":
                    shown += markdown_commands(cell.source, name, release)
                elif cell.cell_type == "code":
                    for line in cell.source.splitlines():
                        if line.lstrip().startswith("!"):  # a shell line runs in the notebook's folder
                            shown += [(f"{name}: {line.strip()}", release / "notebooks", args)
                                      for args in grader_arguments(line)]
        elif name.endswith(".yml"):
            for job in yaml.safe_load(text)["jobs"].values():
                for step in job["steps"]:
                    for line in step.get("run", "").splitlines():
                        shown += [(f"{name}: {line.strip()}", release, a) for a in grader_arguments(line)]
        elif name.endswith(".json"):
            spec = json.loads(text)
            for key in ("onCreateCommand", "postCreateCommand", "postStartCommand"):
                command = spec.get(key, "")
                line = command if isinstance(command, str) else shlex.join(command)
                shown += [(f"{name}: {line}", release, a) for a in grader_arguments(line)]
    return shown


def test_every_grader_command_the_release_shows_parses_and_names_real_things(release):
    assignments = {p.name for p in (release / "assignments").iterdir() if (p / "assignment.yaml").is_file()}
    shown = shown_commands(release)
    problems = []
    for where, cwd, args in shown:
        try:
            ns = build_parser().parse_args(args)
        except SystemExit as exc:
            if exc.code != 0:  # --help and --version exit 0
                problems.append(f"{where}: the argument parser rejects {args}")
            continue
        ids = ns.assignment if isinstance(getattr(ns, "assignment", None), list) else [
            getattr(ns, "assignment", None)]
        problems += [f"{where}: no assignment {aid!r}" for aid in ids if aid is not None and aid not in assignments]
        for attr in ("path", "submissions", "submission", "course"):
            value = getattr(ns, attr, None)
            if value is not None and not (cwd / value).exists():
                problems.append(f"{where}: {value} does not exist in {cwd.relative_to(release.parent)}")
    assert not problems, "\n".join(problems)
    # Not vacuous: the README, every handout and every notebook show how to run the self-check.
    checks = {(where.split(":")[0], tuple(ns_args)) for where, _, ns_args in shown if ns_args[:1] == ["check"]}
    assert any(w == "README.md" for w, _ in checks)
    for aid in assignments:
        for doc in (f"assignments/{aid}/README.md", f"notebooks/{aid}.ipynb"):
            assert any(w == doc and ("-a", aid) in zip(a, a[1:]) for w, a in checks), (doc, "shows no check of", aid)


def test_the_release_links_only_to_files_it_holds_and_says_nothing_stale(release):
    for name, text in student_texts(release).items():
        lowered = text.lower()
        assert not [p for p in STALE if p in lowered], (name, [p for p in STALE if p in lowered])
        if name.endswith(".md"):
            for target in LINK.findall(text):
                if "://" in target or target.startswith(("#", "mailto:")):
                    continue
                assert ((release / name).parent / target.split("#")[0]).exists(), (name, target)


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
                 "grading-output/grades.csv", ".pytest_cache/README.md", ".hypothesis/examples/x",
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

REFERENCE = ROOT / "reference" / "micrograd"
BROKEN_TANH = "def _broken_tanh(self):\n    t = self.data\n    raise ArithmeticError('tanh is not done')\n\n\nValue.tanh = _broken_tanh"


def reference_text(name: str) -> str:
    return (REFERENCE / name).read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def notebook_class(tmp_path_factory, release):
    """One grading run of notebook submissions next to the .py files they stand for."""
    subs = tmp_path_factory.mktemp("notebooks") / "subs"
    shutil.copytree(REFERENCE, subs / "reference_files" / "micrograd", ignore=shutil.ignore_patterns("__pycache__"))
    new_md, new_code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    nbformat.write(nbformat.v4.new_notebook(cells=[  # the two files pasted whole, as they are
        new_md("# my micrograd"), new_code(reference_text("engine.py")), new_code(reference_text("nn.py"))]),
        subs / "reference_pasted.ipynb")
    nbformat.write(nbformat.v4.new_notebook(cells=[
        new_md("# engine"), new_code(reference_text("engine.py")), new_md("scratch"), new_code("x = 1"),
        new_md("more"), new_code("y = 2\nif y > 1\n    y = 3")]), subs / "syntax_in_code_cell_3.ipynb")
    nbformat.write(nbformat.v4.new_notebook(cells=[
        new_code(reference_text("engine.py")), new_md("my own tanh"), new_code(BROKEN_TANH)]),
        subs / "raising_in_a_later_cell.ipynb")
    layout = subs / "release_layout"  # the release as a student got it, backward done in its notebook
    for part in ("micrograd", "notebooks", "student_template"):
        shutil.copytree(release / part, layout / part)
    nb = nbformat.read(layout / "notebooks" / "backward.ipynb", as_version=4)
    next(c for c in nb.cells if c.cell_type == "code").source = reference_text("engine.py")
    nbformat.write(nb, layout / "notebooks" / "backward.ipynb")
    out = subs.parent / "out"
    assert main(["--course", str(ROOT), "grade", str(subs), "-o", str(out), "-j", "2"]) == 0
    return out


def graded(out: Path, aid: str, student: str) -> tuple[dict, str]:
    """results.json and feedback.md of one student on one assignment."""
    folder = out / aid / student
    return json.loads((folder / "results.json").read_text()), (folder / "feedback.md").read_text()


def test_the_reference_pasted_whole_into_cells_scores_exactly_like_the_reference_files(notebook_class):
    for aid in ("value_ops", "backward", "mlp"):
        files, _ = graded(notebook_class, aid, "reference_files")
        pasted, feedback = graded(notebook_class, aid, "reference_pasted")
        assert [(t["name"], t["score"], t["status"]) for t in pasted["tests"]] == [
            (t["name"], t["score"], t["status"]) for t in files["tests"]], aid
        assert pasted["score"] == files["score"] > 0 and "Could not grade" not in feedback, aid


def test_a_syntax_error_is_located_in_its_notebook_cell(notebook_class):
    doc, feedback = graded(notebook_class, "value_ops", "syntax_in_code_cell_3")
    problems = doc["extra_data"]["grader"]["problems"]

    assert doc["score"] == 0
    assert problems == ["syntax_in_code_cell_3.ipynb could not be run: raised SyntaxError: expected ':' "
                        "(notebook cell 6 (code cell 3), line 2)"]
    assert "at notebook cell 6 (code cell 3), line 2, in <module>: if y > 1" in feedback
    notes = (notebook_class / "grades.csv").read_text()
    for text in (feedback, doc["output"], json.dumps(doc), notes):
        assert "micrograd/engine.py line" not in text and "engine.py, line" not in text


def test_an_exception_in_a_method_defined_in_a_later_cell_is_located_there(notebook_class):
    doc, feedback = graded(notebook_class, "backward", "raising_in_a_later_cell")
    failed = [t for t in doc["tests"] if t["status"] != "passed"]

    assert failed and 0 < doc["score"] < 50
    tanh = [t["output"] for t in failed if "raised ArithmeticError: tanh is not done" in t["output"]]
    assert tanh and all("at notebook cell 3 (code cell 2), line 3, in _broken_tanh" in o for o in tanh)
    assert "micrograd/engine.py line" not in feedback and "micrograd/engine.py line" not in json.dumps(doc)
    check = CheckResult([Course(ROOT).assignment("backward")], {"backward": doc})
    annotations = github(check, env={})
    assert "::error title=" in annotations and "file=" not in annotations  # no location in a file it is not in


def test_a_filled_notebook_next_to_the_untouched_template_files_is_graded_and_noted(notebook_class):
    doc, feedback = graded(notebook_class, "backward", "release_layout")
    note = ("graded notebooks/backward.ipynb; ignored micrograd/engine.py, which is unchanged from the template")

    assert doc["score"] == 50
    assert f"Note: {note}" in doc["output"] and f"> Note: {note}" in feedback
    for aid in ("value_ops", "mlp"):  # their notebooks are untouched: the template files, no note
        doc, feedback = graded(notebook_class, aid, "release_layout")
        assert doc["score"] == 0 and "Note:" not in doc["output"] and "Note:" not in feedback


# the release notebook run headlessly, self-check cell included --------------------------


def run_notebook(path: Path) -> str:
    """Execute the notebook at ``path`` in a ``python3`` kernel of this environment; the check cell's output."""
    nb = nbformat.read(path, as_version=4)
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}}).execute()
    check = nb.cells[-1]
    assert "grader check" in check.source
    return "".join(o.get("text", "") for o in check.outputs if o.output_type == "stream")


def test_a_release_notebook_runs_headlessly_and_its_check_cell_grades_it(release, tmp_path, monkeypatch):
    """The notebook as a student runs it: the self-check cell runs the grader through the kernel's interpreter."""
    monkeypatch.setenv("JUPYTER_PATH", str(Path(sys.prefix) / "share" / "jupyter"))  # this environment's python3 first
    monkeypatch.setenv("PATH", "/nonexistent")  # no `grader` command to fall back on
    copy = tmp_path / "release"
    shutil.copytree(release, copy)
    notebook = copy / "notebooks" / "value_ops.ipynb"

    template_output = run_notebook(notebook)

    assert "0 / 10 public points" in template_output and "Some public tests fail" in template_output
    assert "NotImplementedError" in template_output
    nb = nbformat.read(notebook, as_version=4)
    next(c for c in nb.cells if c.cell_type == "code").source = reference_text("engine.py")
    nbformat.write(nb, notebook)

    filled_output = run_notebook(notebook)

    assert "10 / 10 public points" in filled_output and "All public tests pass." in filled_output
