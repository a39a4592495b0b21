"""The student release's own ``pyproject.toml``: what installs the grader, and nothing else.

The instructor's ``pyproject.toml`` configures the whole repository: the test
suite (``testpaths = ["tests"]``), ruff and mypy, extras for tests, the
documentation site and benchmarks. A release holds none of those files, so it
gets a file of its own (:func:`release_pyproject`), written from:

* the instructor's ``[project]`` table: name, version, description,
  ``requires-python``, the runtime ``dependencies`` (never the extras) and
  ``[project.scripts]``. It is read with :mod:`tomllib` (Python 3.11+) or
  ``tomli`` (Python 3.10: pytest, a runtime dependency of the grader, requires
  it there); without either, from the installed distribution's metadata
  (:func:`project_from_metadata`);
* constants of the grader package: the setuptools build backend and the
  package discovery (``grader*`` only: the student's ``micrograd/`` is never
  installed, the grader stages it itself);
* the files of the grader package: every file that is not Python source is
  package data (:func:`package_data`), so ``pip install .`` (not editable)
  installs the report templates too.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from importlib.metadata import Distribution, PackageNotFoundError
from pathlib import Path
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement

from grader.errors import GraderError

DISTRIBUTION = "micrograd-grader"
"""The grader's distribution name (the fallback reads its installed metadata)."""
BUILD_REQUIRES = ("setuptools>=68",)
BUILD_BACKEND = "setuptools.build_meta"
PACKAGES = ("grader*",)
"""What setuptools installs from a release: the grader, never ``micrograd/`` (the student's code) or the course."""
NOT_DATA = {".py", ".pyc", ".pyo"}
IGNORED_DIRS = {"__pycache__"}
EXTRA_MARKER = re.compile(r"\bextra\s*==")


@dataclass(frozen=True)
class Project:
    """What a release's ``pyproject.toml`` keeps of the instructor's ``[project]`` table.

    Args:
        name: The distribution name (``micrograd-grader``).
        version: Its version (``0.1.0``).
        description: Its one-line summary ("" if none).
        requires_python: The ``requires-python`` specifier (``>=3.10``).
        dependencies: The runtime requirements, PEP 508 strings, in order.
        scripts: Console script name to its entry point (``grader`` to ``grader.cli:main``).
    """

    name: str
    version: str
    description: str
    requires_python: str
    dependencies: tuple[str, ...]
    scripts: tuple[tuple[str, str], ...]


def toml_reader() -> Any:
    """:mod:`tomllib`, else ``tomli`` (the same API), else None."""
    for name in ("tomllib", "tomli"):
        try:
            return importlib.import_module(name)
        except ModuleNotFoundError:
            continue
    return None


def project_from_toml(text: str, where: str = "pyproject.toml") -> Project:
    """The :class:`Project` of a ``pyproject.toml``'s text.

    Raises:
        GraderError: If the text is not TOML, or its ``[project]`` table lacks a static name, version or
            ``requires-python``, or a dependency or script is malformed.
    """
    reader = toml_reader()
    if reader is None:
        raise GraderError(f"cannot read {where}: no TOML reader (Python 3.11+, or tomli on 3.10)")
    try:
        table = reader.loads(text).get("project")
    except ValueError as exc:  # tomllib.TOMLDecodeError is a ValueError
        raise GraderError(f"cannot read {where}: {exc}") from exc
    if not isinstance(table, dict):
        raise GraderError(f"{where} has no [project] table")
    scripts = table.get("scripts", {})
    if not isinstance(scripts, dict):
        raise GraderError(f"{where}: [project.scripts] is not a table")
    return _checked(Project(
        name=_text(table, "name", where), version=_text(table, "version", where),
        description=str(table.get("description", "")), requires_python=_text(table, "requires-python", where),
        dependencies=tuple(str(d) for d in table.get("dependencies", [])),
        scripts=tuple((str(k), str(v)) for k, v in scripts.items())), where)


def project_from_metadata(dist: Distribution) -> Project:
    """The :class:`Project` of an installed distribution: its core metadata and console scripts.

    Requirements that only come with an extra (``; extra == "test"``) are left out.

    Raises:
        GraderError: If the metadata lacks a name, version or ``Requires-Python``, or a requirement is malformed.
    """
    def field(key: str) -> str:
        return str((dist.metadata.get_all(key) or [""])[0])

    where = f"the metadata of the installed {field('Name') or DISTRIBUTION}"
    requirements = tuple(r for r in dist.requires or [] if not EXTRA_MARKER.search(r.partition(";")[2]))
    scripts = tuple((e.name, e.value) for e in dist.entry_points if e.group == "console_scripts")
    return _checked(Project(
        name=field("Name"), version=field("Version"), description=field("Summary"),
        requires_python=field("Requires-Python"), dependencies=requirements, scripts=scripts), where)


