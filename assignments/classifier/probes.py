"""The probes of assignment ``classifier``: they run the student's ``micrograd/classifier.py`` in the sandbox.

Fault isolation. Every probe computes with the grader's own ``Value`` (the
part ``recording``: forward values and the graph, whose gradients the judge
computes) in place of the student's: each name of the student's
modules bound to the student's ``Value`` is bound to the grader's while the
probe runs, so an engine bug costs no classifier points (the engine is graded
in assignments 1 and 2). The grader makes the inputs a function consumes
(the logits of ``softmax`` and ``cross_entropy``, the weights of a neuron) and
reads the gradients of those inputs after ``backward()``, which is the
grader's too. A network method is run on parts the grader made (``"build":
"parts"``: a ``Layer`` holding the grader's neurons, an ``MLP`` holding the
grader's layers); a constructor is run with recorders in place of the parts
it makes, which note the arguments they were given; ``train`` is run on the
grader's network with a stand-in loss in place of ``cross_entropy`` (a
squared error, not a cross-entropy), so a bug in ``cross_entropy`` or in the
network costs no ``train`` points.

Without the grader's parts (a student's self-check) every probe runs on the
student's own engine and network, pinned to the same weights: the self-check
gives up fault isolation, never correctness. The grader's parts are handles
the judge answers (:func:`judged`): only where the probe gives them to the
student's code, one level below the method under test, so a function that
calls the grader's own ``Neuron`` or ``Layer`` earns nothing.

Probes measure, never decide: they return the numbers (probabilities, losses,
gradients, weights, logits); the judge compares them with the reference's or
recomputes them (the final weights of a training run must give the logits
reported). A *model spec* is ``{"kind": "Neuron"|"Layer"|"MLP", "args": [...],
"seed": int, "weights": [floats] | None, "engine": "grader"|"student",
"build": "student"|"parts"}``; weights are in the documented order: layer by
layer, neuron by neuron, each neuron's weights then its bias.
"""

from __future__ import annotations

import functools
import random
from typing import Any

from assignments.shared.probes.nn_probes import (
    BELOW,
    FACTS,
    engine_in_use,
    handles,
    made_for_parts,
    parameter_facts,
    read_facts,
    swapped,
)
from assignments.shared.probes.nn_probes import rebound as shared_rebound
from assignments.shared.probes.outputs import listed, read_grads, read_listed
from probekit import (
    MAX_ITEMS,
    Context,
    MalformedAnswer,
    ProbeError,
    count,
    flag,
    number,
    numbers,
    part,
    record,
    short_repr,
    text,
)
from probekit import read_text as read_text_field

KINDS = ("Neuron", "Layer", "MLP")
ACTIVATIONS = ("tanh", "relu", "sigmoid", "linear")
"""The activation names the handout's ``Neuron``, ``Layer`` and ``MLP`` accept."""
NAMES = ("softmax", "cross_entropy", "train", "accuracy", "zero_grad", "sgd_step", *KINDS)
"""The student's functions and classes: the modules they were defined in are the student's too (a notebook's code
lives in one module, which ``classifier.py`` re-exports)."""
MAX_EVENTS = 40
"""Most calls of ``zero_grad``, ``backward`` and ``sgd_step`` a training probe reports (for hints only)."""


# --- the grader's engine in place of the student's ----------------------------------------------------------------

def rebound(mg: Any, theirs: Any, ours: Any) -> list[tuple[Any, str, Any]]:
    """The swaps that bind ``ours`` to every global name of the student's modules (``engine``, ``classifier`` and
    those its functions were defined in) bound to ``theirs``."""
    return shared_rebound(mg, theirs, ours, "classifier", NAMES)


def grader_engine(mg: Any, engine: str) -> Any:
    """With ``engine == "grader"`` (and the grader's parts), the grader's ``Value`` in place of the student's."""
    return engine_in_use(mg, engine == "grader", "classifier", NAMES)


# --- plain forms --------------------------------------------------------------------------------------------------

