"""Feedback names the real cause, on the six classes public engines showed (issue 25).

Each engine here is the reference with one difference a real student's code
had: a constructor with its parameters in another order, the children kept
under another name, a network with a tanh output or ReLU neurons, a neuron
without ``nonlin``, tanh computed from ``math.exp``, a broken ``__pow__``
under a division built on it, and methods left as stubs. The whole class is
graded once (one ``grader grade`` of every engine on every assignment), and
each test reads what one student got.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from checkout import ROOT

from grader.cli import main
from grader.course.catalogue import write_mutant
from grader.course.course import Course
from grader.course.stubs import missing_method_mutants

REFERENCE = ROOT / "reference" / "micrograd"

INIT = 'def __init__(self, data: Number, _children: Iterable["Value"] = (), _op: str = "") -> None:'
DIV = '''        return self * other**-1
        # END SOLUTION

    def __rtruediv__'''


def label_first(engine: str) -> str:
    """A real student's constructor, ``Value(data, label="", _prev=(), _op="")``, called by keyword by every
    operation, in an engine without relu, log and sigmoid."""
    engine = engine.replace(INIT, 'def __init__(self, data: Number, label: str = "", _prev: Iterable["Value"] = (), '
                                  '_op: str = "") -> None:')
    engine = engine.replace("self._prev = set(_children)", "self._prev = set(_prev)\n        self.label = label")
    engine = re.sub(r'Value\((.+?), (\((?:self, other|self,)\)), (f?"[^"]*")\)', r'Value(\1, _prev=\2, _op=\3)', engine)
    for name in ("relu", "log", "sigmoid"):
        start = engine.index(f"    def {name}(")
        engine = engine[:start] + engine[engine.index("\n    def ", start + 1) + 1:]
    return engine


def without_module(nn: str) -> str:
    """No ``Module`` class: the network's classes derive from nothing, and none has ``zero_grad``."""
    nn = nn[:nn.index("class Module:")] + nn[nn.index("class Neuron(Module):"):]
    return nn.replace("(Module):", ":")


def neurons_counted(nn: str) -> str:
    """The layer keeps its neurons in ``self.layer``, and the handout's ``self.neurons`` holds their number."""
    nn = nn.replace("self.neurons", "self.layer")
    return nn.replace("        self.layer = [Neuron(nin, **kwargs) for _ in range(nout)]",
                      "        self.neurons = nout\n        self.layer = [Neuron(nin, **kwargs) for _ in range(nout)]")


def gradients_off(engine: str) -> str:
    """A real student's ``requires_grad=False`` default: ``__mul__``'s closure gives gradients only to operands made
    with ``requires_grad=True``, and ``Value(data)`` is made without."""
    engine = engine.replace(INIT, INIT.replace('_op: str = ""', '_op: str = "", requires_grad: bool = False'))
    engine = engine.replace("        self._op = _op\n", "        self._op = _op\n        self.requires_grad = requires_grad\n")
    return engine.replace("""            self.grad += other.data * out.grad
            other.grad += self.data * out.grad""", """            if self.requires_grad:
                self.grad += other.data * out.grad
            if other.requires_grad:
                other.grad += self.data * out.grad""")


def swapped(engine: str) -> str:
    """The constructor takes ``(data, _op, _children)``, and every operation calls it that way."""
    engine = engine.replace(INIT, 'def __init__(self, data: Number, _op: str = "", _children: Iterable["Value"] = ()) -> None:')
    return re.sub(r'Value\((.+?), (\((?:self, other|self,)\)), (f?"[^"]*")\)', r'Value(\1, \3, \2)', engine)


