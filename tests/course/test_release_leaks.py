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
import json
import re
import shutil
from pathlib import Path

import nbformat
import pytest

from grader.cli import main

ROOT = Path(__file__).resolve().parents[2]
REGION = re.compile(r"# BEGIN SOLUTION")
GRADED_METHODS = ("backward", "tanh", "__call__")
KINDS = ("Value", "Neuron", "Layer", "MLP")
ASSIGNMENTS = ("value_ops", "backward", "mlp")


# --- (a) normalised reference bodies ---------------------------------------------------------------------

def _statements(body: list[ast.stmt]) -> list[str]:
    """A body as comparable text: each statement's AST dump, a leading docstring left out."""
    if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant) \
            and isinstance(body[0].value.value, str):
        body = body[1:]
    return [ast.dump(stmt, annotate_fields=False) for stmt in body]


def reference_bodies() -> dict[str, list[str]]:
    """Every function of the reference whose body the template leaves to the student (it holds a solution
    region), normalised: ``Class.method`` to its statements."""
    found = {}
    for source in sorted((ROOT / "reference" / "micrograd").glob("*.py")):
        text = source.read_text(encoding="utf-8")
        lines = text.splitlines()
        for node in ast.walk(ast.parse(text)):
            body = getattr(node, "body", None)
            for item in body if isinstance(body, list) else []:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    segment = "\n".join(lines[item.lineno - 1:item.end_lineno])
                    if REGION.search(segment):
                        owner = node.name if isinstance(node, ast.ClassDef) else source.stem
                        found[f"{owner}.{item.name}"] = _statements(item.body)
    return found


def _code_texts(folder: Path) -> list[tuple[str, str]]:
    """Every Python text a student receives under ``folder``: .py files and notebooks' code cells."""
    texts = []
    for path in sorted(folder.rglob("*")):
        if path.suffix == ".py":
            texts.append((str(path.relative_to(folder)), path.read_text(encoding="utf-8", errors="replace")))
        elif path.suffix == ".ipynb":
            nb = nbformat.read(path, as_version=4)
            cells = [c.source for c in nb.cells if c.cell_type == "code"]
            texts.append((str(path.relative_to(folder)), "\n".join(
                "\n".join(line for line in cell.splitlines() if not line.lstrip().startswith(("!", "%")))
                for cell in cells)))
    return texts


def bodies_found(folder: Path) -> list[str]:
    """(a): each reference body that appears as a run of statements in some code under ``folder``."""
    wanted = {name: body for name, body in reference_bodies().items() if body}
    hits = []
    for where, text in _code_texts(folder):
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        runs = [_statements(node.body) for node in ast.walk(tree) if isinstance(getattr(node, "body", None), list)]
        for name, body in wanted.items():
            for run in runs:
                if any(run[i:i + len(body)] == body for i in range(len(run) - len(body) + 1)):
                    hits.append(f"{name} in {where}")
                    break
    return hits


# --- (b) what pastes into a submission and scores ---------------------------------------------------------

def _module_name(path: Path, root: Path) -> str:
    return ".".join(path.relative_to(root).with_suffix("").parts)


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


def pasted(path: Path, root: Path) -> str:
    """The module at ``path`` with every release module it imports relatively, dependencies first, as one file:
    relative and ``__future__`` imports left out (the names are then defined in the same file)."""
    files = {_module_name(p, root): p for p in root.rglob("*.py")}
    order: list[str] = []

    def visit(name: str) -> None:
        if name in order or name not in files:
            return
        order.append(name)  # (cycles: first come first)
        for dep in _relative_imports(ast.parse(files[name].read_text(encoding="utf-8")), name):
            visit(dep)
    visit(_module_name(path, root))
    parts = []
    for name in reversed(order):
        lines = files[name].read_text(encoding="utf-8").splitlines()
        tree = ast.parse("\n".join(lines))
        drop = set()
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and (node.level or node.module == "__future__"):
                drop.update(range(node.lineno - 1, node.end_lineno or node.lineno))
        parts.append("\n".join(line for i, line in enumerate(lines) if i not in drop))
    return "\n\n".join(parts)


def graded_classes(folder: Path) -> list[tuple[Path, str, set[str]]]:
    """Every class in a .py file under ``folder`` that defines ``backward``, ``tanh`` or ``__call__``."""
    found = []
    for path in sorted(folder.rglob("*.py")):
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                methods = {f.name for f in node.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))}
                if methods & set(GRADED_METHODS):
                    found.append((path, node.name, methods))
    return found


def paste_submissions(folder: Path, template: Path, dest: Path) -> dict[str, str]:
    """One submission per class of :func:`graded_classes`: the template with the class's module pasted into
    ``engine.py`` (bound to ``Value`` when it defines ``backward`` or ``tanh``) and into ``nn.py`` (where a class
    named ``Neuron``, ``Layer`` or ``MLP`` replaces the template's). Returns submission id to what it holds."""
    made = {}
    for k, (path, name, methods) in enumerate(graded_classes(folder)):
        code = pasted(path, folder)
        sub = dest / f"paste{k:03d}" / "micrograd"
        sub.mkdir(parents=True)
        shutil.copy(template / "__init__.py", sub / "__init__.py")
        engine = (template / "engine.py").read_text(encoding="utf-8") + "\n\n" + code
        if methods & {"backward", "tanh"} and name != "Value":
            engine += f"\n\nValue = {name}\n"
        (sub / "engine.py").write_text(engine, encoding="utf-8")
        (sub / "nn.py").write_text((template / "nn.py").read_text(encoding="utf-8") + "\n\n" + code, encoding="utf-8")
        made[sub.parent.name] = f"{path.relative_to(folder)}: class {name}"
    return made


def scores_above_template(folder: Path, tmp_path: Path) -> list[str]:
    """(b): the pasted classes whose submission scores more than the template on some assignment (hidden grading
    with this course's tests and reference)."""
    subs = tmp_path / "subs"
    made = paste_submissions(folder, ROOT / "student_template" / "micrograd", subs)
    shutil.copytree(ROOT / "student_template", subs / "template")
    out = tmp_path / "out"
    assert main(["--course", str(ROOT), "grade", str(subs), "-o", str(out), "-j", "2"]) == 0
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
    bodies = reference_bodies()
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
    for k, folder in enumerate(student_copies(release)):
        assert scores_above_template(folder, tmp_path / str(k)) == [], folder


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
    leaks = scores_above_template(planted / "grader" / "sandbox", tmp_path)
    assert any("stand_ins.py: class Value" in leak and "value_ops" in leak for leak in leaks), leaks
    assert any("stand_ins.py: class Value" in leak and "backward" in leak for leak in leaks), leaks
