"""The one CSV reader of the course's files (grader.course.csv_file): bounded, UTF-8, strict, each row with its line,
and cells read as data; hostile files are one error naming the file (and the line), never a hang or a traceback."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from grader.course.csv_file import MAX_BYTES, CourseFile, read_csv
from grader.errors import ConfigError, GraderError
from grader.outputs.gradebook import read_gradebook

COLUMNS = ("student", "email", "name")
REQUIRED = {"student": "the course's id of each student"}


def write(path: Path, data: str | bytes) -> Path:
    if isinstance(data, str):
        path.write_text(data, encoding="utf-8", newline="")
    else:
        path.write_bytes(data)
    return path


def fingerprint(path: Path) -> tuple[bytes, int]:
    return path.read_bytes(), path.stat().st_mtime_ns


def refused(path: Path, limit: int = MAX_BYTES) -> ConfigError:
    """The error reading ``path`` (and its records) raises, the file unchanged by it."""
    before = fingerprint(path) if path.is_file() and os.access(path, os.R_OK) else None
    with pytest.raises(ConfigError) as caught:
        table = read_csv(path, "the roster", COLUMNS, REQUIRED, limit=limit)
        list(table.records(COLUMNS))
    assert caught.value.path == str(path)
    assert str(caught.value).startswith(f"{path}: ")
    if before is not None:
        assert fingerprint(path) == before
    return caught.value


def test_rows_keep_the_line_they_start_on_across_blank_lines_and_cells_spanning_lines(tmp_path):
    path = write(tmp_path / "roster.csv", "\ufeff\n Student ,EMAIL\n\nalice,\"a\nb\"\n  ,  \nbob,b@x\n")
    table = read_csv(path, "the roster", COLUMNS, REQUIRED)
    assert table.header == ("student", "email") and table.header_line == 2  # byte-order mark gone, names normalised
    assert [(r.line, r.cells) for r in table.rows] == [(4, ("alice", "a\nb")), (7, ("bob", "b@x"))]
    assert list(table.records(COLUMNS)) == [(4, {"student": "alice", "email": "a\nb", "name": ""}),
                                            (7, {"student": "bob", "email": "b@x", "name": ""})]


def test_an_empty_file_has_no_header_and_no_rows(tmp_path):
    table = read_csv(write(tmp_path / "x.csv", "\n  \n"), "the extensions file", COLUMNS, REQUIRED)
    assert table.header == () and table.rows == () and table.header_line == 0


@pytest.mark.parametrize("cell", ["=cmd|' /C calc'!A0", "+1+1", "@SUM(A1)", "-2+3", "=HYPERLINK(\"http://x\")"])
def test_a_formula_looking_cell_is_read_as_data_and_refused_only_where_the_file_type_asks(tmp_path, cell):
    quoted = '"' + cell.replace('"', '""') + '"'
    path = write(tmp_path / "x.csv", f"student,name\nalice,{quoted}\n")
    table = read_csv(path, "the roster", COLUMNS, REQUIRED)
    assert table.rows[0].cells == ("alice", cell)  # as written: nothing run, converted or escaped
    assert list(table.records(COLUMNS, inert=False))[0][1]["name"] == cell
    assert read_csv(path, "the gradebook").rows[0].cells == ("alice", cell)
    error = refused(path)  # the roster and the extensions refuse it: an instructor opens them in a spreadsheet
    assert error.key == "line 2, name" and "would run as a spreadsheet formula" in error.message


def test_a_negative_number_is_not_a_formula(tmp_path):
    path = write(tmp_path / "x.csv", "student,name\nalice,-2.5\n")
    assert list(read_csv(path, "the roster", COLUMNS, REQUIRED).records(COLUMNS))[0][1]["name"] == "-2.5"


@pytest.mark.parametrize(("text", "where", "words"), [
    ("student,email\nalice,a@x\nbob\n", "line 3", "1 cells for 2 columns"),
    ("student,email\nalice,a@x,extra\n", "line 2", "3 cells for 2 columns"),
    ("student,name\nalice,\"two\nlines\"\nbob\n", "line 4", "1 cells for 2 columns"),
    ("student,name\nalice,\"unclosed\n", "line 2", "not a CSV file"),
    ("student,name\nalice,\"a\"b\n", "line 2", "not a CSV file"),
    ("student,emial\n", "line 1, column 2", "unknown column 'emial'; known: student, email, name"),
    ("\n\nstudent,email,Email\n", "line 3, column 3", "the column 'email' appears twice"),
    ("name,email\n", "line 1", "no student column (the course's id of each student)"),
    ("student,name\nalice," + "x" * 201 + "\n", "line 2, name", "longer than 200 characters"),
])
def test_a_malformed_file_is_one_error_naming_the_file_and_the_line(tmp_path, text, where, words):
    error = refused(write(tmp_path / "x.csv", text))
    assert error.key == where and words in error.message


@pytest.mark.parametrize(("data", "where", "message"), [
    ("student\nzoë\n".encode("latin-1"), "byte 10", "the roster is not UTF-8: save it as CSV UTF-8"),
    ("student\nalice\n".encode("utf-16"), "", "the roster is UTF-16: save it as CSV UTF-8"),
    ("student\nalice\n".encode("utf-16-le"), "byte 1", "the roster holds NUL bytes, as UTF-16 does: save it as CSV UTF-8"),
    (b"\x00" * 64, "byte 0", "the roster holds NUL bytes, as UTF-16 does: save it as CSV UTF-8"),
])
def test_a_file_in_another_encoding_names_the_byte_and_says_how_to_save_it(tmp_path, data, where, message):
    error = refused(write(tmp_path / "x.csv", data))
    assert (error.key, error.message) == (where, message)


def test_a_huge_file_is_refused_before_it_is_read(tmp_path):
    path = tmp_path / "x.csv"
    with path.open("wb") as f:
        f.write(b"student\n")
        f.truncate(MAX_BYTES + 1)
    start = time.monotonic()
    error = refused(path)
    assert time.monotonic() - start < 1.0
    assert (error.key, error.message) == ("", f"the roster is {MAX_BYTES + 1} bytes, more than the {MAX_BYTES} read")


def test_a_file_one_byte_over_a_smaller_limit_is_refused_and_one_at_it_is_read(tmp_path):
    path = write(tmp_path / "x.csv", "student\n" + "a" * 92)
    assert read_csv(path, "the roster", COLUMNS, REQUIRED, limit=100).rows[0].cells == ("a" * 92,)
    write(path, "student\n" + "a" * 93)
    assert refused(path, limit=100).message == "the roster is 101 bytes, more than the 100 read"


def test_a_folder_or_a_missing_file_is_one_error(tmp_path):
    assert refused(tmp_path).message == "the roster is a folder: give the file itself"
    missing = refused(tmp_path / "nowhere.csv")
    assert missing.message.startswith("cannot read the roster (") and isinstance(missing, GraderError)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path):
    path = tmp_path / "x.csv"
    os.mkfifo(path)
    start = time.monotonic()
    assert refused(path).message == "the roster is not a regular file"
    assert time.monotonic() - start < 1.0


def test_the_canvas_export_keeps_its_bytes_and_decodes_through_the_same_reader(tmp_path):
    path = write(tmp_path / "canvas.csv", "\ufeffStudent,ID\n".encode())
    source = CourseFile(path, "the Canvas gradebook")
    data = source.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf") and source.decode(data) == "Student,ID\n"
    with pytest.raises(ConfigError, match="the Canvas gradebook is not UTF-8"):
        source.decode(b"Student,\xff\n")


def test_a_gradebook_is_read_as_written_and_a_broken_one_is_an_error_naming_it(tmp_path):
    write(tmp_path / "grades.csv", "student,value_ops,total,notes\n'=1+1,40,40, spaced \n")
    header, rows = read_gradebook(tmp_path)
    assert header == ["student", "value_ops", "total", "notes"]
    assert rows == [{"student": "'=1+1", "value_ops": "40", "total": "40", "notes": " spaced "}]
    write(tmp_path / "grades.csv", b"student,total\n\xff,1\n")
    with pytest.raises(ConfigError) as caught:
        read_gradebook(tmp_path)
    assert caught.value.path == str(tmp_path / "grades.csv") and "not UTF-8" in caught.value.message
    with pytest.raises(GraderError, match=r"run `grader grade` first"):
        read_gradebook(tmp_path / "nowhere")


@pytest.mark.skipif(sys.platform == "win32", reason="permissions")
def test_an_unreadable_file_is_one_error(tmp_path):
    path = write(tmp_path / "x.csv", "student\nalice\n")
    path.chmod(0)
    try:
        if os.access(path, os.R_OK):
            pytest.skip("running as root: the file stays readable")
        assert refused(path).message.startswith("cannot read the roster (Permission denied")
    finally:
        path.chmod(0o600)