ENGINES: dict[str, tuple[Any, Any]] = {  # name: (edit of engine.py, edit of nn.py)
    "swapped_init": (swapped, None),
    "children_renamed": (lambda e: e.replace("_prev", "_children_of"), None),
    "tanh_output": (None, lambda n: n.replace("nonlin=i != len(nouts) - 1", "nonlin=True")),
    "relu_neurons": (None, lambda n: n.replace("return act.tanh() if self.nonlin", "return act.relu() if self.nonlin")),
    "no_nonlin": (None, lambda n: n.replace("self.nonlin", "self.activate")),
    "no_nonlin_keyword": (None, lambda n: n.replace("def __init__(self, nin: int, nonlin: bool = True) -> None:",
                                                    "def __init__(self, nin: int) -> None:").replace(
        "        self.nonlin = nonlin\n", "        self.nonlin = True\n")),
    "label_first": (label_first, None),
    "gradients_off": (gradients_off, None),
    "no_module": (None, without_module),
    "neurons_counted": (None, neurons_counted),
    "layer_drops_nonlin": (None, lambda n: n.replace("self.neurons = [Neuron(nin, **kwargs) for _ in range(nout)]",
                                                     "self.neurons = [Neuron(nin) for _ in range(nout)]")),
    "no_import_math": (lambda e: e.replace("import math\n", "", 1), None),
    "tanh_from_exp": (lambda e: e.replace("t = math.tanh(self.data)",
                                          "t = (math.exp(2 * self.data) - 1) / (math.exp(2 * self.data) + 1)"), None),
    "pow_bug": (lambda e: e.replace("self.grad += other * self.data ** (other - 1) * out.grad",
                                    "self.grad += self.data ** (other - 1) * out.grad"), None),
    "pow_bug_own_division": (lambda e: e.replace(
        "self.grad += other * self.data ** (other - 1) * out.grad", "self.grad += self.data ** (other - 1) * out.grad"
    ).replace(DIV, '''        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data / other.data, (self, other), "/")

        def _backward() -> None:
            self.grad += out.grad / other.data
            other.grad += self.data / other.data**2 * out.grad

        out._backward = _backward
        return out
        # END SOLUTION

    def __rtruediv__'''), None),
}
"""The synthetic engines: the reference with one real student's difference each."""
STUBS = ("Module.zero_grad", "Value.tanh", "Value.__pow__")
"""Methods left as the template's stub: each may cost at most 1 point outside the tests about it."""


def stub(method: str) -> str:
    """The submission id of the engine with ``method`` left as a stub."""
    return "stub--" + method.replace(".", "-").strip("_")


def methods(test: dict[str, Any]) -> list[str]:
    """The methods a test's failures are attributed to."""
    return list(test["extra_data"]["methods"])


def copy_reference(dest: Path) -> Path:
    shutil.copytree(REFERENCE, dest / "micrograd", ignore=shutil.ignore_patterns("__pycache__"))
    return dest / "micrograd"


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    subs = tmp_path_factory.mktemp("real-causes") / "subs"
    for name, (engine_edit, nn_edit) in ENGINES.items():
        package = copy_reference(subs / name)
        for file, edit in (("engine.py", engine_edit), ("nn.py", nn_edit)):
            if edit is not None:
                text = (package / file).read_text(encoding="utf-8")
                changed = edit(text)
                assert changed != text, f"{name}: the edit of {file} changed nothing"
                (package / file).write_text(changed, encoding="utf-8")
    course = Course(ROOT)
    for mutant in missing_method_mutants(course.reference_dir, course.template_dir, ["micrograd/engine.py", "micrograd/nn.py"]):
        if mutant.method in STUBS:
            write_mutant(mutant, course.reference_dir, subs / stub(mutant.method))
    out = subs.parent / "out"
    # the assignments of engine.py and nn.py, the files these causes are in (the later ones are the reference's)
    assert main(["--course", str(ROOT), "grade", str(subs), "-o", str(out), "-a", "value_ops", "-a", "backward",
                 "-a", "mlp"]) == 0
    return out


def record(out: Path, assignment: str, student: str) -> dict[str, Any]:
    result: dict[str, Any] = json.loads((out / assignment / student / "results.json").read_text(encoding="utf-8"))
    return result


def lost(test: dict[str, Any]) -> float:
    return float(test["max_score"]) - float(test["score"])


