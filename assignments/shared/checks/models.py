"""Model specs for the ``nn_*`` probes, and what a correct model computes (judge side).

A *model spec* (see :mod:`assignments.shared.probes.nn_probes`) names ``Neuron``, ``Layer``
or ``MLP``, its constructor's arguments, the seed of ``random`` before it is
built, and optionally weights to set through ``parameters()`` in the
documented order: layer by layer, neuron by neuron, each neuron's weights
then its bias (micrograd's convention). :func:`forward_from_math` computes a
correct model's output with ``math`` alone, so public tests (which students
run without the reference) and the judge's confirmations need no reference.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from assignments.shared.checks import graphs
from assignments.shared.checks.architectures import layer_outputs
from assignments.shared.checks.graph_checks import compare_graph
from assignments.shared.probes.engine_probes import describe_node
from assignments.shared.probes.nn_probes import PARTS, ParametersAnswer, StructureAnswer, layers
from grader.judge.answers import ListOutput, Number, Output, ValueOutput
from grader.sandbox import own_parts
from grader.testing.comparisons import ABS_TOL, REL_TOL, close, is_number, show
from grader.testing.outcomes import Failure


def model_spec(kind: str, *args: Any, weights: Sequence[float] | None = None, seed: int = 0, engine: str = "grader",
               build: str = "student", **kwargs: Any) -> dict[str, Any]:
    """A model spec for the ``nn_*`` probes: ``model_spec("MLP", 2, [4, 4, 1], weights=[...])``.

    Args:
        kind: ``"Neuron"``, ``"Layer"`` or ``"MLP"``.
        *args: The constructor's positional arguments, e.g. ``2, [4, 4, 1]``.
        weights: One float per parameter in the documented order, or ``None``
            to keep the student's initial weights.
        seed: ``random.seed`` before the model is built.
        engine: ``"grader"`` (the grader's own ``Value``: an engine bug costs no
            network points) or ``"student"`` (the student's engine).
        build: ``"student"`` (the student's constructors, weights set through
            ``parameters()``) or ``"parts"`` (the student's outer object, the
            grader's parts pinned to ``weights``: only the method under test runs).
        **kwargs: The constructor's keyword arguments, e.g. ``nonlin=False``.
    """
    return {"kind": kind, "args": list(args), "kwargs": kwargs, "seed": seed, "engine": engine, "build": build,
            "weights": None if weights is None else [float(w) for w in weights]}


def parts(kind: str, *args: Any, weights: Sequence[float], **kwargs: Any) -> dict[str, Any]:
    """A spec whose parts are the grader's, pinned to ``weights`` (see :func:`model_spec`)."""
    return model_spec(kind, *args, weights=weights, build="parts", **kwargs)


def pinned_to(spec: dict[str, Any], weights: Sequence[float]) -> dict[str, Any]:
    """``spec`` with its weights set to ``weights`` (e.g. the weights a student's model reported)."""
    return {**spec, "weights": [float(w) for w in weights]}


def grader_parts_in_use() -> bool:
    """Whether the network's probes run on the grader's own ``Value`` and parts (hidden grading), rather than on
    the student's own engine and parts (a self-check from a release, which holds no grader parts)."""
    return own_parts.get("recording") is not None


ENGINE_FIRST: tuple[tuple[str, dict[str, Any]], ...] = (
    ("Value.__add__", graphs.binary("add", 0.5, -1.5)),
    ("Value.__radd__", graphs.binary("add", graphs.const(1.0), 0.5)),
    ("Value.__mul__", graphs.binary("mul", 0.5, -1.5)),
    ("Value.__rmul__", graphs.binary("mul", graphs.const(2.0), 0.5)),
    ("Value.tanh", graphs.unary("tanh", 0.5)),
    ("Value.__sub__", graphs.binary("sub", 0.5, -1.5)),
    ("Value.__pow__", graphs.binary("pow", 0.5, graphs.const(2))),
    ("Value.backward", graphs.spec([0.5, -1.5], [["mul", 0, 1], ["add", 2, 0], ["tanh", 3]], built=True)),
)
"""The engine operations a network and its training compute with, each on one small graph (``backward()`` on nodes
the grader makes): what is tried first when a network test fails on the student's own engine."""

FD_TOL = 1e-6
"""Tolerance against central differences (their error is about 1e-9 on these graphs)."""


def own_engine_first(student: Callable[..., Any], always: bool = False,
                     operations: Sequence[tuple[str, dict[str, Any]]] = ENGINE_FIRST, what: str = "the network"
                     ) -> Callable[[], tuple[str, str] | None] | None:
    """For :attr:`grader.testing.cases.Check.first`: where ``what`` ("the network", "your classifier") runs on the
    student's own ``Value`` (a self-check), the first engine operation of ``operations`` (default
    :data:`ENGINE_FIRST`) whose forward value or local gradients are wrong, so a test's failure names the engine
    method to fix first; None in hidden grading, where it runs on the grader's own ``Value`` and an engine bug cannot
    reach it, unless ``always`` (a test that trains the network on the student's engine on purpose)."""
    own = not grader_parts_in_use()
    if not (own or always):
        return None
    where = (f"the self-check runs {what} on your own Value (hidden grading uses the grader's)" if own else
             f"this test runs {what} on your own Value")

    def first() -> tuple[str, str] | None:
        for method, spec in operations:
            try:
                compare_graph(student("graph", spec), graphs.expected_from_math(spec), spec, rel=FD_TOL,
                              abs_tol=FD_TOL)
            except Failure as failure:
                return method, (f"{where}, and your engine gets {describe_node(spec, len(spec['leaves']) + len(spec['nodes']) - 1)} at "
                                f"{', '.join(map(repr, spec['leaves']))} wrong: {failure.message}")
        return None

    return first


def model_call(spec: dict[str, Any]) -> str:
    """How the student would write the model's construction, e.g. ``MLP(2, [4, 4, 1])``."""
    args = [repr(a) for a in spec["args"]] + [f"{k}={v!r}" for k, v in spec.get("kwargs", {}).items()]
    return f"{spec['kind']}({', '.join(args)})"


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
    values = layer_outputs([(nin, nout, "tanh" if nonlin else "linear") for nin, nout, nonlin in shape], weights, x)
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
    if spec.get("build") == "parts" and grader_parts_in_use():  # (a self-check's own parts: weights as below)
        how = how or {"Neuron": " with w and b set by the grader", "Layer": " with neurons made by the grader",
                      "MLP": " with layers made by the grader"}[spec["kind"]]
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


def describe_parameter(spec: dict[str, Any], index: int) -> str:
    """Where parameter ``index`` of the documented order sits, e.g. ``layer 1, neuron 0, weight 2``."""
    k = index
    for i, (nin, nout, _) in enumerate(layers(spec["kind"], *spec["args"], **spec.get("kwargs", {}))):
        if k < (nin + 1) * nout:
            neuron, j = divmod(k, nin + 1)
            what = "bias" if j == nin else f"weight {j}"
            where = {"Neuron": "", "Layer": f"neuron {neuron}, "}.get(spec["kind"], f"layer {i}, neuron {neuron}, ")
            return f"{where}{what}"
        k -= (nin + 1) * nout
    return f"parameter {index}"


def check_parameters(got: ParametersAnswer, spec: dict[str, Any], x: Sequence[float]) -> None:
    """Check ``nn_parameters`` on a model with the grader's parts: every part's parameter, live, in order.

    Args:
        got: The parsed answer of ``nn_parameters`` for ``spec`` (``"build": "parts"``) and ``x``.
        spec: The model spec; its weights are what the grader's parts hold.
        x: The input the probe ran the grader's own network on.

    Raises:
        Failure: On the wrong count, a parameter that is not one of the model's
            own objects or out of the documented order, or an output that the
            reported weights do not give.
    """
    call, expected = model_call(spec), parameter_count(spec["kind"], *spec["args"])
    if got["count"] != expected:
        raise Failure(f"{call}.parameters() returned {got['count']} values, expected {expected}")
    identity = got["identity"] or []  # None: another design than the handout's, checked through the output
    for k, i in enumerate(identity):
        if i == -1:
            raise Failure(f"{call}.parameters()[{k}] is a Value that is not in the model (a copy, or a new Value?), "
                          f"expected the model's own {describe_parameter(spec, k)}: an optimiser updating a copy "
                          "does not change the model")
        if i != k:
            raise Failure(f"{call}.parameters()[{k}] is the {describe_parameter(spec, i)}, expected the "
                          f"{describe_parameter(spec, k)} (layer by layer, neuron by neuron, weights then bias)")
    confirm_weights(got["output"], got["data"], spec, x)


def check_structure(got: StructureAnswer, spec: dict[str, Any], x: Sequence[float], nonlin: bool = True) -> None:
    """Check ``nn_structure``: the constructor built the right parts, with distinct ``Value`` parameters.

    With ``nonlin=False`` the parts' ``nonlin`` is not compared (a test about the weights alone), and a neuron's
    output is confirmed with the activation its ``nonlin`` says, so a wrong one costs nothing here.

    Raises:
        Failure: On a part of the wrong size or ``nonlin``, parameters that are
            not distinct ``Value`` objects, or an output that the reported
            weights do not give.
    """
    call, kind = model_call(spec), spec["kind"]
    shape = layers(kind, *spec["args"], **spec.get("kwargs", {}))
    if kind == "Layer":
        shape = [(nin, 1, nonlin) for nin, nout, nonlin in shape for _ in range(nout)]
    made = got["parts"] or []  # None: another design than the handout's; the count and forward pass say what was built
    if got["parts"] is not None and kind != "Neuron" and len(made) != len(shape):
        raise Failure(f"{call} made {len(made)} {PARTS[kind]} in self.{PARTS[kind]}, expected {len(shape)}")

    def made_as(nin: int, nout: int, nonlin: bool | None) -> str:
        return f"Layer({nin}, {nout}, nonlin={nonlin})" if kind == "MLP" else f"Neuron({nin}, nonlin={nonlin})"

    for k, (part, want) in enumerate(zip(made, shape)):
        if kind == "Neuron" and part[0] != want[0]:
            raise Failure(f"{call} made {part[0]} weights in self.w, expected {want[0]}")
        if (part if nonlin else part[:2]) != (want if nonlin else want[:2]):
            what = {"Neuron": "it", "Layer": f"neuron {k}", "MLP": f"layer {k}"}[kind]
            raise Failure(f"{call}: {what} was made as {made_as(*part)}, expected {made_as(*want)}")
    count = parameter_count(kind, *spec["args"])
    if not got["all_values"]:
        raise Failure(f"the weights and biases {call} made are not all Value objects")
    if got["distinct"] != count:
        raise Failure(f"{call} made {count} weights and biases but only {got['distinct']} distinct Value objects: "
                      "each weight needs its own Value(random.uniform(-1, 1))")
    shown = spec  # the activation the reported output was made with: a test about the weights alone takes the one
    if not nonlin and kind == "Neuron" and made:  # the neuron has, right or wrong (not a bool: linear, as it ran)
        shown = {**spec, "kwargs": {**spec.get("kwargs", {}), "nonlin": made[0][2] is True}}
    confirm_weights(got["output"], got["data"], {**shown, "weights": None}, x)