def read_project(pyproject: Path) -> Project:
    """The :class:`Project` of the instructor's ``pyproject.toml`` (the installed grader's metadata when no TOML
    reader is available: Python 3.10 without tomli).

    Raises:
        GraderError: If the file cannot be read or is incomplete (see :func:`project_from_toml`), or, without a
            TOML reader, the grader is not installed.
    """
    if toml_reader() is not None:
        try:
            text = pyproject.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise GraderError(f"cannot read {pyproject}: {exc}") from exc
        return project_from_toml(text, str(pyproject))
    try:
        return project_from_metadata(Distribution.from_name(DISTRIBUTION))
    except PackageNotFoundError as exc:
        raise GraderError(f"cannot read {pyproject} (no tomllib or tomli) and {DISTRIBUTION} is not installed "
                          "(pip install -e .)") from exc


def package_data(package: Path) -> dict[str, list[str]]:
    """The package data of the grader package at ``package``: per subpackage, a glob for each folder and suffix
    of its files that are not Python (``{"grader.outputs": ["templates/*.j2"]}``)."""
    found: dict[str, set[str]] = {}
    for path in sorted(package.rglob("*")):
        rel = path.relative_to(package)
        if not path.is_file() or path.suffix in NOT_DATA or IGNORED_DIRS & set(rel.parts):
            continue
        owner = path.parent
        while owner != package and not (owner / "__init__.py").is_file():
            owner = owner.parent
        name = ".".join((package.name, *owner.relative_to(package).parts))
        folder = path.parent.relative_to(owner).as_posix()
        pattern = f"*{path.suffix}" if path.suffix else path.name
        found.setdefault(name, set()).add(pattern if folder == "." else f"{folder}/{pattern}")
    return {name: sorted(patterns) for name, patterns in sorted(found.items())}


def render(project: Project, data: dict[str, list[str]]) -> str:
    """The text of a release's ``pyproject.toml``."""
    lines = [
        "# Written by `grader release`: installs the `grader` command (python -m pip install -e .).",
        "# requirements.lock pins the versions the course was validated with.",
        "",
        "[build-system]",
        f"requires = {_array(BUILD_REQUIRES)}",
        f"build-backend = {_string(BUILD_BACKEND)}",
        "",
        "[project]",
        f"name = {_string(project.name)}",
        f"version = {_string(project.version)}",
        *([f"description = {_string(project.description)}"] if project.description else []),
        f"requires-python = {_string(project.requires_python)}",
        "dependencies = [",
        *(f"    {_string(d)}," for d in project.dependencies),
        "]",
    ]
    if project.scripts:
        lines += ["", "[project.scripts]", *(f"{_key(k)} = {_string(v)}" for k, v in project.scripts)]
    lines += ["", "[tool.setuptools.packages.find]", f"include = {_array(PACKAGES)}"]
    if data:
        lines += ["", "[tool.setuptools.package-data]", *(f"{_key(k)} = {_array(v)}" for k, v in data.items())]
    return "\n".join(lines) + "\n"


def release_pyproject(pyproject: Path, package: Path) -> tuple[str, Project]:
    """The text of a release's ``pyproject.toml`` for the grader package at ``package``, from the instructor's
    ``pyproject``, and the project it states.

    Raises:
        GraderError: See :func:`read_project`.
    """
    project = read_project(pyproject)
    return render(project, package_data(package)), project


def _text(table: dict[str, Any], key: str, where: str) -> str:
    value = table.get(key)
    if not isinstance(value, str) or not value.strip():
        dynamic = " (a release needs it stated, not dynamic)" if key in table.get("dynamic", []) else ""
        raise GraderError(f"{where}: [project] has no {key}{dynamic}")
    return value


def _checked(project: Project, where: str) -> Project:
    for field, value in (("name", project.name), ("version", project.version),
                         ("requires-python", project.requires_python)):
        if not value.strip():
            raise GraderError(f"{where}: no {field}")
    for text in project.dependencies:
        try:
            Requirement(text)
        except InvalidRequirement as exc:
            raise GraderError(f"{where}: malformed dependency {text!r}: {exc}") from exc
    for name, target in project.scripts:
        if not re.fullmatch(r"[\w.-]+", name) or not re.fullmatch(r"[\w.]+:[\w.]+", target):
            raise GraderError(f"{where}: malformed script {name} = {target!r}")
    return project


def _string(text: str) -> str:
    """A TOML basic string: quotes, backslashes and control characters escaped."""
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _key(text: str) -> str:
    """A TOML key: bare if it can be (``grader``), else quoted (``"grader.outputs"``)."""
    return text if re.fullmatch(r"[A-Za-z0-9_-]+", text) else _string(text)


def _array(items: tuple[str, ...] | list[str]) -> str:
    return "[" + ", ".join(_string(i) for i in items) + "]"
