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
    if body and _is_docstring(body[0]):
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
    grader/x.py"`` (empty: none).

    A text met again (the grader's copy in the release and in each Classroom 50 bundle) is searched once, and a
    statement is dumped only where the kinds of statement around it already match a body's (dumping every
    statement of every file took 25 s of a 27 s ``grader release``)."""
    wanted = solution_bodies(reference_dir)
    kinds = {name: [dump.split("(", 1)[0] for dump in body] for name, body in wanted.items()}
    found_in: dict[str, list[str]] = {}
    hits = []
    for where, text in code_texts(folder):
        if text not in found_in:
            found_in[text] = _bodies_in_text(text, wanted, kinds)
        hits += [f"{name} in {where}" for name in found_in[text]]
    return hits


def _bodies_in_text(text: str, wanted: dict[str, list[str]], kinds: dict[str, list[str]]) -> list[str]:
    """The names of ``wanted``'s bodies (``kinds``: each one's statement kinds, ``Assign``, ``Return``...) that appear
    as a run of consecutive statements in some body of ``text``."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    runs = [body for node in ast.walk(tree) if isinstance(body := getattr(node, "body", None), list)]
    dumps: dict[int, str] = {}

    def dumped(stmt: ast.stmt) -> str:
        if id(stmt) not in dumps:
            dumps[id(stmt)] = ast.dump(stmt, annotate_fields=False)
        return dumps[id(stmt)]

    found = []
    for name, body in wanted.items():
        n, first = len(body), kinds[name]
        for run in runs:
            start = 1 if run and _is_docstring(run[0]) else 0
            own = [type(stmt).__name__ for stmt in run]
            if any(own[i:i + n] == first and all(dumped(run[i + k]) == body[k] for k in range(n))
                   for i in range(start, len(run) - n + 1)):
                found.append(name)
                break
    return found


def _is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)
