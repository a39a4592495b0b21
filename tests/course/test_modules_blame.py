"""Assignment modules: a bug costs points in its own method's tests only, and feedback names that method.

Each student here is the reference with one difference, graded once through ``grader grade`` (the hidden and the
public tests); each test reads what one student lost, in which test, and which method its feedback names.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from checkout import ROOT
from course_runs import reference_code, run

STEP = "        for param in self.params:\n            param.data -= self.lr * param.grad"
MEAN = "sum(((p - t) ** 2 for p, t in zip(preds, targets)), Value(0.0)) * (1.0 / len(preds))"
FORWARD = "return [sum((w * xj for w, xj in zip(row, x)), b) for row, b in zip(self.weight, self.bias)]"
SEQ_REPR = "def __repr__(self) -> str:\n        return f\"Sequential("
DRAWS = ("        self.weight = [[Value(random.uniform(-k, k)) for _ in range(nin)] for _ in range(nout)]\n"
         "        self.bias = [Value(random.uniform(-k, k)) for _ in range(nout)]")
STUDENTS: dict[str, list[tuple[str, str]]] = {
    "right": [],
    "sgd_ascends": [(STEP, STEP.replace("-=", "+="))],
    "sgd_ignores_lr": [(STEP, STEP.replace("self.lr * param.grad", "param.grad"))],
    "sgd_init_fixed_lr": [("        self.lr = lr\n", "        self.lr = 0.01\n")],
    "sequential_skips_first": [("        for module in self.modules:\n", "        for module in self.modules[1:]:\n")],
    "mse_returns_float": [(MEAN, f"({MEAN}).data")],
    "sequential_parameters_first": [("return [p for module in self.modules for p in module.parameters()]",
                                     "return self.modules[0].parameters()")],
    "linear_refuses_numbers": [(FORWARD, "if not all(isinstance(xj, Value) for xj in x):\n"
                                         "            raise TypeError('Linear takes Values')\n        " + FORWARD)],
    "sequential_zero_grad_last": [(SEQ_REPR, "def zero_grad(self):\n        for p in self.modules[-1].parameters():\n"
                                             "            p.grad = 0.0\n\n    " + SEQ_REPR)],
    "linear_call_without_forward": [("    def forward(self, x: Vector) -> list[Value]:\n        \"\"\"Return the ``nout``",
                                     "    def __call__(self, x: Vector) -> list[Value]:\n        \"\"\"Return the ``nout``")],
    "linear_bias_drawn_first": [(DRAWS, "\n".join(reversed(DRAWS.split("\n"))))],
}
"""Each student's ``modules.py``: the reference's with these replacements (old, new)."""

SGD_STEP_TESTS = {"test_sgd_step", "test_sgd_on_random_steps"}
XOR = "test_network_trains_xor"


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder of every student's results, graded once."""
    base = tmp_path_factory.mktemp("modules_blame")
    engine, modules = reference_code("engine.py"), reference_code("modules.py")
    for name, changes in STUDENTS.items():
        text = modules
        for old, new in changes:
            assert text.count(old) == 1, (name, old)
            text = text.replace(old, new)
        folder = base / "subs" / name / "micrograd"
        folder.mkdir(parents=True)
        (folder / "engine.py").write_text(engine, encoding="utf-8")
        (folder / "modules.py").write_text(text, encoding="utf-8")
    status, printed = run("--course", str(ROOT), "grade", str(base / "subs"), "-a", "modules", "-o", str(base / "out"))
    assert status == 0, printed
    return base / "out" / "modules"


def lost(graded: Path, student: str) -> dict[str, dict[str, Any]]:
    """The tests ``student`` lost points in, by function name: points lost, the methods named, the feedback."""
    results = json.loads((graded / student / "results.json").read_text(encoding="utf-8"))
    return {t["extra_data"]["key"].rsplit("::", 1)[1]: {"lost": t["max_score"] - t["score"],
                                                         "methods": t["extra_data"]["methods"], "output": t["output"]}
            for t in results["tests"] if t["score"] < t["max_score"]}


def test_the_reference_loses_nothing(graded: Path) -> None:
    assert lost(graded, "right") == {}


