"""The release holds no answers (issue 24): no reference body in any form, and nothing in it that scores.

Two checks over every file a student receives (the release, its ``grader/``
package included, and the Classroom 50 autograders):

* (a) no function body of the reference solution that the template leaves to
  the student appears, normalised (its AST, docstrings and comments stripped),
  as a run of statements anywhere in a release file or notebook;
* (b) every class of the release's Python files that defines ``backward``,
  ``tanh`` or ``__call__``, pasted with its module's own code (and the modules
  it imports from the release) into a submission's ``engine.py`` and
  ``nn.py``, scores no more than the untouched template on every assignment.

The same checks run on a release into which the grader's own parts
(``assignments/shared/parts``: a working engine and network) are planted, as
the release of every version before issue 24 held them in ``grader/sandbox``:
there they must report the leak, so the test is known to be able to fail.
"""

from __future__ import annotations

import ast
import functools
import json
import shutil
from pathlib import Path

import pytest
from checkout import ROOT

from grader.cli import main
from grader.course.leaks import bodies_in, solution_bodies

GRADED_METHODS = ("backward", "tanh", "__call__")
ASSIGNMENTS = ("value_ops", "backward", "mlp")


# --- (a) normalised reference bodies: grader.course.leaks (grader release runs it too) ----------------------

def bodies_found(folder: Path) -> list[str]:
    """(a): each reference body that appears in some code under ``folder``."""
    return bodies_in(folder, ROOT / "reference")


# --- (b) what pastes into a submission and scores ---------------------------------------------------------

def _module_name(path: Path, root: Path) -> str:
    return ".".join(path.relative_to(root).with_suffix("").parts)


@functools.cache
def _parsed(text: str) -> ast.Module | None:
    """``text``'s syntax tree (None: not Python), parsed once per text: the release's ``grader/`` is in every Classroom
    50 bundle too (2,200 files, 240 texts). Read only."""
    try:
        return ast.parse(text)
    except SyntaxError:
        return None


def _relative_imports(tree: ast.Module, module: str) -> list[str]:
    """The modules ``module`` imports relatively (``from .x import y``, ``from .. import z``)."""
    package = module.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
            if node.module:
                found.append(f"{base}.{node.module}")
            else:
                found += [f"{base}.{alias.name}" for alias in node.names]
    return found


def modules_under(root: Path) -> dict[str, Path]:
    """Every module under ``root`` by its dotted name (``grader.sandbox.probes``)."""
    return {_module_name(p, root): p for p in root.rglob("*.py")}


def pasted(path: Path, root: Path, files: dict[str, Path] | None = None) -> str:
    """The module at ``path`` with every release module it imports relatively, dependencies first, as one file:
    relative and ``__future__`` imports left out (the names are then defined in the same file). ``files``: what
    :func:`modules_under` gives for ``root`` (found here when not given)."""
    files = modules_under(root) if files is None else files
    order: list[str] = []

    def visit(name: str) -> None:
        if name in order or name not in files:
            return
        order.append(name)  # (cycles: first come first)
        tree = _parsed(files[name].read_text(encoding="utf-8"))
        assert tree is not None, files[name]
        for dep in _relative_imports(tree, name):
            visit(dep)
    visit(_module_name(path, root))
    parts = []
    for name in reversed(order):
        text = files[name].read_text(encoding="utf-8")
        lines = text.splitlines()
        tree = _parsed("\n".join(lines))
        assert tree is not None, files[name]
        drop = set()
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and (node.level or node.module == "__future__"):
                drop.update(range(node.lineno - 1, node.end_lineno or node.lineno))
        parts.append("\n".join(line for i, line in enumerate(lines) if i not in drop))
    return "\n\n".join(parts)


@functools.cache
def _graded_classes_in(text: str) -> tuple[tuple[str, frozenset[str]], ...]:
    """The classes of ``text`` that define ``backward``, ``tanh`` or ``__call__``, each with its methods' names."""
    tree = _parsed(text)
    found = []
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.ClassDef):
            methods = {f.name for f in node.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))}
            if methods & set(GRADED_METHODS):
                found.append((node.name, frozenset(methods)))
    return tuple(found)


def graded_classes(folder: Path) -> list[tuple[Path, str, set[str]]]:
    """Every class in a .py file under ``folder`` that defines ``backward``, ``tanh`` or ``__call__``."""
    return [(path, name, set(methods)) for path in sorted(folder.rglob("*.py"))
            for name, methods in _graded_classes_in(path.read_text(encoding="utf-8"))]


