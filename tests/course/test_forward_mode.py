"""Assignment forward_mode: the judge's numbers are right, the grader's functions need nothing but ``Dual(val, dot)``,
answers are bounded by their requests, and the hidden tests' generators stay fair over many seeds."""

from __future__ import annotations

import json
import math
import random
from types import SimpleNamespace

import pytest
from checkout import ROOT
from hidden_tests import load_hidden

from assignments.forward_mode import checks, domains
from assignments.forward_mode.probes import ANSWERS, PROBES
from grader.cli import main
from grader.course.catalogue import load_bugs, write_mutant
from grader.course.course import Course
from grader.judge.reference import complete_request, load_reference, run_probe
from grader.sandbox.probekit import Context
from grader.sandbox.schema import MalformedAnswer
from grader.testing import Failure, StudentFault

H = load_hidden("forward_mode")


@pytest.fixture(scope="module")
def mg():
    return load_reference(ROOT / "reference")


def ask(mg, probe, spec):
    args = complete_request(probe, [spec])
    return ANSWERS[probe](run_probe(mg, probe, args), *args)


EXACT = {  # d op / d operand, by hand
    "add": lambda a, b: [1.0, 1.0], "sub": lambda a, b: [1.0, -1.0], "mul": lambda a, b: [b, a],
    "truediv": lambda a, b: [1 / b, -a / b**2], "pow": lambda a, b: [b * a ** (b - 1)], "neg": lambda a: [-1.0],
    "sin": lambda a: [math.cos(a)], "cos": lambda a: [-math.sin(a)], "exp": lambda a: [math.exp(a)],
    "log": lambda a: [1 / a], "tanh": lambda a: [1 - math.tanh(a) ** 2],
}


@pytest.mark.parametrize("op", sorted(EXACT))
def test_complex_step_gives_the_exact_local_derivatives(op):
    rng = random.Random(op)
    for _ in range(20):
        args = [rng.uniform(0.2, 3.0)] + ([rng.choice([2, 3, -1, 0.5, 1.5])] if op == "pow" else
                                         [rng.uniform(0.5, 3.0)] if op in ("add", "sub", "mul", "truediv") else [])
        want = EXACT[op](*args)
        got = checks.partials(op, args)[: len(want)]
        assert all(math.isclose(g, w, rel_tol=1e-14, abs_tol=1e-15) for g, w in zip(got, want)), (op, args)


def test_the_graders_functions_run_on_a_dual_with_no_operations(mg):
    """derivative and gradient graded on a Dual that has only __init__: the grader's f uses no operation."""
    source = (ROOT / "reference" / "micrograd" / "forward.py").read_text(encoding="utf-8")
    namespace: dict = {"__name__": "bare_forward"}
    exec(compile(source, "bare_forward.py", "exec"), namespace)  # a fresh copy whose Dual can lose its methods
    for name in checks.METHODS:
        if name != "__init__" and name in vars(namespace["Dual"]):
            delattr(namespace["Dual"], name)
    bare = SimpleNamespace(forward=SimpleNamespace(**namespace))
    spec = H.gradient_specs()[3]
    got, want = ask(bare, "forward_mode_gradient", spec), ask(mg, "forward_mode_gradient", spec)
    assert got == want and got["calls"] == len(spec["leaves"])
    one = checks.function([0.7], [["sin", 0], ["mul", 1, 0], ["log", 0], ["add", 2, 3]])
    got = ask(bare, "forward_mode_derivative", one)
    assert math.isclose(got["result"], math.sin(0.7) + 0.7 * math.cos(0.7) + 1 / 0.7, rel_tol=1e-13)


def test_the_judges_gradient_is_the_reverse_mode_one_and_central_differences_agree():
    for spec in H.gradient_specs():
        backward, differences = H.reverse_mode(spec), checks.partial_differences(spec)
        assert all(math.isclose(b, d, rel_tol=1e-6, abs_tol=1e-6) for b, d in zip(backward, differences)), spec


