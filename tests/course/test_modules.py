"""Assignment modules: probes put back what they swap, the stand-ins are not the graded methods, answers are bounded
by their requests, the whole-network target learns, and a class (right, buggy, hostile, notebook) is graded with
each bug charged to its own method only."""

from __future__ import annotations

import csv
import json
import math
import random
import shutil
import zipfile

import nbformat
import pytest
from checkout import ROOT
from course_runs import reference_code, run
from hidden_tests import load_hidden

from assignments.modules.probes import ANSWERS, MAX_EVENTS, network_size
from grader.cli import main
from grader.judge.reference import load_reference, run_probe
from grader.sandbox import own_parts
from grader.sandbox.schema import MalformedAnswer

H = load_hidden("modules")
XOR_X, XOR_Y = [[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]], [0.0, 1.0, 1.0, 0.0]


@pytest.fixture(scope="module")
def mg():
    return load_reference(ROOT / "reference")


def ask(mg, probe, *args):
    return ANSWERS[probe](run_probe(mg, probe, list(args)), *args)


def test_probes_put_back_every_name_they_swap(mg):
    module, engine = mg.modules, mg.engine
    before = dict(vars(module)), engine.Value
    got = ask(mg, "modules_train", [0.5, -0.3, 0.1], XOR_X, XOR_Y, 0.1, 2)
    assert got["calls"] == 2 and got["model_calls"] == 8
    assert got["events"] == ["zero_grad", "backward", "step"] * 2
    ask(mg, "modules_sequential", [["scale", 2.0], ["reverse"]], [1.0, 2.0], [1.0, 1.0])
    assert dict(vars(module)) == before[0] and engine.Value is before[1] and module.Value is engine.Value
    assert own_parts.get("stand_ins").Value.backward.__qualname__ == "Value.backward"  # the recorder is gone


def test_the_stand_ins_are_not_the_methods_they_replace(mg):
    """The stand-in loss is half the summed squares (mse_loss is the mean), the stand-in optimiser steps by
    lr * g / (1 + |g|) (SGD by lr * g): what train is graded on differs from what the student writes."""
    got = ask(mg, "modules_train", [0.0, 0.0, 0.0], XOR_X, XOR_Y, 1.0, 1)
    assert got["losses"]["list"] == [1.0]  # 0.5 * (1 + 1); the mean squared error is 0.5
    assert got["final"] == pytest.approx([2 / 3, 1 / 2, 2 / 3])  # grads [-2, -1, -2]: each moves by 1 * 2/3, 1/2
    assert ask(mg, "modules_mse", [0.0, 0.0, 0.0, 0.0], XOR_Y)["loss"]["value"] == 0.5


def test_sequential_of_stand_ins_runs_in_order_with_gradients(mg):
    got = ask(mg, "modules_sequential", [["shift", 1.0], ["reverse"], ["scale", -0.5]], [1.0, 2.0, 3.0],
              [1.0, 0.0, 0.0])
    assert got["output"]["list"] == [-2.0, -1.5, -1.0] and got["calls"] == [0, 1, 2]
    assert got["grads"] == [-0.5, 4.0] and got["input_grads"] == [0.0, 0.0, -0.5]


@pytest.mark.parametrize("probe, args, answer", [
    ("modules_linear", (2, 1, [0.0] * 3, [[1.0, 2.0]], None),
     {"outputs": [{"list": [0.0, 0.0], "count": 2}], "grads": None, "input_grads": None}),
    ("modules_linear", (2, 1, [0.0] * 3, [[1.0, 2.0]], [1.0]),
     {"outputs": [{"list": [0.0], "count": 1}], "grads": [0.0] * 4, "input_grads": [0.0, 0.0]}),
    ("modules_linear_init", (2, 2, 0),
     {"rows": [2, 2], "bias": 2, "sizes": [2, 2], "all_values": True, "distinct": 99, "data": [0.1] * 6}),
    ("modules_sequential", ([["scale", 1.0]], [1.0], None, "held"), {"held": [0, 1]}),
    ("modules_sequential", ([["scale", 1.0]], [1.0], None),
     {"output": {"list": [1.0], "count": 1}, "calls": [0] * (MAX_EVENTS + 1), "grads": None, "input_grads": None}),
    ("modules_sequential", ([["scale", 1.0]], [1.0], None, "parameters"),
     {"count": 2, "distinct": 2, "all_values": True, "stable": True, "data": [1.0, 1.0], "identity": [0]}),
    ("modules_mse", ([1.0, 2.0], [0.0, 0.0]), {"loss": {"list": [0.0] * 200_000, "count": 200_000}, "grads": None}),
    ("modules_train", ([0.0] * 3, XOR_X, XOR_Y, 0.1, 1),
     {"losses": {"list": [1.0], "count": 1}, "final": [0.0] * 3, "calls": 1, "model_calls": 4,
      "events": ["step"] * (MAX_EVENTS + 1)}),
    ("modules_learn", ([["Linear", 2, 1]], [0.0] * 3, XOR_X, XOR_Y, 0.1, 1),
     {"losses": {"list": [1.0], "count": 1}, "final": [0.0] * 4, "outputs": [{"value": 0.0}] * 4}),
])
def test_answers_are_bounded_by_their_requests(probe, args, answer):
    with pytest.raises(MalformedAnswer):
        ANSWERS[probe](answer, *args)