def by_name(tests: list[dict[str, Any]], start: str) -> dict[str, Any]:
    found = [t for t in tests if t["name"].startswith(start)]
    assert len(found) == 1, (start, [t["name"] for t in tests])
    return found[0]


def start_here(out: Path, assignment: str, student: str) -> str:
    feedback = (out / assignment / student / "feedback.md").read_text(encoding="utf-8")
    return feedback.split("## Start here", 1)[1].split("##", 1)[0]


# --- 1. the constructor ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("assignment", ["value_ops", "backward"])
def test_a_constructor_with_its_parameters_in_another_order_costs_nothing_outside_its_contract(graded, assignment):
    tests = record(graded, assignment, "swapped_init")["tests"]
    contract = tests[0]
    assert contract["name"].startswith("Value(data, children, op)"), "the contract is the first thing reported"
    assert contract["status"] == "failed" and "another order" in contract["output"]
    assert methods(contract) == ["Value.__init__"]
    assert all(t["status"] == "passed" for t in tests[1:]), [t["name"] for t in tests[1:] if t["status"] != "passed"]
    assert "`Value.__init__`" in start_here(graded, assignment, "swapped_init")


@pytest.mark.parametrize("assignment", ["value_ops", "backward"])
def test_a_broken_attribute_contract_blocks_the_other_tests_and_start_here_names_only_the_constructor(graded, assignment):
    tests = record(graded, assignment, "children_renamed")["tests"]
    failed = [t for t in tests if t["status"] == "failed"]
    assert len(failed) > 5
    assert "has no _prev" in failed[0]["output"] and methods(failed[0]) == ["Value.__init__"]
    for test in failed[1:]:
        assert methods(test) == ["Value.__init__"], test["name"]
        assert "blocked by Value.__init__ (see the test \"Value(data, children, op)" in test["output"], test["output"]
        assert "Hint:" not in test["output"], "a blocked test gives no hint of its own"
    advice = start_here(graded, assignment, "children_renamed")
    assert "point to `Value.__init__`" in advice and "Then:" not in advice


def test_a_constructor_taking_a_label_first_blocks_nothing_and_a_missing_method_says_it_does_not_exist(graded):
    """Issue 40, 3: ``Value(data, label="", _prev=(), _op="")`` is reported in the contract test and blocks nothing;
    relu, log and sigmoid, which do not exist, say so (with how to add them), not "blocked by Value.__init__"."""
    tests = record(graded, "backward", "label_first")["tests"]
    contract = tests[0]
    assert contract["status"] == "failed" and "third argument and the label as its fourth" in contract["output"]
    assert float(contract["max_score"]) == 0
    for test in tests[1:]:
        assert "blocked by" not in test["output"], test["name"]
        if test["status"] == "failed":
            assert "does not exist: define it in class Value" in test["output"], test["name"]
            assert set(methods(test)) <= {"Value.relu", "Value.log", "Value.sigmoid"}, test["name"]
    advice = start_here(graded, "backward", "label_first")
    assert "point to `Value.__init__`" not in advice.split("\n")[2]
    assert all(t["status"] == "passed" for t in record(graded, "value_ops", "label_first")["tests"][1:])


def test_a_constructor_default_that_keeps_gradients_from_the_leaves_is_the_constructors_fault(graded):
    """A default ``requires_grad=False`` that a correct ``__mul__`` obeys: the contract test names the constructor's
    fourth argument, the failures of ``__mul__`` are blocked by it, and "Start here" names ``Value.__init__``."""
    tests = record(graded, "value_ops", "gradients_off")["tests"]
    contract = tests[0]
    assert "your constructor's fourth argument True gives the right ones" in contract["output"]
    failed = [t for t in tests[1:] if t["status"] == "failed"]
    assert failed and all(methods(t) == ["Value.__init__"] for t in failed)
    assert all("blocked by Value.__init__" in t["output"] for t in failed)
    assert "point to `Value.__init__`" in start_here(graded, "value_ops", "gradients_off").split("\n")[2]