@pytest.mark.parametrize("seed", range(8))
def test_the_hidden_generators_stay_in_every_domain_and_the_reference_agrees_with_math(mg, seed):
    rng = random.Random(seed)
    for focus in H.PRIMITIVES + H.DERIVED:
        spec = H.composition(rng, focus)
        assert 2 <= sum(1 for i in range(len(spec["leaves"]), len(spec["leaves"]) + len(spec["nodes"]))
                        if i not in spec["build"]) and len(spec["nodes"]) <= 12
        values = checks.evaluate(spec)
        assert all(math.isfinite(v) and abs(v) <= 30 for v in values)
        H.trusted(lambda probe, s: ask(mg, probe, s), spec)  # GraderFault if the reference and math disagree
        for single in H.single(focus, rng):
            assert all(math.isfinite(v) for v in checks.evaluate(single))
    for n in (1, 2, 4):
        spec = H.random_function(rng, n, n + 3)
        assert set(range(n)) <= H.ancestors(spec)


@pytest.mark.parametrize("probe, answer", [
    ("forward_mode_expr", {"val": [1.0, 2.0, 3.0], "dot": [0.0, 1.0]}),
    ("forward_mode_expr", {"val": [1.0, 2.0], "dot": [0.0, 1.0], "extra": 1}),
    ("forward_mode_gradient", {"result": [1.0, 2.0, 3.0, 4.0], "calls": 2, "vals": [[1.0, 2.0]] * 2,
                               "dots": [[1.0, 0.0], [0.0, 1.0]]}),
    ("forward_mode_gradient", {"result": [1.0, 2.0], "calls": True, "vals": [], "dots": []}),
    ("forward_mode_gradient", {"result": [1.0, 2.0], "calls": 10**12, "vals": [], "dots": []}),
    ("forward_mode_gradient", {"result": [1.0, 2.0], "calls": 9, "vals": [[1.0, 2.0]] * 9,
                               "dots": [[1.0, 0.0]] * 9}),
    ("forward_mode_gradient", {"result": {"other": "x" * 10**6}, "calls": 0, "vals": [], "dots": []}),
    ("forward_mode_derivative", {"result": "2.0", "calls": 1, "vals": [[1.0]], "dots": [[1.0]]}),
    ("forward_mode_derivative", {"result": 2.0, "calls": 1, "vals": [[{"nonnumeric": "Dual", "repr": ""}]],
                                 "dots": [[1.0]]}),
])
def test_answers_are_bounded_by_their_requests(probe, answer):
    spec = {"leaves": [[1.0, 0.0], [2.0, 1.0]] if probe.endswith("expr") else [1.0, 2.0], "nodes": []}
    if probe.endswith("derivative"):
        spec["leaves"] = [1.0]
    with pytest.raises(MalformedAnswer):
        ANSWERS[probe](answer, spec)


# --- the domain errors the docstrings promise (issue 40, 9) ----------------------------------------------------------

def in_process(mg):
    """A ``student`` fixture that runs ``forward_mode_expr`` on ``mg`` in this process: an exception is reported as
    the sandbox reports it, by its type's name."""
    def student(probe, spec):
        args = complete_request(probe, [spec])
        try:
            value = PROBES[probe](mg, Context(), *args)
        except Exception as exc:  # what the worker does with the student's exception
            raise StudentFault("raised", f"your code raised {type(exc).__name__}", {"type": type(exc).__name__,
                                                                                   "message": str(exc)}) from None
        return ANSWERS[probe](json.loads(json.dumps(value)), *args)
    return student