def _total(values: list[Any], weights: list[float]) -> Any:
    """``sum_k weights[k] * values[k]`` built with the values' own operations."""
    total = values[0] * weights[0]
    for v, c in zip(values[1:], weights[1:]):
        total = total + v * c
    return total


# --- softmax and cross_entropy on logits the grader makes ---------------------------------------------------------

def probe_softmax(mg: Any, ctx: Context, logits: list[float], cotangent: list[float] | None,
                  engine: str = "grader") -> dict[str, Any]:
    """Probe ``classifier_softmax``: ``softmax`` of the grader's leaves ``Value(l)``; with ``cotangent``,
    the gradient of ``sum_k c_k * p_k`` with respect to each logit after ``backward()``."""
    with grader_engine(mg, engine) as value_cls:
        leaves = [value_cls(float(x)) for x in logits]
        ctx.during = f"softmax of logits {logits}"
        probs = mg.classifier.softmax(list(leaves))
        answer = {"probs": listed(probs, len(logits)), "grads": None}
        items = list(probs) if isinstance(probs, (list, tuple)) else []
        if cotangent is not None and len(items) == len(logits) and all(isinstance(p, value_cls) for p in items):
            ctx.during = f"backward() from sum_k c_k * softmax(logits)[k] with c = {cotangent}"
            _total(items, cotangent).backward()
            answer["grads"] = [number(x.grad) for x in leaves]
    return answer


def probe_cross_entropy(mg: Any, ctx: Context, logits: list[float], target: int,
                        engine: str = "grader") -> dict[str, Any]:
    """Probe ``classifier_cross_entropy``: ``cross_entropy`` of the grader's leaves and ``target``, and each
    logit's gradient after ``backward()`` from the loss."""
    with grader_engine(mg, engine) as value_cls:
        leaves = [value_cls(float(x)) for x in logits]
        ctx.during = f"cross_entropy(logits={logits}, target={target})"
        loss = mg.classifier.cross_entropy(list(leaves), target)
        answer = {"loss": listed(loss, 1), "grads": None}
        if isinstance(loss, value_cls):
            ctx.during = "backward() from the loss"
            loss.backward()
            answer["grads"] = [number(x.grad) for x in leaves]
    return answer


# --- networks -----------------------------------------------------------------------------------------------------

def _call(spec: dict[str, Any]) -> str:
    return f"{spec['kind']}({', '.join(map(repr, spec.get('args', [])))})"


def shape(spec: dict[str, Any]) -> list[tuple[int, int, str]]:
    """``(nin, nout, activation)`` of each layer of the spec's model (a Neuron is a layer of one)."""
    args = spec["args"]
    if spec["kind"] == "Neuron":
        return [(args[0], 1, args[1] if len(args) > 1 else "tanh")]
    if spec["kind"] == "Layer":
        return [(args[0], args[1], args[2] if len(args) > 2 else "tanh")]
    sizes = [args[0], *args[1]]
    acts = args[2] if len(args) > 2 and args[2] is not None else ["tanh"] * (len(args[1]) - 1) + ["linear"]
    return [(sizes[i], sizes[i + 1], acts[i]) for i in range(len(args[1]))]


def walk(model: Any, kind: str) -> list[Any]:
    """The model's weights and biases in the documented order, read through the handout's attributes
    (``w``, ``b``, ``neurons``, ``layers``), so that no other method of the student's runs."""
    if kind == "Neuron":
        return [*model.w, model.b]
    layers = [model] if kind == "Layer" else list(model.layers)
    return [p for layer in layers for n in layer.neurons for p in [*n.w, n.b]]


def _params(model: Any, kind: str, ctx: Context) -> list[Any]:
    """:func:`walk`, or ``parameters()`` for a model of another design than the handout's."""
    ctx.during = f"reading the weights of {kind} through its attributes"
    try:
        return walk(model, kind)
    except (AttributeError, TypeError):
        ctx.during = "calling parameters()"
        return list(model.parameters())


