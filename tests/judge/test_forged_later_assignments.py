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

PLANTED = {  # values the judge computes on, each of which once made it withhold this student's result
    "gradcheck.py": '''

def numerical_grad(f, xs, h=1e-6):  # asks the grader's f about a number no float holds
    return f.__globals__["ask"]("call", {"f": 0, "at": [10 ** 400] * len(xs)})
''',
    "graph.py": '''

def to_dot(root, rankdir="LR"):  # a record label nested 900 braces deep (the judge's parser recursed per brace)
    if rankdir not in ("TB", "LR", "BT", "RL"):
        raise ValueError(f"no such rankdir: {rankdir!r}")
    nodes, _ = trace(root)
    deep = "{" * 900 + "}" * 900
    return "\\n".join([f"digraph {{ rankdir={rankdir};"] + [f'  n{id(v)} [shape=record, label="{deep}"];'
                                                            for v in list(nodes)[:1]] + ["}"])
''',
    "modules.py": '''

import random as _random


def _plain_floats(self, nin, nout):  # an honest bug: weights kept as floats, not Values
    k = 1 / nin ** 0.5
    self.nin, self.nout = nin, nout
    self.weight = [[_random.uniform(-k, k) for _ in range(nin)] for _ in range(nout)]
    self.bias = [_random.uniform(-k, k) for _ in range(nout)]


Linear.__init__ = _plain_floats
''',
}
"""What the submission ``planted`` adds to the template (see ``tests/test_attacks_on_judge_values.py``)."""


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
    planted = subs / "planted" / "micrograd"
    shutil.copytree(template, planted)
    for name, code in PLANTED.items():
        (planted / name).write_text((planted / name).read_text() + code)
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


@pytest.mark.parametrize(("aid", "test", "says"), [
    ("gradcheck", "numerical_grad", "a number too large for the grader (about 10**400"),
    ("graph", "to_dot(root) on 3 random graphs", "nests braces more than 16 deep"),
    ("modules", "Linear(9, 5): 45 weights", "50 of the 50 weights and biases were not numbers"),
])
def test_a_value_the_judge_cannot_compute_on_fails_the_case_and_says_why(forged, aid, test, says):
    """The end-to-end case of ``tests/test_attacks_on_judge_values.py``: the planted values fail their cases with a
    message saying why, and no test of the submission is withheld."""
    results = json.loads((forged["out"] / aid / "planted" / "results.json").read_text())
    assert "grader error" not in json.dumps(results).lower(), aid
    found = [t for t in results["tests"] if t["name"].startswith(test)]
    assert found and found[0]["status"] == "failed" and says in found[0]["output"], found
