"""The reference solution's own promises (students may read it after the deadline)."""

from __future__ import annotations

import math

import pytest
from checkout import ROOT

from grader.judge.reference import load_reference


@pytest.fixture(scope="module")
def mg():
    return load_reference(ROOT / "reference")


def test_chain_of_100000_operations_backpropagates(mg):
    x = mg.engine.Value(1.0)
    y = x
    for _ in range(100_000):
        y = y * 1.0 + 0.0
    y.backward()
    assert x.grad == 1.0


@pytest.mark.parametrize("x", [1000.0, -1000.0, 710.0, -710.0])
def test_tanh_and_sigmoid_do_not_overflow(mg, x):
    for op, expected in (("tanh", math.copysign(1.0, x)), ("sigmoid", 1.0 if x > 0 else 0.0)):
        v = mg.engine.Value(x)
        out = getattr(v, op)()
        out.backward()
        assert out.data == pytest.approx(expected, abs=1e-300)
        assert math.isfinite(v.grad) and abs(v.grad) < 1e-300


def test_exp_is_finite_wherever_the_result_is(mg):
    assert mg.engine.Value(-1000.0).exp().data == 0.0
    assert math.isfinite(mg.engine.Value(709.0).exp().data)


def test_gradients_accumulate_across_graphs_sharing_a_leaf(mg):
    V = mg.engine.Value
    a, b, c = V(2.0), V(3.0), V(-4.0)
    (a * b).backward()
    (a * c).backward()
    assert a.grad == b.data + c.data


def test_mlp_parameter_order_is_weights_then_bias(mg):
    model = mg.nn.MLP(2, [4, 4, 1])
    params = model.parameters()
    assert len(params) == 37
    first = model.layers[0].neurons[0]
    assert params[:3] == [*first.w, first.b]
    assert all(p is q for p, q in zip(params, model.parameters()))
