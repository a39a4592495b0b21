"""Per-assignment Jupyter notebooks (nbformat v4).

A notebook holds the assignment's handout as Markdown, the code of the files
the assignment names (``engine.py``, then ``nn.py``, then the others) in code cells, and a
self-check cell. Submitted back, it is graded like the equivalent ``.py``
files: its code cells become one module (see :mod:`grader.intake.notebook`, which
also copes with whole ``.py`` files pasted into cells). The generator still
drops what only makes sense in a package (``from __future__`` after the
first cell, ``from .engine import Value``), since Jupyter itself would fail on
it.

Jupyter runs a notebook in the notebook's own folder (``notebooks/``), VS Code
may run it in the workspace folder, Colab in ``/content``: nothing in a
notebook depends on where it runs.

* After the first file's cell, a notebook of several files has a *set-up*
  cell (:func:`setup_cell`): it makes the imports of a file pasted whole
  (``from .engine import Value``, ``from micrograd.engine import Value``,
  ``from engine import Value``) give the notebook's own code in Jupyter, as
  :mod:`grader.intake.notebook_imports` makes them do when the grader grades
  the notebook. Without it, ``nn.py`` pasted into its cell stops the notebook
  at its first import.
* The self-check cell (:func:`check_cell`) finds the course folder (the
  nearest folder, from the working folder up, holding ``micrograd/`` and
  ``assignments/``) and the notebook's saved file (in the working folder, else
  in the course's ``notebooks/``), then runs the grader through the kernel's
  own interpreter (``!"{sys.executable}" -m grader``), so it works whether or
  not the ``grader`` command is on the kernel's ``PATH``: IPython expands
  ``{...}`` and the double quotes keep a path with spaces one word in POSIX
  shells and in Windows ``cmd``.

Both cells are plain standard-library Python under ``if __name__ ==
"__main__":``: the grader, which runs the notebook's code as a module of the
package, skips them (and never runs a ``!`` line). Neither names the
assignment on a Python line (only the ``!`` line does): the template's
notebook code, which :mod:`grader.intake.candidates` compares a notebook
with, is built without an assignment id.
"""

from __future__ import annotations

import re

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from grader.course.config import Assignment


def package_only(package: str) -> re.Pattern[str]:
    """Lines a later cell drops: the notebook is one module, so imports of its own earlier files would fail
    (``from __future__``, ``from .engine import ...``, ``from micrograd.engine import ...``)."""
    return re.compile(rf"^(from __future__ import .*|from \.\w+ import .*|from {re.escape(package)}\.\w+ import .*)\n",
                      re.M)


SETUP = """\
# Set-up: run this cell before the cells below (again after restarting the kernel).
# A file pasted whole into a cell keeps its imports: `from .{first} import ...`,
# `from {package}.{first} import ...` and `from {first} import ...` give the names
# defined in this notebook, as they do when the grader grades it (it skips this cell).
if __name__ == "__main__":
    import sys
    import types

    this_notebook = sys.modules[__name__]  # the code of this notebook, as a module
    {package}_package = types.ModuleType("{package}")
    {package}_package.__path__ = []
    for module_name in {modules}:
        setattr({package}_package, module_name, this_notebook)
        sys.modules[module_name] = sys.modules["{package}." + module_name] = this_notebook
    sys.modules["{package}"] = {package}_package
    __package__ = "{package}"  # what `from .{first} import ...` is relative to
"""
"""The set-up cell; ``{modules}`` is a tuple of module names, ``{package}`` the student's package and ``{first}`` the
notebook's first module (:func:`setup_cell`)."""

