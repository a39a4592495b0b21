"""Forged probe answers earn nothing on the assignments written through the course path (issue 26): a template
whose files, when imported, replace every probe of the worker with one that answers without running the student's
code (malformed data, the request echoed, empty records) scores what the template scores, 0, and nothing is
withheld. The probes of these assignments live in their folders; the forging code finds them in the worker's one
registry, as it would find the original three's."""

from __future__ import annotations

import csv
import json
import shutil

import pytest
from checkout import ROOT

from grader.cli import main
from grader.course.course import Course

FIRST = ("value_ops", "backward", "mlp")
LATER = [a.id for a in Course(ROOT).assignments() if a.id not in FIRST]

FORGE = '''

import sys as _sys

_STRATEGY = {strategy!r}
_calls = [0]


def _malformed():
    _calls[0] += 1
    nested = []
    for _ in range(500):
        nested = [nested]
    return [nested, 10 ** 300, "1.0", None, True, [], {{"values": nested}}, -1, float("nan"),
            {{"value": 10 ** 300}}, {{"x": "0"}}][_calls[0] % 11]


def _forged(name):
    def probe(mg, ctx, *args):
        if _STRATEGY == "echo":
            return args[0] if args else {{}}
        if _STRATEGY == "empty":
            return {{}}
        return _malformed()
    return probe


for _module in list(_sys.modules.values()):
    _probes = getattr(_module, "PROBES", None)
    if isinstance(_probes, dict) and hasattr(_module, "ANSWERS") and hasattr(_module, "register"):
        for _name in list(_probes):
            _probes[_name] = _forged(_name)
'''
STRATEGIES = ("malformed", "echo", "empty")


@pytest.fixture(scope="module")
def forged(tmp_path_factory):
    base = tmp_path_factory.mktemp("forged-later")
    subs, out = base / "subs", base / "out"
    template = ROOT / "student_template" / "micrograd"
    shutil.copytree(template, subs / "template" / "micrograd")
    for strategy in STRATEGIES:
        folder = subs / f"forged_{strategy}" / "micrograd"
        shutil.copytree(template, folder)
        for module in folder.glob("*.py"):
            if module.name != "__init__.py":
                module.write_text(module.read_text() + FORGE.format(strategy=strategy))
    args = ["--course", str(ROOT), "grade", str(subs), "-o", str(out), "-j", "2"]
    status = main(args + [arg for a in LATER for arg in ("-a", a)])
    with open(out / "grades.csv", encoding="utf-8") as f:
        grades = {row["student"]: row for row in csv.DictReader(f)}
    return {"status": status, "out": out, "grades": grades}


def test_there_are_later_assignments_to_attack():
    assert {"forward_mode", "graph", "classifier", "gradcheck"} <= set(LATER)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_template_that_forges_every_probe_scores_zero_and_nothing_is_withheld(forged, strategy):
    assert forged["status"] == 0
    assert float(forged["grades"]["template"]["total"]) == 0.0
    assert float(forged["grades"][f"forged_{strategy}"]["total"]) == 0.0
    for aid in LATER:
        results = json.loads((forged["out"] / aid / f"forged_{strategy}" / "results.json").read_text())
        assert results["score"] == 0.0, aid
        assert [t["name"] for t in results["tests"] if t.get("score", 0) != 0] == [], aid
        assert "grader error" not in json.dumps(results).lower(), aid
