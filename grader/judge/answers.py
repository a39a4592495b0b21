"""Probe answers, parsed into typed records before the judge compares anything.

A probe's answer comes from a sandbox worker, where student code shares the
process with the probe: it can replace a probe, or write to the protocol
channel itself, and send any value the JSON decoder accepts. So an answer is
data, not a result: :func:`parse` checks it against its probe's schema, with
every length, count and string bounded by the request the judge itself sent,
and returns a record whose every field has exactly the declared type. A
comparison then never meets a shape it did not expect (no exception inside a
check, no list shorter than the reference's, no integer too large for a
float). An answer that does not fit is :class:`MalformedAnswer`: the judge
fails the case as the student's, with a short message.

The reference's answers are parsed by the same function, so both sides of a
comparison have one form.

Number fields are ``float`` (NaN and infinities included: a wrong engine may
produce them) or a :class:`NonNumeric` marker (``{"nonnumeric": type name,
"repr": text}``) for a student object that should have been a number.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypedDict

from grader.sandbox.call_probes import MAX_CALLS, METHODS
from grader.sandbox.plain import NONNUMERIC

MAX_ITEMS = 100_000
"""Longest list in an answer whose length the request does not fix (a model's parameters)."""
MAX_TEXT = 120
"""Longest text kept from an answer (a type name or a repr), in characters."""


class MalformedAnswer(Exception):
    """An answer that does not fit its probe's schema; ``str()`` names the field (student-facing)."""


class NonNumeric(TypedDict):
    """A value that should have been a number (e.g. a ``Value`` where ``grad`` should be a float)."""

    nonnumeric: str
    repr: str


Number = float | NonNumeric


class ValueOutput(TypedDict):
    value: Number


class ListOutput(TypedDict):
    list: list[Number]


class OtherOutput(TypedDict):
    other: str
    repr: str


Output = ValueOutput | ListOutput | OtherOutput
"""A model's output: one Value, a list of Values, or something else (type name and repr)."""


class GraphAnswer(TypedDict):
    """``graph``: forward value and gradient of every node, leaves first."""

    data: list[Number]
    grad: list[Number]


class ParametersAnswer(TypedDict):
    """``nn_parameters``: ``parameters()`` of a freshly built model, and its output on ``x`` if one was sent."""

    count: int
    distinct: int
    all_values: bool
    stable: bool
    data: list[Number]
    identity: list[int] | None
    output: Output | None


class ForwardAnswer(TypedDict):
    """``nn_forward``: the model's output on each input."""

    outputs: list[Output]


class BackwardAnswer(TypedDict):
    """``nn_backward``: each parameter's gradient after ``backward()`` from the (summed) output."""

    grads: list[Number]


class ZeroGradAnswer(TypedDict):
    """``nn_zero_grad``: parameters' data, their gradients after ``zero_grad()``, then the output on ``x``."""

    data: list[Number]
    after_zero_grad: list[Number]
    output: Output


class StructureAnswer(TypedDict):
    """``nn_structure``: ``(nin, nout, nonlin)`` of each part the constructor built (``None`` for a model without
    the handout's parts attribute, measured through ``parameters()`` instead), and the parameters it made."""

    parts: list[tuple[int, int, bool | None]] | None
    distinct: int
    all_values: bool
    data: list[Number]
    output: Output


class TrainAnswer(TypedDict):
    """``nn_train``: initial weights, the loss before each step and after the last, steps taken, final state."""

    initial: list[Number]
    losses: list[Number]
    steps: int
    preds: list[Number]
    final: list[Number]


class NodeContract(TypedDict):
    """``value_contract``: one ``Value`` as the student's constructor made it (see
    :func:`grader.sandbox.contract_probes.value_contract`)."""

    data: Number | None
    grad: Number | None
    prev: int | None
    operands: int | None
    op: str | None
    backward: bool


class ValueContractAnswer(TypedDict):
    leaf: NodeContract
    node: NodeContract
    equal: bool | None


class NetworkContractAnswer(TypedDict):
    """``nn_contract`` (see :func:`grader.sandbox.contract_probes.network_contract`)."""

    neuron: dict[str, Any]
    linear: dict[str, Any]
    layer: dict[str, Any]
    mlp: dict[str, Any]


class CallsAnswer(TypedDict):
    """``derived_calls``: each call as ``[method, self, other]`` (``other`` absent for a unary method), each operand
    ``{"value": data}``, ``{"const": x}`` or None (see :func:`grader.sandbox.call_probes.derived_calls`)."""

    calls: list[list[Any]]


Answer = (GraphAnswer | CallsAnswer | ValueContractAnswer | NetworkContractAnswer | ParametersAnswer | ForwardAnswer | BackwardAnswer | ZeroGradAnswer | StructureAnswer
          | TrainAnswer)


# --- field readers: each checks one value's type and bounds, or raises MalformedAnswer naming the field --------

def _record(value: Any, where: str, keys: tuple[str, ...]) -> dict[str, Any]:
    if type(value) is not dict or set(value) != set(keys):
        raise MalformedAnswer(f"{where}: expected an object with the fields {', '.join(keys)}")
    return value


def _text(value: Any, where: str) -> str:
    if type(value) is not str:
        raise MalformedAnswer(f"{where}: expected a text")
    return value[:MAX_TEXT]


def _number(value: Any, where: str) -> Number:
    if type(value) is float:
        return value
    if type(value) is dict and set(value) == {NONNUMERIC, "repr"}:
        return NonNumeric(nonnumeric=_text(value[NONNUMERIC], where), repr=_text(value["repr"], where))
    raise MalformedAnswer(f"{where}: expected a float")


def _numbers(value: Any, where: str, length: int | None = None) -> list[Number]:
    if type(value) is not list or len(value) > MAX_ITEMS:
        raise MalformedAnswer(f"{where}: expected a list of at most {MAX_ITEMS} numbers")
    if length is not None and len(value) != length:
        raise MalformedAnswer(f"{where}: expected {length} numbers, got {len(value)}")
    return [_number(v, f"{where}[{i}]") for i, v in enumerate(value)]


def _count(value: Any, where: str, most: int, least: int = 0) -> int:
    if type(value) is not int or not least <= value <= most:
        raise MalformedAnswer(f"{where}: expected a whole number from {least} to {most}")
    return value


def _flag(value: Any, where: str) -> bool:
    if type(value) is not bool:
        raise MalformedAnswer(f"{where}: expected true or false")
    return value


def _output(value: Any, where: str) -> Output:
    if type(value) is dict and set(value) == {"value"}:
        return ValueOutput(value=_number(value["value"], f"{where}.value"))
    if type(value) is dict and set(value) == {"list"}:
        return ListOutput(list=_numbers(value["list"], f"{where}.list"))
    if type(value) is dict and set(value) == {"other", "repr"}:
        return OtherOutput(other=_text(value["other"], where), repr=_text(value["repr"], where))
    raise MalformedAnswer(f"{where}: expected a model output")


# --- one parser per probe, bounded by the request's own arguments ---------------------------------------------

def _graph(value: Any, spec: dict[str, Any]) -> GraphAnswer:
    n = len(spec["leaves"]) + len(spec["nodes"])
    got = _record(value, "graph", ("data", "grad"))
    return GraphAnswer(data=_numbers(got["data"], "data", n), grad=_numbers(got["grad"], "grad", n))


def _node_contract(value: Any, where: str) -> NodeContract:
    got = _record(value, where, ("data", "grad", "prev", "operands", "op", "backward"))
    prev = None if got["prev"] is None else _count(got["prev"], f"{where}.prev", 1000)
    return NodeContract(data=None if got["data"] is None else _number(got["data"], f"{where}.data"),
                        grad=None if got["grad"] is None else _number(got["grad"], f"{where}.grad"),
                        prev=prev,
                        operands=None if got["operands"] is None else _count(got["operands"], f"{where}.operands", 2),
                        op=None if got["op"] is None else _text(got["op"], f"{where}.op"),
                        backward=_flag(got["backward"], f"{where}.backward"))


def _call_operand(value: Any, where: str) -> dict[str, float] | None:
    if value is None:
        return None
    if type(value) is dict and len(value) == 1 and set(value) <= {"value", "const"}:
        key = next(iter(value))
        got = value[key]
        if type(got) is not float:
            raise MalformedAnswer(f"{where}: expected a float operand")
        return {key: got}
    raise MalformedAnswer(f"{where}: expected {{\"value\": x}}, {{\"const\": x}} or null")


def _calls(value: Any, spec: dict[str, Any], index: int) -> CallsAnswer:
    got = _record(value, "derived_calls", ("calls",))
    calls = got["calls"]
    if type(calls) is not list or len(calls) > MAX_CALLS:
        raise MalformedAnswer(f"calls: expected a list of at most {MAX_CALLS} calls")
    parsed: list[list[Any]] = []
    for k, call in enumerate(calls):
        if type(call) is not list or len(call) not in (2, 3) or call[0] not in METHODS:
            raise MalformedAnswer(f"calls[{k}]: expected [method, self_data, other]")
        parsed.append([call[0], *(_call_operand(a, f"calls[{k}]") for a in call[1:])])
    return CallsAnswer(calls=parsed)


def _value_contract(value: Any) -> ValueContractAnswer:
    got = _record(value, "value_contract", ("leaf", "node", "equal"))
    return ValueContractAnswer(leaf=_node_contract(got["leaf"], "leaf"), node=_node_contract(got["node"], "node"),
                               equal=None if got["equal"] is None else _flag(got["equal"], "equal"))


def _nonlin(value: Any, where: str) -> bool | str:
    if type(value) is bool:
        return value
    if value in ("missing", "other"):
        return str(value)
    raise MalformedAnswer(f"{where}: expected true, false, \"missing\" or \"other\"")


def _size_or_none(value: Any, where: str) -> int | None:
    return None if value is None else _count(value, where, 1000, -1)


def _network_contract(value: Any) -> NetworkContractAnswer:
    got = _record(value, "nn_contract", ("neuron", "linear", "layer", "mlp"))
    neuron = _record(got["neuron"], "neuron", ("w", "b", "nonlin"))
    linear = _record(got["linear"], "linear", ("nonlin",))
    layer = _record(got["layer"], "layer", ("neurons",))
    mlp = _record(got["mlp"], "mlp", ("layers",))
    return NetworkContractAnswer(
        neuron={"w": _size_or_none(neuron["w"], "neuron.w"), "b": _flag(neuron["b"], "neuron.b"),
                "nonlin": _nonlin(neuron["nonlin"], "neuron.nonlin")},
        linear={"nonlin": _nonlin(linear["nonlin"], "linear.nonlin")},
        layer={"neurons": _size_or_none(layer["neurons"], "layer.neurons")},
        mlp={"layers": _size_or_none(mlp["layers"], "mlp.layers")})


def _parameters(value: Any, spec: dict[str, Any], x: Any = None) -> ParametersAnswer:
    got = _record(value, "nn_parameters", ("count", "distinct", "all_values", "stable", "data", "identity", "output"))
    data = _numbers(got["data"], "data")
    count = _count(got["count"], "count", MAX_ITEMS)
    if count != len(data):
        raise MalformedAnswer(f"count: {count} parameters but {len(data)} values in data")
    output = None if got["output"] is None and x is None else _output(got["output"], "output")
    identity = got["identity"]
    if identity is not None:
        if type(identity) is not list or len(identity) != count:
            raise MalformedAnswer(f"identity: expected {count} indices, one per parameter")
        identity = [_count(i, f"identity[{k}]", MAX_ITEMS, -1) for k, i in enumerate(identity)]
    return ParametersAnswer(count=count, distinct=_count(got["distinct"], "distinct", count),
                            all_values=_flag(got["all_values"], "all_values"), stable=_flag(got["stable"], "stable"),
                            data=data, identity=identity, output=output)


def _forward(value: Any, spec: dict[str, Any], inputs: list[Any]) -> ForwardAnswer:
    got = _record(value, "nn_forward", ("outputs",))
    outputs = got["outputs"]
    if type(outputs) is not list or len(outputs) != len(inputs):
        raise MalformedAnswer(f"outputs: expected {len(inputs)} outputs, one per input")
    return ForwardAnswer(outputs=[_output(o, f"outputs[{i}]") for i, o in enumerate(outputs)])


def _backward(value: Any, spec: dict[str, Any], x: Any) -> BackwardAnswer:
    got = _record(value, "nn_backward", ("grads",))
    return BackwardAnswer(grads=_numbers(got["grads"], "grads"))


def _zero_grad(value: Any, spec: dict[str, Any], x: Any) -> ZeroGradAnswer:
    got = _record(value, "nn_zero_grad", ("data", "after_zero_grad", "output"))
    data = _numbers(got["data"], "data")
    return ZeroGradAnswer(data=data, after_zero_grad=_numbers(got["after_zero_grad"], "after_zero_grad", len(data)),
                          output=_output(got["output"], "output"))


def _structure(value: Any, spec: dict[str, Any], x: Any) -> StructureAnswer:
    got = _record(value, "nn_structure", ("parts", "distinct", "all_values", "data", "output"))
    parts = got["parts"]
    if parts is not None and (type(parts) is not list or len(parts) > MAX_ITEMS):
        raise MalformedAnswer(f"parts: expected a list of at most {MAX_ITEMS} parts, or null")
    shapes: list[tuple[int, int, bool | None]] = []
    for k, part in enumerate(parts or []):
        if type(part) is not list or len(part) != 3 or (part[2] is not None and type(part[2]) is not bool):
            raise MalformedAnswer(f"parts[{k}]: expected [nin, nout, nonlin]")
        shapes.append((_count(part[0], f"parts[{k}][0]", MAX_ITEMS, -1), _count(part[1], f"parts[{k}][1]", MAX_ITEMS, -1),
                       part[2]))
    data = _numbers(got["data"], "data")
    return StructureAnswer(parts=None if parts is None else shapes, distinct=_count(got["distinct"], "distinct", len(data)),
                           all_values=_flag(got["all_values"], "all_values"), data=data,
                           output=_output(got["output"], "output"))


def _train(value: Any, spec: dict[str, Any], xs: list[Any], ys: Any, lr: Any, steps: int, margin: Any) -> TrainAnswer:
    got = _record(value, "nn_train", ("initial", "losses", "steps", "preds", "final"))
    taken = _count(got["steps"], "steps", steps)
    initial = _numbers(got["initial"], "initial")
    return TrainAnswer(initial=initial, losses=_numbers(got["losses"], "losses", taken + 1), steps=taken,
                       preds=_numbers(got["preds"], "preds", len(xs)),
                       final=_numbers(got["final"], "final", len(initial)))


PARSERS: dict[str, Callable[..., Any]] = {
    "graph": _graph,
    "value_contract": _value_contract,
    "derived_calls": _calls,
    "nn_contract": _network_contract,
    "nn_parameters": _parameters,
    "nn_forward": _forward,
    "nn_backward": _backward,
    "nn_zero_grad": _zero_grad,
    "nn_structure": _structure,
    "nn_train": _train,
}
"""Probe name to the parser of its answer (same names as :data:`grader.sandbox.probes.PROBES`)."""


def parse(probe: str, args: list[Any], value: Any) -> Answer:
    """Check a probe's answer against its schema and return it as a typed record.

    Args:
        probe: The probe's name, e.g. ``"graph"``.
        args: The arguments the judge sent with the request (they bound the answer's lengths).
        value: The decoded answer, as the worker sent it (untrusted).

    Raises:
        MalformedAnswer: If the answer does not fit: wrong type, missing or
            extra field, wrong length, a number that is not a float.
    """
    parser = PARSERS.get(probe)
    if parser is None:
        raise MalformedAnswer(f"no answer schema for the probe {probe!r}")
    answer: Answer = parser(value, *args)
    return answer
