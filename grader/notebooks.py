"""Per-assignment Jupyter notebooks (nbformat v4).

A notebook holds the assignment's handout as Markdown, the code of the files
the assignment names (``engine.py``, then ``nn.py``) in code cells, and a
self-check cell. Submitted back, it is graded like the equivalent ``.py``
files: its code cells become one module (see :mod:`grader.notebook`), so the
generator drops what only makes sense in a package (``from __future__``
after the first cell, ``from .engine import Value``).
"""

from __future__ import annotations

import re

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from .config import Assignment

PACKAGE_ONLY = re.compile(r"^(from __future__ import .*|from \.engine import .*|from micrograd\.engine import .*)\n",
                          re.M)


def cell_code(source: str, first: bool) -> str:
    """A module's text made fit for a notebook cell (one module per notebook)."""
    if first:
        return source.rstrip() + "\n"
    return PACKAGE_ONLY.sub("", source).strip() + "\n"


def build_notebook(assignment: Assignment, sources: dict[str, str], handout: str) -> nbformat.NotebookNode:
    """The notebook of ``assignment`` with ``sources`` (package path to text) in its code cells.

    Args:
        assignment: The assignment.
        sources: ``micrograd/engine.py`` (and ``micrograd/nn.py``) to their text:
            the template's for students, any solution's for tests.
        handout: The assignment's README (Markdown).
    """
    cells = [new_markdown_cell(handout.strip())]
    for i, target in enumerate(f for f in ("micrograd/engine.py", "micrograd/nn.py") if f in assignment.files):
        cells.append(new_markdown_cell(f"## `{target}`\n\nFill in every method that raises `NotImplementedError`."))
        cells.append(new_code_cell(cell_code(sources[target], first=i == 0)))
    cells.append(new_markdown_cell(
        "## Self-check\n\nSave the notebook, then run the cell below: it grades this notebook against the public "
        "tests in a sandbox (the grader never runs this cell's `!` line when it grades your notebook)."))
    cells.append(new_code_cell(f"!grader check {assignment.id}.ipynb -a {assignment.id}"))
    nb = new_notebook(cells=cells, metadata={
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
        "language_info": {"name": "python"},
    })
    nbformat.validate(nb)
    return nb
