"""Assignment classifier: probes leave the student's modules as they found them, answers are bounded by their
requests, and the training target's verdict is the judge's own (a forged accuracy or forged logits fail)."""

from __future__ import annotations

import json
import random
import shutil

import pytest
from checkout import ROOT
from hidden_tests import load_hidden

from assignments.classifier.checks import count_of, model_spec, parts
from assignments.classifier.probes import ANSWERS, MAX_EVENTS
from grader.cli import main
from grader.judge.reference import load_reference, run_probe
from grader.sandbox import own_parts
from grader.sandbox.schema import MalformedAnswer
from grader.testing import Failure

H = load_hidden("classifier")


@pytest.fixture(scope="module")
def mg():
    return load_reference(ROOT / "reference")


def ask(mg, probe, *args):
    return ANSWERS[probe](run_probe(mg, probe, list(args)), *args)


def test_the_hidden_spiral_is_make_spiral_without_its_centre(mg):
    xs, ys = mg.classifier.make_spiral(6, 3, seed=0)
    keep = [i for i in range(18) if i % 6]
    assert H.spiral(6, 0) == ([xs[i] for i in keep], [ys[i] for i in keep])


def test_probes_put_back_every_name_they_swap(mg):
    module, engine = mg.classifier, mg.engine
    before = dict(vars(module)), engine.Value
    spec = parts("MLP", 2, [3], ["linear"], weights=[0.1 * k for k in range(9)])
    got = ask(mg, "classifier_train", spec, [[0.1, 0.2], [0.3, -0.4]], [0, 2], 2, 0.5)
    assert got["calls"] == 4 and got["events"] == ["zero_grad", "backward", "sgd_step(0.5)"] * 2
    ask(mg, "classifier_structure", model_spec("MLP", 2, [4, 3]))
    assert dict(vars(module)) == before[0] and engine.Value is before[1]
    assert module.Value is engine.Value
    assert own_parts.get("stand_ins").Value.backward.__qualname__ == "Value.backward"  # the recorder is gone


def test_the_stand_in_loss_is_not_a_cross_entropy(mg):
    spec = parts("MLP", 2, [3], ["linear"], weights=[0.0] * 9)
    got = ask(mg, "classifier_train", spec, [[0.0, 0.0]], [0], 1, 0.1)
    assert got["losses"]["list"] == [0.5]  # 0.5 * (0 - 1)**2 for logits [0, 0, 0]; their cross-entropy is log 3


@pytest.mark.parametrize("probe, args, answer", [
    ("classifier_softmax", ([1.0, 2.0], None), {"probs": {"list": [0.5, 0.5, 0.0], "count": 3}, "grads": None}),
    ("classifier_softmax", ([1.0, 2.0], [1.0, 0.0]), {"probs": {"list": [0.5, 0.5], "count": 2}, "grads": [0.1]}),
    ("classifier_cross_entropy", ([1.0, 2.0], 0), {"loss": {"list": [1.0, 2.0], "count": 2}, "grads": None}),
    ("classifier_structure", (model_spec("Layer", 2, 3, "relu"),),
     {"parts": [], "activations": ["relu"], "all_values": True, "distinct": 0, "data": []}),
    ("classifier_structure", (model_spec("Neuron", 2, "relu"),),
     {"parts": [[2, "relu"]], "activations": None, "all_values": True, "distinct": 3, "data": [0.1] * 9}),
    ("classifier_train", (parts("MLP", 2, [3], ["linear"], weights=[0.0] * 9), [[0.0, 0.0]], [0], 1, 0.1),
     {"losses": {"list": [1.0], "count": 1}, "final": [0.0] * 9, "calls": 1, "events": ["zero_grad"] * (MAX_EVENTS + 1)}),
    ("classifier_learn", (model_spec("MLP", 2, [3], ["linear"]), [[0.0, 0.0]], [0], 1, 0.1),
     {"losses": {"list": [1.0], "count": 1}, "final": [0.0] * 9, "logits": [{"list": [0.0] * 4, "count": 4}],
      "count": 9}),
])
def test_answers_are_bounded_by_their_requests(probe, args, answer):
    with pytest.raises(MalformedAnswer):
        ANSWERS[probe](answer, *args)


def learn_request():
    xs, ys = H.spiral(H.LEARN["points"], H.LEARN["data_seed"])
    spec = model_spec("MLP", 2, H.LEARN["sizes"])
    rng = random.Random(H.LEARN["weight_seed"])
    spec["weights"] = [rng.uniform(-1, 1) for _ in range(count_of(spec))]
    return spec, xs, ys


def test_the_training_target_accepts_the_reference_and_refuses_forgeries(mg):
    spec, xs, ys = learn_request()
    args = (spec, xs, ys, H.LEARN["steps"], H.LEARN["lr"])
    got = ask(mg, "classifier_learn", *args)
    H.learn_verdict(got, spec, xs, ys, H.LEARN["steps"])  # the reference passes
    right = round(H.float_accuracy([o["list"] for o in got["logits"]], ys) * len(ys))
    assert right == H.LEARN_CORRECT
    perfect = {**got, "logits": [{"list": [10.0 * (k == y) for k in range(3)], "count": 3} for y in ys]}
    with pytest.raises(Failure, match="not what its final weights give"):
        H.learn_verdict(perfect, spec, xs, ys, H.LEARN["steps"])  # logits that the weights do not give
    untrained = ask(mg, "classifier_learn", *args[:3], 0, H.LEARN["lr"])
    with pytest.raises(Failure, match="classifies"):
        H.learn_verdict(untrained, spec, xs, ys, 0)  # the initial weights' own logits: consistent, not learned


