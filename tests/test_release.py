"""`grader release` and the notebooks: what students get, and notebooks graded like .py files."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import nbformat
import pytest

from grader.cli import main
from grader.config import Course
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
    assert code[-1].startswith("!grader check mlp.ipynb")


def test_the_self_check_runs_inside_the_release(release, capsys):
    assert main(["--course", str(release), "check", str(release), "-a", "value_ops"]) == 1
    assert "0 / 10 public points" in capsys.readouterr().out
    solved = release.parent / "solved"
    shutil.copytree(release, solved)
    shutil.copytree(ROOT / "reference" / "micrograd", solved / "micrograd", dirs_exist_ok=True)
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
    assert main(["--course", str(ROOT), "grade", str(subs), "-o", str(out)]) == 0
    for aid in ("value_ops", "backward", "mlp"):
        files = json.loads((out / aid / "as_files" / "results.json").read_text())["tests"]
        notebook = json.loads((out / aid / "as_notebook" / "results.json").read_text())["tests"]
        assert [(t["name"], t["score"], t["status"]) for t in files] == [
            (t["name"], t["score"], t["status"]) for t in notebook], aid
