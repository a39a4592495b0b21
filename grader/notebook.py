"""Extracting the Python code of a Jupyter notebook submission.

The notebook is read and validated with ``nbformat``. Code cells are joined
in order into one module. IPython syntax is never run: a cell magic
(``%%bash``...) drops the whole cell, a line magic (``%matplotlib``), shell
escape (``!pip install``), help request (``obj?``) or captured shell
assignment (``files = !ls``) drops that line, replaced by ``pass`` at the
same indentation so the surrounding code still parses and line numbers stay
meaningful.
"""

from __future__ import annotations

import io
import re
import tokenize

import nbformat

from .errors import SubmissionError

IPYTHON_LINE = re.compile(r"^\s*([%!?]|\w+\s*=\s*[%!])|^\s*[\w.]+\?{1,2}\s*$")


def _continues(lines: list[str]) -> bool:
    """Whether the code in ``lines`` ends inside a bracket, a string or after a backslash,
    so that the next line continues a statement instead of starting one."""
    try:
        for _ in tokenize.generate_tokens(io.StringIO("\n".join(lines) + "\n").readline):
            pass
    except (tokenize.TokenError, SyntaxError):
        return True  # "EOF in multi-line statement/string": the statement is still open
    except IndentationError:
        return False
    return False


def strip_ipython(source: str) -> str:
    """Return ``source`` with IPython-only lines replaced by ``pass``.

    A line that continues an open statement (``% x`` after an open bracket,
    as black formats long expressions) is Python, not a magic, and is kept.
    """
    lines: list[str] = []
    for line in source.splitlines():
        if IPYTHON_LINE.search(line) and not _continues(lines):
            indent = line[: len(line) - len(line.lstrip())]
            lines.append(f"{indent}pass  # removed by the grader: {line.strip()[:60]}")
        else:
            lines.append(line)
    return "\n".join(lines)


def notebook_code(raw: bytes, name: str) -> str:
    """Return the Python code of the notebook ``raw`` (its bytes).

    Raises:
        SubmissionError: If the bytes are not UTF-8 or not a valid notebook.
    """
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise SubmissionError(f"{name} is not UTF-8 text, so it is not a notebook") from None
    try:
        nb = nbformat.reads(text, as_version=4)
        nbformat.validate(nb)
    except Exception as exc:  # nbformat raises JSON, validation and version errors
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise SubmissionError(f"{name} is not a valid Jupyter notebook: {first[:200]}") from None
    chunks = []
    for number, cell in enumerate(nb.cells, start=1):
        if cell.cell_type != "code":
            continue
        source = cell.source if isinstance(cell.source, str) else "".join(cell.source)
        if source.lstrip().startswith("%%"):
            chunks.append(f"# cell {number}: skipped by the grader (cell magic)")
            continue
        chunks.append(f"# cell {number}\n{strip_ipython(source)}")
    return "\n\n".join(chunks) + "\n"