def value_gradient(shape, weights, xs, ys):
    """The mean cross-entropy's gradient on the grader's own ``Value`` (as the training check computed it before it
    went to plain floats): the oracle of :func:`test_the_training_checks_gradient_is_the_values_own`."""
    value_cls = own_parts.get("stand_ins").Value
    params = [value_cls(float(w)) for w in weights]
    total = None
    for x, y in zip(xs, ys):
        values = [float(v) for v in x]
        k = 0
        for nin, nout, act in shape:
            outs = []
            for _ in range(nout):
                act_in = sum((w * v for w, v in zip(params[k:k + nin], values)), params[k + nin])
                outs.append(act_in if act == "linear" else getattr(act_in, act)())
                k += nin + 1
            values = outs
        m = max(v.data for v in values)
        loss = sum((v - m).exp() for v in values).log() + m - values[y]
        total = loss if total is None else total + loss
    mean = total * (1.0 / len(xs))
    mean.backward()
    return [float(p.grad) for p in params]


def test_the_training_checks_gradient_is_the_values_own():
    """The training check's gradient by hand on floats equals the grader's ``Value`` on the same network, for every
    pair of activations, random weights (relu at exactly 0 too) and points."""
    rng = random.Random("gradient")
    activations = ["linear", "tanh", "relu", "sigmoid"]
    for hidden in activations:
        for last in activations:
            for _ in range(3):
                sizes = [2, rng.randint(1, 6), 3]
                shape = [(sizes[0], sizes[1], hidden), (sizes[1], sizes[2], last)]
                weights = [rng.uniform(-3, 3) for _ in range(sum((a + 1) * b for a, b, _ in shape))]
                weights[2] = 0.0  # a pre-activation of exactly 0 at x = (0, 0): relu's kink
                xs = [[0.0, 0.0]] + [[rng.uniform(-1, 1), rng.uniform(-1, 1)] for _ in range(6)]
                ys = [rng.randrange(3) for _ in xs]
                want = value_gradient(shape, weights, xs, ys)
                got = H.mean_cross_entropy_gradient(shape, weights, xs, ys)
                assert got == pytest.approx(want, rel=1e-12, abs=1e-14), (hidden, last)


REFUSES_LINEAR = (
    ('        if activation not in ACTIVATIONS:\n            raise ValueError(f"unknown activation {activation!r}: '
     'expected one of {ACTIVATIONS}")\n',
     '        if activation not in ("tanh", "relu", "sigmoid"):\n'
     '            raise ValueError(f"unknown activation {activation!r}")\n        self.nin = nin\n'),
    ("        act = sum((wi * xi for wi, xi in zip(self.w, x)), self.b)\n",
     "        act = sum((self.w[i] * x[i] for i in range(self.nin)), self.b)\n"),
)
"""A real student's Neuron: its __init__ refuses "linear" and sets ``self.nin``, which its __call__ reads."""


def test_a_neuron_init_that_refuses_linear_costs_only_its_own_tests_not_the_calls_on_the_graders_parts(tmp_path):
    """Neuron.__call__'s tests run on the grader's parts: the student's __init__ refused "linear", so the grader
    builds the neuron with an activation it accepts (then sets w, b and activation), and the __call__ that reads
    self.nin passes; the refusal is charged in Neuron.__init__'s own tests, with a hint about "linear"."""
    package = tmp_path / "subs" / "refuses_linear" / "micrograd"
    shutil.copytree(ROOT / "reference" / "micrograd", package, ignore=shutil.ignore_patterns("__pycache__"))
    source = (package / "classifier.py").read_text(encoding="utf-8")
    for old, new in REFUSES_LINEAR:
        assert source.count(old) == 1
        source = source.replace(old, new)
    (package / "classifier.py").write_text(source, encoding="utf-8")
    out = tmp_path / "out"
    assert main(["--course", str(ROOT), "grade", str(tmp_path / "subs"), "-o", str(out), "-a", "classifier"]) == 0
    tests = json.loads((out / "classifier" / "refuses_linear" / "results.json").read_text(encoding="utf-8"))["tests"]
    calls = [t for t in tests if t["name"].startswith(("Neuron.__call__ for each activation", "Neuron(3, activation)"))]
    assert len(calls) == 2 and all(t["score"] == t["max_score"] for t in calls), [t["output"] for t in calls]
    init = next(t for t in tests if t["name"].startswith("Neuron(nin, activation) keeps nin weights"))
    assert init["score"] < init["max_score"] and init["extra_data"]["methods"] == ["Neuron.__init__"]
    assert "Neuron(3, 'linear') freshly built" in init["output"] and "unknown activation 'linear'" in init["output"]
    assert "accept every activation the handout names" in init["output"]
    public = next(t for t in tests if t["name"].startswith("MLP(2, [8, 3]) makes a tanh layer"))
    assert public["score"] < public["max_score"] and "Neuron(3, 'linear') freshly built" in public["output"]