def constructions(kind: str, args: list[Any]) -> list[list[Any]]:
    """The arguments to try, in order, when the grader sets a model's parts (:func:`made_for_parts`): the spec's
    own, then the same sizes with the default activation, then with each activation the handout names (a
    constructor that refuses ``"linear"`` makes a neuron with another, whose parts the grader then replaces)."""
    sizes = args[:1] if kind == "Neuron" else args[:2]
    tries = [list(args), list(sizes)]
    for act in ACTIVATIONS:
        tries.append([*sizes, [act] * len(args[1]) if kind == "MLP" else act])
    return tries


def make_model(mg: Any, spec: dict[str, Any], ctx: Context, value_cls: Any) -> tuple[Any, list[Any], Any]:
    """Build the spec's model; return it, its weights and biases in the documented order and, with ``"parts"``, the
    grader's network of its parts (else None; ``value_cls``: the ``Value`` in use).

    ``"build": "parts"`` (with the grader's parts): the student's class, made
    with its ``__init__`` when that works, gets the grader's parts pinned to
    the spec's weights (a Neuron its ``w``, ``b`` and ``activation``, a Layer
    its ``neurons``, an MLP its ``layers`` and ``activations``). Otherwise the
    student's constructor builds it after ``random.seed(seed)``, and the
    weights (if any) are set through the handout's attributes.
    """
    kind, args = spec["kind"], spec.get("args", [])
    if kind not in KINDS:
        raise ValueError(f"unknown model kind {kind!r}")
    cls = getattr(mg.classifier, kind)
    random.seed(spec.get("seed", 0))
    if spec.get("build", "student") == "parts" and handles() is not None:
        ctx.during = f"{_call(spec)} (the grader then sets its parts)"
        model, _ = made_for_parts(cls, [(a, {}) for a in constructions(kind, args)])
        ctx.during = f"setting the grader's parts in {_call(spec)}"
        network = handles().network()
        if kind == "Neuron":
            neuron = network.layers[0].neurons[0]
            model.w, model.b, model.activation = neuron.w, neuron.b, shape(spec)[0][2]
        elif kind == "Layer":
            model.neurons = network.layers[0].neurons
        else:
            model.layers, model.activations = network.layers, [act for _, _, act in shape(spec)]
        return model, network.parameters(), network
    ctx.during = _call(spec)
    model = cls(*args)
    params = _params(model, kind, ctx)
    weights = spec.get("weights")
    if weights is not None:
        if len(params) != len(weights):
            raise ProbeError(f"{_call(spec)} has {len(params)} weights and biases, expected {len(weights)}")
        ctx.during = "setting each weight's and bias's data"
        for p, w in zip(params, weights):
            p.data = w
    return model, params, None


def probe_forward(mg: Any, ctx: Context, spec: dict[str, Any], inputs: list[list[float]]) -> dict[str, Any]:
    """Probe ``classifier_forward``: the model's output on each input, and the gradient of the (summed) output on
    the first input with respect to each weight and bias (documented order)."""
    with grader_engine(mg, spec.get("engine", "grader")) as value_cls:
        model, params, _ = make_model(mg, spec, ctx, value_cls)
        outs = []
        for x in inputs:
            ctx.during = f"forward pass on x = {x!r}"
            outs.append(model(x))
        plain = [listed(o, MAX_ITEMS) for o in outs]
        first = list(outs[0]) if isinstance(outs[0], (list, tuple)) else [outs[0]]
        grads = None
        if first and all(hasattr(o, "backward") for o in first):
            ctx.during = f"backward() from the sum of the outputs on x = {inputs[0]!r}"
            _total(first, [1.0] * len(first)).backward()
            grads = [number(p.grad) for p in params]
    return {"outputs": plain, "grads": grads}


