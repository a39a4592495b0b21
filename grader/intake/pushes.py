"""Push records: when the git server received each push, as GitHub's repository activity API records it.

A commit's dates (author, committer, a tag's tagger) are written by the student's machine, so a student can set
them to anything. What the server records is not theirs to set: GitHub's `List repository activities
<https://docs.github.com/en/rest/repos/repos#list-repository-activities>`_ endpoint
(``GET /repos/{owner}/{repo}/activity``) returns one record per push, force push, branch creation or deletion, with
the ref, the commit before and after it, and the server's ``timestamp``. Saved per repository, for example with::

    gh api --paginate "repos/ORG/REPO/activity?per_page=100" > pushes/REPO.json

the records let :mod:`grader.intake.git_history` grade, at a due date, the commit the ref pointed to after the last
push received before it, late by the server's clock. ``gh api --paginate`` writes one JSON array per page, one
after the other: such a file, a single array, and ``--slurp``'s array of arrays are all read.

The file is the instructor's download, read with bounds (:data:`MAX_BYTES`, :data:`MAX_RECORDS`): a record that is
not an object with a ref, a commit id and a time is an error naming the file and the record, before anything is
graded.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from grader.errors import ConfigError, SubmissionError
from grader.intake.regular_files import open_regular

MAX_BYTES = 20 * 1024 * 1024
"""The largest push file read (bytes): GitHub returns about 1 KB per record."""
MAX_RECORDS = 20_000
"""The most records one file may hold (a term's pushes are a few hundred)."""
KINDS = frozenset({"push", "force_push", "branch_creation", "pr_merge", "merge_queue_merge"})
"""Activity types that leave the ref at their ``after`` commit (``branch_deletion`` leaves none)."""
_OID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_ZERO = re.compile(r"0+")


@dataclass(frozen=True)
class Push:
    """One push the server received.

    Attributes:
        ref: The full ref pushed (``refs/heads/main``, ``refs/tags/submit/1``).
        after: The commit the ref pointed to after it (hex object id).
        time: When the server received it (aware, UTC).
    """

    ref: str
    after: str
    time: datetime


def read_pushes(path: Path) -> list[Push]:
    """The pushes recorded in ``path``, oldest first (see the module docstring for the format).

    Raises:
        ConfigError: If the file cannot be read, is larger than :data:`MAX_BYTES`, is not JSON of that shape, holds
            more than :data:`MAX_RECORDS` records, or a record lacks a ref, commit id or time (naming the file
            and the record's number).
    """
    try:
        with open_regular(path, path.name) as f:  # never a FIFO, a device or a link put in the folder
            raw = f.read(MAX_BYTES + 1)
    except SubmissionError as exc:
        raise ConfigError(path, "", str(exc)) from None
    except OSError as exc:
        raise ConfigError(path, "", f"the push record cannot be read ({exc.strerror or exc})") from None
    if len(raw) > MAX_BYTES:
        raise ConfigError(path, "", f"a push record over {MAX_BYTES // (1024 * 1024)} MB is not GitHub's activity list")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ConfigError(path, "", "not UTF-8 JSON (save GitHub's answer as it is)") from None
    pushes: list[Push] = []
    for number, record in enumerate(_records(path, text), start=1):
        if number > MAX_RECORDS:
            raise ConfigError(path, "", f"more than {MAX_RECORDS} records")
        push = _push(path, number, record)
        if push is not None:
            pushes.append(push)
    return sorted(pushes, key=lambda p: p.time)


def read_push_folder(folder: Path) -> dict[str, list[Push]]:
    """Every ``<name>.json`` of ``folder``, keyed by ``<name>`` (a submission's folder name).

    Raises:
        ConfigError: If the folder cannot be listed, or a file is invalid or not a regular file (a link, a FIFO, a
            device: never opened) (:func:`read_pushes`).
    """
    try:
        names = sorted(p for p in folder.iterdir() if p.suffix == ".json")
    except OSError as exc:
        raise ConfigError(folder, "", f"the push records' folder cannot be read ({exc.strerror or exc})") from None
    return {p.stem: read_pushes(p) for p in names}


def _records(path: Path, text: str) -> Iterator[object]:
    """The records of one or more JSON arrays written one after another (arrays of arrays flattened once)."""
    decoder = json.JSONDecoder()
    at = 0
    while True:
        while at < len(text) and text[at].isspace():
            at += 1
        if at == len(text):
            return
        try:
            document, at = decoder.raw_decode(text, at)
        except (ValueError, RecursionError):
            raise ConfigError(path, "", f"not JSON at character {at} (save GitHub's answer as it is)") from None
        if not isinstance(document, list):
            what = document.get("message") if isinstance(document, dict) else None
            hint = f" (GitHub answered: {str(what)[:100]!r})" if isinstance(what, str) else ""
            raise ConfigError(path, "", f"expected a list of activities{hint}")
        for item in document:
            if isinstance(item, list):  # gh api --slurp
                yield from item
            else:
                yield item


def _push(path: Path, number: int, record: object) -> Push | None:
    """One record as a :class:`Push`; None for one that leaves no commit (a deletion)."""
    where = f"record {number}"
    if not isinstance(record, Mapping):
        raise ConfigError(path, where, "not an object")
    ref, after, stamp, kind = (record.get(k) for k in ("ref", "after", "timestamp", "activity_type"))
    if not isinstance(ref, str) or not ref.startswith("refs/") or len(ref) > 255 or not ref.isprintable():
        raise ConfigError(path, where, "'ref' is not a full git ref")
    if not isinstance(after, str) or not _OID.fullmatch(after):
        raise ConfigError(path, where, "'after' is not a commit id")
    if not isinstance(stamp, str) or len(stamp) > 40:
        raise ConfigError(path, where, "'timestamp' is missing")
    try:
        time = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        raise ConfigError(path, where, f"'timestamp' {stamp!r} is not an ISO 8601 time") from None
    if time.tzinfo is None:
        raise ConfigError(path, where, f"'timestamp' {stamp!r} has no time zone")
    try:
        utc = time.astimezone(timezone.utc)
    except (OverflowError, ValueError):
        raise ConfigError(path, where, f"'timestamp' {stamp!r} is out of range") from None
    if not isinstance(kind, str) or len(kind) > 40:
        raise ConfigError(path, where, "'activity_type' is not one of GitHub's activity types")
    if kind not in KINDS or _ZERO.fullmatch(after):
        return None
    return Push(ref, after, utc)