def test_the_whole_network_target_learns_with_the_reference(mg):
    """The hidden XOR test compares with the reference's run: that run must be a real descent, not a flat line."""
    rng = random.Random("xor")
    layers = H.XOR["layers"]
    weights = [round(rng.uniform(-1, 1), 4) for _ in range(network_size(layers))]
    got = ask(mg, "modules_learn", layers, weights, XOR_X, XOR_Y, H.XOR["lr"], H.XOR["steps"])
    losses = got["losses"]["list"]
    assert len(losses) == H.XOR["steps"] and losses[-1] < 0.8 * losses[0]
    assert all(math.isfinite(w) for w in got["final"])




def abstract_module(tmp_path, abstract: str):
    """The reference with a ``Module(ABC)`` declaring ``abstract`` ("forward" or "__call__") abstract, as
    PyTorch-minded students write it (its subclasses define ``forward``; with ``__call__`` abstract, each its own)."""
    dest = tmp_path / f"abstract_{abstract.strip('_')}"
    shutil.copytree(ROOT / "reference" / "micrograd", dest / "micrograd", ignore=shutil.ignore_patterns("__pycache__"))
    path = dest / "micrograd" / "modules.py"
    code = path.read_text(encoding="utf-8").replace("class Module:", f"""class Module(ABC):
    @abstractmethod
    def {abstract}(self, x):
        ...
""", 1)
    if abstract == "__call__":  # every concrete module calls its own forward
        code = code.replace("    def __call__(self, x: Vector)", "    def _unused(self, x: Vector)", 1)
        code = code.replace("    def forward(self, x", "    def __call__(self, x):\n        return self.forward(x)\n\n"
                            "    def forward(self, x")
    future = "from __future__ import annotations\n"
    path.write_text(code.replace(future, future + "from abc import ABC, abstractmethod\n", 1), encoding="utf-8")
    return load_reference(dest)


@pytest.mark.parametrize("abstract", ["forward", "__call__"])
def test_an_abstract_module_has_its_zero_grad_graded(tmp_path, abstract):
    """A correct ``Module.zero_grad`` of a ``Module(ABC)`` had failed: the grader's subclass holding its parameters
    could not be instantiated ("Can't instantiate abstract class Holder")."""
    abstract_mg = abstract_module(tmp_path, abstract)
    assert abstract_mg.modules.Module.__abstractmethods__ == {abstract}
    got = ask(abstract_mg, "modules_zero_grad", "Module", [1.0, -2.0], [0.5, 3.0], [1.0, 2.0])
    assert got["grads"] == [0.0, 0.0] and got["data"] == [1.0, -2.0] and got["after"] == [2.0, -8.0]


WALKER = """
    def parameters(self):
        found = []
        for value in vars(self).values():
            for item in value if isinstance(value, (list, tuple)) else [value]:
                if isinstance(item, Value):
                    found.append(item)
                elif isinstance(item, Module):
                    found += item.parameters()
        return found
"""