def mutant(bug_id):
    """The catalogued bug ``bug_id`` of forward_mode as a module namespace (``mg``) run in this process."""
    course = Course(ROOT)
    bug = next(b for b in load_bugs(course.assignment("forward_mode"), course.reference_dir) if b.id == bug_id)
    source = (ROOT / "reference" / "micrograd" / "forward.py").read_text(encoding="utf-8")
    assert bug.find in source
    namespace: dict = {"__name__": f"forward_{bug_id}"}
    exec(compile(source.replace(bug.find, bug.replace, 1), f"{bug_id}.py", "exec"), namespace)
    return SimpleNamespace(forward=SimpleNamespace(**namespace))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("op", ["truediv", "exp", "log"])
def test_the_reference_raises_what_its_docstrings_promise_outside_each_domain_and_passes(mg, op, seed):
    rng = random.Random(seed)
    for _ in range(5):
        inside, outside = H.domain_specs(op, rng)
        method = checks.method_of(inside, len(inside["leaves"]))
        assert method in domains.DOMAIN_ERRORS and all(checks.method_of(s, len(s["leaves"])) == method for s in outside)
        domains.domain_case(in_process(mg), lambda s: ask(mg, "forward_mode_expr", s), inside, outside)
        assert all(math.isfinite(v) for v in ask(mg, "forward_mode_expr", inside)["dot"])
    assert set(H.DOMAINS) == {op.removeprefix("Dual.").strip("_") for op in domains.DOMAIN_ERRORS}


@pytest.mark.parametrize("bug_id, error, got", [
    ("truediv_returns_inf", "ZeroDivisionError", "returned Dual(inf, inf)"),
    ("exp_clamps", "OverflowError", "returned Dual(8.2184"),
    ("log_abs", "ValueError", "returned Dual(0.69314"),
])
def test_an_operation_that_returns_a_number_outside_its_domain_fails_naming_the_exception(bug_id, error, got):
    spec = {"truediv_returns_inf": checks.expr([(3.0, 0.5), (0.0, 1.5)], [["truediv", 0, 1]]),
            "exp_clamps": checks.expr([(710.0, 0.5)], [["exp", 0]]),
            "log_abs": checks.expr([(-2.0, 0.5)], [["log", 0]])}[bug_id]
    with pytest.raises(Failure) as failed:
        domains.domain_error(in_process(mutant(bug_id)), spec)
    assert got in failed.value.message and f"expected {error}" in failed.value.message


def test_another_exception_outside_the_domain_fails_naming_both(mg):
    forward = SimpleNamespace(**vars(mg.forward))

    class Dual(mg.forward.Dual):
        def log(self):
            if self.val <= 0:
                raise ArithmeticError("no log here")
            return super().log()

    forward.Dual = Dual
    with pytest.raises(Failure) as failed:
        domains.domain_error(in_process(SimpleNamespace(forward=forward)), checks.expr([(-1.0, 0.5)], [["log", 0]]))
    assert "raised ArithmeticError: no log here" in failed.value.message
    assert "expected ValueError" in failed.value.message


# --- derived operations: the method at fault, followed down the chain (issue 40, 6) -----------------------------------

@pytest.fixture(scope="module")
def graded_add_bug(tmp_path_factory):
    """The results of the catalogued bug add_constant_seeded (``x + 3`` gets tangent x' + 1), graded."""
    tmp = tmp_path_factory.mktemp("forward-chain")
    course = Course(ROOT)
    bug = next(b for b in load_bugs(course.assignment("forward_mode"), course.reference_dir)
               if b.id == "add_constant_seeded")
    write_mutant(bug, course.reference_dir, tmp / "subs" / "student")
    assert main(["--course", str(ROOT), "grade", str(tmp / "subs"), "-o", str(tmp / "out"), "-a", "forward_mode"]) == 0
    return json.loads((tmp / "out" / "forward_mode" / "student" / "results.json").read_text(encoding="utf-8"))["tests"]


