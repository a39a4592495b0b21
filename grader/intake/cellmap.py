"""Error locations of notebook submissions: from the generated module back to the notebook's cells.

A notebook is graded as one generated module, staged as
``micrograd/engine.py`` (see :mod:`grader.intake.notebook`). The sandbox reports
where an exception happened in the files it imported, so without help the
feedback would say ``micrograd/engine.py line 245``: a line of a file the
student never saw (and their release holds a different, real
``micrograd/engine.py``). The intake, which is trusted, records a
:class:`LineMap` (plain data, carried in the manifest's
:class:`~grader.judge.manifest.Part`); the judge applies it with :func:`locate` to
every exception description it receives from the sandbox, which stays
unaware of notebooks. A located ``where`` keeps its ``file`` (the staged
module) and gains ``cell``, ``code_cell`` and ``notebook`` keys, its ``line``
becoming the line within that cell; :func:`where_text` renders either kind.

Cells are numbered from 1 as they appear in the notebook, Markdown cells
included ("cell 5"); code cells are also numbered among themselves
("code cell 3").
"""

from __future__ import annotations

from typing import Any, TypedDict


class CellSpan(TypedDict):
    """Lines of the generated module that come from one place of the notebook.

    Attributes:
        line: First line of the span in the generated module (1-based).
        lines: Number of lines in the span.
        cell: The cell's position among all cells (1-based, Markdown included).
        code_cell: The cell's position among code cells (1-based).
        cell_line: Line of the cell the span's first line comes from (1-based).
    """

    line: int
    lines: int
    cell: int
    code_cell: int
    cell_line: int


class LineMap(TypedDict):
    """How the module generated from a notebook maps back to the notebook.

    Attributes:
        notebook: The notebook's path in the submission (capped, for feedback).
        module: The staged file holding the generated module (``micrograd/engine.py``).
        spans: The mapped lines; lines not in a span were added by the grader.
    """

    notebook: str
    module: str
    spans: list[CellSpan]


NOTEBOOK_DURING = "running the code cells of your notebook (graded as one module)"
"""What a notebook's import error happened during, for the student."""


def _relative(path: object) -> str:
    return str(path).replace("\\", "/")


def cell_of(line_map: LineMap, line: int) -> CellSpan | None:
    """The span holding ``line`` of the generated module, or None for a line the grader added."""
    for span in line_map.get("spans", []):
        if span["line"] <= line < span["line"] + span["lines"]:
            return span
    return None


def locate(error: Any, line_map: LineMap | None) -> Any:
    """Return the sandbox's exception description ``error`` with its ``where`` located in the notebook.

    Args:
        error: ``{"type", "message", "where", "during"}`` as the sandbox sends
            it (see :func:`grader.sandbox.plain.exception_info`); anything else
            is returned unchanged.
        line_map: The part's line map; None (not a notebook) returns ``error`` unchanged.

    Returns:
        A new dict whose ``where`` (when it points into the staged package)
        has ``cell``, ``code_cell``, ``notebook`` and the line within the cell;
        ``cell`` is None for a line the grader added around the notebook's code.
        An import error's ``top_level`` (:class:`grader.sandbox.protocol.TopLevel`) is located the same way.
    """
    if not line_map or not isinstance(error, dict):
        return error
    places = {key: _located(error.get(key), line_map) for key in ("where", "top_level")}  # top_level: see TopLevel
    found = {key: place for key, place in places.items() if place is not None}
    return {**error, **found} if found else error


def _located(where: Any, line_map: LineMap) -> dict[str, Any] | None:
    """``where`` (a place in the staged files) located in the notebook, or None when it is not in the package."""
    package = str(line_map.get("module", "")).split("/", 1)[0]
    if not isinstance(where, dict) or not package or not _relative(where.get("file", "")).startswith(f"{package}/"):
        return None
    located: dict[str, Any] = {**where, "notebook": line_map.get("notebook", "notebook"),
                               "cell": None, "code_cell": None}
    line = where.get("line")
    if _relative(where.get("file")) == line_map.get("module") and isinstance(line, int):
        span = cell_of(line_map, line)
        if span is not None:
            located.update(cell=span["cell"], code_cell=span["code_cell"],
                           line=span["cell_line"] + line - span["line"])
    return located


def locate_imports(imports: Any, line_map: LineMap | None) -> Any:
    """Apply :func:`locate` to every import error of a worker's hello (module name to error or None).

    Import errors of a notebook also name the notebook (``notebook``) and say
    that they happened while running its cells (``during``).
    """
    if not line_map or not isinstance(imports, dict):
        return imports
    located = {}
    for module, error in imports.items():
        error = locate(error, line_map)
        if isinstance(error, dict):
            error = {**error, "notebook": line_map.get("notebook", "notebook"), "during": error.get("during") or NOTEBOOK_DURING}
        located[module] = error
    return located


def failed_import(module: str, error: dict[str, Any]) -> str:
    """What failed to load, for the student: ``micrograd/nn.py could not be imported``, or for a
    notebook (an import error passed through :func:`locate_imports`) ``notebooks/mlp.ipynb could not be run``."""
    if error.get("notebook"):
        return f"{error['notebook']} could not be run"
    return f"{module.replace('.', '/')}.py could not be imported"


def where_text(where: dict[str, Any]) -> str:
    """Render a ``where`` for the student: ``micrograd/nn.py line 12`` or ``notebook cell 5 (code cell 3), line 2``."""
    if "cell" not in where:
        return f"{where.get('file')} line {where.get('line')}"
    if where.get("cell") is None:
        return "code the grader added around your notebook's cells"
    return f"notebook cell {where.get('cell')} (code cell {where.get('code_cell')}), line {where.get('line')}"