def test_a_parameters_that_walks_the_modules_attributes_is_graded_on_modules_it_recognises(tmp_path):
    """A ``Module.parameters()`` collecting the Values and Modules among a module's attributes (which
    ``Sequential`` inherits) is right for every network of the course; it had returned [] on the grader's stand-in
    modules, which were not instances of the student's ``Module``, and lost a public and a hidden case."""
    dest = tmp_path / "walker"
    shutil.copytree(ROOT / "reference" / "micrograd", dest / "micrograd", ignore=shutil.ignore_patterns("__pycache__"))
    path = dest / "micrograd" / "modules.py"
    code = path.read_text(encoding="utf-8")
    start = code.index("    def parameters(self) -> list[Value]:", code.index("class Module"))
    code = code[:start] + WALKER.lstrip("\n") + code[code.index("    def zero_grad(", start):]
    sequential = code.index("class Sequential")
    start = code.index("    def parameters(self) -> list[Value]:", sequential)
    code = code[:start] + code[code.index("    def __repr__(", start):]  # Sequential inherits the walker
    path.write_text(code, encoding="utf-8")
    walker = load_reference(dest)
    assert "parameters" not in vars(walker.modules.Sequential)
    specs = [["scale", 2.0], ["reverse"], ["shift", -1.0]]
    assert ask(walker, "modules_sequential", specs, [1.0], None, "parameters") == ask(
        load_reference(ROOT / "reference"), "modules_sequential", specs, [1.0], None, "parameters")


HOSTILE = '''

def mse_loss(preds, targets):  # an answer far larger than any request allows
    return [1e308] * 300_000


class Sequential(Module):
    def __init__(self, *modules):
        self.modules = list(modules)

    def forward(self, x):  # forged: the stand-ins' output recomputed from .data, as new leaves
        print("\\x1b[31m<script>alert(1)</script>")
        out = [getattr(v, "data", v) for v in x]
        for m in self.modules:
            out = [o.data for o in m([Value(o) for o in out])]
        return [Value(o) for o in out]

    def parameters(self):
        return [p for m in self.modules for p in m.parameters()]
'''


def test_a_class_is_graded_with_each_bug_charged_to_its_method(tmp_path):
    subs = tmp_path / "subs"
    engine = reference_code("engine.py")
    modules = reference_code("modules.py")
    cases = {
        "right": modules,
        "single_output": modules.replace(
            "        return [sum((w * xj for w, xj in zip(row, x)), b) for row, b in zip(self.weight, self.bias)]",
            "        outs = [sum((w * xj for w, xj in zip(row, x)), b) for row, b in zip(self.weight, self.bias)]\n"
            "        return outs[0] if len(outs) == 1 else outs"),
        "hostile": modules + HOSTILE,
    }
    for name, text in cases.items():
        assert text != modules or name == "right"
        (subs / name / "micrograd").mkdir(parents=True)
        (subs / name / "micrograd" / "engine.py").write_text(engine)
        (subs / name / "micrograd" / "modules.py").write_text(text)
    code = (engine + "\n" + modules.replace("from .engine import Value\n", "")).replace(
        "from __future__ import annotations\n", "")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("from __future__ import annotations\n" + code)])
    (subs / "colab.ipynb").write_text(nbformat.writes(nb))
    out = tmp_path / "out"
    status, printed = run("--course", str(ROOT), "grade", str(subs), "-a", "modules", "-o", str(out))
    assert status == 0, printed
    with open(out / "grades.csv", encoding="utf-8") as f:
        rows = {r["student"]: r for r in csv.DictReader(f)}
    assert rows["right"]["modules"] == "30" and rows["colab"]["modules"] == "30", rows

    def lost(student: str) -> dict[str, float]:
        results = json.loads((out / "modules" / student / "results.json").read_text(encoding="utf-8"))
        return {t["name"]: t["max_score"] - t["score"] for t in results["tests"] if t["score"] < t["max_score"]}

    single = lost("single_output")
    assert set(single) == {"Linear: y_i = sum_j weight[i][j] * x_j + bias[i], always a list; the gradients of the "
                           "weights and inputs",
                           "Linear(nin, nout) on seeded weights and inputs: outputs, and the gradients of every weight "
                           "and input",
                           "Sequential(Linear(2, 4), Tanh(), Linear(4, 1)) trained on XOR by train and SGD: the "
                           "reference's losses and weights"}, single
    feedback = (out / "modules" / "single_output" / "feedback.md").read_text(encoding="utf-8")
    assert "Linear.forward: Linear(2, 1)(x) returned a single Value, expected a list of 1" in feedback

    hostile = lost("hostile")
    assert float(rows["hostile"]["modules"]) < 30 and "withheld" not in rows["hostile"]["notes"], rows["hostile"]
    assert all("mse_loss" in name or "Sequential" in name or "XOR" in name or "sum of the squared" in name
               or "(p_k - t_k)" in name or "predictions" in name for name in hostile), hostile
    for path in [*(out / "modules" / "hostile").iterdir(), out / "grades.csv", out / "report.html"]:
        if path.is_file():  # what it printed: inert everywhere, and no live HTML where HTML or CSV is read
            text = path.read_text(encoding="utf-8")
            assert "\x1b" not in text, path
            if path.suffix in (".html", ".csv"):
                assert "<script>" not in text, path
    feedback = (out / "modules" / "hostile" / "feedback.md").read_text(encoding="utf-8")
    assert "mse_loss" in feedback and "could not be used" in feedback
    shutil.rmtree(subs)