# --- 2. the XOR test checks what its name says -----------------------------------------------------------------

@pytest.mark.parametrize("student,difference", [
    ("tanh_output", "layer 3 uses tanh; the handout's output layer is linear"),
    ("relu_neurons", "layer 1 uses relu; the handout's layer 1 is tanh"),
])
def test_a_network_of_another_architecture_that_learns_xor_passes_the_xor_test(graded, student, difference):
    tests = record(graded, "mlp", student)["tests"]
    xor = by_name(tests, "Your MLP(2, [4, 4, 1]) learns XOR with the handout's training loop")
    assert xor["status"] == "passed", xor["output"]
    trajectory = by_name(tests, "The handout's MLP(2, [4, 4, 1]) (tanh, tanh, linear) from pinned weights")
    assert trajectory["status"] == "failed"
    assert difference in trajectory["output"] and "zero_grad" not in trajectory["output"]


@pytest.mark.parametrize("student,said", [(stub("Module.zero_grad"), "is not written yet (it raises NotImplementedError)"),
                                          ("no_module", "does not exist")])
def test_training_without_zero_grad_measures_the_network_and_says_who_zeroed_the_gradients(graded, student, said):
    """Issue 40, 2: a network without ``Module.zero_grad`` (the stub, or no ``Module`` at all) loses the zero_grad
    tests only; the tests that train it zero the gradients themselves, pass, and say so in their feedback."""
    tests = record(graded, "mlp", student)["tests"]
    for start in ("The handout's MLP(2, [4, 4, 1]) (tanh, tanh, linear) from pinned weights",
                  "Your MLP(2, [4, 4, 1]) learns XOR", "Your network on your own engine learns XOR"):
        test = by_name(tests, start)
        assert test["status"] == "passed", test["output"]
        assert f"Note: your Module.zero_grad {said}, so this test set every p.grad = 0.0 itself" in test["output"]
    failed = [t for t in tests if t["status"] == "failed"]
    assert {t["name"] for t in failed} == {t["name"] for t in tests if t["name"].startswith("zero_grad()")}
    assert all(methods(t) == ["Module.zero_grad"] for t in failed)
    feedback = (graded / "mlp" / student / "feedback.md").read_text(encoding="utf-8")
    assert "- Note: your Module.zero\\_grad" in feedback, "the note is shown under the passed test"
    if student == "no_module":  # issue 40, 5: the grader's set-up does not fail for want of the student's method
        assert "setting up the grader's" not in feedback
        assert "Hint: Module.zero_grad does not exist: define it in class Module" in failed[0]["output"]


def test_a_layer_whose_neurons_attribute_is_no_list_is_measured_as_its_own_design_and_told_so(graded):
    """Issue 40, 5: ``self.neurons = nout`` with the neurons in ``self.layer``: the grader's neurons are not set
    where the layer would ignore them; its __call__ and parameters() are right and cost nothing, and the contract
    test says that the handout's attribute is not used."""
    tests = record(graded, "mlp", "neurons_counted")["tests"]
    contract = tests[0]
    assert contract["status"] == "failed" and float(contract["max_score"]) == 0
    assert "Layer(3, 2, nonlin=False).neurons is not a list" in contract["output"]
    assert all(t["status"] == "passed" for t in tests[1:]), [t["name"] for t in tests[1:] if t["status"] != "passed"]


def test_another_network_is_blamed_on_the_constructor_that_asked_for_it(graded):
    """A Layer that does not pass nonlin on makes a network with a tanh output: the training test names
    ``Layer.__init__`` (measured with the grader's neurons), not the neurons' forward pass."""
    tests = record(graded, "mlp", "layer_drops_nonlin")["tests"]
    trajectory = by_name(tests, "The handout's MLP(2, [4, 4, 1]) (tanh, tanh, linear) from pinned weights")
    assert trajectory["status"] == "failed" and methods(trajectory) == ["Layer.__init__"]
    assert "`Layer.__init__`" in start_here(graded, "mlp", "layer_drops_nonlin").split("\n")[2]


