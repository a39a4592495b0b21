"""Model specs for the ``nn_*`` probes, and what a correct model computes (judge side).

A *model spec* (see :mod:`grader.sandbox.nn_probes`) names ``Neuron``, ``Layer``
or ``MLP``, its constructor's arguments, the seed of ``random`` before it is
built, and optionally weights to set through ``parameters()`` in the
documented order: layer by layer, neuron by neuron, each neuron's weights
then its bias (micrograd's convention). :func:`forward_from_math` computes a
correct model's output with ``math`` alone, so public tests (which students
run without the reference) and the judge's confirmations need no reference.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from grader.judge.answers import ListOutput, Number, Output, ValueOutput
from grader.testing.comparisons import ABS_TOL, REL_TOL, close, is_number, show
from grader.testing.outcomes import Failure


def model_spec(kind: str, *args: Any, weights: Sequence[float] | None = None, seed: int = 0, **kwargs: Any) -> dict[str, Any]:
    """A model spec for the ``nn_*`` probes: ``model_spec("MLP", 2, [4, 4, 1], weights=[...])``."""
    return {"kind": kind, "args": list(args), "kwargs": kwargs, "seed": seed,
            "weights": None if weights is None else [float(w) for w in weights]}


def pinned_to(spec: dict[str, Any], weights: Sequence[float]) -> dict[str, Any]:
    """``spec`` with its weights set to ``weights`` (e.g. the weights a student's model reported)."""
    return {**spec, "weights": [float(w) for w in weights]}


def model_call(spec: dict[str, Any]) -> str:
    """How the student would write the model's construction, e.g. ``MLP(2, [4, 4, 1])``."""
    args = [repr(a) for a in spec["args"]] + [f"{k}={v!r}" for k, v in spec.get("kwargs", {}).items()]
    return f"{spec['kind']}({', '.join(args)})"


def layers(kind: str, *args: Any, nonlin: bool = True) -> list[tuple[int, int, bool]]:
    """``(nin, nout, nonlin)`` of each layer: a Neuron is a layer of one; an MLP's last layer is linear."""
    if kind == "Neuron":
        return [(args[0], 1, nonlin)]
    if kind == "Layer":
        return [(args[0], args[1], nonlin)]
    sizes = [args[0], *args[1]]
    return [(sizes[i], sizes[i + 1], i != len(args[1]) - 1) for i in range(len(args[1]))]


def parameter_count(kind: str, *args: Any) -> int:
    """Number of parameters of ``Neuron(nin)``, ``Layer(nin, nout)`` or ``MLP(nin, nouts)``."""
    return sum((nin + 1) * nout for nin, nout, _ in layers(kind, *args))


def forward_from_math(spec: dict[str, Any], weights: Sequence[float], x: Sequence[float]) -> Output:
    """The output of a correct model of ``spec`` with ``weights`` on input ``x``, in ``nn_forward``'s form.

    A Neuron computes ``tanh(w . x + b)`` (``w . x + b`` with ``nonlin=False``);
    a Layer returns one Value for one neuron, else a list; an MLP feeds each
    layer's outputs to the next and returns its last layer's output.

    Raises:
        ValueError: If ``weights`` does not hold one float per parameter.
    """
    shape = layers(spec["kind"], *spec["args"], **spec.get("kwargs", {}))
    if len(weights) != sum((nin + 1) * nout for nin, nout, _ in shape) or not all(type(w) is float for w in weights):
        raise ValueError("one float per parameter is needed")
    values, k = [float(v) for v in x], 0
    for nin, nout, nonlin in shape:
        outs = []
        for _ in range(nout):
            act = sum((w * v for w, v in zip(weights[k:k + nin], values)), 0.0) + weights[k + nin]
            outs.append(math.tanh(act) if nonlin else act)
            k += nin + 1
        values = outs
    if spec["kind"] == "Neuron" or len(values) == 1:
        return ValueOutput(value=values[0])
    return ListOutput(list=list[Number](values))


def compare_outputs(got: Any, expected: Any, spec: dict[str, Any], inputs: Sequence[Sequence[float]],
                    rel: float = REL_TOL, abs_tol: float = ABS_TOL) -> None:
    """Compare ``nn_forward`` answers: the same shape (single Value or list) and values.

    Args:
        got: The student's parsed answer (:class:`grader.judge.answers.ForwardAnswer`).
        expected: The reference's answer, or ``{"outputs": [output, ...]}`` written by hand.
        spec: The model spec both were computed from.
        inputs: The input vectors, one output each.

    Raises:
        Failure: On the first input whose output differs.
    """
    for x, out, exp in zip(inputs, got["outputs"], expected["outputs"], strict=True):
        compare_output(out, exp, spec, x, rel, abs_tol)


def compare_output(out: Output, exp: Output, spec: dict[str, Any], x: Sequence[float],
                   rel: float = REL_TOL, abs_tol: float = ABS_TOL, how: str = "") -> None:
    """Compare one model output with the expected one (see :func:`compare_outputs`)."""
    call = model_call(spec) + (how or (" with weights set through parameters()" if spec.get("weights") is not None else ""))
    kind = next(iter(exp))
    if kind not in out:
        shape = "a single Value" if kind == "value" else f"a list of {len(exp['list'])} Values"  # type: ignore[typeddict-item]
        have = ("a list" if "list" in out else "a single Value" if "value" in out
                else f"{out.get('other')} {out.get('repr', '')}".strip())
        raise Failure(f"{call} called on x = {list(x)} returned {have}, expected {shape}")
    values: list[Number] = out["list"] if kind == "list" else [out["value"]]  # type: ignore[typeddict-item]
    wanted: list[Number] = exp["list"] if kind == "list" else [exp["value"]]  # type: ignore[typeddict-item]
    if len(values) != len(wanted):
        raise Failure(f"{call} called on x = {list(x)} returned {len(values)} outputs, expected {len(wanted)}")
    for v, w in zip(values, wanted):
        if not close(v, float(w), rel, abs_tol):  # type: ignore[arg-type]
            raise Failure(f"{call} called on x = {list(x)} gave {show(v)}, expected {show(w)}")


def confirm_weights(output: Output | None, data: list[Number], spec: dict[str, Any], x: Sequence[float],
                    method: str = "") -> None:
    """Confirm that ``data`` are the model's live weights: its output on ``x`` is what they give.

    A count, zeros after ``zero_grad()`` or a spread of initial weights can be
    made up from the request alone; an output that agrees with the reported
    weights takes a working model. Tests of such answers call this so that
    only a working implementation earns their points.

    Args:
        output: The output the student's model gave on ``x`` (from the probe's answer).
        data: The parameters' data the same answer reported, in ``parameters()`` order.
        spec: The model spec (without weights: they come from ``data``).
        x: The input vector.
        method: The forward method named in the feedback, e.g. ``"Neuron.__call__"``.

    Raises:
        Failure: If the weights are not numbers or the output differs.
    """
    if output is None or not all(is_number(w) for w in data):
        raise Failure(f"{model_call(spec)}.parameters() data were not all numbers", method or None)
    try:
        expected = forward_from_math(spec, data, x)  # type: ignore[arg-type]
    except ValueError:
        raise Failure(f"{model_call(spec)}.parameters() returned {len(data)} values, expected "
                      f"{parameter_count(spec['kind'], *spec['args'])}") from None
    try:
        compare_output(output, expected, spec, x, how=" (its weights as parameters() reported them)")
    except Failure as failure:
        raise Failure(f"{failure.message}; this test confirms its answer through the forward pass, so fix that first",
                      method or None,
                      "the forward pass must use the same Value objects that parameters() returns") from None
