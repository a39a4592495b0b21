"""The judge's side of the network's tests: the grader's engine and parts behind the worker's handles (judge only).

A worker running the network's tests holds a ``Value`` that records its graph
and handles on the grader's parts (the part :mod:`.recording`); every question
they ask comes here, over the probe's channel (:mod:`grader.testing.judged`):

* ``backward`` ``{"seqs", "ops", "arity", "refs", "vals", "grads"}`` (packed
  columns, one entry per node in the order the nodes were made, ``refs`` and
  ``vals`` one per operand: see ``recording.graph``): the gradient of every node after ``backward()`` on the
  last one (micrograd's: its grad set to 1, then each node's local gradients
  times its grad added to its operands', in reverse topological order, from
  the grads the nodes held). An operand is an earlier node's index, or -1 for
  a number; its value is its data when the node was made, the point of the
  local gradients (:class:`.graph_backward.Backward`). With ``activations``, also ``toks``: the judge's token of
  each node it made (:mod:`.activations_judge`). A node the student's code made with its own ``_backward`` (op
  code ``recording.OWN``) pauses the pass: the answer is then ``{"grads", "run"}`` (the gradients so far, the nodes
  whose closures the worker runs next), and the worker goes on with ``backward`` ``{"more": grads}`` (every node's
  gradient after those closures ran), until the answer is the gradients alone.
* ``network`` ``{}``: the grader's network of the probe's model spec, pinned
  to its weights: ``{"part": n, "layers": [{"part": n, "nonlin": bool,
  "neurons": [{"part": n, "data": [w..., b]}, ...]}, ...]}``.
* ``make`` ``{"kind": "Neuron", "nin": n, "nonlin": bool}`` (or ``"Layer"``
  with ``"nout"``): one part, its weights drawn here (uniform in [-1, 1], from
  the spec's seed): what a student's constructor under test makes in place of
  its own parts. ``compose`` ``{"kind": "Layer"|"MLP", "parts": [n, ...]}``: a
  layer of neurons, a network of layers, made before; ``{"kind": "Neuron",
  "nin": n, "nonlin": bool}``: a neuron of weights the worker holds (a student's
  constructor made them), none drawn here.
* ``call`` ``{"part": n, "params": [data...], "x": [number | {"v": data}, ...]}``:
  the part's forward pass at those weights and inputs, node by node
  (``recording.build`` reads it); ``parameters`` ``{"part": n}``: permission.
  With ``activations``, an input may carry the token of the judge's node it is (``{"v": data, "t": token}``), and
  the answer carries each node's token (``"tokens"``), as ``network``'s neurons carry their weights'.

Each probe says (:class:`Network`'s arguments) which of these it answers, for
which kinds of part: a forward pass of the grader's ``Neuron`` while the
student's ``Neuron.__call__`` is tested is refused here, so no check in the
worker is needed and none could be undone there. What the worker sends is
hostile data: anything malformed is refused (:class:`AskRefused`), failing the
student's probe; counts (backward passes, forward passes of each kind) are
kept here and given to the test (``record()``).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Any

from grader.testing.judged import AskRefused

from . import stand_ins
from .activations_judge import Activations
from .graph_backward import Backward
from .recording import packed

MAX_PARTS = 10_000
"""The most parts one call of a probe may make."""
MAX_WEIGHTS = 100_000
"""The most weights the grader's parts made in one call of a probe may hold in all (the tests' largest network has a
few hundred; a student's ``Layer(900, 900)`` asks for 810,900, an answer of 16 MB)."""
MAX_INT = 2 ** 1023
"""The largest whole number (in magnitude) taken as a weight or an input: beyond it no float holds it, and products
of such numbers grow past what the protocol can carry."""
KINDS = ("Neuron", "Layer", "MLP")
_NUMBERS = (int, float)


def _number(value: Any, what: str) -> float:
    if type(value) not in _NUMBERS:
        raise AskRefused(f"{what} is not a number")
    if type(value) is int and not -MAX_INT <= value <= MAX_INT:
        raise AskRefused(f"{what} is a whole number too large for the grader (over 2**1023 in magnitude)")
    return value


def _size(value: Any, what: str) -> int:
    if type(value) is not int or not 0 <= value <= 100_000:
        raise AskRefused(f"the grader's parts need a whole number of {what}, got {str(value)[:20]}")
    return value


