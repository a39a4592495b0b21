"""Running probes on the reference solution, inside the judge.

The reference is trusted code: it is imported into the judge process under a
private package name (so it can never be confused with a ``micrograd`` the
judge might see) and probes run on it directly. Results go through the same
JSON encoding as sandbox results, so both sides are compared in the same
plain-data form.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

from grader.errors import GraderError
from grader.sandbox.probekit import Context, ProbeError, answering
from grader.sandbox.probes import JUDGED, PROBES, REQUESTS
from grader.testing.judged import AskRefused, Judged

PACKAGE = "_grader_reference"
ANSWERS_PREFIX = "_answers_"
"""What a concept check's reference module is named by inside the reference's private package (never one of its
own modules' names)."""


def load_reference(reference_dir: Path, package: str | None = None) -> SimpleNamespace:
    """Import ``reference_dir/<package>`` (``reference/micrograd``) as a private package.

    Args:
        reference_dir: The folder holding the reference solution's package.
        package: The student's package (:attr:`~grader.course.course.Course.package`); None: the one folder of
            ``reference_dir`` that is a package (holds ``__init__.py``).

    Returns:
        A namespace with one attribute per module of the package (``engine``, ``nn``, and those of later
        assignments, e.g. ``forward``), as probes expect.

    Raises:
        GraderError: If the reference package is missing (or, ``package`` None, not the only one) or fails to
            import.
    """
    found = [package] if package is not None else sorted(p.parent.name for p in reference_dir.glob("*/__init__.py"))
    if len(found) != 1:
        raise GraderError(f"no reference solution at {reference_dir} (expected one package folder, "
                          f"found {', '.join(found) or 'none'})")
    package_dir = reference_dir / found[0]
    if not (package_dir / "__init__.py").is_file():
        raise GraderError(f"no reference solution at {package_dir} (expected a package: __init__.py and its modules)")
    name = _private_name(package_dir)
    _import_file(name, package_dir / "__init__.py", "the reference solution", package_dir)
    modules: dict[str, ModuleType] = {}
    for short in sorted(p.stem for p in package_dir.glob("*.py") if p.stem != "__init__"):
        try:
            modules[short] = importlib.import_module(f"{name}.{short}")
        except Exception as exc:
            raise GraderError(f"the reference solution's {short}.py failed to import: {exc!r}") from exc
    return SimpleNamespace(**modules)


def _private_name(package_dir: Path) -> str:
    return f"{PACKAGE}_{abs(hash(str(package_dir.resolve())))}"


def _import_file(name: str, path: Path, what: str, package_dir: Path | None = None) -> ModuleType:
    """The module ``name`` executed from ``path`` (a package's ``__init__.py`` when ``package_dir`` is given), or the
    one already imported under that name.

    Raises:
        GraderError: If it fails to import (``what`` names it in the message); nothing is left in ``sys.modules``.
    """
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(
        name, path, submodule_search_locations=[str(package_dir)] if package_dir is not None else None)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[name]
        raise GraderError(f"{what} failed to import: {exc!r}") from exc
    return module


def load_answers_module(reference_dir: Path, package: str, path: Path) -> ModuleType | None:
    """A concept check's reference module (``reference/answers/<id>.py``), loaded inside the reference solution's
    package so that its relative imports (``from .engine import Value``) are the reference's modules; None when the
    concept check has none (its key then holds no ``{reference: function}``).

    Raises:
        GraderError: If the reference package or the module fails to import.
    """
    if not path.is_file():
        return None
    load_reference(reference_dir, package)  # the package the module is loaded in
    name = f"{_private_name(reference_dir / package)}.{ANSWERS_PREFIX}{path.stem}"
    return _import_file(name, path, f"the reference's {path.name}")


def complete_request(probe: str, args: Sequence[Any]) -> list[Any]:
    """A test's probe request as a probe gets it: completed by the judge's part of the probe (its module's
    ``REQUESTS`` entry, e.g. the local gradients of the nodes a graph probe makes, which only the judge can
    compute); other requests as they are."""
    complete = REQUESTS.get(probe)
    return complete(list(args)) if complete is not None else list(args)


def judged_for(probe: str, args: list[Any]) -> Judged | None:
    """A fresh judge's side for one call of ``probe`` with ``args`` (its module's ``JUDGED`` factory; None when the
    probe asks the judge nothing)."""
    make = JUDGED.get(probe)
    return make(list(args)) if make is not None else None


def in_process(judged: Judged) -> Callable[[str, Any], Any]:
    """The channel of :func:`grader.sandbox.probekit.ask` for a probe run in the judge itself: ``judged`` answers,
    with the payload and the answer through JSON as they would cross the pipe; a refusal is the probe's error."""
    def channel(topic: str, payload: Any) -> Any:
        try:
            return json.loads(json.dumps(judged.answer(topic, json.loads(json.dumps(payload)))))
        except AskRefused as exc:
            raise ProbeError(str(exc)) from None

    return channel


def run_probe(mg: Any, probe: str, args: list[Any], judged: Judged | None = None) -> Any:
    """Run ``probe`` on ``mg`` in this process and return its result as plain data, the questions it asks answered
    by ``judged`` (None: a fresh one of the probe's judge side, :func:`judged_for`, if it has one).

    Raises:
        GraderError: If the probe is unknown or raises on the reference (a
            bug in the test: the reference must handle every probed input).
    """
    if probe not in PROBES:
        raise GraderError(f"unknown probe {probe!r}; known probes: {', '.join(sorted(PROBES))}")
    ctx = Context()
    try:
        values = complete_request(probe, args)
        judged = judged if judged is not None else judged_for(probe, values)
        with answering(in_process(judged) if judged is not None else None):
            value = PROBES[probe](mg, ctx, *(judged.public(values) if judged is not None else values))
    except Exception as exc:
        raise GraderError(f"probe {probe!r} failed on the reference solution while {ctx.during}: {exc!r}") from exc
    return json.loads(json.dumps(value))
