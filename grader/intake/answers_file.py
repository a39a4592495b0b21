"""A concept check's answers in a submission: its answers file (``answers/<id>.yaml``) or, in a notebook, the cell
that writes it (``%%writefile answers/<id>.yaml``), found and read at intake as text.

The text goes into the judge's manifest (:attr:`grader.judge.manifest.Part.answers`), so the judge never opens a file
of the submission, and is parsed there as bounded data (:mod:`grader.questions.answer_sheet`). Nothing of it is run:
a notebook's cell is read from the notebook, never executed.

Where both hold answers, the file is graded (a note names the notebook); an answers file with every answer still
empty (the release's template) gives way to a notebook's cell that has answers.
"""

from __future__ import annotations

import re

from grader.errors import SubmissionError
from grader.intake.candidates import decode, find_files
from grader.intake.entry import MAX_ANSWERS_BYTES as MAX_BYTES
from grader.intake.entry import Submission
from grader.intake.notebook import cap, code_cells, parse

WRITEFILE = re.compile(r"\A[ \t]*%%writefile[ \t]+(\S+)[ \t]*\r?\n")
"""The first line of a notebook cell that writes a file (IPython's cell magic; ``-a``, append, is not read)."""
ANSWERED = re.compile(r"^[ \t]*(?:-[ \t]*[^\s#]|(?!student[ \t]*:)[A-Za-z_]\w*[ \t]*:[ \t]*[^\s#])", re.M)
"""A line that answers something (``key: value`` other than ``student:``, or a list item): a file without one is
blank, as the release hands it out."""


def answers_text(sub: Submission, wanted: str, assignment_id: str = "") -> tuple[str, str]:
    """The text of ``sub``'s answers ``wanted`` (``answers/checkpoint.yaml``) and where it was read.

    Looks for the file in an ``answers/`` folder at any depth, else as ``checkpoint.yaml``, shallowest first; and
    for a notebook's code cell starting ``%%writefile`` with a path ending in ``checkpoint.yaml`` (in
    ``<id>.ipynb`` first, else any notebook; the last such cell, as running the notebook leaves the file).

    Raises:
        SubmissionError: If the submission could not be read, holds neither, holds two files at the same depth, or
            the answers are larger than :data:`MAX_BYTES` or not UTF-8 (a notebook's cell: not text, such as a lone
            surrogate).
    """
    if sub.error:
        raise SubmissionError(sub.error)
    found = find_files(sub, (wanted,)).get(wanted)
    text = _checked(sub.files[found], found) if found is not None else None
    cell = _notebook_cell(sub, wanted.rsplit("/", 1)[-1], assignment_id)
    if found is not None and text is not None and (cell is None or ANSWERED.search(text)
                                                   or not ANSWERED.search(cell[0])):
        return text, found if cell is None else f"{found} (the answers cell of {cell[1]} was not graded)"
    if cell is not None:
        return cell
    name = wanted.rsplit("/", 1)[-1]
    raise SubmissionError(f"missing {wanted} (looked for {name} in an {wanted.split('/', 1)[0]}/ folder or at the "
                          f"top level, and for a %%writefile {wanted} cell in a notebook): your answers go in the "
                          f"release's {wanted}")


def _checked(data: bytes, where: str) -> str:
    if len(data) > MAX_BYTES:
        raise SubmissionError(f"{cap(where, 80)} is {len(data)} bytes, more than the {MAX_BYTES} answers may be")
    return decode(data, where)


def _notebook_cell(sub: Submission, name: str, assignment_id: str) -> tuple[str, str] | None:
    """The answers a notebook's last ``%%writefile .../<name>`` cell holds, and where (``notebooks/x.ipynb, cell
    4``); None when no notebook has one. A notebook that cannot be read is passed over."""
    notebooks = sorted((p for p in sub.files if p.endswith(".ipynb")),
                       key=lambda p: (p.rsplit("/", 1)[-1] != f"{assignment_id}.ipynb", p.count("/"), p))
    for path in notebooks:
        try:
            cells = code_cells(parse(sub.files[path], path))
        except SubmissionError:
            continue
        chosen = None
        for number, _, source in cells:
            first = WRITEFILE.match(source)
            if first is not None and first.group(1).strip("'\"").replace("\\", "/").rsplit("/", 1)[-1] == name:
                chosen = number, source[first.end():]
        if chosen is not None:
            where = f"{cap(path, 80)}, cell {chosen[0]}"
            try:
                data = chosen[1].encode("utf-8")
            except UnicodeEncodeError as exc:  # a lone surrogate, which a notebook's JSON can spell (\ud800)
                raise SubmissionError(f"{where} holds U+{ord(exc.object[exc.start]):04X}, half of a character, "
                                      "which is no text: delete it") from None
            return _checked(data, where), where
    return None
