"""Canvas's gradebook export, read cell by cell so that it can be filled in place.

The format is Canvas's own (Instructor Guide, "How do I export grades in the Gradebook?" and "How do I import grades
in the Gradebook?", https://community.canvaslms.com/t5/Instructor-Guide/How-do-I-import-grades-in-the-Gradebook/ta-p/807;
the exporter is ``lib/gradebook_exporter.rb`` of instructure/canvas-lms): a header row of ``Student``, ``ID``,
``SIS User ID``, ``SIS Login ID``, ``Section`` (custom columns may follow) and one column per assignment named
``Title (assignment id)``, then the read-only totals; then, when some assignment posts its grades manually, a row of
posting policies (its first cells empty); then a row whose first cell is ``    Points Possible`` and whose assignment
cells are each column's points (written with two decimals, ``100.00``), the totals ``(read only)``; then one row per
student, Canvas's Test Student last (without SIS ids). Rows are comma-separated, cells quoted as RFC 4180 says.

:func:`read_canvas` keeps where each cell lies in the text, so a filled file differs from Canvas's only in the cells
changed (:meth:`CanvasFile.with_cells`). Nothing here prints: errors are :class:`~grader.errors.GraderError`.
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from grader.errors import GraderError

ID_COLUMNS = ("SIS User ID", "SIS Login ID")
"""The Canvas columns a student row is matched by, in order: the roster's ``sis_id``, then its ``email``."""
COLUMN = re.compile(r"^(?P<title>.*\S)\s*\((?P<id>\d+)\)$")
"""An assignment column's header: ``Title (Canvas id)``."""
TITLE_CHARS = 120
"""Characters of a column's header (or a title) shown in a message (Canvas allows 255 in a title)."""
POINTS_POSSIBLE = "Points Possible"
"""The first cell of Canvas's points row, without the four spaces Canvas puts before it."""
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class CanvasFile:
    """A Canvas gradebook export, parsed.

    Attributes:
        text: The file's text (its byte-order mark removed).
        rows: Each record's cells, unquoted; blank lines left out (row 0 is the header).
        spans: Where each cell of ``rows`` lies in ``text``, quotes included.
        lines: The line of the file (from 1, as a text editor counts them) on which each row starts.
    """

    text: str
    rows: list[list[str]]
    spans: list[list[tuple[int, int]]]
    lines: list[int]

    @property
    def header(self) -> list[str]:
        return self.rows[0]

    def points_row(self) -> int | None:
        """The index of the ``Points Possible`` row, or None when the file has none."""
        return next((r for r, row in enumerate(self.rows) if r and row[:1] and row[0].strip() == POINTS_POSSIBLE),
                    None)

    def column(self, aid: str, names: Sequence[str]) -> int | None:
        """The index of the column ``aid`` fills: the first of ``names`` that is a header cell, a column's title or its
        Canvas id; None when none is.

        Raises:
            GraderError: If a name matches several columns (two Canvas assignments of one title), naming them and the
                ``--column ID=<Canvas id>`` that picks each.
        """
        header = self.header
        for name in names:
            found = [i for i, cell in enumerate(header)
                     if cell == name or (m := COLUMN.match(cell)) is not None and name in (m.group("title"),
                                                                                          m.group("id"))]
            if len(found) > 1:
                shown = [header[i][:TITLE_CHARS] for i in found[:5]]
                ids = [m.group("id") for i in found[:5] if (m := COLUMN.match(header[i])) is not None]
                pick = " or ".join(f"--column {aid}={i}" for i in ids) or f"--column {aid}=<Canvas id>"
                raise GraderError(f"{len(found)} Canvas columns match {name!r} for {aid}: {', '.join(shown)}; choose "
                                  f"one with {pick}")
            if found:
                return found[0]
        return None

    def assignment_columns(self, most: int = 20) -> str:
        """The header's assignment columns (``Title (id)``), at most ``most`` of them, each cut to :data:`TITLE_CHARS`."""
        shown = [c[:TITLE_CHARS] for c in self.header if COLUMN.match(c)]
        more = f" and {len(shown) - most} more" if len(shown) > most else ""
        return (", ".join(shown[:most]) + more) or "none"

    def points_possible(self, row: int, column: int) -> tuple[float | None, str]:
        """The points of ``column`` in the points row ``row``: the number (None unless it is one above 0) and the cell
        as written (stripped)."""
        cells = self.rows[row]
        cell = cells[column].strip() if column < len(cells) else ""
        try:
            value = float(cell)
        except ValueError:
            return None, cell
        return (value if math.isfinite(value) and value > 0 else None), cell

    def with_cells(self, cells: Iterable[tuple[int, int, str]]) -> str:
        """The text with the cells at (row, column) replaced by the given values (quoted as needed), every other byte
        as it was."""
        edits = sorted(((*self.spans[r][c], quote(value)) for r, c, value in cells), reverse=True)
        out = self.text
        for a, b, cell in edits:
            out = out[:a] + cell + out[b:]
        return out