def test_the_gradescope_zip_grades_an_upload_with_the_hidden_tests(tmp_path):
    archive = tmp_path / "autograder.zip"
    status, printed = run("--course", str(ROOT), "gradescope", "-a", "modules", "-o", str(archive))
    assert status == 0, printed
    with zipfile.ZipFile(archive) as zf:
        names = zf.namelist()
        zf.extractall(tmp_path / "source")
    assert "assignments/modules/tests/hidden/test_modules_hidden.py" in names
    upload = tmp_path / "submission"
    upload.mkdir()
    (upload / "engine.py").write_text(reference_code("engine.py"))
    (upload / "modules.py").write_text(reference_code("modules.py").replace("losses.append(loss.data)", "losses.append(loss)"))
    status, printed = run("--course", str(tmp_path / "source"), "autograde", str(upload), "-a", "modules",
                          "-o", str(tmp_path / "results.json"))
    assert status == 0, printed
    results = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert math.isclose(sum(t["max_score"] for t in results["tests"]), 30)
    lost = {t["name"] for t in results["tests"] if t["score"] < t["max_score"]}
    assert lost == {"train: each step zero_grad, backward, step, and the loss as a float (on the grader's stand-ins)",
                    "train follows the loop step by step on the grader's stand-in model, optimiser and loss",
                    "Sequential(Linear(2, 4), Tanh(), Linear(4, 1)) trained on XOR by train and SGD: the reference's "
                    "losses and weights"}, lost


# --- zero_grad that sets p.grad = None (PyTorch's way) -------------------------------------------------------------

def test_a_zero_grad_that_sets_grad_to_none_is_told_so_and_costs_only_the_zero_grad_tests(tmp_path):
    """``p.grad = None`` in zero_grad (as PyTorch does): the zero_grad tests of mlp and modules say so plainly under
    the zero_grad at fault; training measures the network all the same (with a note), and no other test loses a
    point (before, a later backward() failed with a message about the grader's Value, in other methods' tests)."""
    package = tmp_path / "subs" / "none_grad" / "micrograd"
    shutil.copytree(ROOT / "reference" / "micrograd", package, ignore=shutil.ignore_patterns("__pycache__"))
    for file in ("nn.py", "modules.py"):
        source = (package / file).read_text(encoding="utf-8")
        assert source.count("            p.grad = 0.0\n") == 1
        (package / file).write_text(source.replace("            p.grad = 0.0\n", "            p.grad = None\n"),
                                    encoding="utf-8")
    out = tmp_path / "out"
    assert main(["--course", str(ROOT), "grade", str(tmp_path / "subs"), "-o", str(out), "-a", "mlp", "-a",
                 "modules"]) == 0
    said = "set p.grad to None; the handout's zero_grad sets p.grad = 0.0 (micrograd's convention: grad is a float"
    for assignment, zero_grad_tests in (("mlp", 2), ("modules", 1)):
        tests = json.loads((out / assignment / "none_grad" / "results.json").read_text(encoding="utf-8"))["tests"]
        failed = [t for t in tests if t["score"] < t["max_score"]]
        assert len(failed) == zero_grad_tests, [(t["name"], t["output"][:300]) for t in failed]
        for test in failed:
            assert test["extra_data"]["methods"] == ["Module.zero_grad"] and said in test["output"]
        if assignment == "mlp":
            xor = next(t for t in tests if t["name"].startswith("Your network on your own engine learns XOR"))
            assert xor["score"] == xor["max_score"] and "your Module.zero_grad sets p.grad to None" in xor["output"]
