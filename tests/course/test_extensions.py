"""Per-student extensions (grader.course.extensions): ``extensions.csv`` read strictly, the student's row found, their
due date moved (extra time is elapsed time, also across a daylight-saving change)."""

from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from grader.course.extensions import Extension, extension_for, read_extensions
from grader.errors import ConfigError

NEW_YORK = ZoneInfo("America/New_York")
ASSIGNMENTS = ("mlp", "autograd", "cnn")
DUE = datetime(2026, 11, 30, 23, 59, tzinfo=NEW_YORK)
GOOD = ("Student , ASSIGNMENT,due,extra,reason\n"
        "alice,mlp,2026-12-04T23:59,,medical\n"
        "\n"
        "bob,*,,2d,accommodation letter\n"
        "carol,cnn,2026-12-01T12:00+01:00,,\n"
        "bob,mlp,,36h,\n"
        "dave,autograd,2026-12-02,,\"travel, conference\"\n")


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8", newline="")
    return path


def test_a_good_file_reads_new_due_dates_extra_time_and_every_assignment(tmp_path):
    path = write(tmp_path / "extensions.csv", "\ufeff" + GOOD)  # Excel's "CSV UTF-8" has a byte-order mark
    alice, bob_all, carol, bob_mlp, dave = read_extensions(path, NEW_YORK, ASSIGNMENTS)
    assert alice == Extension("alice", "mlp", datetime(2026, 12, 4, 23, 59, tzinfo=NEW_YORK), None, "medical", 2)
    assert bob_all == Extension("bob", "*", None, 2 * 86400, "accommodation letter", 4)  # the blank line is skipped
    assert carol.due == datetime(2026, 12, 1, 11, 0, tzinfo=timezone.utc) and carol.reason == ""
    assert bob_mlp.extra == 36 * 3600 and bob_mlp.line == 6
    assert dave.due == datetime(2026, 12, 2, 23, 59, 59, tzinfo=NEW_YORK) and dave.reason == "travel, conference"


def test_columns_may_come_in_any_order_and_due_or_extra_may_be_left_out(tmp_path):
    path = write(tmp_path / "extensions.csv", "extra,assignment,student\n90m,cnn,erin\n")
    assert read_extensions(path, None, ASSIGNMENTS) == [Extension("erin", "cnn", None, 5400, "", 2)]


@pytest.mark.parametrize("text", ["", "\n\n", "\ufeff", "student,assignment,due,extra,reason\n",
                                  "student,assignment,extra"])
def test_an_empty_or_header_only_file_means_no_extensions(tmp_path, text):
    assert read_extensions(write(tmp_path / "extensions.csv", text), NEW_YORK, ASSIGNMENTS) == []


def test_a_row_for_the_assignment_beats_a_star_row_under_any_of_the_students_ids(tmp_path):
    extensions = read_extensions(write(tmp_path / "extensions.csv", GOOD), NEW_YORK, ASSIGNMENTS)
    assert extension_for(extensions, ["bob-gh", "bob"], "mlp").line == 6  # bob's mlp row, not his * row
    assert extension_for(extensions, ["bob"], "cnn").line == 4  # his * row
    assert extension_for(extensions, ["alice"], "mlp").line == 2
    assert extension_for(extensions, ["alice"], "cnn") is None
    assert extension_for(extensions, ["mallory"], "mlp") is None


def test_two_rows_matching_one_submission_under_two_ids_are_an_error(tmp_path):
    path = write(tmp_path / "extensions.csv", "student,assignment,extra\nalice-gh,mlp,1d\nalice,mlp,2d\nalice,*,3d\n")
    extensions = read_extensions(path, NEW_YORK, ASSIGNMENTS)  # each row is for a different (student, assignment)
    with pytest.raises(ConfigError) as caught:
        extension_for(extensions, ["alice-gh", "alice"], "mlp", where=path)
    assert caught.value.path == str(path) and caught.value.key == "line 3, student"
    assert "(line 2) are one student" in caught.value.message
    assert extension_for(extensions, ["alice"], "mlp").line == 3
    assert extension_for(extensions, ["alice-gh", "alice"], "cnn").line == 4


