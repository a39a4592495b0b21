"""The one reader of the CSV files a course gives the grader: the roster, the extensions, a gradebook, Canvas's export.

A file is read bounded (at most :data:`MAX_BYTES`, refused before it is opened when it is larger, a folder or a FIFO),
decoded as UTF-8 with an optional byte-order mark (UTF-16 and other encodings are refused, saying to save it as CSV
UTF-8), and parsed with :mod:`csv` in strict mode; blank lines are left out, and each row keeps the line it starts
on (a quoted cell may span lines). With the columns a file may have, its header row (the first non-blank one) is
checked: an unknown, repeated or missing column is an error naming line 1 (or the header's line) and the column.

Cells are data: nothing here runs, converts or changes one (``=1+1`` is read as the five characters it is). A file
type that must refuse what a spreadsheet would run when the instructor opens the file again asks for it
(:meth:`CsvFile.records`). Every error is a :class:`~grader.errors.ConfigError` naming the file and, where there is
one, the line and the column (:meth:`CourseFile.error`); no file is ever changed.
"""

from __future__ import annotations

import csv
import io
import math
import stat
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from grader.errors import ConfigError

MAX_BYTES = 10 * 1024 * 1024
"""Largest course file read, in bytes (a course of 10,000 students needs about 1 MB for its roster)."""
MAX_CELL = 200
"""Most characters in one (stripped) cell of a roster or an extensions file (:meth:`CsvFile.records`)."""


@dataclass(frozen=True)
class CourseFile:
    """A file the course gives the grader, before it is read: what every error about it names.

    Attributes:
        path: The file (a symbolic link is followed: the instructor names the file).
        what: The file for a message (``the roster``).
    """

    path: Path
    what: str

    def error(self, where: str, message: str) -> ConfigError:
        """The error naming this file, ``where`` in it (``line 3, due``, ``byte 7``; "" for the whole file) and
        ``message``."""
        return ConfigError(self.path, where, message)

    def read_bytes(self, limit: int = MAX_BYTES) -> bytes:
        """The file's bytes, at most ``limit`` of them: a folder, a FIFO or a device is refused before it is opened,
        and no more than one byte past the limit is ever read (a file that grows while it is read included).

        Raises:
            ConfigError: If it is missing, not a regular file, cannot be read, or is larger than ``limit`` bytes.
        """
        what = self.what
        try:
            info = self.path.stat()
            if stat.S_ISDIR(info.st_mode):
                raise self.error("", f"{what} is a folder: give the file itself")
            if not stat.S_ISREG(info.st_mode):
                raise self.error("", f"{what} is not a regular file")
            if info.st_size > limit:
                raise self.error("", f"{what} is {info.st_size} bytes, more than the {limit} read")
            with open(self.path, "rb") as f:
                data = f.read(limit + 1)
        except OSError as exc:
            raise self.error("", f"cannot read {what} ({exc.strerror or exc})") from None
        if len(data) > limit:
            raise self.error("", f"{what} is more than the {limit} bytes read")
        return data

    def decode(self, data: bytes) -> str:
        """The file's text from its bytes ``data``: UTF-8 with an optional byte-order mark (removed).

        Raises:
            ConfigError: If it is UTF-16 (with or without a byte-order mark: any NUL byte) or not UTF-8, naming the
                byte and saying how to save it.
        """
        if data.startswith((b"\xff\xfe", b"\xfe\xff")):
            raise self.error("", f"{self.what} is UTF-16: save it as CSV UTF-8")
        nul = data.find(b"\x00")
        if nul >= 0:  # UTF-16 without a byte-order mark (or not text at all): no CSV UTF-8 file holds one
            raise self.error(f"byte {nul}", f"{self.what} holds NUL bytes, as UTF-16 does: save it as CSV UTF-8")
        try:
            return data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise self.error(f"byte {exc.start}", f"{self.what} is not UTF-8: save it as CSV UTF-8") from None

    def rows(self, text: str) -> list[CsvRow]:
        """The non-blank records of the file's CSV ``text`` (strict RFC 4180 quoting), each with the line it starts
        on.

        Raises:
            ConfigError: Naming the line of a record that is not CSV (an unclosed quote, a stray one).
        """
        reader = csv.reader(io.StringIO(text, newline=""), strict=True)
        rows: list[CsvRow] = []
        start = 1
        try:
            for cells in reader:
                if any(c.strip() for c in cells):
                    rows.append(CsvRow(start, tuple(cells)))
                start = reader.line_num + 1
        except csv.Error as exc:
            raise self.error(f"line {start}", f"not a CSV file ({exc})") from None
        return rows


