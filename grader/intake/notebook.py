"""Extracting the Python code of a Jupyter notebook submission.

The notebook is read and validated with ``nbformat``. Code cells are joined
in order into one module. IPython syntax is never run: a cell magic
(``%%bash``...) drops the whole cell, a line magic (``%matplotlib``), shell
escape (``!pip install``), help request (``obj?``) or captured shell
assignment (``files = !ls``) drops that line, replaced by ``pass`` at the
same indentation so the surrounding code still parses and line numbers stay
meaningful. Imports that only work in a package (``from __future__`` after
the first statement, ``from .engine import Value``...) are rewritten to work
in the one module (:mod:`grader.intake.notebook_imports`).

Alongside the code, :func:`read_notebook` returns a
:class:`~grader.intake.cellmap.LineMap` that takes every line of the generated
module back to its cell and line, so feedback can say "notebook cell 5
(code cell 3), line 2".
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import nbformat

from grader.errors import SubmissionError
from grader.intake.cellmap import CellSpan, LineMap
from grader.intake.notebook_imports import OwnCode, StatementTracker, rewrite_imports

IPYTHON_LINE = re.compile(r"^\s*([%!?]|\w+\s*=\s*[%!])|^\s*[\w.]+\?{1,2}\s*$")
NEWLINE = re.compile(r"\r\n|\r|\n")
MAX_NAME = 120
"""Longest notebook name kept for feedback, in characters."""
MAX_JSON_TOKENS = 1_000_000
"""Most ``{``, ``[`` and ``,`` bytes in a notebook read by :func:`without_outputs`: a bound on the JSON values
parsing makes (hence on its memory and time), far above a real notebook's cells and outputs."""
MAX_CELLS = 10_000
"""Most cells in a notebook read by :func:`without_outputs` (validating a notebook takes time per cell)."""
CLEAR_OUTPUTS = ("clear all outputs (Kernel > Restart & Clear Output, or Edit > Clear all outputs in Colab), "
                 "save, and check again")
"""What a student does about a notebook too large to read: every such message ends with it."""


def cap(name: str, limit: int = MAX_NAME) -> str:
    """``name`` (student-controlled: a file name) cut to ``limit`` characters, control characters removed."""
    name = "".join(ch if ch.isprintable() else "?" for ch in name)
    return name if len(name) <= limit else name[: limit - 3] + "..."


def source_lines(source: str) -> list[str]:
    """The lines of ``source`` as Python and Jupyter count them (split at ``\\n``, ``\\r\\n`` and ``\\r`` only)."""
    lines = NEWLINE.split(source)
    return lines[:-1] if lines and lines[-1] == "" else lines


def strip_ipython(source: str) -> str:
    """Return ``source`` with IPython-only lines replaced by ``pass``.

    A line that continues an open statement (``% x`` after an open bracket,
    as black formats long expressions) is Python, not a magic, and is kept.
    """
    lines: list[str] = []
    tracker = StatementTracker(lines)  # linear in the cell's length, however many magic lines it holds
    for line in source_lines(source):
        if IPYTHON_LINE.search(line) and not tracker.is_open():
            indent = line[: len(line) - len(line.lstrip())]
            lines.append(f"{indent}pass  # removed by the grader: {line.strip()[:60]}")
        else:
            lines.append(line)
    return "\n".join(lines)


@dataclass
class NotebookCode:
    """The module generated from a notebook.

    Attributes:
        code: The module's text.
        line_map: Where each of its lines comes from in the notebook.
    """

    code: str
    line_map: LineMap


def parse(raw: bytes, name: str) -> Any:
    """The validated notebook (an ``nbformat`` v4 node) of the bytes ``raw``.

    Raises:
        SubmissionError: If the bytes are not UTF-8 or not a valid notebook.
    """
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise SubmissionError(f"{cap(name)} is not UTF-8 text, so it is not a notebook") from None
    try:
        nb = nbformat.reads(text, as_version=4)
        nbformat.validate(nb)
    except Exception as exc:  # nbformat raises JSON, validation and version errors
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise SubmissionError(f"{cap(name)} is not a valid Jupyter notebook: {first[:200]}") from None
    return nb


@dataclass
class Cleared:
    """A notebook without its outputs (:func:`without_outputs`).

    Attributes:
        data: Its bytes, as ``nbformat`` writes a notebook.
        code_bytes: The size of its code cells' sources in UTF-8, in bytes (what counts against a source file's cap).
    """

    data: bytes
    code_bytes: int


def without_outputs(raw: bytes) -> Cleared:
    """The notebook ``raw`` (its bytes) without what grading never reads: outputs, execution counts, attachments
    and widget state.

    What is left (the cells' sources and metadata, the notebook's metadata) is written as ``nbformat`` writes a
    notebook: one-space indents, sorted keys, UTF-8 (``\\u`` escapes only for text that is not valid Unicode).
    Parsing is bounded: at most :data:`MAX_JSON_TOKENS` structural bytes and :data:`MAX_CELLS` cells, and nesting
    stops at Python's recursion limit. Nothing is validated here: :func:`parse` does that.

    Args:
        raw: The ``.ipynb`` file's bytes (the caller caps their size).

    Raises:
        ValueError: If ``raw`` is not UTF-8 JSON holding a notebook's cells, or is too intricate to parse
            (the message says which).
    """
    tokens = raw.count(b"{") + raw.count(b"[") + raw.count(b",")
    if tokens > MAX_JSON_TOKENS:
        raise ValueError(f"more than {MAX_JSON_TOKENS} JSON values")
    try:
        nb = json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise ValueError("not UTF-8 text") from None
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None
    except ValueError as exc:
        raise ValueError(f"not valid JSON: {str(exc)[:120]}") from None
    if not isinstance(nb, dict):
        raise ValueError("no list of cells")
    sheets = nb.get("worksheets", [])  # nbformat 3 keeps its cells in worksheets
    groups = [nb.get("cells")] if "cells" in nb or not isinstance(sheets, list) else [
        w.get("cells") if isinstance(w, dict) else None for w in sheets]
    cells: list[Any] = []
    for group in groups:
        if not isinstance(group, list):
            raise ValueError("no list of cells")
        cells.extend(group)
    if len(cells) > MAX_CELLS:
        raise ValueError(f"more than {MAX_CELLS} cells")
    if isinstance(nb.get("metadata"), dict):
        nb["metadata"].pop("widgets", None)
    code_bytes = 0
    for cell in (c for c in cells if isinstance(c, dict)):
        cell.pop("attachments", None)
        for key, empty in (("outputs", []), ("execution_count", None), ("prompt_number", None)):
            if key in cell:
                cell[key] = empty
        if cell.get("cell_type") == "code":
            source = cell.get("source", cell.get("input", ""))  # nbformat 3 calls it input
            parts = source if isinstance(source, list) else [source]
            code_bytes += sum(len(p.encode("utf-8", "surrogatepass")) for p in parts if isinstance(p, str))
    try:
        try:
            data = (json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate (\\ud800) is valid JSON, not UTF-8: keep it escaped
            data = (json.dumps(nb, indent=1, sort_keys=True) + "\n").encode("ascii")
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None
    return Cleared(data, code_bytes)


def code_cells(nb: Any) -> list[tuple[int, int, str]]:
    """``(cell number, code cell number, source)`` of each code cell of the parsed notebook ``nb``."""
    cells: list[tuple[int, int, str]] = []
    for number, cell in enumerate(nb.cells, start=1):
        if cell.cell_type == "code":
            source = cell.source if isinstance(cell.source, str) else "".join(cell.source)
            cells.append((number, len(cells) + 1, source))
    return cells


def assemble(cells: list[tuple[int, int, str]], name: str, own: OwnCode) -> NotebookCode:
    """Join code cells (as :func:`code_cells` gives them) into one module and its line map.

    Args:
        cells: The code cells.
        name: The notebook's path in the submission.
        own: What the notebook stands for: the package path the code is staged as (the assignment's first file,
            e.g. ``micrograd/engine.py``), and the modules whose imports are rewritten.
    """
    header: list[str] = []
    header_spans: list[CellSpan] = []
    body: list[str] = []
    spans: list[CellSpan] = []
    for number, code_number, source in cells:
        if body:
            body.append("")
        if source.lstrip().startswith("%%"):
            body.append(f"# cell {number}: skipped by the grader (cell magic)")
            continue
        body.append(f"# cell {number}")
        rewritten = rewrite_imports(source_lines(strip_ipython(source)), own)
        for cell_line, statement in rewritten.futures:
            header.append(statement)
            header_spans.append(CellSpan(line=len(header), lines=1, cell=number, code_cell=code_number,
                                         cell_line=cell_line))
        if rewritten.lines:
            spans.append(CellSpan(line=len(body) + 1, lines=len(rewritten.lines), cell=number,
                                  code_cell=code_number, cell_line=1))
            body.extend(rewritten.lines)
    for span in spans:
        span["line"] += len(header)
    code = "\n".join(header + body) + "\n"
    return NotebookCode(code, LineMap(notebook=cap(name), module=own.staged, spans=header_spans + spans))


def read_notebook(raw: bytes, name: str, own: OwnCode) -> NotebookCode:
    """The module generated from the notebook ``raw`` (its bytes), and its line map.

    Args:
        raw: The ``.ipynb`` file's bytes.
        name: Its path in the submission (for messages and the line map).
        own: What the notebook stands for (:meth:`OwnCode.of` the assignment).

    Raises:
        SubmissionError: If the bytes are not UTF-8 or not a valid notebook.
    """
    return assemble(code_cells(parse(raw, name)), name, own)


def notebook_code(raw: bytes, name: str, own: OwnCode) -> str:
    """Return the Python code of the notebook ``raw`` (its bytes; ``own`` as :func:`read_notebook`).

    Raises:
        SubmissionError: If the bytes are not UTF-8 or not a valid notebook.
    """
    return read_notebook(raw, name, own).code