CHECK = """\
# Self-check: `grader check` grades this notebook as saved, so save it first (Ctrl+S,
# or Cmd+S on a Mac). The grader skips this cell when it grades the notebook.
if __name__ == "__main__":
    import sys
    from pathlib import Path

    # The course folder: the nearest folder, from where this notebook runs up, holding {package}/ and assignments/.
    run_folder = Path.cwd()
    course_folder = next((p for p in (run_folder, *run_folder.parents)
                          if (p / "{package}").is_dir() and (p / "assignments").is_dir()), None)

    def saved_notebook(name):
        \"\"\"This notebook's file: in the folder it runs in (Jupyter, Colab), else in the course's notebooks/.\"\"\"
        here = run_folder / name
        return here if here.is_file() or course_folder is None else course_folder / "notebooks" / name

    if course_folder is None:
        print(f"No course folder (one holding {package}/ and assignments/) in {run_folder} or above it: open "
              "this notebook from the course's notebooks/ folder (in Colab, unzip the course first: see its README).")
    else:
        !"{sys.executable}" -m grader check "{saved_notebook('<id>.ipynb')}" -a <id>
"""
"""The self-check cell; ``<id>`` is the assignment's id, on the ``!`` line only, and ``{package}`` the student's
package (:func:`check_cell`)."""


def package_of(files: tuple[str, ...]) -> str:
    """The student's package ``files`` are modules of (``micrograd/engine.py`` -> ``micrograd``)."""
    return files[0].split("/", 1)[0]


def cell_code(source: str, first: bool, package: str) -> str:
    """A module's text made fit for a notebook cell (one module per notebook)."""
    if first:
        return source.rstrip() + "\n"
    return package_only(package).sub("", source).strip() + "\n"


def own_modules(files: tuple[str, ...], own: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The module names a notebook of ``files`` stands for, as the grader counts them: the course's ``own``
    (:attr:`~grader.course.config.Assignment.own_modules`) and those of ``files`` (see
    :func:`grader.intake.candidates.choose`), sorted."""
    return tuple(sorted(set(own) | {f.rsplit("/", 1)[-1].removesuffix(".py") for f in files}))


def setup_cell(files: tuple[str, ...], own: tuple[str, ...] = ()) -> str:
    """The source of the set-up cell of a notebook standing for ``files`` (``own``: as :func:`own_modules`)."""
    first = files[0].rsplit("/", 1)[-1].removesuffix(".py")
    return (SETUP.replace("{modules}", "(" + ", ".join(f'"{m}"' for m in own_modules(files, own)) + ")")
            .replace("{package}", package_of(files)).replace("{first}", first))


def check_cell(assignment_id: str, package: str) -> str:
    """The source of the self-check cell of assignment ``assignment_id`` of a course whose student's package is
    ``package``."""
    return CHECK.replace("<id>", assignment_id).replace("{package}", package).rstrip("\n")


def notebook_cells(files: tuple[str, ...], sources: dict[str, str], assignment_id: str,
                   own: tuple[str, ...] = ()) -> list[tuple[str, str]]:
    """The ``(title, code)`` of each code cell of an assignment's notebook, in order: one per file it names (the
    set-up cell after the first when there are several), then the self-check.

    Args:
        files: The package paths the assignment names, in import order (``micrograd/engine.py``,
            ``micrograd/nn.py``: :attr:`~grader.course.config.Assignment.files`).
        sources: Package path to the text to put in its cell.
        assignment_id: The assignment's id (named by the self-check cell).
        own: The course's module names that stand for the notebook's own code
            (:attr:`~grader.course.config.Assignment.own_modules`).

    Raises:
        KeyError: If ``sources`` lacks one of ``files``.
    """
    package = package_of(files)
    cells = [(f"`{t}`", cell_code(sources[t], i == 0, package)) for i, t in enumerate(files)]
    if len(files) > 1:
        cells.insert(1, ("Set-up", setup_cell(files, own)))
    return [*cells, ("Self-check", check_cell(assignment_id, package))]


def notebook_code_cells(files: tuple[str, ...], sources: dict[str, str], assignment_id: str,
                        own: tuple[str, ...] = ()) -> list[str]:
    """The code cells of an assignment's notebook, in order (see :func:`notebook_cells`).

    Raises:
        KeyError: If ``sources`` lacks one of ``files``.
    """
    return [code for _, code in notebook_cells(files, sources, assignment_id, own)]


SETUP_TEXT = ("Run the cell below before the cells after it (again after restarting the kernel). It lets a file "
              "pasted whole into a cell keep its imports (`from .{first} import ...`, "
              "`from {package}.{first} import ...`): in this notebook they give its own code, as they do when "
              "the grader grades it. It uses the standard library only.")
FILE_TEXT = "Fill in every method that raises `NotImplementedError`."
CHECK_TEXT = ("Save the notebook, then run the cell below: it grades this notebook against the public tests in a "
              "sandbox, with the Python running this notebook (the grader skips this cell when it grades your "
              "notebook). It finds the course folder (the one holding `{package}/` and `assignments/`) from the "
              "folder the notebook runs in, so it works wherever Jupyter, VS Code or Colab starts it. Errors are "
              "located as *notebook cell N* (counting every cell from the top, Markdown included) *(code cell M)* "
              "(counting code cells only), *line L* within that cell.")


def _fill(text: str, words: dict[str, str]) -> str:
    for word, value in words.items():
        text = text.replace(word, value)
    return text


def _numbered(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """``nb`` validated, its cells' ids ``cell-1``, ``cell-2``... (nbformat draws random ones): a release built again
    writes the same notebook, so a student pulling next week's release over their edited copy meets no change."""
    for i, cell in enumerate(nb.cells, 1):
        cell["id"] = f"cell-{i}"
    nbformat.validate(nb)
    notebook: nbformat.NotebookNode = nb
    return notebook