# --- 3. no test needs an attribute that is not its subject ------------------------------------------------------

@pytest.mark.parametrize("student", ["no_nonlin", "no_nonlin_keyword"])
def test_the_initial_weights_tests_do_not_need_nonlin_and_the_contract_names_it(graded, student):
    """Issue 40, 1: a Neuron without the nonlin attribute, or without the keyword (``Neuron(12, nonlin=False)``
    raises), loses its points in the tests about nonlin, never in the tests about its weights, which build
    ``Neuron(n)`` only."""
    tests = record(graded, "mlp", student)["tests"]
    for start in ("Neuron(12): twelve distinct Value weights", "Neuron weights start uniform"):
        assert by_name(tests, start)["status"] == "passed", (student, start)
    if student == "no_nonlin_keyword":
        return
    contract = by_name(tests, "Neuron(nin, nonlin) keeps w, b and nonlin")
    assert contract["status"] == "failed" and "has no nonlin" in contract["output"]
    assert methods(contract) == ["Neuron.__init__"]


# --- 4. every hint is true for its failure -----------------------------------------------------------------------

def test_tanh_that_overflows_gets_the_stability_hint_not_the_gradient_hint(graded):
    tests = record(graded, "backward", "tanh_from_exp")["tests"]
    failed = [t for t in tests if t["status"] == "failed"]
    assert failed and all(methods(t) == ["Value.tanh"] for t in failed)
    for test in failed:
        assert "OverflowError" in test["output"]
        assert "use math.tanh(x)" in test["output"] and "the gradient formula is not the problem" in test["output"]
        assert "use the output t, not the input x" not in test["output"]


def test_a_method_that_raises_for_want_of_an_import_gets_a_hint_about_the_import(graded):
    """Issue 40, 4: tanh raising ``NameError: name 'math' is not defined`` is told to import math, not the rule
    of tanh's gradient."""
    tests = record(graded, "backward", "no_import_math")["tests"]
    tanh = by_name(tests, "Value.tanh: forward value and local gradient, a reused input")
    assert tanh["status"] == "failed" and "NameError" in tanh["output"]
    assert "Hint: math is a module of the standard library: add import math at the top of the file" in tanh["output"]
    assert "use the output t" not in tanh["output"] and "1 - tanh(x)**2" not in tanh["output"]


# --- 5. a derived operation's failure goes to the base operation it was seen to call ------------------------------

def test_a_pow_bug_under_a_division_built_on_pow_is_reported_under_pow(graded):
    tests = record(graded, "value_ops", "pow_bug")["tests"]
    division = by_name(tests, "Value.__neg__, __sub__, __truediv__")
    assert division["status"] == "failed"
    assert methods(division) == ["Value.__pow__"]
    assert "this operation calls __pow__(2.0, -1.0), and that call alone is wrong" in division["output"]
    assert "fix Value.__pow__ first" in division["output"]
    assert "`Value.__pow__`" in start_here(graded, "value_ops", "pow_bug").split("\n")[2]


def test_a_division_that_does_not_call_pow_keeps_its_own_failure(graded):
    tests = record(graded, "value_ops", "pow_bug_own_division")["tests"]
    division = by_name(tests, "Value.__neg__, __sub__, __truediv__")
    assert methods(division) == ["Value.__truediv__"], "no call of __pow__ was seen: nothing to blame it for"
    assert "calls __pow__" not in division["output"]


# --- 6. no cascades ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("method", STUBS)
def test_a_stubbed_method_costs_at_most_one_point_outside_the_tests_about_it(graded, method):
    outside = 0.0
    for assignment in ("value_ops", "backward", "mlp"):
        for test in record(graded, assignment, stub(method))["tests"]:
            if method not in test["extra_data"]["about"]:
                outside += lost(test)
    assert outside <= 1.0