def test_a_new_due_date_replaces_the_assignments_and_describe_says_so_without_the_reason():
    alice = Extension("alice", "mlp", datetime(2026, 12, 4, 23, 59, tzinfo=NEW_YORK), None, "medical", 2)
    assert alice.applied_to(DUE) == alice.due
    assert alice.describe(DUE) == ("Extension: due 2026-12-04T23:59:00-05:00 instead of "
                                   "2026-11-30T23:59:00-05:00.")
    bob = Extension("bob", "*", None, 2 * 86400, "accommodation letter", 3)
    assert bob.applied_to(DUE) == datetime(2026, 12, 2, 23, 59, tzinfo=NEW_YORK)
    assert bob.describe(DUE) == ("Extension: 2 d more, due 2026-12-02T23:59:00-05:00 instead of "
                                 "2026-11-30T23:59:00-05:00.")
    with pytest.raises(ValueError, match="aware"):
        bob.applied_to(datetime(2026, 11, 30, 23, 59))


def test_extra_days_are_calendar_days_and_hours_elapsed_time_across_daylight_saving_changes():
    """``extra: 1d`` ends at the same wall-clock time the next day, as the late policy counts days: across New
    York's spring-forward night (2026-03-08, 02:00 becomes 03:00) that is 23 hours, across the fall-back night
    (2026-11-01) 25; ``extra: 36h`` is 129,600 seconds whatever the clocks do."""
    day = Extension("bob", "*", None, 86400, "", 2)
    spring = datetime(2026, 3, 7, 23, 59, tzinfo=NEW_YORK)
    moved = day.applied_to(spring)
    assert moved.astimezone(timezone.utc) - spring.astimezone(timezone.utc) == timedelta(hours=23)
    assert moved.isoformat() == "2026-03-08T23:59:00-04:00"
    fall = datetime(2026, 10, 31, 23, 59, tzinfo=NEW_YORK)
    assert day.applied_to(fall).isoformat() == "2026-11-01T23:59:00-05:00"
    hours = Extension("bob", "*", None, 36 * 3600, "", 2).applied_to(spring)
    assert hours.astimezone(timezone.utc) - spring.astimezone(timezone.utc) == timedelta(hours=36)
    assert hours.isoformat() == "2026-03-09T12:59:00-04:00"
    assert day.describe(spring) == ("Extension: 1 d more, due 2026-03-08T23:59:00-04:00 instead of "
                                    "2026-03-07T23:59:00-05:00.")


HEADER = "student,assignment,due,extra,reason\n"


@pytest.mark.parametrize(("text", "where", "words"), [
    ("student,assignment,due,extar\n", "line 1, column 4", "unknown column 'extar'; known: student, assignment"),
    ("student,assignment,due,Due \n", "line 1, column 4", "the column 'due' appears twice"),
    ("assignment,due\nmlp,2026-12-04\n", "line 1", "no student column"),
    ("student,due\nalice,2026-12-04\n", "line 1", "no assignment column"),
    ("student,assignment,reason\nalice,mlp,x\n", "line 1", "no due or extra column"),
    (HEADER + "alice,mpl,2026-12-04,,\n", "line 2, assignment",
     "'mpl' is not an assignment; known: autograd, cnn, mlp (or * for all)"),
    (HEADER + ",mlp,2026-12-04,,\n", "line 2, student", "empty student id"),
    (HEADER + "alice,,2026-12-04,,\n", "line 2, assignment", "empty: an assignment id, or *"),
    (HEADER + "alice,mlp,2026-12-04,2d,\n", "line 2, extra", "'2d' as well as a due date ('2026-12-04')"),
    (HEADER + "alice,mlp,,,medical\n", "line 2, due", "neither a due date nor extra time"),
    (HEADER + "alice,mlp,next friday,,\n", "line 2, due", "'next friday' is not a date: use ISO 8601"),
    (HEADER + "alice,mlp,2026-02-30,,\n", "line 2, due", "'2026-02-30' is not a valid date"),
    (HEADER + "alice,mlp,,2 weeks,\n", "line 2, extra", "'2 weeks': expected a duration such as 15m, 2h or 3d"),
    (HEADER + "alice,mlp,,0h,\n", "line 2, extra", "'0h' is no time"),
    (HEADER + "alice,mlp,,1d,\nbob,*,,1d,\nalice,mlp,,2d,\n", "line 4, student",
     "'alice' already has an extension for 'mlp', on line 2"),
    (HEADER + "alice,mlp,,1d,\"two\nlines\"\nbob,mlp,,1d\n", "line 4", "4 cells for 5 columns"),  # a cell spans lines
    (HEADER + "alice,mlp,,1d,\nbob,mlp,,1d\n", "line 3", "4 cells for 5 columns"),
    (HEADER + "alice,mlp,,1d,\"=HYPERLINK(\"\"http://x\"\")\"\n", "line 2, reason",
     "'=HYPERLINK(\"http://x\")' would run as a spreadsheet formula"),
    (HEADER + "alice,mlp,,-1d,\n", "line 2, extra", "'-1d' would run as a spreadsheet formula"),
    (HEADER + "alice,mlp,,1d," + "x" * 201 + "\n", "line 2, reason", "longer than 200 characters"),
    (HEADER + "alice,mlp,,1d,\"unclosed\n", "line 2", "not a CSV file"),
])
def test_a_malformed_file_is_one_error_naming_the_file_line_column_and_value(tmp_path, text, where, words):
    path = write(tmp_path / "extensions.csv", text)
    with pytest.raises(ConfigError) as caught:
        read_extensions(path, NEW_YORK, ASSIGNMENTS)
    assert caught.value.path == str(path) and caught.value.key == where and words in caught.value.message
    assert str(caught.value).startswith(f"{path}: {where}: ")
    assert path.read_text(encoding="utf-8") == text  # never changed