def probe_parameters(mg: Any, ctx: Context, spec: dict[str, Any], x: list[float]) -> dict[str, Any]:
    """Probe ``classifier_parameters``: count, data and identity of ``parameters()``, and the output on ``x``.

    ``identity`` gives, for each parameter returned, its index in the
    documented order of the model's own weights (-1 for any other object), so
    ``[0, 1, 2, ...]`` means the live objects in order. The output is the
    grader's network's (``"parts"``) or the model's: the judge recomputes it
    from ``data``.
    """
    with grader_engine(mg, spec.get("engine", "grader")) as value_cls:
        model, own, network = make_model(mg, spec, ctx, value_cls)
        ctx.during = "calling parameters()"
        first, second = list(model.parameters()), list(model.parameters())
        answer = parameter_facts(first, second, value_cls, list(own))
        ctx.during = f"forward pass on x = {x!r}"
        if network is not None:  # the grader's own network of the same parts
            answer["output"] = listed(network(x), MAX_ITEMS)
        else:
            answer["output"] = listed(model(x), MAX_ITEMS)
    return answer


class Made:
    """What a constructor under test made in place of a part: it records the arguments it was given."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.made_with = (args, kwargs)


def _argument(made: Any, position: int, name: str, default: Any) -> Any:
    args, kwargs = getattr(made, "made_with", ((), {}))
    return args[position] if len(args) > position else kwargs.get(name, default)


def _size(n: Any) -> int:
    return n if type(n) is int and 0 <= n <= MAX_ITEMS else -1


def probe_structure(mg: Any, ctx: Context, spec: dict[str, Any]) -> dict[str, Any]:
    """Probe ``classifier_structure``: what the student's constructor made.

    A ``Neuron``: ``[[len(w), activation]]``, whether its weights and bias are
    distinct ``Value`` objects, and their data. A ``Layer``, made with a
    recorder in place of ``Neuron``: ``[nin, activation]`` each recorder was
    given, one per item of ``neurons``. An ``MLP``, made with a recorder in
    place of ``Layer``: ``[nin, nout, activation]`` per item of ``layers``,
    and its ``activations``. An item that is not a recorder is reported as
    ``[-1, ...]`` with its type as activation.
    """
    kind, args = spec["kind"], spec.get("args", [])
    inner = {"Layer": "Neuron", "MLP": "Layer"}.get(kind)
    with grader_engine(mg, spec.get("engine", "grader")) as value_cls:
        swaps = rebound(mg, getattr(mg.classifier, inner), Made) if inner else []
        random.seed(spec.get("seed", 0))
        ctx.during = _call(spec)
        with swapped(swaps):
            model = getattr(mg.classifier, kind)(*args)
        ctx.during = f"reading what {_call(spec)} made"
        answer: dict[str, Any] = {"parts": [], "activations": None, "all_values": True, "distinct": 0, "data": []}
        if kind == "Neuron":
            params = [*model.w, model.b][:_size(args[0]) + 1]
            answer.update(parts=[[_size(len(model.w)), text(getattr(model, "activation", None))]],
                          all_values=all(isinstance(p, value_cls) for p in params),
                          distinct=len({id(p) for p in params}),
                          data=[number(getattr(p, "data", None)) for p in params])
            return answer
        items = list(model.neurons if kind == "Layer" else model.layers)[:MAX_ITEMS]
        for item in items:
            if not isinstance(item, Made):
                answer["parts"].append([-1, -1, text(type(item).__name__)])
            elif kind == "Layer":
                answer["parts"].append([_size(_argument(item, 0, "nin", None)), 1,
                                        text(_argument(item, 1, "activation", "tanh"))])
            else:
                answer["parts"].append([_size(_argument(item, 0, "nin", None)), _size(_argument(item, 1, "nout", None)),
                                        text(_argument(item, 2, "activation", "tanh"))])
        if kind == "MLP":
            acts = getattr(model, "activations", None)
            answer["activations"] = [text(a) for a in list(acts)[:len(args[1]) + 1]] if isinstance(
                acts, (list, tuple)) else None
    return answer


def probe_raises(mg: Any, ctx: Context, spec: dict[str, Any]) -> dict[str, Any]:
    """Probe ``classifier_raises``: the student's constructor on arguments it must refuse; the exception's type
    name and message, or nulls when it made the object."""
    with grader_engine(mg, spec.get("engine", "grader")):
        random.seed(spec.get("seed", 0))
        ctx.during = _call(spec)
        try:
            getattr(mg.classifier, spec["kind"])(*spec.get("args", []))
        except ProbeError:
            raise  # the judge refused the grader's parts: no measurement
        except Exception as exc:  # noqa: BLE001 - measured, not judged: the judge wants a ValueError
            return {"raised": text(type(exc).__name__), "message": text(exc)}
    return {"raised": None, "message": None}


# --- training and accuracy ----------------------------------------------------------------------------------------

def stand_in_loss(calls: list[int]) -> Any:
    """The grader's stand-in for ``cross_entropy`` while ``train`` is tested alone: half the squared distance of
    the logits to the one-hot vector of the class (a squared error, not a cross-entropy). Counts its calls."""
    def loss(logits: list[Any], target: int) -> Any:
        calls[0] += 1
        terms = [(value - (1.0 if k == target else 0.0)) ** 2 for k, value in enumerate(logits)]
        total = terms[0]
        for term in terms[1:]:
            total = total + term
        return total * 0.5
    return loss


def _recording(events: list[str], name: str, function: Any) -> Any:
    def recorded(*args: Any, **kwargs: Any) -> Any:
        if len(events) < MAX_EVENTS:
            lr = f"({short_repr(args[1], 24)})" if name == "sgd_step" and len(args) > 1 else ""
            events.append(name + lr)
        return function(*args, **kwargs)
    return recorded


def _training_model(mg: Any, spec: dict[str, Any], ctx: Context, value_cls: Any) -> tuple[Any, list[Any]]:
    """The grader's network (``"parts"``, with the grader's parts), else the student's ``MLP`` pinned to the weights."""
    if spec.get("build") == "parts" and handles() is not None:
        ctx.during = f"setting up the grader's {_call(spec)}"
        network = handles().network()
        return network, network.parameters()
    return make_model(mg, {**spec, "build": "student"}, ctx, value_cls)[:2]