@dataclass(frozen=True)
class CsvRow:
    """One non-blank record of a CSV file.

    Attributes:
        line: The line of the file it starts on (from 1, as a text editor counts them).
        cells: Its cells, as written (unquoted, not stripped).
    """

    line: int
    cells: tuple[str, ...]


@dataclass(frozen=True)
class CsvFile:
    """A CSV file, read and parsed (:func:`read_csv`).

    Attributes:
        source: The file read.
        header: The header row's column names: stripped and in lower case when the file's columns were given to
            :func:`read_csv`, as written otherwise; empty for a file with no row at all.
        header_line: The line of the header row (0 without one).
        rows: The records after the header, blank lines left out.
    """

    source: CourseFile
    header: tuple[str, ...]
    header_line: int
    rows: tuple[CsvRow, ...]

    @property
    def path(self) -> Path:
        return self.source.path

    def error(self, where: str, message: str) -> ConfigError:
        """The error naming this file, ``where`` in it (``line 3, due``; "" for the whole file) and ``message``."""
        return self.source.error(where, message)

    def records(self, columns: Sequence[str], *, inert: bool = True) -> Iterator[tuple[int, dict[str, str]]]:
        """Each row as (its line, column name to its stripped cell), every one of ``columns`` present ("" when the
        file has no such column), in file order; a row is checked when it is reached, so the first wrong row is the
        one named.

        Args:
            columns: Every column the file type knows.
            inert: Refuse a cell over :data:`MAX_CELL` characters, or one a spreadsheet would run as a formula when
                the file is opened: it starts with ``=``, ``+`` or ``@``, or ``-`` not followed by a number (for the
                files an instructor keeps editing in a spreadsheet: the roster, the extensions).

        Raises:
            ConfigError: Naming the line, for a row of more or fewer cells than the header; with ``inert``, naming
                the line, the column and the value, for a cell refused.
        """
        for row in self.rows:
            if len(row.cells) != len(self.header):
                raise self.error(f"line {row.line}", f"{len(row.cells)} cells for {len(self.header)} columns")
            values = dict.fromkeys(columns, "")
            for name, cell in zip(self.header, row.cells):
                value = cell.strip()
                if inert and len(value) > MAX_CELL:
                    raise self.error(f"line {row.line}, {name}", f"longer than {MAX_CELL} characters")
                if inert and (value[:1] in ("=", "+", "@") or value[:1] == "-"
                              and not value[1:].replace(".", "").isdigit()):
                    raise self.error(f"line {row.line}, {name}", f"{value[:40]!r} would run as a spreadsheet formula")
                values[name] = value
            yield row.line, values


def read_csv(path: Path, what: str, columns: Sequence[str] | None = None, required: Mapping[str, str] | None = None,
             *, limit: int = MAX_BYTES) -> CsvFile:
    """Read the CSV file ``path`` (see the module docstring): its header row and the rows after it.

    Args:
        path: The file.
        what: The file for a message (``the roster``).
        columns: The columns the file may have (names matched stripped and without regard to case); None: any
            header, kept as written.
        required: Column name to what it holds, for each column the file must have (``student``: "the course's id
            of each student").
        limit: The most bytes read.

    Returns:
        The file; one without any row has an empty header (each file type says whether that is an error).

    Raises:
        ConfigError: If the file cannot be read, is too large, is not UTF-8 or not CSV; with ``columns``, naming the
            header's line and the column, for an unknown or repeated column or a required one missing.
    """
    source = CourseFile(path, what)
    rows = source.rows(source.decode(source.read_bytes(limit)))
    if not rows:
        return CsvFile(source, (), 0, ())
    first = rows[0]
    if columns is None:
        return CsvFile(source, first.cells, first.line, tuple(rows[1:]))
    header = tuple(h.strip().lower() for h in first.cells)
    for i, name in enumerate(header):
        if name not in columns:
            raise source.error(f"line {first.line}, column {i + 1}",
                               f"unknown column {name[:60]!r}; known: {', '.join(columns)}")
        if header.index(name) != i:
            raise source.error(f"line {first.line}, column {i + 1}", f"the column {name!r} appears twice")
    for name, meaning in (required or {}).items():
        if name not in header:
            raise source.error(f"line {first.line}", f"no {name} column ({meaning})")
    return CsvFile(source, header, first.line, tuple(rows[1:]))


def finite_number(text: str) -> float | None:
    """A cell as a finite number (``float``'s syntax), or None: not a number, or infinite, or NaN."""
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None