def build_notebook(assignment: Assignment, sources: dict[str, str], handout: str) -> nbformat.NotebookNode:
    """The notebook of ``assignment`` with ``sources`` (package path to text) in its code cells.

    Args:
        assignment: The assignment.
        sources: Each of the assignment's files (``micrograd/engine.py``...) to its text:
            the template's for students, any solution's for tests.
        handout: The assignment's README (Markdown).
    """
    cells = [new_markdown_cell(handout.strip())]
    words = {"{package}": assignment.package, "{first}": assignment.modules[0].rsplit(".", 1)[-1]}
    texts = {title: _fill(text, words) for title, text in (("Set-up", SETUP_TEXT), ("Self-check", CHECK_TEXT))}
    for title, code in notebook_cells(assignment.files, sources, assignment.id, assignment.own_modules):
        cells.append(new_markdown_cell(f"## {title}\n\n{texts.get(title, FILE_TEXT)}"))
        cells.append(new_code_cell(code))
    nb = new_notebook(cells=cells, metadata={
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
        "language_info": {"name": "python"},
    })
    return _numbered(nb)


ANSWERS_TEXT = ("Fill in your answers below, one line per question, then save the notebook: the grader reads this "
                "cell itself (it never runs it), so a saved notebook is enough. Running the cell also writes them "
                "to `{name}` in the folder the notebook runs in. Print your questions with your own numbers with "
                "`grader sheet {id} --student YOUR_ID`.")


def build_answers_notebook(assignment: Assignment, handout: str, template: str, package: str) -> nbformat.NotebookNode:
    """The notebook of a concept check (``kind: questions``): the handout, the answers cell (``%%writefile
    <id>.yaml`` and ``template``, the answers file students fill in), and the self-check cell; ``package``: the
    course's student package (where the self-check finds the course folder)."""
    name = assignment.files[0].rsplit("/", 1)[-1]
    words = {"{package}": package, "{name}": name, "{id}": assignment.id}
    nb = new_notebook(cells=[
        new_markdown_cell(handout.strip()),
        new_markdown_cell(f"## Your answers\n\n{_fill(ANSWERS_TEXT, words)}"),
        new_code_cell(f"%%writefile {name}\n{template.rstrip()}\n"),
        new_markdown_cell(f"## Self-check\n\n{_fill(CHECK_TEXT, words)}"),
        new_code_cell(check_cell(assignment.id, package)),
    ], metadata={
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
        "language_info": {"name": "python"},
    })
    return _numbered(nb)
