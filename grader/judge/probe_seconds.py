"""The reference's time per probe of the public tests, shipped with a student's release: a self-check's probe limits.

A probe's own time limit is derived from what the same probe took the reference solution
(:mod:`grader.judge.deadlines`). A self-check (``grader check``) has no reference, so ``grader release`` ships
those times for the probes the public tests make, measured when the release is built by running the public tests
on the reference in a judge (:func:`grader.grading.one.time_public_probes`), with the judge's own clock
(:meth:`grader.judge.state.GradingState.reference_seconds`). The file, ``assignments/probe_seconds.json``, holds::

    {"about": "...", "seconds": {"<sha256 hex of the probe's request key>": <seconds>, ...}}

Only timings: a probe's name and arguments are hashed (:func:`hashed`), and no answer is stored. It is in the
student's own copy, so it is read as hostile (:func:`read`): bounded in size and entries, keys 64 hex digits,
values finite seconds in ``[0, MAX_SECONDS]``; anything else, or no file, is no table (each probe then has its
test's limit only, as before). An entry only ever shortens a limit (never past the test's own), in the
student's own self-check, so an edited file can cost its editor time, never raise a score.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Mapping
from pathlib import Path

FILE = "probe_seconds.json"
"""The file's name, in a release's ``assignments/`` folder."""
MAX_BYTES = 4 << 20
MAX_ENTRIES = 50_000
MAX_SECONDS = 600.0
"""The most an entry may say: longer than any test's limit, so a larger value is an edit, not a time."""
ABOUT = ("The reference solution's time, in seconds, for each call the public tests make (keyed by a hash of the "
         "call): grader check derives each call's time limit from it. Written by grader release; not an answer.")
_HEX = re.compile(r"[0-9a-f]{64}")


def hashed(key: str) -> str:
    """A probe's request key (:func:`grader.judge.deadlines.request_key`) as the file stores it."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def write(path: Path, seconds: Mapping[str, float | None]) -> int:
    """Write the times of ``seconds`` (request key to seconds; None, a probe that failed on the reference, is left
    out) to ``path``, keys hashed; return how many were written."""
    table = {hashed(key): round(value, 6) for key, value in seconds.items() if value is not None}
    path.write_text(json.dumps({"about": ABOUT, "seconds": dict(sorted(table.items()))}, indent=0) + "\n",
                    encoding="utf-8")
    return len(table)


def read(path: Path) -> dict[str, float]:
    """The table at ``path`` (hashed request key to seconds), read with bounds; {} when there is none, or it is
    larger than :data:`MAX_BYTES`, not JSON, or holds an entry that is not a time (a hand-edited file)."""
    try:
        if path.is_symlink() or not path.is_file():
            return {}
        with path.open("rb") as f:
            data = f.read(MAX_BYTES + 1)
        if len(data) > MAX_BYTES:
            return {}
        doc = json.loads(data)
    except (OSError, ValueError, RecursionError):
        return {}
    table = doc.get("seconds") if isinstance(doc, dict) else None
    if not isinstance(table, dict) or len(table) > MAX_ENTRIES:
        return {}
    if not all(isinstance(k, str) and _HEX.fullmatch(k) and _is_time(v) for k, v in table.items()):
        return {}
    return {k: float(v) for k, v in table.items()}


def _is_time(value: object) -> bool:
    return (isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
            and 0 <= value <= MAX_SECONDS)