def paste_submissions(folders: list[Path], template: Path, dest: Path) -> dict[str, str]:
    """One submission per class of :func:`graded_classes` in ``folders``: the template with the class's module pasted
    into ``engine.py`` (bound to ``Value`` when it defines ``backward`` or ``tanh``) and into ``nn.py`` (where a class
    named ``Neuron``, ``Layer`` or ``MLP`` replaces the template's); a module pasted already (the Classroom 50 copy
    of a release file) is graded once, and so is a submission the same as one made already (two classes of one
    module that only define ``__call__``: the same two files). Returns submission id to what it holds (the classes
    it stands for, ``; `` between them)."""
    made: dict[str, str] = {}
    seen: set[tuple[str, str]] = set()
    same: dict[tuple[str, str], str] = {}  # (engine.py, nn.py) to the submission that holds them
    for folder in folders:
        files = modules_under(folder)
        for path, name, methods in graded_classes(folder):
            code = pasted(path, folder, files)
            if (code, name) in seen:
                continue
            seen.add((code, name))
            what = f"{folder.name}/{path.relative_to(folder)}: class {name}"
            engine = (template / "engine.py").read_text(encoding="utf-8") + "\n\n" + code
            if methods & {"backward", "tanh"} and name != "Value":
                engine += f"\n\nValue = {name}\n"
            nn = (template / "nn.py").read_text(encoding="utf-8") + "\n\n" + code
            if (engine, nn) in same:
                made[same[engine, nn]] += f"; {what}"
                continue
            sub = dest / f"paste{len(made):03d}" / "micrograd"
            sub.mkdir(parents=True)
            shutil.copy(template / "__init__.py", sub / "__init__.py")
            (sub / "engine.py").write_text(engine, encoding="utf-8")
            (sub / "nn.py").write_text(nn, encoding="utf-8")
            made[sub.parent.name] = what
            same[engine, nn] = sub.parent.name
    return made


def scores_above_template(folders: list[Path], tmp_path: Path) -> list[str]:
    """(b): the pasted classes whose submission scores more than the template on some assignment (hidden grading
    with this course's tests and reference), all of ``folders`` graded in one run."""
    subs = tmp_path / "subs"
    made = paste_submissions(folders, ROOT / "student_template" / "micrograd", subs)
    shutil.copytree(ROOT / "student_template", subs / "template")
    out = tmp_path / "out"
    only = [arg for aid in ASSIGNMENTS for arg in ("-a", aid)]  # what the pastes fill (engine.py, nn.py)
    assert main(["--course", str(ROOT), "grade", str(subs), "-o", str(out), "-j", "2", *only]) == 0
    floor = {aid: json.loads((out / aid / "template" / "results.json").read_text())["score"] for aid in ASSIGNMENTS}
    leaks = []
    for sub, what in made.items():
        for aid in ASSIGNMENTS:
            score = json.loads((out / aid / sub / "results.json").read_text())["score"]
            if score > floor[aid]:
                leaks.append(f"{what} scores {score} on {aid} (the template: {floor[aid]})")
    return leaks


def student_copies(release: Path) -> list[Path]:
    """What students can see: the release and the Classroom 50 autograders (published on a public site)."""
    return [release, release.with_name(release.name + "-classroom50")]


# --- the tests ------------------------------------------------------------------------------------------------

def test_the_reference_has_bodies_to_look_for():
    bodies = solution_bodies(ROOT / "reference")
    assert {"Value.backward", "Value.tanh", "Value.__mul__", "Neuron.__call__", "Layer.__call__", "MLP.__call__",
            "Module.zero_grad"} <= set(bodies)


def test_no_reference_body_is_in_anything_students_receive(release):
    for folder in student_copies(release):
        assert folder.is_dir()
        assert bodies_found(folder) == [], folder


@pytest.mark.timeout(600)
def test_nothing_students_receive_scores_when_pasted_into_a_submission(release, tmp_path):
    release_classes = [f"{p.relative_to(release)}: {n}" for p, n, _ in graded_classes(release)]
    assert any("micrograd/engine.py" in c for c in release_classes)  # the stubs themselves are pasted too
    assert scores_above_template(student_copies(release), tmp_path) == []


@pytest.fixture(scope="module")
def planted(release: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The release with the grader's own parts planted in its grader package, where releases before issue 24
    carried them (``grader/sandbox/stand_ins.py`` and the tables it used)."""
    dest = tmp_path_factory.mktemp("planted") / "release"
    shutil.copytree(release, dest)
    target = dest / "grader" / "sandbox" / "course_parts"
    target.mkdir()
    (target / "__init__.py").write_text("")
    for part in (ROOT / "assignments" / "shared" / "parts").glob("*.py"):
        shutil.copy(part, target / part.name)
    return dest


def test_the_body_check_finds_the_parts_in_a_release_that_holds_them(planted):
    hits = bodies_found(planted)
    assert any(h.startswith("Layer.__call__ in grader/sandbox/course_parts/stand_ins.py") for h in hits), hits


@pytest.mark.timeout(600)
def test_the_paste_check_finds_the_parts_in_a_release_that_holds_them(planted, tmp_path):
    leaks = scores_above_template([planted / "grader" / "sandbox"], tmp_path)
    assert any("stand_ins.py: class Value" in leak and "value_ops" in leak for leak in leaks), leaks
    assert any("stand_ins.py: class Value" in leak and "backward" in leak for leak in leaks), leaks


def test_grader_release_refuses_to_write_a_release_that_holds_a_solution(tmp_path, capsys):
    """An instructor who pastes a reference method into a handout's example or a public test gets an error, and
    no release: the check runs on every ``grader release``."""
    course = tmp_path / "course"
    for name in ("assignments", "reference", "student_template"):
        shutil.copytree(ROOT / name, course / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", course / "pyproject.toml")
    public = course / "assignments" / "mlp" / "tests" / "public" / "test_mlp_public.py"
    public.write_text(public.read_text() + '''

def _an_example_layer_call(self, x):
    outs = [n(x) for n in self.neurons]
    return outs[0] if len(outs) == 1 else outs
''')
    out = tmp_path / "release"
    assert main(["--course", str(course), "release", "-o", str(out)]) == 2
    assert "Layer.__call__ in assignments/mlp/tests/public/test_mlp_public.py" in capsys.readouterr().err
    assert not out.exists() and not out.with_name("release-classroom50").exists()
