"""The probes of assignment ``checkpointing``: they run the student's ``micrograd/checkpointing.py`` in the sandbox.

The chain. Every probe runs the student's functions on a chain of ``n`` layers
``tanh(w * x + b)`` pinned to the request's weights. In hidden grading the layers
are the grader's (the part ``recording``'s neurons, each of one input): the
judge (the part ``network_judge``) computes every layer's forward pass and every
``backward()``, and counts on its side what the student's code made it do: the
layers evaluated (``forward_passes``), the ``backward()`` runs
(``backward_passes``), the most activations one ``backward()`` reached
(``most_activations``), those all of them reached
(``activations_reached``: every layer's gradient must come from a ``backward()`` through it) and the most alive at
once at any moment (``most_alive``: :mod:`assignments.shared.probes.live_activations`). The judge knows its own
nodes by tokens and checks every graph sent against them (the part ``activations_judge``), and keeps the weights'
gradients itself (``weight_grads``). The test reads those counts and gradients in the answer's ``"judged"`` field;
the worker's own report is never used for them. The student's ``Value`` is the grader's while the probe runs, so an
engine bug costs no points here.

What the probe sees of the structure, in both modes: how many layers ran on an input that is a new ``Value`` whose
graph still holds an earlier layer's output (``linked_inputs``: a "fresh" ``Value(data, (h,))`` keeps the whole chain
alive through ``_prev``, which no use of the judge's nodes shows), and whether each checkpoint is a plain number (a
``float`` subclass or a ``Value`` can hold a graph).

Without the grader's parts (a student's self-check) the layers are made here on
the student's own ``Value``, and this probe counts the same things in the
worker (``counted``): a self-check needs no boundary, and says the same.

Probes measure, never decide: the judge compares the outputs and gradients with
the reference's or with what math says, and the counts with the bounds of the
handout's cost model.
"""

from __future__ import annotations

import functools
from typing import Any

from assignments.shared.probes.live_activations import Ledger
from assignments.shared.probes.nn_probes import engine_in_use, handles, swapped
from probekit import (
    MAX_ITEMS,
    NONNUMERIC,
    Context,
    MalformedAnswer,
    count,
    flag,
    number,
    numbers,
    part,
    record,
    short_repr,
)

NAMES = ("forward", "checkpointed_forward", "checkpointed_backward", "cost", "best_every")
"""The student's functions: the modules they were defined in are the student's too (a notebook's code)."""
MAX_LAYERS = 1_000
"""The longest chain a request may ask for."""
MAX_WALK = 10_000
"""The most nodes one layer input's graph is searched through for the earlier layer outputs it holds."""


class Counts:
    """What a self-check counts in the worker (hidden grading counts in the judge): layer evaluations, backward
    passes, the most activations (layer outputs) one backward pass reached, those all of them reached, and the most
    alive at once (the judge's :class:`~assignments.shared.probes.live_activations.Ledger`, on identities)."""

    def __init__(self) -> None:
        self.forward_passes = 0
        self.backward_passes = 0
        self.most_activations = 0
        self.activations_reached = 0
        self.outputs: set[int] = set()
        self.ledger = Ledger()
        self.linked_inputs = 0
        """Layer evaluations on a new node whose graph holds an earlier layer's output (not a fresh ``Value``)."""
        self._held: list[Any] = []
        """The outputs themselves, so that no other object gets one of their ids once they are dropped (the counts
        are of identities)."""

    def holds(self, x: Any) -> list[int]:
        """The layer outputs ``x``'s graph holds (their ids): ``x`` itself if it is one, else the nearest ones found
        through ``_prev``, never below one (what a found output holds is its own), searching :data:`MAX_WALK` nodes
        at most."""
        if id(x) in self.outputs:
            return [id(x)]
        found: list[int] = []
        seen, level = {id(x)}, [x]
        while level and len(seen) < MAX_WALK:
            children: list[Any] = []
            for node in level:
                if len(children) >= MAX_WALK:
                    break
                try:
                    children += list(getattr(node, "_prev", ()) or ())[:MAX_WALK]
                except Exception:  # noqa: BLE001 - a student's _prev that cannot be read holds nothing we can see
                    continue
            level = [c for c in children if id(c) not in seen and not seen.add(id(c))]
            found += [id(c) for c in level if id(c) in self.outputs]
            level = [c for c in level if id(c) not in self.outputs]
        return found

    def evaluated(self, x: Any, out: Any) -> None:
        """A layer made ``out`` from ``x``: an activation, made now from the outputs ``x``'s graph holds."""
        self.forward_passes += 1
        self.ledger.tick()
        parents = self.holds(x)
        if parents and id(x) not in self.outputs:
            self.linked_inputs += 1
        self.outputs.add(id(out))
        self._held.append(out)
        self.ledger.made(id(out), parents)

    def reached(self, root: Any) -> list[int]:
        """The layer outputs ``root`` was made from, found through ``_prev`` (their ids)."""
        seen, level = {id(root)}, [root]
        found = [id(root)] if id(root) in self.outputs else []
        while level:  # level by level
            children = [c for node in level for c in getattr(node, "_prev", ())]
            level = [c for c in children if id(c) not in seen and not seen.add(id(c))]
            found += [id(c) for c in level if id(c) in self.outputs]
        return found

    def backward(self, root: Any) -> None:
        """A ``backward()`` from ``root``: the activations it reaches are used now."""
        self.backward_passes += 1
        self.ledger.tick()
        reached = self.reached(root)
        self.ledger.used(reached)
        self.most_activations = max(self.most_activations, len(reached))
        self.activations_reached += len(reached)

    def record(self) -> dict[str, int]:
        return {"forward_passes": self.forward_passes, "backward_passes": self.backward_passes,
                "most_activations": self.most_activations, "activations_reached": self.activations_reached,
                "most_alive": self.ledger.most_alive()}


