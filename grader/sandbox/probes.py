"""The registry of probes: the only functions a judge can ask a worker to run.

Probes are course content: each lives in a probe module of the course
(``assignments/shared/probes/*.py``, ``assignments/<id>/probes.py``, loaded by
:mod:`.course_code`), which declares four tables:

``PROBES``
    name -> ``probe(mg, ctx, *args)``. ``mg`` is the code under test, one
    attribute per module of its ``micrograd`` package (``mg.engine``,
    ``mg.nn``, ``mg.forward``...), ``ctx`` a :class:`~.probekit.Context`;
    the arguments and the return value are plain data (JSON).
``NEEDS``
    name -> the student modules the probe imports (``("micrograd.engine",)``);
    the judge fails a probe at once when one of them did not import. A probe
    its module names none of needs the assignment's first module.
``ANSWERS``
    name -> ``parser(answer, *args)``: the answer's schema, built from
    :mod:`.schema`'s readers and bounded by the request's own arguments
    (the judge side; see :func:`grader.judge.answers.parse`).
``REQUESTS`` (optional)
    name -> ``complete(args) -> args``: what the judge adds to a test's
    request before it sends it (runs in the judge only, so it may use the
    grader's parts, e.g. the local gradients of the nodes a graph probe makes).
``JUDGE_SIDE`` (optional)
    the import name of a judge-side course module (a string: the probe
    module never imports it) whose own ``REQUESTS`` and ``JUDGED`` tables
    are this module's probes'; the judge imports it after the probe modules
    (:func:`grader.sandbox.course_code.load_probes` with ``judge=True``), a
    worker never does. The arrows run one way: the judge side imports the
    probe module it serves, not the reverse.
``JUDGED`` (optional)
    name -> ``judged(args) -> Judged``: the judge's side of a probe that asks it
    questions while it runs (:func:`.probekit.ask`: a function the student's
    code is given, evaluated by the judge). Runs in the judge only: the object
    holds what the worker must not (the function's program, its local
    gradients) and answers each ask (``answer(topic, payload)``, plain data
    both ways), counting what a verdict depends on (``record()``, added to the
    parsed answer as ``"judged"``).

The same probe runs on the student's code in the sandbox and on the reference
solution in the judge, so the two results can be compared field by field.

Probes measure; they never decide. A probe returns raw measurements (numbers,
lists of numbers), never a verdict such as "converged", because student code
shares the worker process and could replace any function in it: the judge
derives every verdict from numbers that only a correct computation yields.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

Probe = Callable[..., Any]

PROBES: dict[str, Probe] = {}
"""Probe name to function (every loaded probe module's)."""
NEEDS: dict[str, tuple[str, ...]] = {}
"""Probe name to the student modules it needs."""
ANSWERS: dict[str, Callable[..., Any]] = {}
"""Probe name to the parser of its answer."""
REQUESTS: dict[str, Callable[[list[Any]], list[Any]]] = {}
"""Probe name to the judge's completion of its request."""
JUDGED: dict[str, Callable[[list[Any]], Any]] = {}
"""Probe name to the factory of its judge's side (answers its asks, counts them): judge only."""
JUDGE_SIDES: dict[str, tuple[str, tuple[str, ...]]] = {}
"""Probe module name to its ``JUDGE_SIDE`` module's name and the probes it serves."""



class RegistryError(Exception):
    """A probe module whose tables are missing, malformed, or name a probe another module already has."""


def register(module: ModuleType) -> list[str]:
    """Add the probes of ``module`` (its ``PROBES``, ``NEEDS``, ``ANSWERS``, ``REQUESTS`` and ``JUDGED``); return
    their names.

    Registering the same module again is a no-op.

    Raises:
        RegistryError: If ``PROBES`` is missing, a probe has no ``ANSWERS`` entry, or a name is taken by another
            module's probe.
    """
    probes = getattr(module, "PROBES", None)
    answers = getattr(module, "ANSWERS", None)
    if not isinstance(probes, dict) or not isinstance(answers, dict):
        raise RegistryError(f"{module.__name__} declares no PROBES and ANSWERS tables")
    needs = getattr(module, "NEEDS", {}) or {}
    requests = getattr(module, "REQUESTS", {}) or {}
    judged = getattr(module, "JUDGED", {}) or {}
    for name, probe in probes.items():
        if name not in answers:
            raise RegistryError(f"{module.__name__}: probe {name!r} has no ANSWERS entry (its answer's schema)")
        owner = getattr(PROBES.get(name), "__module__", None)
        if name in PROBES and owner != getattr(probe, "__module__", None):
            raise RegistryError(f"{module.__name__}: the probe name {name!r} is taken by {owner}")
    for name, probe in probes.items():
        PROBES[name] = probe
        ANSWERS[name] = answers[name]
        NEEDS[name] = tuple(needs.get(name, ()))
        if name in requests:
            REQUESTS[name] = requests[name]
        if name in judged:
            JUDGED[name] = judged[name]
    side = getattr(module, "JUDGE_SIDE", None)
    if side is not None:
        if not isinstance(side, str) or not side.startswith("assignments."):
            raise RegistryError(f"{module.__name__}: JUDGE_SIDE must name a course module (assignments....)")
        JUDGE_SIDES[module.__name__] = (side, tuple(probes))
    return sorted(probes)


def register_judge_side(probe_module: str, module: ModuleType) -> None:
    """Add the ``REQUESTS`` and ``JUDGED`` of ``module``, the judge side that ``probe_module`` names (judge only).

    Raises:
        RegistryError: If ``module`` has an entry for a probe that ``probe_module`` does not declare.
    """
    served = JUDGE_SIDES[probe_module][1]
    for table, own in ((REQUESTS, getattr(module, "REQUESTS", {}) or {}), (JUDGED, getattr(module, "JUDGED", {}) or {})):
        for name, hook in own.items():
            if name not in served:
                raise RegistryError(f"{module.__name__}: {name!r} is not a probe of {probe_module}, the module it serves")
            table[name] = hook


def clear() -> None:
    """Forget every probe (a course folder is being replaced)."""
    for table in (PROBES, NEEDS, ANSWERS, REQUESTS, JUDGED, JUDGE_SIDES):
        table.clear()