def probe_train(mg: Any, ctx: Context, spec: dict[str, Any], xs: list[list[float]], ys: list[int], steps: int,
                lr: float) -> dict[str, Any]:
    """Probe ``classifier_train``: ``train(model, xs, ys, steps, lr)`` with the stand-in loss in place of
    ``cross_entropy`` (:func:`stand_in_loss`), on the grader's network (see :func:`_training_model`).

    Returns:
        What ``train`` returned (at most ``steps`` numbers kept), the weights
        after training (documented order), how often the loss was called, and
        the calls of ``zero_grad``, ``backward`` and ``sgd_step`` in order
        (hints only: the judge compares the numbers).
    """
    calls, events = [0], []
    with grader_engine(mg, spec.get("engine", "grader")) as value_cls:
        model, params = _training_model(mg, spec, ctx, value_cls)
        module = mg.classifier
        swaps = rebound(mg, module.cross_entropy, stand_in_loss(calls))
        for name in ("zero_grad", "sgd_step"):
            swaps += rebound(mg, getattr(module, name), _recording(events, name, getattr(module, name)))
        if handles() is not None and value_cls is handles().Value:
            swaps.append((value_cls, "backward", _recording(events, "backward", value_cls.backward)))
        ctx.during = f"train(model, xs, ys, steps={steps}, lr={lr}) on {len(xs)} points"
        with swapped(swaps):
            losses = module.train(model, xs, ys, steps, lr)
        return {"losses": listed(losses, steps, raw=True), "final": [number(p.data) for p in params], "calls": calls[0],
                "events": events}


