"""Due dates and late policies: when an assignment is due, and what late work costs, computed in one place.

An assignment's policy, as ``assignment.yaml`` will state it::

    due: 2026-11-30T23:59            # ISO 8601; without an offset, in the course's time zone (an IANA name)
    late:
      grace: 15m                     # work at most this late costs nothing (s, m, h or d)
      penalty: 10%                   # of the points, per started `per` after the due date (or 0.1)
      per: day                       # day (calendar days in the course's time zone) or hour
      cap: 50%                       # the most a penalty takes (default: everything)
      cutoff: 3d                     # after this (a duration after the due date, or an ISO 8601 time), the
                                     # work is not graded; an extension moves it by as much as the due date

The rules, each decided to the second (:func:`assess`):

* work at or before its due date is on time: exactly at the due date is on time, one second after is late;
* late work within the grace period costs nothing (and is still reported late, with its lateness);
* beyond it, the penalty counts every *started* unit from the due date (the grace period forgives, it does not
  move the clock): a day is a calendar day in the course's time zone, so over a daylight-saving change "one day
  late" still ends at the same wall-clock time the next day (23 or 25 hours); an hour is 3,600 seconds;
* the penalty is ``min(cap, units * penalty)`` of the points, taken from the score once;
* work after the cut-off is not graded (it scores nothing, and says why).

The formulas follow what courses ask their tools for (Gradescope's late due date and grace period, nbgrader's
per-unit late penalty plugins), made explicit so one sentence can state them (:meth:`LatePolicy.describe`).

Errors name the file, the key and the value (:class:`~grader.errors.ConfigError`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone, tzinfo
from typing import Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from grader.errors import ConfigError, GraderError

DURATION = re.compile(r"^\s*(\d{1,6})\s*(s|m|h|d)\s*$")
"""A duration: a whole number of seconds, minutes, hours or days (``15m``, ``3d``)."""
UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
ISO = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?)?\s*(Z|[+-]\d{2}:?\d{2})?$",
                 re.IGNORECASE)
"""A due date: a date (meaning 23:59:59 that day) or a date and time, with an optional UTC offset."""
FORMS = ("2026-11-30 (23:59:59 that day), 2026-11-30T23:59, 2026-11-30 23:59:00+01:00 or 2026-11-30T22:59Z; "
         "a time without an offset is in the course's time_zone, else this machine's")
PERCENT = re.compile(r"^\s*(\d{1,3}(?:\.\d{1,4})?)\s*%\s*$")
KEYS = ("grace", "penalty", "per", "cap", "cutoff")
LATEST = datetime(9999, 12, 31, 23, 59, 59, tzinfo=timezone.utc)
"""The latest moment a due date, a cut-off or an extension can reach: what one past the year 9999 (in UTC) stays at."""


@dataclass(frozen=True)
class LatePolicy:
    """What late work costs.

    Attributes:
        grace: Seconds of lateness that cost nothing.
        penalty: The fraction of the points taken per started unit (0 to 1).
        per: The unit: ``"day"`` (a calendar day in the due date's time zone) or ``"hour"``.
        cap: The largest fraction a penalty takes (0 to 1).
        cutoff: Seconds after the due date after which work is not graded (None: never).
    """

    grace: int = 0
    penalty: float = 0.0
    per: Literal["day", "hour"] = "day"
    cap: float = 1.0
    cutoff: int | None = None

    def describe(self) -> str:
        """The policy in one sentence, for feedback and the class report."""
        parts = []
        if self.penalty:
            parts.append(f"late work loses {_percent(self.penalty)} of the points per started {self.per} after the "
                         "due date" + (f", at most {_percent(self.cap)}" if self.cap < 1 else ""))
        else:
            parts.append("late work loses no points")
        if self.grace:
            parts.append(f"nothing within {duration_text(self.grace)} of it")
        if self.cutoff is not None:
            parts.append(f"work more than {duration_text(self.cutoff)} late is not graded")
        return "; ".join(parts) + "."


@dataclass(frozen=True)
class Lateness:
    """How late one submission was, and what the policy makes of it.

    Attributes:
        seconds: How late it was, in seconds (0: on time).
        units: The started units (days or hours) the penalty counts (0 on time or within grace).
        penalty: The fraction of the points taken (0 to 1).
        graded: False when it came after the cut-off (it is not graded).
        due: The due date that applied (the student's own, with an extension).
    """

    seconds: int
    units: int
    penalty: float
    graded: bool
    due: datetime

    @property
    def late(self) -> bool:
        return self.seconds > 0

    def sentence(self, policy: LatePolicy) -> str:
        """What was applied to this submission, in one sentence."""
        when = f"due {self.due.isoformat(timespec='seconds')}"
        if not self.graded:
            return f"Submitted {duration_text(self.seconds)} late ({when}), after the cut-off: not graded."
        if not self.late:
            return f"On time ({when})."
        if not self.penalty:
            return f"Submitted {duration_text(self.seconds)} late ({when}), within the grace period: no penalty."
        return (f"Submitted {duration_text(self.seconds)} late ({when}): {self.units} started {policy.per}(s), "
                f"{_percent(self.penalty)} of the points taken.")

    def final(self, raw: float, points: float) -> float:
        """The score after the penalty (points: what the assignment is worth); 0 when not graded."""
        return penalised(raw, points, self.penalty, self.graded)


def penalised(raw: float, points: float, penalty: float, graded: bool) -> float:
    """``raw`` points less ``penalty`` (a fraction) of ``points`` (what the assignment is worth), never below 0; 0
    when the work was not graded (after the cut-off)."""
    if not graded:
        return 0.0
    return round(max(0.0, raw - penalty * points), 4)


def assess(submitted: datetime, due: datetime, policy: LatePolicy) -> Lateness:
    """Apply ``policy`` to work submitted at ``submitted`` and due at ``due`` (both aware; to the second).

    Raises:
        ValueError: If either time is naive.
    """
    if submitted.tzinfo is None or due.tzinfo is None:
        raise ValueError("assess needs aware datetimes")
    # In UTC: Python subtracts and compares two times of one tzinfo by their wall clocks, ignoring a DST change.
    at, until = submitted.astimezone(timezone.utc), due.astimezone(timezone.utc)
    seconds = max(0, math.ceil((at - until).total_seconds()))
    if seconds == 0:
        return Lateness(0, 0, 0.0, True, due)
    if policy.cutoff is not None and seconds > policy.cutoff:
        return Lateness(seconds, 0, 0.0, False, due)
    if seconds <= policy.grace or not policy.penalty:
        return Lateness(seconds, 0, 0.0, True, due)
    units = _started_days(at, due) if policy.per == "day" else math.ceil(seconds / 3600)
    return Lateness(seconds, units, round(min(policy.cap, units * policy.penalty), 6), True, due)


def _started_days(submitted: datetime, due: datetime) -> int:
    """Started calendar days after ``due`` in its own time zone (wall-clock days: 23 or 25 hours across a
    daylight-saving change); ``submitted`` in UTC."""
    elapsed = (submitted - due.astimezone(timezone.utc)).total_seconds()
    k = max(1, int(elapsed // 86400) - 1)
    while _wall_clock_add(due, k) < submitted:
        k += 1
    while k > 1 and _wall_clock_add(due, k - 1) >= submitted:
        k -= 1
    return k


def _wall_clock_add(when: datetime, days: int) -> datetime:
    """``days`` calendar days after ``when``, at the same wall-clock time in its time zone, in UTC (:data:`LATEST`
    past the year 9999)."""
    try:
        local = when.replace(tzinfo=None) + timedelta(days=days)
        return local.replace(tzinfo=when.tzinfo).astimezone(timezone.utc)
    except OverflowError:
        return LATEST


def time_zone(name: str, where: str = "", key: str = "time_zone") -> tzinfo:
    """The IANA time zone ``name`` (``Europe/Paris``).

    Raises:
        ConfigError: If there is no such time zone here (on Windows, install the ``tzdata`` package).
    """
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ConfigError(where, key, f"unknown time zone {name!r}: use an IANA name such as Europe/Paris or "
                                      "America/New_York") from None


def parse_due(value: Any, zone: tzinfo | None, where: str = "", key: str = "due") -> datetime:
    """A due date from ``assignment.yaml`` (or ``extensions.csv``) as an aware datetime.

    A date alone means 23:59:59 that day; a time without an offset is in ``zone`` (the course's time zone); a time
    past the end of the year 9999 in UTC (a placeholder) is :data:`LATEST`.

    Raises:
        ConfigError: If it is not ISO 8601, or has no offset while the course sets no time zone.
    """
    if isinstance(value, datetime):  # YAML reads an unquoted timestamp itself
        value = value.isoformat()
    text = str(value).strip()
    local, offset = _read_iso(text, where, key)
    if offset is None and zone is None:
        raise ConfigError(where, key, f"{text!r} has no UTC offset and the course sets no time zone: add one "
                                      "(2026-11-30T23:59-05:00) or set time_zone in assignments/course.yaml")
    when = local.replace(tzinfo=offset if offset is not None else zone)
    try:
        when.astimezone(timezone.utc)
    except OverflowError:  # past the end of 9999 in UTC (9999-12-31 west of Greenwich: a placeholder)
        return LATEST
    return when


@dataclass(frozen=True)
class Dates:
    """An assignment's dates: ``due``, ``late`` and ``released`` of its ``assignment.yaml``, read together
    (:func:`parse_dates`).

    Attributes:
        due: When the assignment is due (aware), or None: then no lateness is assessed.
        late: What late work costs (no cost without a ``late`` table).
        released: Whether the assignment is handed out: True, False, or the moment it is (aware).
    """

    due: datetime | None = None
    late: LatePolicy = LatePolicy()
    released: datetime | bool = True


def parse_dates(raw: Mapping[str, Any], zone: Callable[[], tzinfo | None], where: str) -> Dates:
    """The ``due``, ``late`` and ``released`` keys of an ``assignment.yaml`` (``raw``: its mapping).

    Args:
        raw: The file's mapping.
        zone: The course's time zone (None: the course sets none), asked for only when a date is to be read.
        where: The file, for errors.

    Raises:
        ConfigError: Naming the file and the key: a date that does not parse (or has no offset while the course sets
            no time zone), a late policy without a due date or with a value out of place, a release after the due date.
    """
    due = None
    if raw.get("due") is not None:
        due = parse_due(raw["due"], zone(), where, "due")
    elif raw.get("late") is not None:
        raise ConfigError(where, "late", "a late policy without a due date: set due too")
    late = parse_policy(raw.get("late"), due, where) if due is not None else LatePolicy()
    return Dates(due, late, _released(raw.get("released", True), zone, due, where))


def _released(value: Any, zone: Callable[[], tzinfo | None], due: datetime | None, where: str) -> datetime | bool:
    """The ``released`` key: true, false, or an ISO 8601 date or time (as ``due``; a date alone means the start of that
    day), not after ``due``."""
    if isinstance(value, bool):
        return value
    if value is None or isinstance(value, (int, float, list, dict)):
        raise ConfigError(where, "released", f"expected true, false or a date such as 2026-11-23, got {value!r}")
    local = zone()
    text = value.isoformat() if isinstance(value, (date, datetime)) else str(value).strip()
    day_only = re.fullmatch(r"\d{4}-\d{2}-\d{2}", text) is not None
    when = parse_due(f"{text}T00:00" if day_only else text, local, where, "released")  # a day: from its start
    if due is not None and when > due:
        raise ConfigError(where, "released", f"{when.isoformat(timespec='seconds')} is after the due date "
                                             f"{due.isoformat(timespec='seconds')}")
    return when


def parse_deadline(text: str, zone: tzinfo | None = None) -> datetime:
    """``grader grade --deadline TIME`` as an aware datetime: :func:`parse_due`'s forms, and a time without an
    offset in ``zone`` (the course's time zone), else in this machine's.

    Raises:
        GraderError: If ``text`` is not one of the accepted forms.
    """
    try:
        local, offset = _read_iso(text.strip(), "--deadline", "")
    except ConfigError:
        shown = text if len(text) <= 60 else text[:57] + "..."
        raise GraderError(f"cannot read the deadline {shown!r}: use ISO 8601, e.g. {FORMS}") from None
    if offset is not None:
        return local.replace(tzinfo=offset)
    return local.replace(tzinfo=zone) if zone is not None else local.astimezone()


def _read_iso(text: str, where: str, key: str) -> tuple[datetime, timezone | None]:
    """The naive date and time of an ISO 8601 text (a date alone: 23:59:59 that day), and its UTC offset if any.

    Raises:
        ConfigError: If it is not ISO 8601 or not a valid date, time or offset.
    """
    m = ISO.fullmatch(text)
    if m is None:
        raise ConfigError(where, key, f"{text[:60]!r} is not a date: use ISO 8601, e.g. 2026-11-30T23:59 or "
                                      "2026-11-30T23:59-05:00")
    y, mo, d, h, mi, s, frac, off = m.groups()
    try:
        clock = (int(h), int(mi), int(s or 0), int((frac or "0").ljust(6, "0"))) if h else (23, 59, 59, 0)
        local = datetime(int(y), int(mo), int(d), *clock)
        if off is None:
            return local, None
        minutes = 0 if off.upper() == "Z" else int(off[1:3]) * 60 + int(off[-2:])
        return local, timezone(timedelta(minutes=-minutes if off[0] == "-" else minutes))
    except (ValueError, OverflowError) as exc:
        raise ConfigError(where, key, f"{text[:60]!r} is not a valid date ({exc})") from None


def parse_policy(data: Any, due: datetime, where: str = "", key: str = "late") -> LatePolicy:
    """The ``late`` table of ``assignment.yaml`` (``due``: the assignment's due date, for an absolute cut-off).

    Raises:
        ConfigError: Naming the file, the key (``late.penalty``) and the value, for any value out of place.
    """
    if data is None:
        return LatePolicy()
    if not isinstance(data, dict):
        raise ConfigError(where, key, f"expected a table of {', '.join(KEYS)}, got {type(data).__name__}")
    unknown = sorted(str(k) for k in data if k not in KEYS)
    if unknown:
        raise ConfigError(where, f"{key}.{unknown[0]}", f"unknown key; known keys: {', '.join(KEYS)}")
    grace = duration_seconds(data.get("grace", 0), where, f"{key}.grace")
    penalty = _fraction(data.get("penalty", 0), where, f"{key}.penalty")
    cap = _fraction(data.get("cap", 1), where, f"{key}.cap")
    per = data.get("per", "day")
    if per not in ("day", "hour"):
        raise ConfigError(where, f"{key}.per", f"{per!r}: expected day or hour")
    cutoff = data.get("cutoff")
    after: int | None = None
    if cutoff is not None:
        if isinstance(cutoff, str) and DURATION.fullmatch(cutoff):
            after = duration_seconds(cutoff, where, f"{key}.cutoff")
        else:
            when = parse_due(cutoff, due.tzinfo, where, f"{key}.cutoff")
            after = int((when.astimezone(timezone.utc) - due.astimezone(timezone.utc)).total_seconds())
        if after <= grace:
            raise ConfigError(where, f"{key}.cutoff", f"{cutoff!r} is not after the due date and its grace period")
    if penalty == 0 and "cap" in data:
        raise ConfigError(where, f"{key}.cap", "a cap without a penalty: set late.penalty too")
    return LatePolicy(grace, penalty, per, cap, after)


def duration_seconds(value: Any, where: str, key: str) -> int:
    """A duration in seconds: a whole number of seconds, minutes, hours or days (``15m``, ``36h``, ``2d``: a day is
    86,400 seconds), or a non-negative int of seconds (``grace``, ``cutoff``, ``extensions.csv``'s ``extra``).

    Raises:
        ConfigError: Naming ``where``, ``key`` and the value (its first 60 characters), if it is not a duration.
    """
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    m = DURATION.fullmatch(str(value)) if isinstance(value, str) else None
    if m is None:
        shown = value[:60] if isinstance(value, str) else value
        raise ConfigError(where, key, f"{shown!r}: expected a duration such as 15m, 2h or 3d")
    return int(m.group(1)) * UNIT_SECONDS[m.group(2)]


def _fraction(value: Any, where: str, key: str) -> float:
    m = PERCENT.fullmatch(value) if isinstance(value, str) else None
    if m is not None:
        number = float(m.group(1)) / 100
    elif isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        number = float(value)
    else:
        raise ConfigError(where, key, f"{value!r}: expected a percentage such as 10% (or a fraction such as 0.1)")
    if not 0 <= number <= 1:
        raise ConfigError(where, key, f"{value!r}: expected from 0% to 100%")
    return number


def _percent(fraction: float) -> str:
    return f"{round(fraction * 100, 2):g}%"


def duration_text(seconds: int) -> str:
    """``seconds`` for a person: ``2 d 3 h``, ``15 min``, ``40 s``."""
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [f"{days} d" if days else "", f"{hours} h" if hours else "", f"{minutes} min" if minutes else "",
             f"{secs} s" if secs and not days else ""]
    return " ".join(p for p in parts if p) or "0 s"
