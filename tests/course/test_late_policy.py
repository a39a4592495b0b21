"""Due dates and late policies (grader.course.late_policy): every boundary to the second, and across a
daylight-saving change in the course's time zone."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from grader.course.late_policy import LatePolicy, assess, parse_deadline, parse_due, parse_policy, time_zone
from grader.errors import ConfigError, GraderError

NEW_YORK = ZoneInfo("America/New_York")
DUE = datetime(2026, 11, 20, 23, 59, tzinfo=NEW_YORK)
POLICY = LatePolicy(grace=15 * 60, penalty=0.1, per="day", cap=0.5, cutoff=3 * 86400)
S = timedelta(seconds=1)


def test_exactly_at_the_due_date_is_on_time_and_one_second_after_is_late():
    assert not assess(DUE, DUE, POLICY).late
    late = assess(DUE + S, DUE, POLICY)
    assert late.late and late.seconds == 1 and late.penalty == 0  # within the grace period
    assert assess(DUE + timedelta(milliseconds=1), DUE, POLICY).seconds == 1  # any part of a second counts


def test_the_grace_period_forgives_to_the_second_and_then_the_days_count_from_the_due_date():
    inside = assess(DUE + timedelta(minutes=15), DUE, POLICY)
    assert inside.late and inside.penalty == 0 and inside.units == 0
    past = assess(DUE + timedelta(minutes=15) + S, DUE, POLICY)
    assert past.units == 1 and past.penalty == pytest.approx(0.1)
    assert assess(DUE + timedelta(days=1), DUE, POLICY).units == 1
    assert assess(DUE + timedelta(days=1) + S, DUE, POLICY).units == 2


def test_the_cap_limits_the_penalty_and_the_cut_off_stops_grading_to_the_second():
    capped = LatePolicy(penalty=0.2, per="day", cap=0.5)
    assert assess(DUE + timedelta(days=9), DUE, capped).penalty == pytest.approx(0.5)
    at_cutoff = assess(DUE + timedelta(days=3), DUE, POLICY)
    assert at_cutoff.graded and at_cutoff.units == 3 and at_cutoff.penalty == pytest.approx(0.3)
    after = assess(DUE + timedelta(days=3) + S, DUE, POLICY)
    assert not after.graded and after.final(40, 40) == 0
    assert "not graded" in after.sentence(POLICY)


def test_an_extension_is_a_later_due_date_and_moves_nothing_else():
    extended = DUE + timedelta(days=2)
    assert not assess(DUE + timedelta(days=1), extended, POLICY).late
    assert assess(extended + timedelta(hours=1), extended, POLICY).units == 1
    assert assess(extended + timedelta(days=3), extended, POLICY).graded  # the cut-off is after its own due date


def test_hours_count_started_hours():
    hourly = LatePolicy(penalty=0.01, per="hour")
    assert assess(DUE + timedelta(hours=1), DUE, hourly).units == 1
    assert assess(DUE + timedelta(hours=1) + S, DUE, hourly).units == 2


def test_a_day_late_ends_at_the_same_wall_clock_time_across_daylight_saving_changes():
    # 2026-03-08 02:00 New York springs forward: Saturday 23:59 to Sunday 23:59 is 23 hours
    spring = datetime(2026, 3, 7, 23, 59, tzinfo=NEW_YORK)
    sunday_end = datetime(2026, 3, 8, 23, 59, tzinfo=NEW_YORK)
    assert sunday_end.astimezone(timezone.utc) - spring.astimezone(timezone.utc) == timedelta(hours=23)
    policy = LatePolicy(penalty=0.1, per="day")
    assert assess(sunday_end, spring, policy).units == 1
    assert assess(sunday_end + S, spring, policy).units == 2  # 23 h 0 min 1 s: a second day has started
    assert assess(sunday_end + S, spring, policy).seconds == 23 * 3600 + 1  # lateness is elapsed time
    # 2026-11-01 02:00 New York falls back: Saturday 23:59 to Sunday 23:59 is 25 hours
    fall = datetime(2026, 10, 31, 23, 59, tzinfo=NEW_YORK)
    sunday = datetime(2026, 11, 1, 23, 59, tzinfo=NEW_YORK)
    assert sunday.astimezone(timezone.utc) - fall.astimezone(timezone.utc) == timedelta(hours=25)
    assert assess(sunday, fall, policy).units == 1  # 25 hours, still one calendar day
    assert assess(sunday + S, fall, policy).units == 2


def test_the_penalty_is_taken_once_from_the_points_and_never_below_zero():
    one_day = assess(DUE + timedelta(hours=5), DUE, POLICY)
    assert one_day.final(30, 40) == 26.0
    assert assess(DUE + timedelta(days=3), DUE, POLICY).final(5, 40) == 0.0
    assert assess(DUE, DUE, POLICY).final(30, 40) == 30


def test_the_policy_and_what_it_did_read_as_one_sentence():
    assert POLICY.describe() == ("late work loses 10% of the points per started day after the due date, at most 50%; "
                                 "nothing within 15 min of it; work more than 3 d late is not graded.")
    assert "1 started day(s), 10% of the points taken" in assess(DUE + timedelta(hours=2), DUE, POLICY).sentence(POLICY)
    assert assess(DUE, DUE, POLICY).sentence(POLICY).startswith("On time")


def test_due_dates_read_iso_8601_in_the_course_time_zone():
    assert parse_due("2026-11-20T23:59", NEW_YORK) == DUE
    assert parse_due("2026-11-20", NEW_YORK) == datetime(2026, 11, 20, 23, 59, 59, tzinfo=NEW_YORK)
    assert parse_due("2026-11-20T23:59-05:00", None) == DUE
    assert parse_due("2026-11-21T04:59Z", None) == DUE
    assert parse_due(datetime(2026, 11, 21, 4, 59, tzinfo=timezone.utc), None) == DUE  # YAML's own timestamp


@pytest.mark.parametrize(("data", "key", "words"), [
    ({"penalty": "ten"}, "late.penalty", "'ten': expected a percentage"),
    ({"penalty": "150%"}, "late.penalty", "from 0% to 100%"),
    ({"penalty": "10%", "per": "week"}, "late.per", "expected day or hour"),
    ({"grace": "15 minutes"}, "late.grace", "expected a duration"),
    ({"penalty": "10%", "cutoff": "2026-11-19T00:00"}, "late.cutoff", "not after the due date"),
    ({"penalty": "10%", "cutof": "3d"}, "late.cutof", "unknown key"),
    ({"cap": "50%"}, "late.cap", "a cap without a penalty"),
    ("10%", "late", "expected a table"),
])
def test_a_wrong_policy_names_the_file_the_key_and_the_value(data, key, words):
    with pytest.raises(ConfigError) as caught:
        parse_policy(data, DUE, "assignments/mlp/assignment.yaml")
    assert caught.value.path == "assignments/mlp/assignment.yaml" and caught.value.key == key
    assert words in caught.value.message


def test_a_policy_reads_percentages_fractions_durations_and_an_absolute_cut_off():
    policy = parse_policy({"grace": "15m", "penalty": "10%", "per": "day", "cap": 0.5,
                           "cutoff": "2026-11-23T23:59"}, DUE)
    assert policy == POLICY
    assert parse_policy(None, DUE) == LatePolicy()


@pytest.mark.parametrize(("text", "words"), [
    ("30/11/2026", "is not a date"),
    ("2026-02-30T10:00", "is not a valid date"),
    ("2026-11-20T23:59+25:00", "is not a valid date"),  # an offset of a day or more
    ("2026-11-20T23:59", "no UTC offset and the course sets no time zone"),
])
def test_a_wrong_due_date_names_the_key(text, words):
    with pytest.raises(ConfigError) as caught:
        parse_due(text, None, "assignments/mlp/assignment.yaml")
    assert caught.value.key == "due" and words in caught.value.message


def test_an_unknown_time_zone_is_an_error_that_says_what_to_use():
    with pytest.raises(ConfigError, match="IANA name"):
        time_zone("Mars/Olympus_Mons", "assignments/course.yaml")


@pytest.mark.parametrize(
    "text,expected",
    [
        ("2026-11-30T23:59Z", datetime(2026, 11, 30, 23, 59, tzinfo=timezone.utc)),
        ("2026-11-30t23:59:30z", datetime(2026, 11, 30, 23, 59, 30, tzinfo=timezone.utc)),
        ("2026-11-30 23:59:00+01:00", datetime(2026, 11, 30, 22, 59, tzinfo=timezone.utc)),
        ("2026-11-30T23:59:00.5-0230", datetime(2026, 12, 1, 2, 29, 0, 500000, tzinfo=timezone.utc)),
        ("2026-11-30T23:59", datetime(2026, 11, 30, 23, 59).astimezone()),
        (" 2026-11-30 ", datetime(2026, 11, 30, 23, 59, 59).astimezone()),
    ],
)
def test_parse_deadline_forms(text: str, expected: datetime) -> None:
    got = parse_deadline(text)
    assert got.tzinfo is not None and got == expected


@pytest.mark.parametrize("text", ["", "tomorrow", "2026-13-01", "2026-11-31", "30/11/2026", "2026-11-30T25:00",
                                  "2026-11-30T23:59+25:00", "2026-11-30T23:59:00 UTC"])
def test_parse_deadline_rejects_garbage_clearly(text: str) -> None:
    with pytest.raises(GraderError, match=r"cannot read the deadline .*use ISO 8601, e\.g\. 2026-11-30 "):
        parse_deadline(text)


def test_local_deadline_is_this_machines_time_zone() -> None:
    got = parse_deadline("2026-07-01T12:00")
    assert got.utcoffset() == datetime(2026, 7, 1, 12).astimezone().utcoffset()
    assert got - parse_deadline("2026-07-01T11:00") == timedelta(hours=1)