class _Weights:
    """The weights a training run computed with: noted each time ``train`` calls the model or ``cross_entropy``
    (by their names), when they changed since the last note; at most ``most`` states kept, ``changes`` counted."""

    def __init__(self, params: list[Any], most: int) -> None:
        self.params, self.most = params, most
        self.states: list[list[Any]] = []
        self.changes = 0
        self._last: tuple[Any, ...] | None = None

    def note(self) -> None:
        now = tuple(getattr(p, "data", None) for p in self.params)
        if now == self._last:
            return
        self._last = now
        self.changes += 1
        if len(self.states) < self.most:
            self.states.append([number(w) for w in now])

    def noting(self, function: Any) -> Any:
        def noted(*args: Any, **kwargs: Any) -> Any:
            self.note()
            return function(*args, **kwargs)
        return noted


def probe_learn(mg: Any, ctx: Context, spec: dict[str, Any], xs: list[list[float]], ys: list[int], steps: int,
                lr: float) -> dict[str, Any]:
    """Probe ``classifier_learn``: the student's ``MLP`` (their constructors, the spec's weights set through the
    handout's attributes), trained by their ``train`` with their ``cross_entropy``; then the logits of every point.

    Returns:
        What ``train`` returned (at most ``steps`` numbers kept), the weights
        after training in the documented order, the logits the trained model
        gives each point (the judge recomputes those logits from the weights
        and decides the accuracy itself), and the weights ``train`` computed
        with (``states``, in order: each time it called the model or
        ``cross_entropy`` at weights that had changed; at most ``steps + 1``
        kept, ``changes`` counts them all), from which the judge checks that
        each change was a step of gradient descent.
    """
    with grader_engine(mg, spec.get("engine", "grader")) as value_cls:
        model, params, _ = make_model(mg, {**spec, "build": "student"}, ctx, value_cls)
        seen = _Weights(params, steps + 1)
        module = mg.classifier
        swaps = rebound(mg, module.cross_entropy, seen.noting(module.cross_entropy))
        owner = next((k for k in type(model).__mro__ if k is not object and "__call__" in vars(k)), None)
        if owner is not None:
            swaps.append((owner, "__call__", seen.noting(vars(owner)["__call__"])))
        ctx.during = f"train(model, xs, ys, steps={steps}, lr={lr}) on {len(xs)} points"
        with swapped(swaps):
            losses = module.train(model, xs, ys, steps, lr)
        final = [number(p.data) for p in _params(model, spec["kind"], ctx)]
        logits = []
        for x in xs:
            ctx.during = f"forward pass of the trained model on x = {x!r}"
            logits.append(listed(model(x), shape(spec)[-1][1]))
    return {"losses": listed(losses, steps, raw=True), "final": final, "logits": logits, "count": len(params),
            "states": seen.states, "changes": seen.changes}


def probe_accuracy(mg: Any, ctx: Context, spec: dict[str, Any], xs: list[list[float]], ys: list[int]) -> dict[str, Any]:
    """Probe ``classifier_accuracy``: ``accuracy(model, xs, ys)`` on the grader's network pinned to the spec's
    weights (the student's pinned ``MLP`` in a self-check)."""
    with grader_engine(mg, spec.get("engine", "grader")) as value_cls:
        model, _ = _training_model(mg, spec, ctx, value_cls)
        ctx.during = f"accuracy(model, xs, ys) on {len(xs)} points"
        return {"accuracy": listed(mg.classifier.accuracy(model, xs, ys), 1)}


# --- answers: one parser per probe, bounded by the request's own arguments -------------------------------------

def parse_softmax(value: Any, logits: list[Any], cotangent: Any, engine: str = "grader") -> dict[str, Any]:
    got = record(value, "classifier_softmax", ("probs", "grads"))
    return {"probs": read_listed(got["probs"], "probs", len(logits)),
            "grads": read_grads(got["grads"], "grads", len(logits))}


def parse_cross_entropy(value: Any, logits: list[Any], target: int, engine: str = "grader") -> dict[str, Any]:
    got = record(value, "classifier_cross_entropy", ("loss", "grads"))
    return {"loss": read_listed(got["loss"], "loss", 1), "grads": read_grads(got["grads"], "grads", len(logits))}


