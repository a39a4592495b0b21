"""A node the student's code makes itself is differentiated by the student's own ``_backward`` (issue 55).

The network's tests run the student's modules on the grader's recording ``Value``, whose gradients the judge
computes from each node's operation. A ``Tanh`` that builds its own nodes, ``Value(t, (x,), "tanh")`` with its own
``_backward`` closure, had those closures never run: a closure bound late in a loop (each one adding to the last
input's grad, a real student's bug) got full marks, and a correct one only by luck of the name ``"tanh"``. Here the
student's closure is what their node passes on, and the grade is what their own engine would give.
"""

from __future__ import annotations

import csv
import json

from checkout import ROOT
from course_runs import reference_code, run

OWN = '''        outs = []
        for xi in x:
            t = math.tanh(xi.data)
            out = Value(t, (xi,), "{op}")

            def _backward({bound}):
                xi.grad += (1 - out.data ** 2) * out.grad

            out._backward = _backward
            outs.append(out)
        return outs
'''
ACTIVATION = "        return [xi.tanh() for xi in x]\n"


def graded(tmp_path, cases: dict[str, str]) -> tuple[dict[str, dict[str, str]], dict[str, dict[str, float]]]:
    """``grader grade -a modules`` of one submission per case (``modules.py``'s text); the gradebook rows, and the
    points each student lost in each test."""
    subs, out, engine = tmp_path / "subs", tmp_path / "out", reference_code("engine.py")
    for name, text in cases.items():
        (subs / name / "micrograd").mkdir(parents=True)
        (subs / name / "micrograd" / "engine.py").write_text(engine, encoding="utf-8")
        (subs / name / "micrograd" / "modules.py").write_text(text, encoding="utf-8")
    status, printed = run("--course", str(ROOT), "grade", str(subs), "-a", "modules", "-o", str(out))
    assert status == 0, printed
    with open(out / "grades.csv", encoding="utf-8") as f:
        rows = {r["student"]: r for r in csv.DictReader(f)}
    lost = {}
    for name in cases:
        results = json.loads((out / "modules" / name / "results.json").read_text(encoding="utf-8"))
        lost[name] = {t["name"]: t["max_score"] - t["score"] for t in results["tests"] if t["score"] < t["max_score"]}
    return rows, lost


def test_a_tanh_module_that_builds_its_own_nodes_is_graded_by_its_own_backward(tmp_path):
    modules = reference_code("modules.py")
    assert ACTIVATION in modules
    rows, lost = graded(tmp_path, {
        # default arguments bind each node's own input and output: right
        "bound": modules.replace(ACTIVATION, OWN.format(op="tanh", bound="xi=xi, out=out"), 1),
        # an operation name the grader's engine does not know: the student's closure still passes the gradient
        "named": modules.replace(ACTIVATION, OWN.format(op="my_tanh", bound="xi=xi, out=out"), 1),
        # the closures bound late: each adds to the last input's grad, the others keep 0
        "late": modules.replace(ACTIVATION, OWN.format(op="tanh", bound=""), 1),
    })
    assert rows["bound"]["modules"] == "30" and rows["named"]["modules"] == "30", (rows, lost)
    late = lost["late"]
    assert any("Tanh and ReLU on seeded inputs" in name for name in late), late
    assert float(rows["late"]["modules"]) < 30
    feedback = (tmp_path / "out" / "modules" / "late" / "feedback.md").read_text(encoding="utf-8")
    assert "Tanh.forward" in feedback and "the gradient of x" in feedback, feedback