class Network:
    """The judge's side of one call of a network probe.

    Args:
        shapes: ``(nin, nout, nonlin)`` of each layer of the probe's model (a Neuron is a layer of one), or ``()``.
        weights: The model's weights in the documented order (None: drawn from ``seed``).
        seed: The seed of the weights this side draws.
        backward: Whether ``backward`` is answered (the probe runs on the grader's ``Value``).
        network: Whether ``network`` is answered (once: the probe gives the grader's parts to the student's object).
        calls: The kinds of part whose forward pass is answered.
        parameters: The kinds of part whose ``parameters()`` is answered.
        makes: The kinds of part ``make`` answers (a constructor under test gets them for its own).
        compose: Whether ``compose`` is answered.
        activations: Whether the judge keeps its own record of the nodes it makes (the checkpointing tests:
            :mod:`.activations_judge`): tokens on them, every graph sent checked against it, the activations each
            ``backward`` reached and those alive at once counted, the weights' gradients kept; off, the answer costs
            no extra pass over the graph.
    """

    def __init__(self, shapes: Sequence[tuple[int, int, bool]] = (), weights: Sequence[float] | None = None,
                 seed: int = 0, *, backward: bool = False, network: bool = False, calls: Iterable[str] = (),
                 parameters: Iterable[str] = (), makes: Iterable[str] = (), compose: bool = False,
                 activations: bool = False) -> None:
        self.shapes = [tuple(s) for s in shapes]
        self.weights = None if weights is None else [float(w) for w in weights]
        self.random = random.Random(seed)
        self.allowed = {"backward": backward, "network": network, "compose": compose}
        self.judged = Activations() if activations else None
        self.calls, self.params, self.makes = frozenset(calls), frozenset(parameters), frozenset(makes)
        self.parts: list[tuple[str, Any]] = []
        self.weights_made = 0
        """The weights of every neuron made so far (bounded by :data:`MAX_WEIGHTS`)."""
        self.tokens: dict[int, int] = {}
        """With ``activations``: the token of each weight of the grader's parts, by the identity of its node here."""
        self.paused: Backward | None = None
        """A ``backward`` paused at the student's own nodes, until the worker sends their closures' gradients."""
        self.counts = {"backward_passes": 0, "forward_passes": 0, "networks": 0, "made": 0, "refused": 0,
                       "most_activations": 0, "activations_reached": 0}

    def public(self, args: list[Any]) -> list[Any]:
        return args

    def record(self) -> dict[str, Any]:
        """What this side counted: backward passes, forward passes of the grader's parts, parts made, refusals and,
        with ``activations``, the most of the judge's activations (its layers' outputs) one backward pass reached
        and those all the backward passes reached together, the most alive at once at any moment (``most_alive``:
        :class:`~assignments.shared.probes.live_activations.Ledger`), and each weight's gradient as the judge's
        backward passes gave it (``weight_grads``, in the network's order)."""
        if self.judged is None:
            return dict(self.counts)
        grads = self.judged.grads() if self.judged.weights else [0.0] * len(self.weights or ())
        return {**self.counts, "most_alive": self.judged.most_alive(), "weight_grads": grads}

    def answer(self, topic: str, payload: Any) -> Any:
        try:
            return self._answer(topic, payload)
        except AskRefused:
            self.counts["refused"] += 1
            raise

    def _answer(self, topic: str, payload: Any) -> Any:
        if type(payload) is not dict:
            raise AskRefused("a question of the wrong shape")
        if topic == "backward" and self.allowed["backward"]:
            return self._backward(payload)
        if topic == "network" and self.allowed["network"] and not self.counts["networks"]:
            self.counts["networks"] += 1
            return self._network()
        if topic == "make" and payload.get("kind") in self.makes:
            return self._make(payload)
        if topic == "compose" and self.allowed["compose"]:
            return self._compose(payload)
        if topic in ("call", "parameters"):
            kind, part = self._part(payload)
            if kind in (self.calls if topic == "call" else self.params):
                return self._call(part, payload) if topic == "call" else None
            raise AskRefused(f"the grader's {kind} is there for the tests of another method: a method earns its "
                             f"points with its own code")
        raise AskRefused(_REFUSED.get(topic, "a question this test does not answer"))

    def _backward(self, payload: dict[str, Any]) -> Any:
        """A ``backward`` question: a graph (a new pass), or ``{"more": grads}`` (the pass paused at the student's
        own nodes goes on). The answer: every node's gradient (packed), or, paused again, ``{"grads": packed,
        "run": packed}`` (the student's nodes whose ``_backward`` the worker runs next: :class:`.Backward`)."""
        if set(payload) == {"more"}:
            if self.paused is None:
                raise AskRefused("backward() sent gradients with no pass to go on with")
            self.paused.resume(payload["more"])
        else:
            self.counts["backward_passes"] += 1
            self.paused = Backward(payload, self.judged)
        run = self.paused.step()
        grads = packed("d", self.paused.grads)
        if run:
            return {"grads": grads, "run": packed("q", run)}
        self.paused = None
        if self.judged is not None:
            n = self.judged.last_reached
            self.counts["most_activations"] = max(self.counts["most_activations"], n)
            self.counts["activations_reached"] += n
        return grads

    def _new(self, kind: str, obj: Any) -> int:
        if len(self.parts) >= MAX_PARTS:
            raise AskRefused(f"more than {MAX_PARTS} of the grader's parts")
        self.parts.append((kind, obj))
        self.counts["made"] += 1
        return len(self.parts) - 1

    def _part(self, payload: dict[str, Any]) -> tuple[str, Any]:
        k = payload.get("part")
        if type(k) is not int or not 0 <= k < len(self.parts):
            raise AskRefused("there is no such part of the grader's")
        return self.parts[k]

    def _neuron(self, nin: int, nonlin: bool, data: Sequence[float] | None = None) -> dict[str, Any]:
        neuron = stand_ins.Neuron.__new__(stand_ins.Neuron)
        neuron.nin, neuron.nonlin = nin, nonlin
        self._reserve(nin + 1, f"a Neuron({nin})")
        values = list(data) if data is not None else [self.random.uniform(-1, 1) for _ in range(nin + 1)]
        neuron.w, neuron.b = [stand_ins.Value(v) for v in values[:-1]], stand_ins.Value(values[-1])
        made = {"part": self._new("Neuron", neuron), "data": values}
        if self.judged is not None:  # each weight gets a token: the judge's own node
            made["tokens"] = [self.judged.weight() for _ in values]
            self.tokens.update(zip(map(id, neuron.parameters()), made["tokens"]))
        return made

    def _reserve(self, weights: int, what: str, keep: bool = True) -> None:
        """Count ``weights`` more weights of the grader's parts (``keep`` False: only check they would fit).

        Raises:
            AskRefused: If this call's parts would then hold more than :data:`MAX_WEIGHTS`.
        """
        if self.weights_made + weights > MAX_WEIGHTS:
            raise AskRefused(f"the grader's parts hold at most {MAX_WEIGHTS:,} weights in one test: {what} would "
                             f"hold {weights:,} more, beside the {self.weights_made:,} made already")
        if keep:
            self.weights_made += weights

    def _layer(self, nin: int, nout: int, nonlin: bool, data: Sequence[float] | None = None) -> dict[str, Any]:
        size = nin + 1
        self._reserve(size * nout, f"a Layer({nin}, {nout})", keep=False)  # each neuron counts its own
        neurons = [self._neuron(nin, nonlin, None if data is None else data[k * size:(k + 1) * size])
                   for k in range(nout)]
        layer = stand_ins.Layer.__new__(stand_ins.Layer)
        layer.nin, layer.nout, layer.nonlin = nin, nout, nonlin
        layer.neurons = [self.parts[n["part"]][1] for n in neurons]
        return {"part": self._new("Layer", layer), "nonlin": nonlin, "neurons": neurons}

    def _network(self) -> dict[str, Any]:
        weights = self.weights
        layers, at = [], 0
        for nin, nout, nonlin in self.shapes:
            size = (nin + 1) * nout
            layers.append(self._layer(nin, nout, nonlin, None if weights is None else weights[at:at + size]))
            at += size
        if weights is not None and at != len(weights):
            raise ValueError(f"the model spec has {len(weights)} weights, its shape {at}")  # the test's bug
        network = stand_ins.MLP([self.parts[layer["part"]][1] for layer in layers])
        return {"part": self._new("MLP", network), "layers": layers}

    def _make(self, payload: dict[str, Any]) -> dict[str, Any]:
        nonlin = payload.get("nonlin")
        if type(nonlin) is not bool:
            raise AskRefused("a part's nonlin must be sent as a bool")
        if payload["kind"] == "Neuron" and set(payload) == {"kind", "nin", "nonlin"}:
            return self._neuron(_size(payload["nin"], "inputs"), nonlin)
        if payload["kind"] == "Layer" and set(payload) == {"kind", "nin", "nout", "nonlin"}:
            return self._layer(_size(payload["nin"], "inputs"), _size(payload["nout"], "outputs"), nonlin)
        raise AskRefused("a part the grader does not make")

    def _compose(self, payload: dict[str, Any]) -> dict[str, Any]:
        if payload.get("kind") == "Neuron" and set(payload) == {"kind", "nin", "nonlin"} \
                and type(payload["nonlin"]) is bool:  # the worker's weights: none drawn here
            neuron = stand_ins.Neuron.__new__(stand_ins.Neuron)
            nin = _size(payload["nin"], "inputs")
            neuron.nin, neuron.nonlin = nin, payload["nonlin"]
            self._reserve(nin + 1, f"a Neuron({nin})")
            neuron.w, neuron.b = [stand_ins.Value(0.0) for _ in range(nin)], stand_ins.Value(0.0)
            return {"part": self._new("Neuron", neuron)}
        kind, ids = payload.get("kind"), payload.get("parts")
        inner = {"Layer": "Neuron", "MLP": "Layer"}.get(kind) if type(kind) is str else None
        if inner is None or type(ids) is not list or len(ids) > MAX_PARTS:
            raise AskRefused("a part the grader does not make")
        parts = [self._part({"part": k}) for k in ids]
        if any(k != inner for k, _ in parts):
            raise AskRefused(f"a {kind} of the grader's is made of {inner}s")
        if kind == "Layer":
            layer = stand_ins.Layer.__new__(stand_ins.Layer)
            layer.neurons = [p for _, p in parts]
            return {"part": self._new("Layer", layer)}
        return {"part": self._new("MLP", stand_ins.MLP([p for _, p in parts]))}

    def _call(self, part: Any, payload: dict[str, Any]) -> dict[str, Any]:
        params, x = payload.get("params"), payload.get("x")
        own = part.parameters()
        if type(params) is not list or len(params) != len(own) or type(x) is not list or len(x) > len(own):
            raise AskRefused("a forward pass of the grader's part with the wrong number of weights or inputs")
        refs: dict[int, dict[str, Any]] = {}
        for i, (p, value) in enumerate(zip(own, params)):
            value = _number(value, "a weight")
            if self.judged is not None and value != p.data:  # its weights are the judge's, pinned
                raise AskRefused("the weights of the grader's layers are the grader's: they were changed")
            p.data = value
            refs[id(p)] = {"p": i}
        inputs: list[Any] = []
        tokens: list[int] = []
        for j, item in enumerate(x):
            if type(item) is dict and (set(item) == {"v"} or self.judged is not None and set(item) == {"v", "t"}):
                leaf = stand_ins.Value(_number(item["v"], "an input"))
                refs[id(leaf)] = {"x": j}
                inputs.append(leaf)
                tokens.append(self.judged.input_token(item) if self.judged is not None else 0)
            else:
                inputs.append(_number(item, "an input"))
                tokens.append(0)
        try:
            out = part(inputs)
        except (ArithmeticError, ValueError, TypeError) as exc:
            raise AskRefused(f"the grader's part could not run on these inputs ({type(exc).__name__}: {exc})") from None
        self.counts["forward_passes"] += 1
        program = _program(out, refs)
        if self.judged is not None:
            program["tokens"] = self.judged.evaluated(program, [self.tokens.get(id(p), 0) for p in own], own,
                                                      inputs, tokens)
        return program


def _program(out: Any, refs: dict[int, dict[str, Any]]) -> dict[str, Any]:
    """The nodes that made ``out`` (a node or a list of nodes) beyond ``refs`` (the part's weights and inputs), in
    the order they were made: ``recording.build``'s program."""
    outs = out if isinstance(out, list) else [out]
    nodes: list[Any] = []
    for node in stand_ins.topological_order(_Outputs(outs)):
        if isinstance(node, _Outputs) or id(node) in refs:
            continue
        refs[id(node)] = {"n": len(nodes)}
        nodes.append([node._op, [refs[id(a)] if isinstance(a, stand_ins.Value) else {"c": a} for a in node._args],
                      node.data])
    return {"nodes": nodes, "out": [refs[id(o)] for o in outs] if isinstance(out, list) else refs[id(out)]}


class _Outputs:
    """A root over several outputs, for :func:`stand_ins.topological_order`."""

    def __init__(self, outs: list[Any]) -> None:
        self._prev = outs


_REFUSED = {
    "backward": "backward() of the grader's Value is there for the tests that run on it, not this one",
    "network": "the grader's network is there once per test",
    "make": "the grader's parts are there for the tests of another method: a method earns its points with its own code",
    "compose": "the grader's parts are there for the tests of another method",
}