def parameter_count(spec: dict[str, Any]) -> int:
    """Weights and biases of the spec's model."""
    return sum((nin + 1) * nout for nin, nout, _ in shape(spec))


def parse_forward(value: Any, spec: dict[str, Any], inputs: list[Any]) -> dict[str, Any]:
    got = record(value, "classifier_forward", ("outputs", "grads"))
    outs = got["outputs"]
    if type(outs) is not list or len(outs) != len(inputs):
        raise MalformedAnswer(f"outputs: expected {len(inputs)} outputs, one per input")
    most = shape(spec)[-1][1]
    return {"outputs": [read_listed(o, f"outputs[{i}]", most) for i, o in enumerate(outs)],
            "grads": read_grads(got["grads"], "grads", parameter_count(spec))}


def parse_parameters(value: Any, spec: dict[str, Any], x: Any) -> dict[str, Any]:
    got = record(value, "classifier_parameters", (*FACTS, "output"))
    return {**read_facts(got), "output": read_listed(got["output"], "output", shape(spec)[-1][1])}


def parse_structure(value: Any, spec: dict[str, Any]) -> dict[str, Any]:
    got = record(value, "classifier_structure", ("parts", "activations", "all_values", "distinct", "data"))
    found, parts = got["parts"], []
    if type(found) is not list or len(found) > MAX_ITEMS:
        raise MalformedAnswer("parts: expected a list")
    if spec["kind"] == "Neuron" and len(found) != 1:
        raise MalformedAnswer("parts: expected one item for a Neuron, itself")
    for k, item in enumerate(found):
        if type(item) is not list or len(item) not in (2, 3):
            raise MalformedAnswer(f"parts[{k}]: expected [nin, activation] or [nin, nout, activation]")
        item = [*item[:1], 1, item[1]] if len(item) == 2 else item
        parts.append((count(item[0], f"parts[{k}][0]", MAX_ITEMS, -1), count(item[1], f"parts[{k}][1]", MAX_ITEMS, -1),
                      read_text_field(item[2], f"parts[{k}][2]")))
    acts = got["activations"]
    layers = len(spec["args"][1]) + 1 if spec["kind"] == "MLP" else 0
    if acts is not None and (type(acts) is not list or len(acts) > layers):
        raise MalformedAnswer("activations: expected a list of names, one per layer")
    data = got["data"]
    if type(data) is not list or len(data) > (spec["args"][0] + 1 if spec["kind"] == "Neuron" else 0):
        raise MalformedAnswer("data: expected the neuron's weights and bias")
    data = numbers(data, "data")
    return {"parts": parts, "activations": None if acts is None else [read_text_field(a, "activations") for a in acts],
            "all_values": flag(got["all_values"], "all_values"), "distinct": count(got["distinct"], "distinct", len(data)),
            "data": data}


def parse_raises(value: Any, spec: dict[str, Any]) -> dict[str, Any]:
    got = record(value, "classifier_raises", ("raised", "message"))
    return {key: None if got[key] is None else read_text_field(got[key], key) for key in ("raised", "message")}


def parse_train(value: Any, spec: dict[str, Any], xs: list[Any], ys: Any, steps: int, lr: Any) -> dict[str, Any]:
    got = record(value, "classifier_train", ("losses", "final", "calls", "events"))
    events = got["events"]
    if type(events) is not list or len(events) > MAX_EVENTS:
        raise MalformedAnswer(f"events: expected at most {MAX_EVENTS} names")
    return {"losses": read_listed(got["losses"], "losses", steps),
            "final": numbers(got["final"], "final", parameter_count(spec)),
            "calls": count(got["calls"], "calls", MAX_ITEMS), "events": [read_text_field(e, "events") for e in events]}


