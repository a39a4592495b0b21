"""The course's own code, imported as the package ``assignments``: probe modules here and in the worker.

An assignment is content, not tool (``../shared/design.md``): its probes live
with it, ``assignments/<id>/probes.py``, and probes several assignments share
in ``assignments/shared/probes/``. This module makes the course folder
importable under one name in every process that runs probes:

* the judge calls :func:`use` with the course's ``assignments/`` folder, so
  tests import ``assignments.shared.checks.graphs`` and the probe modules
  load as ``assignments.shared.probes.engine_probes``;
* the judge copies the probe modules, and nothing else of the course
  (:func:`copy_probes`: no tests, no reference, no parts), into the sandbox's
  private runtime folder; a worker (or the fork server it is forked from)
  calls :func:`use` on that copy and :func:`load_probes` before any student
  code exists in its process.

Probe modules import the sandbox through :mod:`.probekit` (registered here
under the top-level name ``probekit``), since the grader package is not
importable in a worker. Standard library only, like the rest of this package.
"""

from __future__ import annotations

import importlib
import os
import shutil
import sys
import types
from pathlib import Path

from . import probekit, probes

PACKAGE = "assignments"
"""The name the course folder is imported under."""
ALIAS = "probekit"
"""The top-level name of :mod:`.probekit` in every process that runs probes."""
RUNTIME_FOLDER = "_grader_course"
"""The probe modules' copy in the sandbox's private runtime folder (next to the ``_grader_sandbox`` package)."""
SHARED_PROBES = ("shared", "probes")
"""The folder of probe modules several assignments share, inside the course folder."""
ASSIGNMENT_PROBES = "probes.py"
"""An assignment's own probe module, inside its folder."""

_folder: str | None = None


class CourseCodeError(Exception):
    """A probe module of the course could not be loaded (the course's fault, never a student's)."""


def use(folder: str | os.PathLike[str] | None) -> None:
    """Import the course's code from ``folder`` (an ``assignments/`` folder or its runtime copy) as ``assignments``.

    Code loaded from another folder is forgotten, and so are its probes. None forgets the course altogether.
    """
    global _folder
    path = os.path.abspath(folder) if folder else None
    sys.modules[ALIAS] = probekit
    if path == _folder and (path is None or PACKAGE in sys.modules):
        return
    for name in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
        del sys.modules[name]
    probes.clear()
    _folder = path
    if path is not None:
        package = types.ModuleType(PACKAGE, "The course's own code (see grader.sandbox.course_code).")
        package.__path__ = [path]
        package.__package__ = PACKAGE
        sys.modules[PACKAGE] = package
    importlib.invalidate_caches()


def folder() -> str | None:
    """The course folder in use, or None."""
    return _folder


def probe_files(root: str | os.PathLike[str]) -> list[Path]:
    """The probe modules of the course folder ``root``, relative to it: the shared ones, then each assignment's."""
    base = Path(root)
    shared = base.joinpath(*SHARED_PROBES)
    found = sorted(p.relative_to(base) for p in shared.glob("*.py") if p.name != "__init__.py") if shared.is_dir() else []
    for sub in sorted(base.iterdir()) if base.is_dir() else []:
        if sub.is_dir() and sub.name != SHARED_PROBES[0] and (sub / ASSIGNMENT_PROBES).is_file():
            found.append((sub / ASSIGNMENT_PROBES).relative_to(base))
    return found


def module_name(relative: Path) -> str:
    """The import name of a course file: ``shared/probes/engine_probes.py`` -> ``assignments.shared.probes.engine_probes``."""
    return ".".join((PACKAGE, *relative.with_suffix("").parts))


def load_probes(judge: bool = False) -> list[str]:
    """Import every probe module of the course in use and register its probes; return the probe names.

    Args:
        judge: Also import the judge-side module each probe module names (its ``JUDGE_SIDE``) and register its
            ``REQUESTS`` and ``JUDGED`` (never in a worker).

    Raises:
        CourseCodeError: If no course is in use, or a probe module (or a judge side) fails to import or to register.
    """
    if _folder is None:
        raise CourseCodeError("no course folder in use")
    names: list[str] = []
    for relative in probe_files(_folder):
        name = module_name(relative)
        try:
            module = importlib.import_module(name)
            names += probes.register(module)
        except Exception as exc:  # noqa: BLE001 - any error in the course's own code
            raise CourseCodeError(f"the probe module {relative.as_posix()} failed to load: "
                                  f"{type(exc).__name__}: {exc}") from None
    for probe_module, (side, _) in sorted(probes.JUDGE_SIDES.items()) if judge else ():
        try:
            probes.register_judge_side(probe_module, importlib.import_module(side))
        except Exception as exc:  # noqa: BLE001 - any error in the course's own code
            raise CourseCodeError(f"the judge side {side} of {probe_module} failed to load: "
                                  f"{type(exc).__name__}: {exc}") from None
    return names


def copy_probes(root: str | os.PathLike[str], dest: str | os.PathLike[str]) -> Path:
    """Copy the probe modules of course folder ``root`` (only they: they run next to student code) into
    ``dest/_grader_course``, keeping their layout; return that folder."""
    target = Path(dest) / RUNTIME_FOLDER
    target.mkdir(parents=True, exist_ok=True)
    for relative in probe_files(root):
        (target / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(Path(root) / relative, target / relative)
    return target
