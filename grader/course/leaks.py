"""Whether what students receive holds a solution: the reference's function bodies, looked for in every file.

A *solution body* is the body of a function of ``reference/micrograd`` that
holds a ``# BEGIN SOLUTION`` region (the template leaves it to the student),
normalised: each statement's AST dump, a leading docstring left out (comments
are not in the AST), so reformatting, comments and docstrings do not hide it.
A release *holds* one when it appears as a run of consecutive statements in
any body (a module's, a class's, a function's, a loop's) of a ``.py`` file or
of a notebook's code cells. ``grader release`` refuses to write such a
release; ``tests/course/test_release_leaks.py`` adds the check that nothing in
a release scores when pasted into a submission.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import nbformat

MARKER = re.compile(r"# BEGIN SOLUTION")


def statements(body: list[ast.stmt]) -> list[str]:
    """A body as comparable text: each statement's AST dump, a leading docstring left out."""
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        body = body[1:]
    return [ast.dump(stmt, annotate_fields=False) for stmt in body]


def solution_bodies(reference_dir: Path) -> dict[str, list[str]]:
    """Every function of the reference's package (``reference_dir/micrograd``: each folder of ``reference_dir``
    holding an ``__init__.py``) whose body holds a solution region, normalised: ``Class.method`` (or
    ``module.function``) to its statements."""
    found: dict[str, list[str]] = {}
    for source in sorted(p for init in reference_dir.glob("*/__init__.py") for p in init.parent.glob("*.py")):
        text = source.read_text(encoding="utf-8")
        lines = text.splitlines()
        for node in ast.walk(ast.parse(text)):
            body = getattr(node, "body", None)
            for item in body if isinstance(body, list) else []:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    if MARKER.search("\n".join(lines[item.lineno - 1:item.end_lineno])):
                        owner = node.name if isinstance(node, ast.ClassDef) else source.stem
                        found[f"{owner}.{item.name}"] = statements(item.body)
    return {name: body for name, body in found.items() if body}


def code_texts(folder: Path) -> list[tuple[str, str]]:
    """Every Python text under ``folder``: ``.py`` files, and each notebook's code cells as one module (shell and
    magic lines left out). Paths are relative to ``folder``; a file that cannot be read is skipped."""
    texts = []
    for path in sorted(folder.rglob("*")):
        if not path.is_file() or path.is_symlink():
            continue
        where = path.relative_to(folder).as_posix()
        if path.suffix == ".py":
            texts.append((where, path.read_text(encoding="utf-8", errors="replace")))
        elif path.suffix == ".ipynb":
            try:
                nb = nbformat.read(path, as_version=4)
            except Exception:  # noqa: BLE001 - not a notebook after all: nothing of code to look at
                continue
            cells = [c.source for c in nb.cells if c.cell_type == "code"]
            texts.append((where, "\n".join("\n".join(line for line in cell.splitlines()
                                                     if not line.lstrip().startswith(("!", "%"))) for cell in cells)))
    return texts


def bodies_in(folder: Path, reference_dir: Path) -> list[str]:
    """Each solution body of the reference that appears in some code under ``folder``, as ``"Value.tanh in
    grader/x.py"`` (empty: none)."""
    wanted = solution_bodies(reference_dir)
    hits = []
    for where, text in code_texts(folder):
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        runs = [statements(body) for node in ast.walk(tree) if isinstance(body := getattr(node, "body", None), list)]
        for name, body in wanted.items():
            if any(run[i:i + len(body)] == body for run in runs for i in range(len(run) - len(body) + 1)):
                hits.append(f"{name} in {where}")
    return hits
