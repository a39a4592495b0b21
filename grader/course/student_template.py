"""Generating the student template from the reference solution.

The reference marks every part students write with the nbgrader/otter
solution markers::

    def __mul__(self, other):
        \"\"\"... docstring kept in the template ...\"\"\"
        # BEGIN SOLUTION Task 1.2
        ...reference code...
        # END SOLUTION

Each marked region becomes one line at the marker's indentation::

        raise NotImplementedError("Task 1.2: implement Value.__mul__")

naming the task and the enclosing function (found with :mod:`ast`), so the
template keeps every signature and docstring and fails loudly where work is
left. Files without markers are copied unchanged.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from grader.errors import GraderError

BEGIN = re.compile(r"^(?P<indent>\s*)# BEGIN SOLUTION(?:\s+(?P<task>Task\s+[\w.]+))?\s*$")
END = re.compile(r"^\s*# END SOLUTION\s*$")


def _qualnames(tree: ast.Module) -> list[tuple[int, int, str]]:
    """(first line, last line, qualified name) of every function in ``tree``."""
    spans: list[tuple[int, int, str]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                if not isinstance(child, ast.ClassDef):
                    spans.append((child.lineno, child.end_lineno or child.lineno, name))
                visit(child, name + ".")

    visit(tree, "")
    return spans


def strip_solutions(source: str, filename: str) -> str:
    """Return ``source`` with every solution region replaced by a stub.

    Raises:
        GraderError: On unbalanced markers or a region outside a function.
    """
    spans = _qualnames(ast.parse(source, filename))
    out: list[str] = []
    inside: tuple[int, str] | None = None
    for lineno, line in enumerate(source.splitlines(keepends=True), start=1):
        begin = BEGIN.match(line)
        if begin:
            if inside is not None:
                raise GraderError(f"{filename}:{lineno}: BEGIN SOLUTION inside another solution region")
            enclosing = [s for s in spans if s[0] <= lineno <= s[1]]
            if not enclosing:
                raise GraderError(f"{filename}:{lineno}: a solution region must be inside a function")
            qualname = max(enclosing, key=lambda s: s[0])[2]
            task = begin.group("task")
            label = f"{task}: implement {qualname}" if task else f"implement {qualname}"
            out.append(f'{begin.group("indent")}raise NotImplementedError("{label}")\n')
            inside = (lineno, qualname)
        elif END.match(line):
            if inside is None:
                raise GraderError(f"{filename}:{lineno}: END SOLUTION without BEGIN SOLUTION")
            inside = None
        elif inside is None:
            out.append(line)
    if inside is not None:
        raise GraderError(f"{filename}:{inside[0]}: BEGIN SOLUTION is never closed")
    return "".join(out)


def generate(reference_dir: Path, package: str) -> dict[str, str]:
    """Template files generated from ``reference_dir/<package>`` (``reference/micrograd``): relative path
    (``micrograd/engine.py``) to text.

    Raises:
        GraderError: If the reference package is missing or its markers are invalid.
    """
    folder = reference_dir / package
    if not folder.is_dir():
        raise GraderError(f"no reference package at {folder}")
    files = {}
    for path in sorted(folder.glob("*.py")):
        rel = f"{package}/{path.name}"
        files[rel] = strip_solutions(path.read_text(encoding="utf-8"), rel)
    return files


def _packages(generated: dict[str, str]) -> set[str]:
    return {rel.split("/", 1)[0] for rel in generated}


def differences(generated: dict[str, str], template_dir: Path) -> list[str]:
    """Relative paths where ``template_dir`` differs from ``generated`` (missing or extra files included)."""
    on_disk = {f"{package}/{p.name}": p.read_text(encoding="utf-8")
               for package in _packages(generated) for p in sorted((template_dir / package).glob("*.py"))}
    return sorted(k for k in set(generated) | set(on_disk) if generated.get(k) != on_disk.get(k))


def write(generated: dict[str, str], template_dir: Path) -> None:
    """Write the generated files into ``template_dir``, removing stale ``.py`` files."""
    for package in _packages(generated):
        (template_dir / package).mkdir(parents=True, exist_ok=True)
        for stale in (template_dir / package).glob("*.py"):
            if f"{package}/{stale.name}" not in generated:
                stale.unlink()
    for rel, text in generated.items():
        (template_dir / rel).write_text(text, encoding="utf-8")
