"""The judge's hypothesis profile, loaded when the course's tests first import hypothesis, and not before.

Importing hypothesis costs a judge about 0.2 s of CPU at its start (0.3 s where ``trio`` is installed, which
hypothesis then imports too), and most judges never use it: only the assignments whose tests draw random inputs
(backward's graphs) or import the course's strategies (graph's specs) do. So the judge does not import it; the
profile every hypothesis test of the judge runs under is loaded the moment hypothesis is first imported (by a test
module, at collection), before any course code can make a ``settings`` object from the default one: the same
examples, in the same order, as when the judge imported hypothesis itself.

The profile (``grader``): derandomized (every submission gets the same examples), no example database, no deadline
(the grader's own time limits apply: :mod:`grader.judge.deadlines`), one counterexample shrunk and shown, the
health checks that a fixture per submission and slow student code trip switched off; and no "local constants"
(:func:`_no_local_constants`).
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
from collections.abc import Sequence
from types import ModuleType

from pytest import PytestPluginManager

PROFILE = "grader"
PLUGIN = "_hypothesis_pytestplugin"
"""Hypothesis's pytest plugin, by module (:data:`grader.judge.__main__.PLUGINS`)."""


def use_when_imported() -> None:
    """Load the profile now if hypothesis is imported, else the moment it is (once)."""
    if "hypothesis" in sys.modules:
        _load()
    elif not any(isinstance(finder, _OnImport) for finder in sys.meta_path):
        sys.meta_path.insert(0, _OnImport())


def quiet_if_unused(plugins: PytestPluginManager) -> None:
    """At the session's end, take hypothesis's pytest plugin out if no test of the judge imported hypothesis: its
    terminal summary would import it (0.1 s) to say it has nothing to say."""
    if "hypothesis" not in sys.modules and plugins.has_plugin(PLUGIN):
        plugins.unregister(name=PLUGIN)


def in_test() -> bool:
    """Whether a hypothesis test is running (never, while hypothesis has not been imported)."""
    control = sys.modules.get("hypothesis.control")
    return control is not None and bool(control.currently_in_test_context())


class _OnImport(importlib.abc.MetaPathFinder):
    """Finds nothing itself: on the first import of ``hypothesis`` it takes itself off ``sys.meta_path`` and has the
    profile loaded as soon as the package has run (the other finders find it, the same loader runs it)."""

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if fullname != "hypothesis":
            return None
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)
        if spec is None or spec.loader is None:
            return spec
        run = spec.loader.exec_module

        def exec_module(module: ModuleType) -> None:
            run(module)
            _load()

        setattr(spec.loader, "exec_module", exec_module)  # noqa: B010 - this loader instance, this module only
        return spec


def _load() -> None:
    from hypothesis import HealthCheck, settings

    settings.register_profile(
        PROFILE,
        derandomize=True,
        database=None,
        deadline=None,
        print_blob=False,
        report_multiple_bugs=False,  # feedback shows one counterexample: shrink only the first one found
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    settings.load_profile(PROFILE)
    _no_local_constants()


def _no_local_constants() -> None:
    """Make hypothesis's examples independent of which modules happen to be loaded.

    Hypothesis (>= 6.131) mixes in literals collected from "local" modules,
    which differ between an editable and a regular install of the grader and
    with the order modules are imported; the same submission must always get
    the same examples, so the pool is emptied. Guarded: if hypothesis changes
    this internal, examples merely stay as hypothesis makes them.
    """
    try:
        from hypothesis.internal.conjecture import providers
    except ImportError:  # pragma: no cover
        return
    if hasattr(providers, "_get_local_constants") and hasattr(providers, "Constants"):
        empty = providers.Constants()  # type: ignore[attr-defined]
        providers._get_local_constants = lambda: empty
