"""The bug catalogue: known student bugs as small edits (mutants) of the reference.

``assignments/<id>/bugs.yaml`` is a list of entries, or a mapping with the
list under ``bugs`` and ``max_cascade``: the most points any bug (and any
"method missing" mutant, :mod:`grader.course.stubs`) may cost in this
assignment's tests *outside* those about its method (default
:data:`DEFAULT_MAX_CASCADE`; an entry may state its own, with the reason in
its description)::

    max_cascade: 1
    bugs:
    - id: mul_overwrites_grad
      method: Value.__mul__
      description: "`=` instead of `+=` in __mul__'s backward: ..."
      file: micrograd/engine.py
      find: |            # exact text of the reference file, occurring exactly once
        ...
      replace: |
        ...
      caught_by: [test_reuse, "test_local_gradients[mul]"]
      max_cascade: 2      # optional

``grader validate`` (:mod:`grader.commands.validate`) grades every mutant and checks
that it loses points in the tests its entry names. Errors name the file, the
entry and the key (:class:`~grader.errors.ConfigError`).
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from grader.course.config import FILE, Assignment
from grader.course.yaml_file import parse_yaml
from grader.errors import ConfigError

ID = re.compile(r"^[a-z0-9_]+$")
DEFAULT_MAX_CASCADE = 1.0
"""Points a bug may cost outside the tests its entry names, unless the catalogue says otherwise."""


@dataclass(frozen=True)
class Bug:
    """One catalogued student bug.

    Attributes:
        id: Unique snake_case id.
        assignment: The assignment whose tests must catch it.
        method: The method where the bug is (``Value.__mul__``).
        description: One line, in a TA's words.
        file: ``micrograd/engine.py`` or ``micrograd/nn.py``.
        find: Exact text of the reference replaced by ``replace``.
        replace: The buggy text.
        caught_by: Test names (``test_reuse``, ``test_local_gradients[mul]``) that must lose points.
        max_cascade: Points it may lose in the other tests of its assignment.
    """

    id: str
    assignment: str
    method: str
    description: str
    file: str
    find: str
    replace: str
    caught_by: tuple[str, ...]
    max_cascade: float = DEFAULT_MAX_CASCADE

    def catches(self, test_key: str) -> str | None:
        """The ``caught_by`` entry naming the test with this key (``path::name[params]``), if any."""
        name = test_key.rsplit("::", 1)[-1]
        for entry in self.caught_by:
            if name == entry or ("[" not in entry and name.startswith(entry + "[")):
                return entry
        return None


def _limit(path: Path, where: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
        raise ConfigError(path, where, "expected a number of points >= 0")
    return float(value)


def _read(path: Path) -> tuple[list[Any], float]:
    """The entries of ``bugs.yaml`` (a list, or a mapping with ``bugs`` and ``max_cascade``) and its limit."""
    try:
        raw = parse_yaml(path.read_text(encoding="utf-8")) or []
    except yaml.YAMLError as exc:
        raise ConfigError(path, "", f"not valid YAML: {exc}") from None
    limit = DEFAULT_MAX_CASCADE
    if isinstance(raw, dict):
        unknown = set(raw) - {"bugs", "max_cascade"}
        if unknown:
            raise ConfigError(path, sorted(unknown)[0], "unknown key (expected bugs, max_cascade)")
        if "max_cascade" in raw:
            limit = _limit(path, "max_cascade", raw["max_cascade"])
        raw = raw.get("bugs") or []
    if not isinstance(raw, list):
        raise ConfigError(path, "", "expected a list of bugs (or a mapping with bugs: and max_cascade:)")
    return raw, limit


def max_cascade(assignment: Assignment) -> float:
    """The catalogue's ``max_cascade`` for ``assignment`` (:data:`DEFAULT_MAX_CASCADE` if it states none).

    Raises:
        ConfigError: If ``bugs.yaml`` is malformed or the value is not a number >= 0.
    """
    path = assignment.root / "bugs.yaml"
    return _read(path)[1] if path.is_file() else DEFAULT_MAX_CASCADE


def load_bugs(assignment: Assignment, reference_dir: Path) -> list[Bug]:
    """Load and check ``bugs.yaml`` of ``assignment`` (empty list if there is none).

    Raises:
        ConfigError: On a malformed entry, a duplicate id, a ``find`` text
            that does not occur exactly once in the reference file, or a
            ``max_cascade`` that is not a number >= 0.
    """
    path = assignment.root / "bugs.yaml"
    if not path.is_file():
        return []
    raw, default = _read(path)
    bugs, seen = [], set()
    for i, entry in enumerate(raw):
        where = f"[{i}]"
        if not isinstance(entry, dict):
            raise ConfigError(path, where, "expected a mapping")
        for key in ("id", "method", "description", "file", "find", "replace"):
            if not isinstance(entry.get(key), str) or not entry[key].strip():
                raise ConfigError(path, f"{where}.{key}", "missing or not a non-empty string")
        bug_id = entry["id"]
        where = f"[{i}] ({bug_id})"
        if not ID.match(bug_id) or bug_id in seen:
            raise ConfigError(path, f"{where}.id", "must be unique snake_case")
        seen.add(bug_id)
        if not FILE.match(entry["file"]) or entry["file"] not in assignment.files:
            raise ConfigError(path, f"{where}.file", f"expected one of the assignment's files {list(assignment.files)}")
        caught_by = entry.get("caught_by")
        if not isinstance(caught_by, list) or not caught_by or not all(isinstance(c, str) for c in caught_by):
            raise ConfigError(path, f"{where}.caught_by", "expected a non-empty list of test names")
        source = (reference_dir / entry["file"]).read_text(encoding="utf-8")
        count = source.count(entry["find"])
        if count != 1:
            raise ConfigError(path, f"{where}.find", f"occurs {count} times in reference/{entry['file']}, expected once")
        limit = _limit(path, f"{where}.max_cascade", entry["max_cascade"]) if "max_cascade" in entry else default
        bugs.append(Bug(bug_id, assignment.id, entry["method"].strip(), " ".join(entry["description"].split()),
                        entry["file"], entry["find"], entry["replace"], tuple(caught_by), limit))
    return bugs


def write_mutant(bug: Bug, reference_dir: Path, dest: Path) -> Path:
    """Write the reference with ``bug`` applied as a package-layout submission in ``dest`` (the package of
    ``bug.file``, ``micrograd/``, copied whole)."""
    package = bug.file.split("/", 1)[0]
    shutil.copytree(reference_dir / package, dest / package, ignore=shutil.ignore_patterns("__pycache__"))
    target = dest / bug.file
    target.write_text(target.read_text(encoding="utf-8").replace(bug.find, bug.replace, 1), encoding="utf-8")
    return dest