def parse_learn(value: Any, spec: dict[str, Any], xs: list[Any], ys: Any, steps: int, lr: Any) -> dict[str, Any]:
    got = record(value, "classifier_learn", ("losses", "final", "logits", "count", "states", "changes"))
    logits, states = got["logits"], got["states"]
    if type(logits) is not list or len(logits) != len(xs):
        raise MalformedAnswer(f"logits: expected {len(xs)} outputs, one per point")
    if type(states) is not list or len(states) > steps + 1:
        raise MalformedAnswer(f"states: expected at most {steps + 1} lists of weights")
    n = parameter_count(spec)
    return {"losses": read_listed(got["losses"], "losses", steps),
            "final": numbers(got["final"], "final", n),
            "logits": [read_listed(o, f"logits[{i}]", shape(spec)[-1][1]) for i, o in enumerate(logits)],
            "count": count(got["count"], "count", MAX_ITEMS),
            "states": [numbers(w, f"states[{i}]", n) for i, w in enumerate(states)],
            "changes": count(got["changes"], "changes", 10**9, len(states))}


def parse_accuracy(value: Any, spec: dict[str, Any], xs: list[Any], ys: Any) -> dict[str, Any]:
    got = record(value, "classifier_accuracy", ("accuracy",))
    return {"accuracy": read_listed(got["accuracy"], "accuracy", 1)}


PROBES = {
    "classifier_softmax": probe_softmax,
    "classifier_cross_entropy": probe_cross_entropy,
    "classifier_forward": probe_forward,
    "classifier_parameters": probe_parameters,
    "classifier_structure": probe_structure,
    "classifier_raises": probe_raises,
    "classifier_train": probe_train,
    "classifier_learn": probe_learn,
    "classifier_accuracy": probe_accuracy,
}
"""This module's probes (see ``grader.sandbox.probes``): each is ``probe(mg, ctx, *args)``."""
NEEDS = {name: ("micrograd.engine", "micrograd.classifier") for name in PROBES}
ANSWERS = {
    "classifier_softmax": parse_softmax,
    "classifier_cross_entropy": parse_cross_entropy,
    "classifier_forward": parse_forward,
    "classifier_parameters": parse_parameters,
    "classifier_structure": parse_structure,
    "classifier_raises": parse_raises,
    "classifier_train": parse_train,
    "classifier_learn": parse_learn,
    "classifier_accuracy": parse_accuracy,
}


def judged(probe: str, args: list[Any]) -> Any:
    """The judge's side of one call of ``probe`` (the part ``network_judge``; None without the grader's parts, in
    a self-check, and for the constructor probes, which ask nothing): gradients of the grader's ``Value`` when the
    probe runs on it; with a ``"parts"`` model, the grader's network once, its parts' forward passes and
    ``parameters()`` one level below the method under test (``nn_probes.BELOW``), and the whole network's where the
    student's ``train`` or ``accuracy`` runs it (or the probe reads its output)."""
    judge = part("network_judge")
    if judge is None or probe in ("classifier_structure", "classifier_raises"):
        return None
    if probe in ("classifier_softmax", "classifier_cross_entropy"):
        return judge.Network(backward=(args[2] if len(args) > 2 else "grader") == "grader")
    spec = args[0]
    parts = spec.get("build", "student") == "parts"
    below = set(BELOW[spec["kind"]]) if parts else set()
    calls, params = set(below), below | ({"MLP"} if parts else set())
    if probe == "classifier_parameters" and parts:
        calls = {"MLP"}
    elif probe in ("classifier_train", "classifier_accuracy"):
        calls = params = set(KINDS) if parts else set()
    shapes = [(nin, nout, act == "tanh") for nin, nout, act in shape(spec)] if parts else []
    return judge.Network(shapes, spec.get("weights"), spec.get("seed", 0),
                         backward=spec.get("engine", "grader") == "grader" or parts, network=parts, calls=calls,
                         parameters=params)


JUDGED = {name: functools.partial(judged, name) for name in PROBES}
"""The judge's side of each probe (see ``grader.sandbox.probes``): judge only."""