def read_canvas(text: str) -> CanvasFile:
    """Parse a Canvas gradebook export (the text, byte-order mark removed).

    Raises:
        GraderError: If it is not CSV, cannot be read cell by cell (an unusual quoting), or is not a Canvas gradebook
            (its first row does not start with ``Student`` and hold both :data:`ID_COLUMNS`). Blank lines are left
            out, and count for no student.
    """
    spans = _cell_spans(text)
    cells = [[text[a:b] for a, b in row] for row in spans]
    try:
        parsed = list(csv.reader(io.StringIO(text, newline=""), strict=True))
    except csv.Error as exc:
        raise GraderError(f"the Canvas file is not CSV ({exc})") from None
    parsed = [r for r in parsed if r]  # blank lines: _cell_spans leaves them out too, so row r is spans[r]
    if [[_unquote(c) for c in row] for row in cells] != parsed:
        raise GraderError("the Canvas file could not be read cell by cell (an unusual quoting): export it again")
    if not parsed or parsed[0][:1] != ["Student"] or not all(c in parsed[0] for c in ID_COLUMNS):
        raise GraderError("not a Canvas gradebook export: its first row should start with Student and hold "
                          f"{' and '.join(ID_COLUMNS)}")
    lines, line, done = [], 1, 0
    for row in spans:  # one pass: a line break inside a quoted cell counts, as an editor shows it
        line += len(_LINE_BREAK.findall(text, done, row[0][0]))
        done = row[0][0]
        lines.append(line)
    return CanvasFile(text, parsed, spans, lines)


def _cell_spans(text: str) -> list[list[tuple[int, int]]]:
    """Where each cell of each record lies in ``text`` (quotes included), for RFC 4180 CSV."""
    records: list[list[tuple[int, int]]] = []
    row: list[tuple[int, int]] = []
    i, n = 0, len(text)
    while i < n:
        start = i
        if text[i] == '"':
            i += 1
            while i < n:
                if text[i] == '"' and i + 1 < n and text[i + 1] == '"':
                    i += 2
                elif text[i] == '"':
                    i += 1
                    break
                else:
                    i += 1
        while i < n and text[i] not in ",\r\n":
            i += 1
        row.append((start, i))
        if i < n and text[i] == ",":
            i += 1
            if i == n:
                row.append((i, i))
            continue
        if i < n and text[i] == "\r":
            i += 1
        if i < n and text[i] == "\n":
            i += 1
        if any(b > a for a, b in row) or len(row) > 1:
            records.append(row)
        row = []
    if row:
        records.append(row)
    return records


def _unquote(cell: str) -> str:
    return cell[1:-1].replace('""', '"') if len(cell) >= 2 and cell[0] == cell[-1] == '"' else cell


def quote(value: str) -> str:
    """``value`` as one CSV cell (quoted only when it must be)."""
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="").writerow([value])
    return buffer.getvalue()