def test_a_derived_operation_names_the_method_at_the_end_of_its_chain_not_a_right_one_between(graded_add_bug, capsys):
    """``c - u`` is ``c + (-u)``, which is ``(-u) + c``: with ``__add__`` wrong, ``__rsub__``'s failures name
    ``Dual.__add__``, never ``Dual.__radd__``, which is right and only calls it."""
    capsys.readouterr()
    rsub = next(t for t in graded_add_bug if t["name"].startswith("rsub:"))
    assert rsub["status"] == "failed" and rsub["extra_data"]["methods"] == ["Dual.__add__"]
    assert "Fix Dual.__add__ first" in rsub["output"]
    assert "Fix Dual.__radd__ first" not in rsub["output"] and "Dual.__radd__ is wrong" not in rsub["output"]
    assert "which is built on Dual.__add__" in rsub["output"]
    public = next(t for t in graded_add_bug if t["name"].startswith("Dual.__sub__, __radd__, __rsub__"))
    assert public["extra_data"]["methods"] == ["Dual.__add__"], "3 - x and sum([...]) name __add__ too"
    assert "sum() is built on Dual.__radd__" in public["output"] and "Dual.__radd__ is wrong" not in public["output"]
    compositions = next(t for t in graded_add_bug if t["name"].startswith("Each operation inside random expressions"))
    assert compositions["extra_data"]["methods"] == ["Dual.__add__"], "x - 3, 3 + x, 3 - x inside expressions too"
    assert "Fix Dual.__add__ first" in compositions["output"]


# --- tanh far from 0: a stability fault, told as one -------------------------------------------------------------------

OVERFLOWING_TANH = {  # a real student's Dual.tanh that is right near 0 and overflows far from it
    "exp_of_2u": "        e = math.exp(2 * self.val)\n        t = (e - 1) / (e + 1)\n",
    "duals_own_exp": "        e = (self * 2).exp().val\n        t = (e - 1) / (e + 1)\n",
}


@pytest.fixture(scope="module")
def graded_overflowing_tanh(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("forward-tanh")
    for name, body in OVERFLOWING_TANH.items():
        package = tmp / "subs" / name / "micrograd"
        package.mkdir(parents=True)
        for file in ("engine.py", "forward.py", "__init__.py"):
            source = (ROOT / "reference" / "micrograd" / file).read_text(encoding="utf-8")
            if file == "forward.py":
                assert source.count("        t = math.tanh(self.val)\n") == 1
                source = source.replace("        t = math.tanh(self.val)\n", body)
            (package / file).write_text(source, encoding="utf-8")
    assert main(["--course", str(ROOT), "grade", str(tmp / "subs"), "-o", str(tmp / "out"), "-a", "forward_mode"]) == 0
    return {name: json.loads((tmp / "out" / "forward_mode" / name / "results.json").read_text(encoding="utf-8"))["tests"]
            for name in OVERFLOWING_TANH}


@pytest.mark.parametrize("student", sorted(OVERFLOWING_TANH))
def test_a_tanh_that_overflows_far_from_0_loses_points_in_tanhs_tests_only_with_the_stability_hint(
        graded_overflowing_tanh, student):
    """tanh(800) from math.exp(1600) raises OverflowError (also inside the student's own Dual.exp): the hidden
    test_operation[tanh] and the public test_functions catch it, under Dual.tanh, with the hint about stability,
    not the one about the tangent rule; no other test loses a point."""
    tests = graded_overflowing_tanh[student]
    failed = {t["name"].split(":")[0]: t for t in tests if t["score"] < t["max_score"]}
    assert set(failed) == {"tanh", "Dual.sin, cos, exp, log, tanh"}, sorted(failed)
    for test in failed.values():
        assert test["extra_data"]["methods"] == ["Dual.tanh"]
        assert "Dual.tanh: your code raised OverflowError" in test["output"]
        assert "the tangent rule is not the problem" in test["output"] and "use t = math.tanh(u)" in test["output"]
        assert checks.HINTS["Dual.tanh"] not in test["output"]
