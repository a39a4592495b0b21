"""Per-assignment Jupyter notebooks (nbformat v4).

A notebook holds the assignment's handout as Markdown, the code of the files
the assignment names (``engine.py``, then ``nn.py``, then the others) in code cells, and a
self-check cell. Submitted back, it is graded like the equivalent ``.py``
files: its code cells become one module (see :mod:`grader.intake.notebook`, which
also copes with whole ``.py`` files pasted into cells). The generator still
drops what only makes sense in a package (``from __future__`` after the
first cell, ``from .engine import Value``), since Jupyter itself would fail on
it.

The self-check cell runs the grader through the kernel's own interpreter
(``!"{sys.executable}" -m grader check``), so it works whether or not the
``grader`` command is on the kernel's ``PATH``: IPython expands
``{sys.executable}`` and the double quotes keep a path with spaces one word
in POSIX shells and in Windows ``cmd``.
"""

from __future__ import annotations

import re

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from grader.course.config import Assignment, ordered_files

PACKAGE_ONLY = re.compile(r"^(from __future__ import .*|from \.\w+ import .*|from micrograd\.\w+ import .*)\n", re.M)
"""Lines a later cell drops: the notebook is one module, so imports of its own earlier files would fail."""


def cell_code(source: str, first: bool) -> str:
    """A module's text made fit for a notebook cell (one module per notebook)."""
    if first:
        return source.rstrip() + "\n"
    return PACKAGE_ONLY.sub("", source).strip() + "\n"


def check_cell(assignment_id: str) -> str:
    """The source of the self-check cell of assignment ``assignment_id``."""
    return f'import sys\n!"{{sys.executable}}" -m grader check {assignment_id}.ipynb -a {assignment_id}'


def notebook_code_cells(files: tuple[str, ...], sources: dict[str, str], assignment_id: str) -> list[str]:
    """The code cells of an assignment's notebook, in order: one per file it names, then the self-check.

    Args:
        files: The package paths the assignment names (``micrograd/engine.py``, ``micrograd/nn.py``).
        sources: Package path to the text to put in its cell.
        assignment_id: The assignment's id (named by the self-check cell).

    Raises:
        KeyError: If ``sources`` lacks one of ``files``.
    """
    targets = ordered_files(files)
    return [cell_code(sources[t], first=i == 0) for i, t in enumerate(targets)] + [check_cell(assignment_id)]


def build_notebook(assignment: Assignment, sources: dict[str, str], handout: str) -> nbformat.NotebookNode:
    """The notebook of ``assignment`` with ``sources`` (package path to text) in its code cells.

    Args:
        assignment: The assignment.
        sources: ``micrograd/engine.py`` (and ``micrograd/nn.py``) to their text:
            the template's for students, any solution's for tests.
        handout: The assignment's README (Markdown).
    """
    cells = [new_markdown_cell(handout.strip())]
    code = notebook_code_cells(assignment.files, sources, assignment.id)
    targets = ordered_files(assignment.files)
    for target, source in zip(targets, code):
        cells.append(new_markdown_cell(f"## `{target}`\n\nFill in every method that raises `NotImplementedError`."))
        cells.append(new_code_cell(source))
    cells.append(new_markdown_cell(
        "## Self-check\n\nSave the notebook, then run the cell below: it grades this notebook against the public "
        "tests in a sandbox, with the Python running this notebook (the grader never runs this cell's `!` line "
        "when it grades your notebook). Errors are located as *notebook cell N* (counting every cell from the "
        "top, Markdown included) *(code cell M)* (counting code cells only), *line L* within that cell."))
    cells.append(new_code_cell(code[-1]))
    nb = new_notebook(cells=cells, metadata={
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
        "language_info": {"name": "python"},
    })
    nbformat.validate(nb)
    notebook: nbformat.NotebookNode = nb
    return notebook
