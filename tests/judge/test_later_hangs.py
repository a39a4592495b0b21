"""A hang in a later assignment's method costs seconds and the tests about that method, nothing else (issue 26):
the reference's ``forward.py`` with ``Dual.__mul__`` looping forever, graded on ``forward_mode``."""

from __future__ import annotations

import json
import shutil
import time

from checkout import ROOT

from grader.cli import main

LOOPING_MUL = '''

def _forever(self, other):
    while True:
        pass


Dual.__mul__ = _forever  # the student's multiplication never returns
'''


def test_a_looping_dual_multiplication_costs_its_own_tests_and_seconds(tmp_path):
    subs, out = tmp_path / "subs", tmp_path / "out"
    shutil.copytree(ROOT / "reference" / "micrograd", subs / "looping" / "micrograd")
    forward = subs / "looping" / "micrograd" / "forward.py"
    forward.write_text(forward.read_text(encoding="utf-8") + LOOPING_MUL, encoding="utf-8")
    started = time.monotonic()
    assert main(["--course", str(ROOT), "grade", str(subs), "-o", str(out), "-a", "forward_mode", "-j", "1"]) == 0
    seconds = time.monotonic() - started
    results = json.loads((out / "forward_mode" / "looping" / "results.json").read_text())
    scores = {t["name"]: (t["score"], t["max_score"]) for t in results["tests"]}
    lost = {name for name, (got, most) in scores.items() if got < most}
    assert any("__mul__" in name or "mul" in name.lower() for name in lost), lost
    kept = [name for name, (got, most) in scores.items() if got == most]
    assert any("__add__" in name for name in kept), kept  # addition never calls the multiplication
    assert any(name.startswith("derivative") for name in kept) and any(name.startswith("gradient") for name in kept)
    assert "grader error" not in json.dumps(results).lower()
    assert 0 < results["score"] < 40
    assert seconds < 90, seconds  # the time limits of the tests that call it, not the whole assignment's per test
