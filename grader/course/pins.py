"""Pinned dependencies: the exact versions a course was validated with.

The Gradescope zip (:mod:`grader.commands.gradescope`) carries ``requirements.lock``:
the grader's runtime dependencies (the ``dependencies`` of its
``pyproject.toml``) and their whole dependency closure, each pinned to the
version installed in the environment that builds the zip, i.e. the
instructor's, where the course was validated. The closure is walked with
:mod:`importlib.metadata`: each distribution's ``Requires-Dist`` entries whose
environment markers hold here, plus those of the extras a requirement asks
for. Its ``setup.sh`` installs exactly these versions, so an image built next
month runs the same pytest and hypothesis as the instructor did.
"""

from __future__ import annotations

import platform
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from importlib.metadata import Distribution
from pathlib import Path

from packaging.markers import Marker
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from grader.errors import GraderError

LOCK_NAME = "requirements.lock"


@dataclass(frozen=True)
class Pin:
    """One distribution pinned to its installed version.

    Args:
        name: The distribution's name as its metadata spells it (``Jinja2``).
        version: The installed version (``3.1.6``).
        required_by: The canonical names of the distributions (or ``pyproject.toml``) that need it.
    """

    name: str
    version: str
    required_by: tuple[str, ...]


@dataclass(frozen=True)
class Lock:
    """The pins of one environment, and the Python they were made with.

    Args:
        pins: One per distribution, sorted by canonical name.
        python: The full Python version of the environment (``3.11.7``).
        environment: Where the pinned distributions were found (``sys.prefix``).
    """

    pins: tuple[Pin, ...]
    python: str
    environment: str

    @property
    def python_minor(self) -> str:
        """``3.11`` for Python 3.11.7."""
        return ".".join(self.python.split(".")[:2])

    def text(self) -> str:
        """The lock as a pip requirements file, with a header saying where it comes from."""
        lines = [
            "# Written by `grader gradescope` or `grader release`: the grader's runtime dependencies",
            "# and their whole dependency closure, pinned to the versions installed where it was",
            f"# built (Python {self.python}, {platform.system()} {platform.machine()}).",  # no path: students get it
            "# To refresh: validate the course in an updated environment and build it again.",
            f"# python: {self.python}",
        ]
        for pin in self.pins:
            lines.append(f"{pin.name}=={pin.version}  # via {', '.join(pin.required_by)}")
        return "\n".join(lines) + "\n"


def read_lock(text: str) -> dict[str, str]:
    """The pins of a lock file's text, as ``{canonical name: version}``.

    Raises:
        GraderError: If a non-comment line is not ``name==version``.
    """
    pins: dict[str, str] = {}
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        name, sep, version = line.partition("==")
        if not sep or not name.strip() or not version.strip():
            raise GraderError(f"{LOCK_NAME}: not a pin (name==version): {line!r}")
        pins[canonicalize_name(name.strip())] = version.strip()
    return pins


def runtime_requirements(pyproject: Path) -> list[str]:
    """The ``[project] dependencies`` of a ``pyproject.toml``, as PEP 508 strings.

    On Python 3.10 (no :mod:`tomllib`), the requirements of the installed
    ``micrograd-grader`` distribution are used instead (:func:`resolve` leaves
    out those of extras, whose markers do not hold).

    Raises:
        GraderError: If the file cannot be read or has no ``[project]`` table,
            or (Python 3.10) the grader is not installed.
    """
    if sys.version_info >= (3, 11):
        import tomllib

        try:
            project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
        except (OSError, ValueError, KeyError) as exc:
            raise GraderError(f"cannot read the grader's dependencies from {pyproject}: {exc}") from exc
        return list(project.get("dependencies", []))
    try:  # Python 3.10 has no tomllib: ask the installed distribution
        return list(Distribution.from_name("micrograd-grader").requires or [])
    except ModuleNotFoundError as exc:
        raise GraderError("on Python 3.10 the grader must be installed (pip install -e .) "
                          "to know its dependencies") from exc


def grader_lock() -> Lock:
    """The grader's own runtime dependencies (its ``pyproject.toml``, next to the package) pinned to this
    environment: what a release's self-check and the Classroom 50 autograders install.

    Raises:
        GraderError: As :func:`runtime_requirements` and :func:`resolve` do.
    """
    return resolve(runtime_requirements(Path(__file__).resolve().parent.parent.parent / "pyproject.toml"))


def _holds(marker: Marker | None, extras: set[str]) -> bool:
    """Whether a requirement with ``marker`` comes with ``extras`` of its distribution here ("": the plain install)."""
    if marker is None:
        return "" in extras
    return any(marker.evaluate({"extra": extra}) for extra in extras)


def resolve(requirements: Sequence[str], path: list[str] | None = None) -> Lock:
    """Pin ``requirements`` and their dependency closure to the installed versions.

    Args:
        requirements: PEP 508 strings (``hypothesis>=6.100``, ``jsonschema[format]``),
            the roots of the closure; those whose markers do not hold here are left out.
        path: Folders to look for installed distributions in (default: ``sys.path``).

    Returns:
        The lock, one pin per distribution reached, sorted by canonical name.

    Raises:
        GraderError: If a requirement is malformed, a distribution it reaches is
            not installed, or the installed version does not satisfy a requirement
            on it (the environment is not one the grader can run in).
    """
    found: dict[str, Distribution] = {}
    extras: dict[str, set[str]] = {}
    required_by: dict[str, list[str]] = {}
    queue = [(_parse(r, "pyproject.toml"), "pyproject.toml") for r in requirements]
    queue = [(req, parent) for req, parent in queue if _holds(req.marker, {""})]
    while queue:
        req, parent = queue.pop(0)
        name = canonicalize_name(req.name)
        dist = found.get(name) or _installed(req.name, path, parent)
        if not req.specifier.contains(dist.version, prereleases=True):
            raise GraderError(f"{parent} requires {req}, but {dist.metadata['Name']} {dist.version} is "
                              f"installed in {sys.prefix}: install a version that fits, validate the "
                              f"course, then rebuild the zip")
        if parent not in required_by.setdefault(name, []):
            required_by[name].append(parent)
        asked: set[str] = {str(canonicalize_name(e)) for e in req.extras}
        new = asked - extras.get(name, set()) if name in found else asked | {""}
        if not new:
            continue
        found[name] = dist
        extras.setdefault(name, set()).update(asked)
        for text in dist.requires or []:
            dep = _parse(text, name)
            if _holds(dep.marker, new):  # what the plain install (first visit) or the newly asked extras add
                queue.append((dep, name))
    pins = tuple(Pin(found[n].metadata["Name"], found[n].version, tuple(required_by[n])) for n in sorted(found))
    return Lock(pins, platform.python_version(), sys.prefix)


def _parse(text: str, parent: str) -> Requirement:
    try:
        return Requirement(text)
    except InvalidRequirement as exc:
        raise GraderError(f"malformed requirement {text!r} (from {parent}): {exc}") from exc


def _installed(name: str, path: list[str] | None, parent: str) -> Distribution:
    for dist in Distribution.discover(name=name, path=path if path is not None else sys.path):
        return dist
    raise GraderError(f"{name} (required by {parent}) is not installed in this Python environment "
                      f"({sys.prefix}): build the zip where the course was validated, with the grader "
                      f"installed (pip install -e .)")
