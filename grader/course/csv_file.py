"""The one reader of the CSV files a course gives the grader: the roster, the extensions, a gradebook, Canvas's export.

A file is read bounded (at most :data:`MAX_BYTES`, refused before it is opened when it is larger, a folder or a FIFO),
decoded as UTF-8 with an optional byte-order mark (UTF-16 and other encodings are refused, saying to save it as CSV
UTF-8), and parsed with :mod:`csv` in strict mode; blank lines are left out, and each row keeps the line it starts
on (a quoted cell may span lines). With the columns a file may have, its header row (the first non-blank one) is
checked: an unknown, repeated or missing column is an error naming line 1 (or the header's line) and the column.

Cells are data: nothing here runs, converts or changes one (``=1+1`` is read as the five characters it is). A file
type that must refuse what a spreadsheet would run when the instructor opens the file again asks for it
(:func:`check_cell`, :meth:`CsvFile.records`). Every error is a :class:`~grader.errors.ConfigError` naming the file
and, where there is one, the line and the column; no file is ever changed.
"""

from __future__ import annotations

import csv
import io
import stat
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from grader.errors import ConfigError

MAX_BYTES = 10 * 1024 * 1024
"""Largest course file read, in bytes (a course of 10,000 students needs about 1 MB for its roster)."""
MAX_CELL = 200
"""Most characters in one (stripped) cell of a roster or an extensions file (:func:`check_cell`)."""


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
        path: The file (named by every error).
        header: The header row's column names: stripped and in lower case when the file's columns were given to
            :func:`read_csv`, as written otherwise; empty for a file with no row at all.
        header_line: The line of the header row (0 without one).
        rows: The records after the header, blank lines left out.
    """

    path: Path
    header: tuple[str, ...]
    header_line: int
    rows: tuple[CsvRow, ...]

    def error(self, where: str, message: str) -> ConfigError:
        """The error naming this file, ``where`` in it (``line 3, due``; "" for the whole file) and ``message``."""
        return ConfigError(self.path, where, message)

    def records(self, columns: Sequence[str], *, inert: bool = True) -> Iterator[tuple[int, dict[str, str]]]:
        """Each row as (its line, column name to its stripped cell), every one of ``columns`` present ("" when the
        file has no such column), in file order; a row is checked when it is reached, so the first wrong row is the
        one named.

        Args:
            columns: Every column the file type knows.
            inert: Refuse a cell a spreadsheet would run, or one over :data:`MAX_CELL` characters (:func:`check_cell`).

        Raises:
            ConfigError: Naming the line, for a row of more or fewer cells than the header; with ``inert``, naming
                the line and the column, for a cell :func:`check_cell` refuses.
        """
        for row in self.rows:
            if len(row.cells) != len(self.header):
                raise self.error(f"line {row.line}", f"{len(row.cells)} cells for {len(self.header)} columns")
            values = dict.fromkeys(columns, "")
            for name, cell in zip(self.header, row.cells):
                value = cell.strip()
                if inert:
                    check_cell(self.path, f"line {row.line}, {name}", value)
                values[name] = value
            yield row.line, values


def read_bytes(path: Path, what: str, limit: int = MAX_BYTES) -> bytes:
    """A course file's bytes, at most ``limit`` of them: a folder, a FIFO or a device is refused before it is
    opened, and no more than one byte past the limit is ever read (a file that grows while it is read included).

    Args:
        path: The file (a symbolic link is followed: the instructor names the file).
        what: The file for a message (``the roster``).
        limit: The most bytes read (default :data:`MAX_BYTES`).

    Raises:
        ConfigError: If it is missing, not a regular file, cannot be read, or is larger than ``limit``.
    """
    try:
        info = path.stat()
        if stat.S_ISDIR(info.st_mode):
            raise ConfigError(path, "", f"{what} is a folder: give the file itself")
        if not stat.S_ISREG(info.st_mode):
            raise ConfigError(path, "", f"{what} is not a regular file")
        if info.st_size > limit:
            raise ConfigError(path, "", f"{what} is {info.st_size} bytes, more than the {limit} read")
        with open(path, "rb") as f:
            data = f.read(limit + 1)
    except OSError as exc:
        raise ConfigError(path, "", f"cannot read {what} ({exc.strerror or exc})") from None
    if len(data) > limit:
        raise ConfigError(path, "", f"{what} is more than the {limit} bytes read")
    return data


def decode_text(path: Path, what: str, data: bytes) -> str:
    """A course CSV file's text from its bytes ``data``: UTF-8 with an optional byte-order mark (removed).

    Raises:
        ConfigError: If it is UTF-16 (with or without a byte-order mark: any NUL byte) or not UTF-8, naming the byte
            and saying how to save it.
    """
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise ConfigError(path, "", f"{what} is UTF-16: save it as CSV UTF-8")
    nul = data.find(b"\x00")
    if nul >= 0:  # UTF-16 without a byte-order mark (or not text at all): no CSV UTF-8 file holds one
        raise ConfigError(path, f"byte {nul}", f"{what} holds NUL bytes, as UTF-16 does: save it as CSV UTF-8")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConfigError(path, f"byte {exc.start}", f"{what} is not UTF-8: save it as CSV UTF-8") from None


def read_text(path: Path, what: str, limit: int = MAX_BYTES) -> str:
    """A course CSV file's text: at most ``limit`` bytes (:func:`read_bytes`), UTF-8 with an optional byte-order
    mark (:func:`decode_text`).

    Raises:
        ConfigError: If it cannot be read, is not a file, is too large, or is not UTF-8 (saying how to save it).
    """
    return decode_text(path, what, read_bytes(path, what, limit))


def parse_rows(path: Path, text: str) -> list[CsvRow]:
    """The non-blank records of CSV ``text`` (strict RFC 4180 quoting), each with the line it starts on.

    Raises:
        ConfigError: Naming ``path`` and the line of a record that is not CSV (an unclosed quote, a stray one).
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
        raise ConfigError(path, f"line {start}", f"not a CSV file ({exc})") from None
    return rows


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
    rows = parse_rows(path, read_text(path, what, limit))
    if not rows:
        return CsvFile(path, (), 0, ())
    first = rows[0]
    if columns is None:
        return CsvFile(path, first.cells, first.line, tuple(rows[1:]))
    header = tuple(h.strip().lower() for h in first.cells)
    for i, name in enumerate(header):
        if name not in columns:
            raise ConfigError(path, f"line {first.line}, column {i + 1}",
                              f"unknown column {name[:60]!r}; known: {', '.join(columns)}")
        if header.index(name) != i:
            raise ConfigError(path, f"line {first.line}, column {i + 1}", f"the column {name!r} appears twice")
    for name, meaning in (required or {}).items():
        if name not in header:
            raise ConfigError(path, f"line {first.line}", f"no {name} column ({meaning})")
    return CsvFile(path, header, first.line, tuple(rows[1:]))


def check_cell(path: Path, where: str, value: str) -> None:
    """Refuse a (stripped) cell of a course CSV file over :data:`MAX_CELL` characters, or one a spreadsheet would run
    as a formula when the file is opened: it starts with ``=``, ``+`` or ``@``, or ``-`` not followed by a number.

    Raises:
        ConfigError: Naming ``path``, ``where`` (``line 3, name``) and, for a formula, the value.
    """
    if len(value) > MAX_CELL:
        raise ConfigError(path, where, f"longer than {MAX_CELL} characters")
    if value[:1] in ("=", "+", "@") or value[:1] == "-" and not value[1:].replace(".", "").isdigit():
        raise ConfigError(path, where, f"{value[:40]!r} would run as a spreadsheet formula")