@pytest.mark.parametrize("student", ["sgd_ascends", "sgd_ignores_lr"])
def test_a_wrong_sgd_step_costs_step_points_only_and_names_step(graded: Path, student: str) -> None:
    """Ascent, or lr left out of step(), had also failed test_sgd_init under "SGD.__init__" with the hint "keep
    list(params) in self.params": a correct __init__ lost a point and the feedback blamed it."""
    got = lost(graded, student)
    assert set(got) - {XOR} == SGD_STEP_TESTS, got
    for name in SGD_STEP_TESTS:
        assert got[name]["methods"] == ["SGD.step"], got[name]
        assert "list(params)" not in got[name]["output"]


def test_an_sgd_init_that_drops_lr_is_caught_in_init_only(graded: Path) -> None:
    """``self.lr = 0.01``: SGD.__init__'s own test reads self.lr (the step tests set lr themselves)."""
    got = lost(graded, "sgd_init_fixed_lr")
    assert set(got) - {XOR} == {"test_sgd_init"}, got
    assert got["test_sgd_init"]["methods"] == ["SGD.__init__"]
    assert "self.lr was 0.01, expected 0.5" in got["test_sgd_init"]["output"]


@pytest.mark.parametrize("student, method, own_tests", [
    ("sequential_skips_first", "Sequential.forward", {"test_sequential_forward", "test_sequential_on_random_modules"}),
    ("mse_returns_float", "mse_loss", {"test_mse_loss", "test_mse_on_random_inputs"}),
    ("sequential_parameters_first", "Sequential.parameters",
     {"test_sequential_parameters", "test_sequential_on_random_modules"}),
])
def test_the_whole_network_names_the_part_wrong_alone(graded: Path, student: str, method: str,
                                                       own_tests: set[str]) -> None:
    """The XOR test had named where the fault surfaced: Tanh.forward (given the plain inputs by a Sequential that
    skips its first module), train (calling backward() on mse_loss's float), or "Sequential" (a count of
    parameters). It names the part whose own tests fail, and says what that part gets wrong alone."""
    got = lost(graded, student)
    assert set(got) == own_tests | {XOR}, got
    assert got[XOR]["methods"] == [method], got[XOR]
    assert f"measured alone, {method} is wrong:" in got[XOR]["output"]


def test_the_whole_network_is_named_when_every_part_is_right_alone(graded: Path) -> None:
    """A Linear that refuses plain numbers passes its own tests (they give it Values); only the network, whose
    first layer gets the XOR points as numbers, fails. The test had named Linear.forward as if its tests failed;
    it says plainly that the whole network is wrong."""
    got = lost(graded, "linear_refuses_numbers")
    assert set(got) == {XOR}, got
    assert got[XOR]["methods"] == ["Sequential"]
    assert "Sequential: the whole network is wrong: your code raised TypeError: Linear takes Values" in got[XOR]["output"]
    assert "each of its parts (Linear, Tanh, Sequential, SGD, mse_loss, train) gives the reference's answers" in (
        got[XOR]["output"])


@pytest.mark.parametrize("student, method, tests", [
    ("sequential_zero_grad_last", "Sequential.zero_grad", {"test_module_zero_grad"}),
    ("linear_call_without_forward", "Linear.forward", {"test_linear_forward", "test_linear_on_random_inputs"}),
    ("linear_bias_drawn_first", "Linear.__init__", {"test_linear_init", "test_linear_init_scale"}),
])
def test_a_bug_that_scored_full_marks_is_caught_in_its_own_tests(graded: Path, student: str, method: str,
                                                                 tests: set[str]) -> None:
    """Three real bugs had full marks: a Sequential.zero_grad that zeroes the last module's parameters only (the
    handout's zero_grad zeroes every p in self.parameters()), a Linear computing in __call__ with no forward (the
    handout's method: the tests called the layer), and a Linear drawing its bias before its weights (the handout
    draws weight, then bias: a seeded run gives another layer). Each costs points in its own tests only."""
    got = lost(graded, student)
    assert set(got) == tests, got
    for name in tests:
        assert got[name]["methods"] == [method], got[name]


def test_the_swapped_draws_say_the_bias_came_first(graded: Path) -> None:
    output = lost(graded, "linear_bias_drawn_first")["test_linear_init"]["output"]
    assert "the bias was drawn before the weights" in output
