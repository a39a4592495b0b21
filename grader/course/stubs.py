"""Synthetic "method missing" mutants: the reference with one method put back to the template's stub.

A student who has not done a task yet hands in the template's stub of that
method (``raise NotImplementedError("Task 1.2: ...")``). ``grader validate``
grades one such mutant per stubbed method and measures what it costs outside
the tests about that method (its *cascade*, see :mod:`grader.commands.validate`).

Methods are found with :mod:`ast` in the student template: every method of a
class, and every top-level function, whose body raises ``NotImplementedError``. The mutant replaces the
reference's whole method (decorators to last line) with the template's.
"""

from __future__ import annotations

import ast
from pathlib import Path

from grader.course.catalogue import Bug
from grader.errors import ConfigError


def _methods(source: str) -> dict[str, ast.FunctionDef]:
    """Every method of every top-level class, by ``Class.method``, and every top-level function, by its name."""
    found: dict[str, ast.FunctionDef] = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef):
            found[node.name] = node
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    found[f"{node.name}.{item.name}"] = item
    return found


def _raises_not_implemented(func: ast.FunctionDef) -> bool:
    for node in ast.walk(func):
        if isinstance(node, ast.Raise) and node.exc is not None:
            exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            if isinstance(exc, ast.Name) and exc.id == "NotImplementedError":
                return True
    return False


def _segment(lines: list[str], func: ast.FunctionDef) -> str:
    first = min([func.lineno] + [d.lineno for d in func.decorator_list])
    return "".join(lines[first - 1 : func.end_lineno])


def missing_method_mutants(reference_dir: Path, template_dir: Path, files: list[str]) -> list[Bug]:
    """One mutant per stubbed method of ``files``: the reference with that method replaced by its stub.

    Args:
        reference_dir: Folder holding the reference's ``micrograd/``.
        template_dir: Folder holding the student template's ``micrograd/``.
        files: Package files to look in, e.g. ``["micrograd/engine.py"]``.

    Returns:
        :class:`~grader.course.catalogue.Bug` records with id ``missing__Class__method``, the method,
        and no ``caught_by`` (the tests about a method are those that declare it).

    Raises:
        ConfigError: If a stubbed method has no counterpart in the reference, or its text is not unique there.
    """
    mutants = []
    for file in files:
        template = (template_dir / file).read_text(encoding="utf-8")
        reference = (reference_dir / file).read_text(encoding="utf-8")
        ref_methods, ref_lines = _methods(reference), reference.splitlines(keepends=True)
        tpl_lines = template.splitlines(keepends=True)
        for name, stub in _methods(template).items():
            if not _raises_not_implemented(stub):
                continue
            if name not in ref_methods:
                raise ConfigError(template_dir / file, name, "a stubbed method the reference does not have")
            find = _segment(ref_lines, ref_methods[name])
            if reference.count(find) != 1:
                raise ConfigError(reference_dir / file, name, "the method's text is not unique in the reference")
            mutants.append(Bug(f"missing__{name.replace('.', '__')}", "", name,
                               f"{name} not done yet (the template's stub)", file, find,
                               _segment(tpl_lines, stub), ()))
    return mutants