def test_a_wrong_row_is_refused_wherever_it_is_not_just_at_the_end(tmp_path):
    path = write(tmp_path / "extensions.csv", HEADER + "alice,mpl,,1d,\n" + "bob,mlp,,1d,\n" * 5)
    with pytest.raises(ConfigError, match="line 2, assignment"):
        read_extensions(path, NEW_YORK, ASSIGNMENTS)


def test_a_long_value_is_cut_short_in_the_message(tmp_path):
    path = write(tmp_path / "extensions.csv", HEADER + "alice," + "m" * 150 + ",,1d,\n")
    with pytest.raises(ConfigError) as caught:
        read_extensions(path, NEW_YORK, ASSIGNMENTS)
    assert f"'{'m' * 60}' is not an assignment" in caught.value.message and "m" * 61 not in caught.value.message


def test_a_due_date_without_an_offset_needs_the_courses_time_zone(tmp_path):
    path = write(tmp_path / "extensions.csv", HEADER + "alice,mlp,2026-12-04T23:59,,\n")
    with pytest.raises(ConfigError) as caught:
        read_extensions(path, None, ASSIGNMENTS)
    assert caught.value.path == str(path) and caught.value.key == "line 2, due"
    assert "'2026-12-04T23:59' has no UTC offset and the course sets no time zone" in caught.value.message
    write(path, HEADER + "alice,mlp,2026-12-04T23:59-05:00,,\n")
    assert read_extensions(path, None, ASSIGNMENTS)[0].due == datetime(2026, 12, 4, 23, 59, tzinfo=NEW_YORK)


@pytest.mark.parametrize(("data", "where", "words"), [
    ((HEADER + "alice,mlp,,1d,\n").encode("utf-16"), "", "the extensions file is UTF-16: save it as CSV UTF-8"),
    ((HEADER + "zoë,mlp,,1d,\n").encode("latin-1"), "byte 38",
     "the extensions file is not UTF-8: save it as CSV UTF-8"),
    # UTF-16 without a byte-order mark: not "unknown column 's\x00t\x00u...'"
    pytest.param((HEADER + "alice,mlp,,1d,\n").encode("utf-16-le"), "byte 1",
                 "the extensions file holds NUL bytes, as UTF-16 does: save it as CSV UTF-8", id="utf-16-le-no-bom"),
    pytest.param((HEADER + "alice,mlp,,1d,\n").encode("utf-16-be"), "byte 0",
                 "the extensions file holds NUL bytes, as UTF-16 does: save it as CSV UTF-8", id="utf-16-be-no-bom"),
])
def test_a_file_in_another_encoding_says_how_to_save_it(tmp_path, data, where, words):
    path = tmp_path / "extensions.csv"
    path.write_bytes(data)
    before = path.stat().st_mtime_ns
    with pytest.raises(ConfigError) as caught:
        read_extensions(path, NEW_YORK, ASSIGNMENTS)
    assert caught.value.path == str(path) and caught.value.key == where and caught.value.message == words
    assert path.read_bytes() == data and path.stat().st_mtime_ns == before  # never changed


def test_a_file_over_the_size_limit_is_refused_before_it_is_read(tmp_path):
    path = tmp_path / "extensions.csv"
    with path.open("wb") as f:
        f.write(HEADER.encode())
        f.truncate(11 * 1024 * 1024)
    start = time.monotonic()
    with pytest.raises(ConfigError) as caught:
        read_extensions(path, NEW_YORK, ASSIGNMENTS)
    assert time.monotonic() - start < 1.0
    assert caught.value.path == str(path) and caught.value.key == ""
    assert caught.value.message == f"the extensions file is {11 * 1024 * 1024} bytes, more than the 10485760 read"
