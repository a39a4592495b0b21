"""The course's term settings, ``assignments/course.yaml``: its time zone and where its roster and extensions are.

Example (every key is optional; the file itself too)::

    time_zone: America/New_York      # an IANA name: due dates written without a UTC offset are in it
    roster: ../term/roster.csv       # the course roster (grader.course.roster); relative to the course folder
    extensions: ../term/extensions.csv   # per-student extensions (grader.course.extensions)
    adjustments: ../term/adjustments.csv   # scores a person changed (grader.course.adjustments)

The roster and the extensions hold students' personal data: keep them out of anything released to students
(``grader release`` copies only the course's public code). ``grader grade --roster``/``--extensions`` and
``grader export --roster`` name other files for one run.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import tzinfo
from pathlib import Path

from grader.course.late_policy import time_zone
from grader.course.yaml_file import load_yaml
from grader.errors import ConfigError

COURSE_FILE = "course.yaml"
"""The term's file, in the course's ``assignments/`` folder."""
KEYS = ("time_zone", "roster", "extensions", "adjustments")


@dataclass(frozen=True)
class Term:
    """What ``assignments/course.yaml`` says (all None without the file).

    Attributes:
        time_zone: The course's time zone, for due dates without a UTC offset.
        roster: The roster file (resolved against the course folder), or None.
        extensions: The extensions file (resolved against the course folder), or None.
        adjustments: The adjustments file (resolved against the course folder), or None.
    """

    time_zone: tzinfo | None = None
    roster: Path | None = None
    extensions: Path | None = None
    adjustments: Path | None = None


def load_term(assignments_dir: Path) -> Term:
    """Read ``assignments_dir/course.yaml`` (an empty :class:`Term` without one).

    Raises:
        ConfigError: Naming the file and the key: an unknown key, an unknown time zone, a path that is not text.
    """
    path = assignments_dir / COURSE_FILE
    raw = load_yaml(path)
    for key in raw:
        if key not in KEYS:
            raise ConfigError(path, str(key), f"unknown key; known keys: {', '.join(KEYS)}")
    zone = raw.get("time_zone")
    if zone is not None and not isinstance(zone, str):
        raise ConfigError(path, "time_zone", f"expected an IANA name such as Europe/Paris, got {zone!r}")
    files: dict[str, Path | None] = {}
    for key in ("roster", "extensions", "adjustments"):
        value = raw.get(key)
        if value is not None and (not isinstance(value, str) or not value.strip()):
            raise ConfigError(path, key, f"expected a path to a CSV file, got {value!r}")
        files[key] = (assignments_dir.parent / value.strip()) if value else None
    return Term(time_zone(zone, str(path)) if zone else None, files["roster"], files["extensions"],
                files["adjustments"])
