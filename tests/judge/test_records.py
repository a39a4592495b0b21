"""The names shared across the judge/sandbox boundary agree: probes, the modules they need, their answer
schemas, and the operations of graph specs, strategies and probes."""

from __future__ import annotations

import pytest

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


def test_a_layer_status_crosses_the_pipe_as_data_and_its_stored_line_reads_back():
    from grader.sandbox.protocol import (
        BACKEND,
        ProtocolError,
        layer_statuses,
        layer_text,
        off,
        on,
        read_layer,
        worker_config,
    )

    for status in (on("pid namespace"), on("mount namespace", "private /tmp and /run"),
                   off("landlock", "unshare was refused (EPERM)"), on(BACKEND, "linux (forked from a fork server)")):
        assert read_layer(status["layer"], layer_text(status)) == status  # results.json keeps the line: one reader
    assert layer_text(off("landlock", "no ABI")) == "off: no ABI" and layer_text(on("pid namespace")) == "on"
    report = {"landlock": {"layer": "landlock", "active": True, "reason": "x" * 5000}}
    assert len(layer_statuses(report)["landlock"]["reason"]) == 1000  # bounded, like every message
    for broken in ("on", {"landlock": "on (ABI 7)"}, {"landlock": {"layer": "pid namespace", "active": True,
                                                                   "reason": ""}},
                   {"landlock": {"layer": "landlock", "active": "yes", "reason": ""}}, {str(i): {} for i in range(65)}):
        with pytest.raises(ProtocolError):
            layer_statuses(broken)
    good = {"code_dir": "/c", "scratch": "/s", "runtime": "/r", "limits": {"memory_bytes": 1}, "modules": ["engine"],
            "hide": [], "network": False, "off": {}, "faults": [], "parts": [], "processes_in_use": None}
    assert worker_config(good) == good
    for key, value in (("limits", {"memory_bytes": "1"}), ("network", 0), ("modules", [1]), ("code_dir", None)):
        with pytest.raises(ProtocolError):
            worker_config({**good, key: value})
