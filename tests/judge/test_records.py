"""The names shared across the judge/sandbox boundary agree: probes, the modules they need, their answer
schemas, and the operations of graph specs, strategies and probes."""

from __future__ import annotations

from assignments.shared.checks.graphs import FUNCTIONS
from assignments.shared.checks.strategies import ALL_OPS
from assignments.shared.probes.engine_probes import BINARY, UNARY
from grader.sandbox.probes import ANSWERS, NEEDS, PROBES


def test_every_probe_declares_its_modules_and_has_an_answer_schema():
    assert PROBES and set(PROBES) == set(NEEDS) == set(ANSWERS)
    assert all(modules and all(m.startswith("micrograd.") for m in modules) for modules in NEEDS.values())


def test_a_probe_module_without_a_schema_or_with_a_taken_name_is_refused():
    """The registry is what lets the judge parse every answer with bounds: a probe without an answer schema, or one
    that would replace another module's probe of the same name, is a course error at load time, never a probe
    whose answers go unchecked."""
    import types

    import pytest

    from grader.sandbox.probes import RegistryError, register

    def module(name: str, probes: dict, answers: dict) -> types.ModuleType:
        made = types.ModuleType(name)
        made.PROBES, made.ANSWERS = probes, answers  # type: ignore[attr-defined]
        return made

    def probe(mg, ctx):
        return {}

    with pytest.raises(RegistryError, match="no ANSWERS entry"):
        register(module("assignments.demo.probes", {"demo_probe": probe}, {}))
    with pytest.raises(RegistryError, match="taken by"):
        register(module("assignments.demo.probes", {"graph": probe}, {"graph": lambda value, spec: value}))
    assert "demo_probe" not in PROBES and PROBES["graph"].__module__ == "assignments.shared.probes.engine_probes"


def test_specs_strategies_and_probes_share_one_operation_vocabulary():
    assert set(FUNCTIONS) == set(UNARY) | set(BINARY) | {"sum"}
    assert set(ALL_OPS) == set(UNARY) | set(BINARY)


def test_a_layer_status_is_read_in_one_place():
    from grader.sandbox.protocol import layer_status

    assert layer_status("on") == {"active": True, "detail": ""}
    assert layer_status("on (private /tmp and /run)") == {"active": True, "detail": "private /tmp and /run"}
    assert layer_status("dropped")["active"]
    assert layer_status("off: unshare was refused (EPERM)") == {"active": False, "detail": "unshare was refused (EPERM)"}
