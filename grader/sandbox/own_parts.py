"""The grader's own parts: course code that runs next to student code, kept out of the grader package.

Some tests need working code of the grader's own in the sandbox: the network's
tests run the student's ``Neuron`` on the grader's ``Value`` (fault isolation),
and the judge needs each operation's local gradients for the graph nodes it
makes itself. That code is an answer key, so it is not part of ``grader/``
(which students receive with every release): it lives with the course, in
``assignments/shared/parts/``, and reaches a process only through this module:

* the judge loads it from the course folder (:func:`use`, then :func:`load`);
* the judge copies it into the sandbox's private runtime folder, and a worker
  loads the parts its assignment names (``grader_parts`` in ``assignment.yaml``)
  *before* any student code exists in its process; after that the worker
  cannot open the files any more (Landlock, the mount namespace, a separate
  user: see :mod:`.worker`), and a worker whose assignment names no parts holds
  none of them in memory either.

Where the parts are missing (a student's release, a Classroom 50 autograder),
:func:`get` returns None and every caller falls back to the student's own code:
the self-check then runs the network on the student's engine.

The parts are loaded as the package ``<this package>.course_parts``; they
import the course's probe modules by their course names
(``from assignments.shared.probes.engine_probes import FORWARD``, see
:mod:`.course_code`), which resolve the same way in the judge and in the worker.
Standard library only, like the rest of this package.
"""

from __future__ import annotations

import importlib
import os
import re
import sys
import types
from typing import Any

PACKAGE = f"{__package__}.course_parts"
"""The name the parts are imported under."""

RUNTIME_FOLDER = "_grader_parts"
"""The parts' folder in the sandbox's private runtime folder (next to the ``_grader_sandbox`` package)."""

NAME = re.compile(r"^[a-z_][a-z0-9_]{0,39}$")
"""A part's module name (a file ``NAME.py`` of the parts folder)."""

_folder: str | None = None


class PartsError(Exception):
    """A part that should be there could not be loaded (a fault of the course or the grader, never the student's)."""


def use(folder: str | None) -> None:
    """Take the parts from ``folder`` (None: there are none, as in a student's release).

    Parts already loaded from another folder are forgotten.
    """
    global _folder
    folder = os.path.abspath(folder) if folder else None
    if folder == _folder:
        return
    for name in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
        del sys.modules[name]
    _folder = folder
    if folder is not None:
        package = types.ModuleType(PACKAGE, "The grader's own parts (see grader.sandbox.own_parts).")
        package.__path__ = [folder]
        package.__package__ = PACKAGE
        sys.modules[PACKAGE] = package


def folder() -> str | None:
    """The folder the parts come from, or None."""
    return _folder


def available(name: str) -> bool:
    """Whether part ``name`` can be loaded (its file exists in the parts folder)."""
    return bool(_folder and NAME.match(name) and os.path.isfile(os.path.join(_folder, f"{name}.py")))


def load(name: str) -> types.ModuleType:
    """Import part ``name`` now (a worker does this before any student code runs).

    Raises:
        PartsError: If there is no parts folder, no such part, or it failed to import.
    """
    if not NAME.match(name):
        raise PartsError(f"{name!r} is not a part's name")
    if not available(name):
        raise PartsError(f"the grader's part {name!r} is missing (expected {name}.py in {_folder or 'no parts folder'})")
    try:
        return importlib.import_module(f"{PACKAGE}.{name}")
    except Exception as exc:  # noqa: BLE001 - any error in the course's own code
        raise PartsError(f"the grader's part {name!r} failed to import: {type(exc).__name__}: {exc}") from None


def get(name: str) -> Any:
    """Part ``name`` if it has been loaded, else None (it is never imported here: in a worker its files are gone)."""
    return sys.modules.get(f"{PACKAGE}.{name}")