class OwnUnit:
    """A layer of a self-check's chain, on the student's own ``Value``: ``tanh(w * x + b)``, counted."""

    def __init__(self, w: float, b: float, value_cls: Any, counts: Counts) -> None:
        self.w, self.b, self.counts = value_cls(w), value_cls(b), counts

    def __call__(self, x: Any) -> Any:
        out = (self.w * x + self.b).tanh()
        self.counts.evaluated(x, out)
        return out

    def parameters(self) -> list[Any]:
        return [self.w, self.b]


class GraderUnit:
    """A layer of hidden grading's chain: one of the grader's neurons (one input, tanh), whose forward pass the judge
    computes and counts (``counts`` here sees only the structure of its inputs: :attr:`Counts.linked_inputs`)."""

    def __init__(self, neuron: Any, counts: Counts) -> None:
        self.neuron, self.counts = neuron, counts
        self.w, self.b = neuron.w[0], neuron.b

    def __call__(self, x: Any) -> Any:
        out = self.neuron([x])
        self.counts.evaluated(x, out)
        return out

    def parameters(self) -> list[Any]:
        return [self.w, self.b]


def chain(weights: list[float], value_cls: Any, counts: Counts) -> list[Any]:
    """The chain of ``len(weights) // 2`` layers (``weights``: each layer's ``w`` then ``b``): the grader's layers
    when the grader's parts are there, else this probe's on the student's ``Value``."""
    if handles() is not None:  # (in the judge, on the reference: the grader's engine, its forward passes not asked)
        return [GraderUnit(layer.neurons[0], counts) for layer in handles().network().layers]
    return [OwnUnit(weights[2 * i], weights[2 * i + 1], value_cls, counts) for i in range(len(weights) // 2)]


def _counting_backward(value_cls: Any, counts: Counts) -> list[tuple[Any, str, Any]]:
    """In a self-check, the student's ``Value.backward`` wrapped to count its runs and the activations each reached."""
    if handles() is not None:
        return []
    original = value_cls.backward

    def backward(self: Any) -> Any:
        counts.backward(self)
        return original(self)
    return [(value_cls, "backward", backward)]


def _grads(layers: list[Any]) -> list[Any]:
    return [number(p.grad) for layer in layers for p in (layer.w, layer.b)]


def probe_run(mg: Any, ctx: Context, what: str, weights: list[float], x: float, every: int,
              checkpoints: list[float] | None = None, upstream: float = 1.0) -> dict[str, Any]:
    """Probe ``checkpointing_run``: one of the student's passes over the chain pinned to ``weights``, and that pass
    alone (each test runs only the function it is about).

    ``what``: ``"forward"``, ``forward(layers, Value(x))``, then ``backward()`` from its output (a plain
    backward pass, the probe's); ``"checkpointed_forward"``, ``checkpointed_forward(layers, x, every)``;
    ``"checkpointed_backward"``, ``checkpointed_backward(layers, checkpoints, every, upstream)`` on the checkpoints
    the request gives (the grader's: a bug in the student's ``checkpointed_forward`` changes nothing here).

    Returns:
        ``output`` (the output's data, or None), ``checkpoints`` (at most ``len(weights)`` numbers, or None; one that
        is not a plain ``float`` or ``int`` is a non-number marker), ``input_grad`` (the gradient of the input, or
        None), ``grads`` (each layer's ``w`` and ``b`` gradient), ``linked_inputs`` (layer evaluations on a new node
        whose graph holds an earlier layer's output: :attr:`Counts.linked_inputs`) and ``counted`` (the self-check's
        counts; None in hidden grading, where the judge counts).
    """
    counts = Counts()
    answer: dict[str, Any] = {"output": None, "checkpoints": None, "input_grad": None}
    with engine_in_use(mg, True, "checkpointing", NAMES) as value_cls:
        layers = chain(weights, value_cls, counts)
        module = mg.checkpointing
        with swapped(_counting_backward(value_cls, counts)):
            if what == "forward":
                leaf = value_cls(float(x))
                ctx.during = f"forward(layers, Value({x})) on a chain of {len(layers)} layers"
                out = module.forward(layers, leaf)
                answer["output"] = number(getattr(out, "data", out))
                if isinstance(out, value_cls):
                    ctx.during = "backward() from forward's output"
                    out.backward()
                    answer["input_grad"] = number(leaf.grad)
            elif what == "checkpointed_forward":
                ctx.during = f"checkpointed_forward(layers, {x}, every={every}) on a chain of {len(layers)} layers"
                y, kept = module.checkpointed_forward(layers, float(x), every)
                answer["output"] = number(y)
                answer["checkpoints"] = [plain(c) for c in list(kept)[:MAX_LAYERS]]
            elif what == "checkpointed_backward":
                ctx.during = (f"checkpointed_backward(layers, {checkpoints}, every={every}, upstream={upstream}) on "
                              f"a chain of {len(layers)} layers")
                answer["input_grad"] = number(module.checkpointed_backward(layers, list(checkpoints or []), every,
                                                                           upstream))
            else:
                raise ValueError(f"unknown pass {what!r}")
        answer["grads"] = _grads(layers)
    answer["linked_inputs"] = counts.linked_inputs
    answer["counted"] = None if handles() is not None else counts.record()
    return answer


def plain(checkpoint: Any) -> Any:
    """A checkpoint as a number if it is a plain one (of type ``float`` or ``int`` exactly), else a non-number marker:
    a subclass of ``float`` can carry the graph it was read from, and a ``Value`` holds its own."""
    if type(checkpoint) in (float, int):
        return number(checkpoint)
    return {NONNUMERIC: type(checkpoint).__name__, "repr": short_repr(checkpoint)}


def probe_cost(mg: Any, ctx: Context, n: int, every: int | None) -> dict[str, Any]:
    """Probe ``checkpointing_cost``: ``cost(n, every)``, or ``best_every(n)`` when ``every`` is None."""
    if every is None:
        ctx.during = f"best_every({n})"
        items = [mg.checkpointing.best_every(n)]
    else:
        ctx.during = f"cost({n}, {every})"
        got = mg.checkpointing.cost(n, every)
        items = list(got)[:3] if isinstance(got, (list, tuple)) else [got]
    # which were ints, so that feedback shows them as the student returned them (8, not 8.0)
    return {"result": [number(v) for v in items], "ints": [type(v) is int for v in items]}


def parse_run(value: Any, what: str, weights: list[Any], x: Any, every: int, checkpoints: Any = None,
              upstream: Any = 1.0) -> dict[str, Any]:
    got = record(value, "checkpointing_run", ("output", "checkpoints", "input_grad", "grads", "linked_inputs",
                                              "counted"))
    layers = len(weights) // 2
    answer: dict[str, Any] = {
        "output": None if got["output"] is None else numbers([got["output"]], "output", 1)[0],
        "checkpoints": None if got["checkpoints"] is None else numbers(got["checkpoints"], "checkpoints"),
        "input_grad": None if got["input_grad"] is None else numbers([got["input_grad"]], "input_grad", 1)[0],
        "grads": numbers(got["grads"], "grads", 2 * layers),
        "linked_inputs": count(got["linked_inputs"], "linked_inputs", MAX_ITEMS), "counted": None}
    if answer["checkpoints"] is not None and len(answer["checkpoints"]) > layers:
        raise MalformedAnswer(f"checkpoints: expected at most {layers} numbers")
    counted = got["counted"]
    if counted is not None:
        counted = record(counted, "counted", ("forward_passes", "backward_passes", "most_activations",
                                              "activations_reached", "most_alive"))
        answer["counted"] = {key: count(counted[key], key, MAX_ITEMS) for key in counted}
    return answer


def parse_cost(value: Any, n: int, every: Any) -> dict[str, Any]:
    got = record(value, "checkpointing_cost", ("result", "ints"))
    result = numbers(got["result"], "result")[:3]
    ints = got["ints"]
    if type(ints) is not list or len(ints) != len(result):
        raise MalformedAnswer(f"ints: expected {len(result)} flags, one per number")
    return {"result": result, "ints": [flag(v, f"ints[{k}]") for k, v in enumerate(ints)]}


PROBES = {"checkpointing_run": probe_run, "checkpointing_cost": probe_cost}
"""This module's probes (see ``grader.sandbox.probes``): each is ``probe(mg, ctx, *args)``."""
NEEDS = {name: ("micrograd.engine", "micrograd.checkpointing") for name in PROBES}
ANSWERS = {"checkpointing_run": parse_run, "checkpointing_cost": parse_cost}


def judged(probe: str, args: list[Any]) -> Any:
    """The judge's side of ``checkpointing_run`` (the part ``network_judge``; None in a self-check): the chain of the
    request's weights, one neuron of one input per layer, whose forward passes and ``backward()`` it computes and
    counts."""
    judge = part("network_judge")
    if judge is None or probe != "checkpointing_run":
        return None
    weights = [float(w) for w in args[1]]
    return judge.Network([(1, 1, True)] * (len(weights) // 2), weights, backward=True, network=True,
                         calls={"Neuron"}, activations=True)


JUDGED = {name: functools.partial(judged, name) for name in PROBES}
"""The judge's side of each probe (see ``grader.sandbox.probes``): judge only."""
