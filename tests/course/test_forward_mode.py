"""Assignment forward_mode: the judge's numbers are right, the grader's functions need nothing but ``Dual(val, dot)``,
answers are bounded by their requests, and the hidden tests' generators stay fair over many seeds."""

from __future__ import annotations

import math
import random
from types import SimpleNamespace

import pytest
from checkout import ROOT
from hidden_tests import load_hidden

from assignments.forward_mode import checks
from assignments.forward_mode.probes import ANSWERS
from grader.judge.reference import complete_request, load_reference, run_probe
from grader.sandbox.schema import MalformedAnswer

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
