"""Probes on ``nn.py``: parameters, forward values, gradients, structure and training.

A *model spec* is ``{"kind": "Neuron"|"Layer"|"MLP", "args": [...],
"kwargs": {...}, "seed": int, "weights": [floats] | None, "engine":
"grader"|"student", "build": "student"|"parts"}``.

``engine``: the ``Value`` the network computes with. ``"grader"`` puts the
grader's ``Value`` in place of the student's for the duration of the probe
(every name in ``engine.py`` and ``nn.py`` bound to the student's ``Value``),
so an engine bug costs no network points; ``"student"`` (the default) keeps
the student's engine.

The grader's ``Value`` and parts in a worker are handles (the part
``recording``): the ``Value`` computes forward values and records the graph,
and the judge computes its gradients; the grader's ``Neuron``, ``Layer`` and
``MLP`` are made and run by the judge (the part ``network_judge``), which
answers only what the probe needs (:data:`JUDGED`): the grader's neurons'
forward pass while the student's ``Layer.__call__`` is tested, never while
its own ``Neuron.__call__`` is. Hidden grading has them, a student's
self-check does not: without them every probe runs on the student's own engine
and parts (``"grader"`` and ``"parts"`` act as ``"student"``), so the
self-check gives up fault isolation for the network, never correctness.

``build``: who makes the model. ``"student"`` (the default) calls the
student's constructor with a seeded ``random`` and, when the spec has
weights, sets them through ``parameters()`` (the documented order: layer by
layer, neuron by neuron, weights then bias), so no probe relies on the order
of random-number use. ``"parts"`` makes only the outer object with the
student's class (its ``__init__`` when that works, else without it) and sets
its parts to the grader's, pinned to the spec's weights: a ``Neuron``'s
``w``, ``b`` and ``nonlin``, a ``Layer``'s ``neurons``, an ``MLP``'s
``layers`` (the attributes the handout names). A test on such a model runs
only the student's method it is about. A model whose ``__init__`` works but
does not have that attribute (a ``Layer`` holding a weight matrix, say) is
another design than the handout's: it is built as with ``"student"``.
"""

from __future__ import annotations

import functools
import random
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypedDict

from assignments.shared.probes.engine_probes import value_results
from probekit import (
    MAX_ITEMS,
    Context,
    MalformedAnswer,
    Number,
    Output,
    ProbeError,
    Watched,
    count,
    flag,
    number,
    numbers,
    part,
    read_output,
    record,
    short_repr,
    watched,
)

KINDS = ("Neuron", "Layer", "MLP")
PARTS = {"Neuron": "w", "Layer": "neurons", "MLP": "layers"}
"""The attribute that holds each kind's parts (the handout's names; the given ``__repr__`` reads them)."""


def layers(kind: str, *args: Any, nonlin: bool = True) -> list[tuple[int, int, bool]]:
    """``(nin, nout, nonlin)`` of each layer: a Neuron is a layer of one; an MLP's last layer is linear."""
    if kind == "Neuron":
        return [(args[0], 1, nonlin)]
    if kind == "Layer":
        return [(args[0], args[1], nonlin)]
    sizes = [args[0], *args[1]]
    return [(sizes[i], sizes[i + 1], i != len(args[1]) - 1) for i in range(len(args[1]))]


@contextmanager
def swapped(swaps: Sequence[tuple[Any, str, Any]]) -> Iterator[None]:
    """Set ``module.name = obj`` for each ``(module, name, obj)`` while the block runs, then put the old ones back."""
    old = [(module, name, getattr(module, name)) for module, name, _ in swaps]
    try:
        for module, name, obj in swaps:
            setattr(module, name, obj)
        yield
    finally:
        for module, name, obj in reversed(old):
            setattr(module, name, obj)


def rebound(mg: Any, theirs: Any, ours: Any, module: str = "nn",
            names: Sequence[str] = (*KINDS, "Module")) -> list[tuple[Any, str, Any]]:
    """The swaps that bind ``ours`` to every global name of the student's modules bound to ``theirs``.

    The modules are ``engine``, ``mg.<module>`` and those its ``names`` (classes, functions) were defined in (a
    notebook's code lives in one module of its own). Later assignments pass their own module and names
    (``"classifier"`` and its functions).
    """
    graded = getattr(mg, module)
    modules = {id(m): m for m in (mg.engine, graded)}
    for name in names:
        found = sys.modules.get(getattr(getattr(graded, name, None), "__module__", None) or "")
        if found is not None:
            modules.setdefault(id(found), found)
    return [(m, name, ours) for m in modules.values() for name, obj in list(vars(m).items()) if obj is theirs]


def handles() -> Any:
    """The grader's ``Value`` and parts: in a worker, the recording ``Value`` and the handles the judge answers (the
    part ``recording``); in the judge, where the probes run on the reference, the grader's engine itself (the part
    ``stand_ins``, which no worker holds: the same numbers, without a question per step); None without them (a
    self-check)."""
    return part("stand_ins") or part("recording")


BELOW = {"Neuron": (), "Layer": ("Neuron",), "MLP": ("Layer", "Neuron")}
"""The grader's parts a model of each kind may hold (``"build": "parts"``), or a constructor under test may make in
place of the student's classes (:func:`probe_structure`)."""


@contextmanager
def engine_in_use(mg: Any, grader: bool, module: str = "nn", names: Sequence[str] = (*KINDS, "Module")
                  ) -> Iterator[type]:
    """With ``grader`` (and the grader's parts), the grader's ``Value`` in place of the student's in the student's
    modules (:func:`rebound`) while the block runs; yields the class in use. Without the parts (a self-check),
    the student's own."""
    theirs = mg.engine.Value
    ours = handles()
    if not grader or ours is None:
        if ours is not None and isinstance(theirs, type) and issubclass(theirs, ours.Value):
            raise ProbeError("your Value is the grader's own Value (there only so that the other tests "
                             "do not depend on your engine): this test runs your own engine")
        yield theirs
        return
    with swapped(rebound(mg, theirs, ours.Value, module, names)):
        yield ours.Value


def grader_engine(mg: Any, spec: dict[str, Any]) -> Any:
    """With ``"engine": "grader"`` in ``spec``, the grader's ``Value`` in place of the student's (:func:`engine_in_use`)."""
    return engine_in_use(mg, spec.get("engine", "student") == "grader")


def _call(spec: dict[str, Any]) -> str:
    args, kwargs = spec.get("args", []), spec.get("kwargs", {})
    return f"{spec['kind']}({', '.join(map(repr, args))}{''.join(f', {k}={v!r}' for k, v in kwargs.items())})"


def make_model(mg: Any, spec: dict[str, Any], ctx: Context, value_cls: Any) -> tuple[Any, Any]:
    """Build the model of ``spec`` (see the module's docstring); ``value_cls``: the ``Value`` in use.

    Returns:
        The model, and with ``"build": "parts"`` the grader's own network of
        the same parts (its ``parameters()`` in the documented order), else ``None``.
    """
    kind = spec["kind"]
    if kind not in KINDS:
        raise ValueError(f"unknown model kind {kind!r}")
    args, kwargs, call = spec.get("args", []), spec.get("kwargs", {}), _call(spec)
    random.seed(spec.get("seed", 0))
    cls = getattr(mg.nn, kind)
    if spec.get("build", "student") == "parts" and handles() is not None:
        ctx.during = f"{call} (the grader then sets its parts)"
        model, own = made_for_parts(cls, [(args, kwargs), (args, {})])  # then nonlin left out: its default
        if own and not holds_parts(model, kind) and _inits(model):
            return _pin(model, spec, ctx, value_cls), None  # another design than the handout's
        return model, _set_parts(model, spec, ctx)
    ctx.during = call
    model = cls(*args, **kwargs)
    return _pin(model, spec, ctx, value_cls), None


def made_for_parts(cls: type, tries: Sequence[tuple[Sequence[Any], dict[str, Any]]]) -> tuple[Any, bool]:
    """An object of the student's class ``cls`` for the grader's parts: made by the first of ``tries`` (arguments,
    keyword arguments) that its ``__init__`` accepts, the spec's own first, else without ``__init__``.

    The grader's parts then replace what it made, so which activation (or ``nonlin``) it was made with does not
    matter; what matters is that the attributes of the student's own that ``__init__`` sets (a count of inputs,
    say) are there for the method under test. A constructor that refuses the spec's activation is thus charged in
    the constructor's tests alone, never in those of the method that runs on the grader's parts.

    Returns:
        The object, and whether the spec's own arguments (the first of ``tries``) made it.
    """
    for k, (args, kwargs) in enumerate(tries):
        try:
            return cls(*args, **kwargs), k == 0
        except Exception:  # noqa: BLE001 - a missing or broken __init__ (or one the judge refused parts) is
            continue  # not what this test is about: the grader's parts replace what it made
    return cls.__new__(cls), False


def holds_parts(model: Any, kind: str) -> bool:
    """Whether ``model`` keeps its parts where the handout does (:data:`PARTS`), as a list or tuple: a layer whose
    ``neurons`` is a count and whose neurons are under another name is another design, whose own parts its
    ``__call__`` and ``parameters()`` use (the grader's, set there, would be ignored)."""
    return isinstance(getattr(model, PARTS[kind], None), (list, tuple))


def _inits(model: Any) -> bool:
    """Whether ``model`` went through its own ``__init__`` (it has some attribute of its own)."""
    try:
        return bool(vars(model))
    except TypeError:
        return False


def _pin(model: Any, spec: dict[str, Any], ctx: Context, value_cls: Any) -> Any:
    """Set the spec's weights (if any) through ``parameters()`` (the student's model's, made of the student's own
    parts); return the model."""
    call = _call(spec)
    weights = spec.get("weights")
    if weights is not None:
        params = parameters(model, ctx)
        if len(params) != len(weights):
            raise ProbeError(f"{call}.parameters() returned {len(params)} values, expected {len(weights)}")
        ctx.during = "setting p.data for each p in parameters()"
        for p, w in zip(params, weights):
            p.data = w
    return model


def _set_parts(model: Any, spec: dict[str, Any], ctx: Context) -> Any:
    """Give ``model`` the grader's parts, pinned to the spec's weights (the judge makes them: the spec is its
    request's); return the grader's network of those parts."""
    ctx.during = f"setting the grader's parts in {_call(spec)}"
    network = handles().network()
    first = network.layers[0]
    if spec["kind"] == "Neuron":
        neuron = first.neurons[0]
        model.w, model.b, model.nonlin = neuron.w, neuron.b, neuron.nonlin
    elif spec["kind"] == "Layer":
        model.neurons = first.neurons
    else:
        model.layers = network.layers
    return network


def network_results(mg: Any) -> Watched:
    """The student's methods that must not return None (``ctx.watch``, see :func:`probekit.watched`): the network's
    forward passes and ``parameters()``, and the engine's operations (the grader's own ``Value``, when it stands in
    for the student's, is not the student's: its methods are not watched)."""
    found: list[tuple[Any, str, str]] = [(getattr(mg.nn, "Module", None), "parameters", "Module.parameters")]
    for kind in KINDS:
        found += [(getattr(mg.nn, kind, None), name, f"{kind}.{name}") for name in ("__call__", "parameters")]
    return [*found, *value_results(mg.engine.Value)]


def parameters(model: Any, ctx: Context) -> list[Any]:
    """Return ``model.parameters()`` as a list (a method that returned None is named: :func:`probekit.watched`)."""
    ctx.during = "calling parameters()"
    return list(watched(lambda: model.parameters(), f"{_described(model)}.parameters()", ctx.watch))


def forward(model: Any, x: Any, ctx: Context) -> Any:
    """``model(x)`` (a method that returned None is named: :func:`probekit.watched`)."""
    return watched(functools.partial(model, x), f"{_described(model)}(x)", ctx.watch)


def _described(model: Any) -> str:
    """The model as a message names it: ``neuron``, ``layer``, ``mlp`` (its class's name in lower case), or ``model``."""
    kind = type(model).__name__
    return kind.lower() if kind in KINDS else "model"


def output(out: Any) -> Any:
    """Plain form of a model's output: a number, or a list of numbers."""
    if isinstance(out, (list, tuple)):
        return {"list": [number(getattr(o, "data", o)) for o in out]}
    if hasattr(out, "data"):
        return {"value": number(out.data)}
    return {"other": type(out).__name__, "repr": short_repr(out)}


def _as_scalar(out: Any) -> Any:
    if isinstance(out, (list, tuple)):
        total = out[0]
        for o in out[1:]:
            total = total + o
        return total
    return out



def parameter_facts(first: list[Any], second: list[Any], value_cls: type, own: list[Any] | None) -> dict[str, Any]:
    """What two calls of ``parameters()`` returned: how many, how many distinct objects, whether all are the
    engine's ``Value``, whether the second call returned the same objects, their data, and each one's place among
    ``own`` (the parameters the grader knows the model holds; -1: not one of them; None: not known)."""
    index = {id(p): i for i, p in enumerate(own or [])}
    return {
        "count": len(first),
        "distinct": len({id(p) for p in first}),
        "all_values": all(isinstance(p, value_cls) for p in first),
        "stable": len(first) == len(second) and all(a is b for a, b in zip(first, second)),
        "data": [number(getattr(p, "data", None)) for p in first],
        "identity": None if own is None else [index.get(id(p), -1) for p in first],
    }

FACTS = ("count", "distinct", "all_values", "stable", "data", "identity")
"""The fields :func:`parameter_facts` reports."""


def read_facts(got: dict[str, Any]) -> dict[str, Any]:
    """The :data:`FACTS` of an answer (``record``-ed with them, and maybe more fields), each bounded by ``count``; the
    identity must be known (one index per parameter)."""
    total = count(got["count"], "count", MAX_ITEMS)
    identity = got["identity"]
    if type(identity) is not list or len(identity) != total:
        raise MalformedAnswer(f"identity: expected {total} indices, one per parameter")
    return {"count": total, "distinct": count(got["distinct"], "distinct", total),
            "all_values": flag(got["all_values"], "all_values"), "stable": flag(got["stable"], "stable"),
            "data": numbers(got["data"], "data", total),
            "identity": [count(i, f"identity[{k}]", MAX_ITEMS, -1) for k, i in enumerate(identity)]}


def probe_parameters(mg: Any, spec: dict[str, Any], ctx: Context, x: list[float] | None = None) -> dict[str, Any]:
    """Probe ``nn_parameters``: count, data and identity of ``parameters()``.

    With ``x``, also the model's output on it: what the judge recomputes from
    ``data`` to confirm that those numbers are the model's live weights. With
    ``"build": "parts"``, ``identity`` gives, for each parameter returned, its
    index among the grader's own parts' parameters (-1 for any other object):
    ``[0, 1, 2, ...]`` when ``parameters()`` returns the live objects in order;
    the output on ``x`` is then the grader's own network's.
    """
    ctx.watch = network_results(mg)
    with grader_engine(mg, spec) as value_cls:
        model, network = make_model(mg, spec, ctx, value_cls)
        first, second = parameters(model, ctx), parameters(model, ctx)
        own = None if network is None else list(network.parameters())
        answer = {**parameter_facts(first, second, value_cls, own), "output": None}
        if x is not None:
            ctx.during = f"forward pass on x = {x!r}"
            if network is not None:  # the grader's own network
                answer["output"] = output(forward(network, x, ctx))
            else:
                answer["output"] = output(forward(model, x, ctx))
    return answer


def probe_forward(mg: Any, spec: dict[str, Any], inputs: list[list[float]], ctx: Context) -> dict[str, Any]:
    """Probe ``nn_forward``: the model's output for each input vector."""
    ctx.watch = network_results(mg)
    with grader_engine(mg, spec) as value_cls:
        model, network = make_model(mg, spec, ctx, value_cls)
        outs = []
        for x in inputs:
            ctx.during = f"forward pass on x = {x!r}"
            outs.append(output(forward(model, x, ctx)))
    return {"outputs": outs}


def probe_backward(mg: Any, spec: dict[str, Any], x: list[float], ctx: Context) -> dict[str, Any]:
    """Probe ``nn_backward``: gradients of the (summed) output w.r.t. the parameters.

    The parameters are ``parameters()``'s, or with ``"build": "parts"`` the
    grader's own (in the documented order), so only the forward pass is the student's.
    """
    ctx.watch = network_results(mg)
    with grader_engine(mg, spec) as value_cls:
        model, network = make_model(mg, spec, ctx, value_cls)
        params = None if network is None else network.parameters()
        if params is None:
            params = parameters(model, ctx)
        ctx.during = f"forward pass on x = {x!r}"
        out = _as_scalar(forward(model, x, ctx))
        ctx.during = "backward() on the output"
        out.backward()
        return {"grads": [number(p.grad) for p in params]}


def probe_zero_grad(mg: Any, spec: dict[str, Any], x: list[float], ctx: Context) -> dict[str, Any]:
    """Probe ``nn_zero_grad``: set every parameter's grad to 1, call ``zero_grad()``, then run forward on ``x``.

    Needs no ``backward()``. Reports the parameters' data and gradients after
    ``zero_grad()`` and the output on ``x`` computed after it, which the judge
    recomputes from ``data``: zeros alone are easy to make up, a forward pass
    that agrees with the reported weights is not. With ``"build": "parts"``
    the student's ``zero_grad`` (looked up on the spec's class) runs on the
    grader's own network, whose ``parameters()`` and forward pass are the grader's.
    """
    ctx.watch = network_results(mg)
    with grader_engine(mg, spec) as value_cls:
        parts = spec.get("build", "student") == "parts" and handles() is not None
        if parts:
            ctx.during = f"setting up the grader's {_call(spec)}"
            model = handles().network()
            _delegate_zero_grad(mg, model)
            ctx.during = f"looking up {spec['kind']}.zero_grad"
            zero_grad = getattr(mg.nn, spec["kind"]).zero_grad
        else:
            model, _ = make_model(mg, spec, ctx, value_cls)
            zero_grad = type(model).zero_grad
        params = parameters(model, ctx)
        ctx.during = "setting p.grad = 1.0 for each p in parameters()"
        for p in params:
            p.grad = 1.0
        ctx.during = "zero_grad()"
        zero_grad(model)
        if grads_set_to_none(params):
            raise ProbeError(NONE_GRAD_TEXT.format(who="zero_grad()"))
        after = [number(p.grad) for p in params]
        ctx.during = f"forward pass on x = {x!r} after zero_grad()"
        out = output(forward(model, x, ctx))
        return {"data": [number(p.data) for p in params], "after_zero_grad": after, "output": out}


def _delegate_zero_grad(mg: Any, network: Any) -> None:
    """Give the grader's parts the student's ``Layer.zero_grad``/``Neuron.zero_grad``, for a ``zero_grad`` that
    calls each of its parts' own ``zero_grad`` rather than looping over ``parameters()``."""
    layer_zero_grad = getattr(getattr(mg.nn, "Layer", None), "zero_grad", None)
    neuron_zero_grad = getattr(getattr(mg.nn, "Neuron", None), "zero_grad", None)
    for layer in network.layers:  # where the student has none, the grader's part has none either
        if layer_zero_grad is not None:
            layer.zero_grad = functools.partial(layer_zero_grad, layer)
        for neuron in layer.neurons:
            if neuron_zero_grad is not None:
                neuron.zero_grad = functools.partial(neuron_zero_grad, neuron)


def probe_structure(mg: Any, spec: dict[str, Any], x: list[float], ctx: Context) -> dict[str, Any]:
    """Probe ``nn_structure``: what the student's constructor built, read through the handout's attributes.

    A ``Layer`` is built with the grader's ``Neuron`` in place of the
    student's, an ``MLP`` with the grader's ``Layer``, so only the constructor
    under test runs; the grader's parts keep the arguments they were given (the judge makes them).

    Returns:
        ``{"parts": [[nin, nout, nonlin], ...], "distinct": n, "all_values": bool,
        "data": [...], "output": ...}``: one entry per neuron (``Neuron``,
        ``Layer``) or per layer (``MLP``), with -1 for a size and ``None`` for
        a ``nonlin`` that is not a number or bool; how many distinct objects
        the parameters are; whether all are ``Value``; their data in the
        documented order; and the output that the built parts give on ``x``
        (computed with the grader's parts), which the judge recomputes from ``data``.
    """
    ctx.watch = network_results(mg)
    kind = spec["kind"]
    inner = {"Layer": "Neuron", "MLP": "Layer"}.get(kind)
    ours = handles()
    with grader_engine(mg, spec) as value_cls:
        swaps = rebound(mg, getattr(mg.nn, inner), getattr(ours, inner)) if inner and ours is not None else []
        with swapped(swaps):  # the constructor under test, with the grader's parts
            model = _constructed(mg, spec, ctx)
        ctx.during = f"reading what {_call(spec)} built"
        if kind != "Neuron" and not holds_parts(model, kind):  # another design: measured through parameters()
            params = parameters(model, ctx)
            ctx.during = f"forward pass on x = {x!r}"
            return _measured(None, params, model, value_cls, x, ctx)
        if ours is None:  # a self-check: the student's own parts, read through the handout's attributes
            parts = _own_parts(model, kind, spec, ctx)
            params = parameters(model, ctx)
            ctx.during = f"forward pass on x = {x!r} through {_call(spec)}"
            return _measured(parts, params, model, value_cls, x, ctx)
        if kind == "Neuron":  # a missing nonlin is the contract test's (nn_contract): the weights are still measured
            nonlin = getattr(model, "nonlin", spec.get("kwargs", {}).get("nonlin", True))
            neuron = ours.wrapping(list(model.w), model.b, _flag(nonlin))
            built: list[Any] = [neuron]
            parts = [[_size(len(neuron.w)), 1, neuron.nonlin]]
        else:
            built = list(getattr(model, PARTS[kind]))
            want = ours.Neuron if kind == "Layer" else ours.Layer
            for part in built:
                if not isinstance(part, want):
                    raise ProbeError(f"{_call(spec)}.{PARTS[kind]} holds {type(part).__name__} {short_repr(part)}, "
                                     f"expected the {inner}s its __init__ made")
            parts = [[_size(p.nin), _size(getattr(p, "nout", 1)), _flag(p.nonlin)] for p in built]
        if kind != "MLP":  # the neurons made, as one layer
            built = [ours.composed("Layer", built)]
        network = ours.composed("MLP", built)
        ctx.during = f"forward pass on x = {x!r} through the parts {_call(spec)} built"
        return _measured(parts, network.parameters(), network, value_cls, x, ctx)


def _constructed(mg: Any, spec: dict[str, Any], ctx: Context) -> Any:
    """The student's model of ``spec`` as its constructor builds it (no weights set)."""
    if spec["kind"] not in KINDS:
        raise ValueError(f"unknown model kind {spec['kind']!r}")
    random.seed(spec.get("seed", 0))
    ctx.during = _call(spec)
    return getattr(mg.nn, spec["kind"])(*spec.get("args", []), **spec.get("kwargs", {}))


def _own_parts(model: Any, kind: str, spec: dict[str, Any], ctx: Context) -> list[list[Any]]:
    """``nn_structure``'s parts read from the student's own objects (a self-check, without the grader's parts to
    record what each part was made with): a neuron's inputs from ``len(w)``, a layer's size from ``len(neurons)``."""
    ctx.during = f"reading {_call(spec)}.{PARTS[kind]}"
    if kind == "Neuron":
        return [[_size(len(model.w)), 1, _flag(getattr(model, "nonlin", None))]]
    if kind == "Layer":
        return [[_size(len(n.w)), 1, _flag(getattr(n, "nonlin", None))] for n in model.neurons]
    rows = []
    for layer in model.layers:
        neurons = list(getattr(layer, "neurons", []))
        first = neurons[0] if neurons else None
        rows.append([_size(len(first.w)) if first is not None else -1, _size(len(neurons)),
                     _flag(getattr(layer, "nonlin", getattr(first, "nonlin", None)))])
    return rows


def _measured(parts: list[list[Any]] | None, params: list[Any], model: Any, value_cls: type,
              x: list[float], ctx: Context) -> dict[str, Any]:
    """``nn_structure``'s answer: the parts, what the parameters are, and ``model``'s output on ``x``."""
    return {"parts": parts, "distinct": len({id(p) for p in params}),
            "all_values": all(isinstance(p, value_cls) for p in params),
            "data": [number(getattr(p, "data", None)) for p in params], "output": output(forward(model, x, ctx))}


def _size(n: Any) -> int:
    return n if type(n) is int and 0 <= n <= 100_000 else -1


def _flag(nonlin: Any) -> bool | None:
    return bool(nonlin) if type(nonlin) in (bool, int) else None


def probe_train(
    mg: Any,
    spec: dict[str, Any],
    xs: list[list[float]],
    ys: list[float],
    lr: float,
    steps: int,
    margin: float | None,
    ctx: Context,
) -> dict[str, Any]:
    """Probe ``nn_train``: full-batch SGD on the mean squared error.

    Each step: forward on every input, loss = mean((pred - y)**2), zero_grad,
    backward, ``p.data -= lr * p.grad``. With ``margin`` set, training stops
    before a step once ``pred * y > margin`` holds for every point.

    Returns:
        ``{"initial": [...], "losses": [...], "steps": n, "preds": [...], "final": [...]}``:
        the parameters' data before training, the loss before each step and
        after the last (``n + 1`` values), the number of SGD steps taken, the
        final predictions and the parameters' data after training. The judge
        decides convergence itself, from ``final``, and can replay training
        from ``initial`` with the reference to check the trajectory.
    """
    ctx.watch = network_results(mg)
    with grader_engine(mg, spec) as value_cls:
        model, network = make_model(mg, spec, ctx, value_cls)
        return _train(model, xs, ys, lr, steps, margin, ctx)


def _train(model: Any, xs: list[list[float]], ys: list[float], lr: float, steps: int, margin: float | None,
           ctx: Context) -> dict[str, Any]:
    params = parameters(model, ctx)
    initial = [number(p.data) for p in params]
    losses: list[Any] = []
    step = 0
    missing = None
    while True:
        ctx.during = f"training step {step}: forward pass"
        preds = [forward(model, x, ctx) for x in xs]
        values = [number(p.data) for p in preds]
        ctx.during = f"training step {step}: loss"
        loss = sum((p - y) ** 2 for p, y in zip(preds, ys)) * (1.0 / len(ys))
        losses.append(number(loss.data))
        if margin is not None and all(isinstance(v, float) and v * y > margin for v, y in zip(values, ys)):
            break
        if step == steps:
            break
        ctx.during = f"training step {step}: zero_grad()"
        missing = _zero_grad(model, params) or missing
        ctx.during = f"training step {step}: backward()"
        loss.backward()
        ctx.during = f"training step {step}: SGD update"
        for p in params:
            p.data -= lr * p.grad
        step += 1
    return {"initial": initial, "losses": losses, "steps": step, "preds": values,
            "final": [number(p.data) for p in params], "zero_grad": missing}


def _zero_grad(model: Any, params: list[Any]) -> str | None:
    """``model.zero_grad()``; where the student has no ``zero_grad`` (none defined, or the template's stub), the
    training loop's own ``p.grad = 0.0`` on ``params`` instead, so that training measures the network (the missing
    method costs its own tests only); likewise where it set a ``p.grad`` to None (:func:`grads_set_to_none`).
    Returns why it stood in (:data:`ZERO_GRAD_STAND_INS`), else None."""
    if not callable(getattr(model, "zero_grad", None)):
        why = "missing"
    else:
        try:
            model.zero_grad()
            return NONE_GRAD if grads_set_to_none(params) else None
        except NotImplementedError:
            why = "not written"
    for p in params:
        p.grad = 0.0
    return why


NONE_GRAD = "None"
"""Why training zeroed the gradients itself: the student's ``zero_grad`` set them to None (PyTorch's way)."""
NONE_GRAD_TEXT = ("{who} set p.grad to None; the handout's zero_grad sets p.grad = 0.0 (micrograd's convention: grad "
                  "is a float, which backward() adds to with +=)")
"""What a probe says when a ``zero_grad`` of the student's set gradients to None (``who``: that method)."""


def grads_set_to_none(params: Sequence[Any]) -> bool:
    """Whether a ``zero_grad`` just run left some ``p.grad`` of ``params`` None (``p.grad = None``, PyTorch's
    convention): those are set to 0.0, so that nothing after it (a backward pass, the next probe on the grader's
    Values) fails on the None with a message about something else."""
    found = False
    for p in params:
        if getattr(p, "grad", 0.0) is None:
            p.grad, found = 0.0, True
    return found


# --- answers: one parser per probe, bounded by the request's own arguments -------------------------------------

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
    zero_grad: str | None


ZERO_GRAD_STAND_INS = ("missing", "not written", NONE_GRAD)
"""Why ``nn_train`` set the gradients to 0 itself (the student's ``zero_grad`` was not there to call)."""


def parse_parameters(value: Any, spec: dict[str, Any], x: Any = None) -> ParametersAnswer:
    got = record(value, "nn_parameters", ("count", "distinct", "all_values", "stable", "data", "identity", "output"))
    data = numbers(got["data"], "data")
    total = count(got["count"], "count", MAX_ITEMS)
    if total != len(data):
        raise MalformedAnswer(f"count: {total} parameters but {len(data)} values in data")
    out = None if got["output"] is None and x is None else read_output(got["output"], "output")
    identity = got["identity"]
    if identity is not None:
        if type(identity) is not list or len(identity) != total:
            raise MalformedAnswer(f"identity: expected {total} indices, one per parameter")
        identity = [count(i, f"identity[{k}]", MAX_ITEMS, -1) for k, i in enumerate(identity)]
    return ParametersAnswer(count=total, distinct=count(got["distinct"], "distinct", total),
                            all_values=flag(got["all_values"], "all_values"), stable=flag(got["stable"], "stable"),
                            data=data, identity=identity, output=out)


def parse_forward(value: Any, spec: dict[str, Any], inputs: list[Any]) -> ForwardAnswer:
    got = record(value, "nn_forward", ("outputs",))
    outputs = got["outputs"]
    if type(outputs) is not list or len(outputs) != len(inputs):
        raise MalformedAnswer(f"outputs: expected {len(inputs)} outputs, one per input")
    return ForwardAnswer(outputs=[read_output(o, f"outputs[{i}]") for i, o in enumerate(outputs)])


def parse_backward(value: Any, spec: dict[str, Any], x: Any) -> BackwardAnswer:
    got = record(value, "nn_backward", ("grads",))
    return BackwardAnswer(grads=numbers(got["grads"], "grads"))


def parse_zero_grad(value: Any, spec: dict[str, Any], x: Any) -> ZeroGradAnswer:
    got = record(value, "nn_zero_grad", ("data", "after_zero_grad", "output"))
    data = numbers(got["data"], "data")
    return ZeroGradAnswer(data=data, after_zero_grad=numbers(got["after_zero_grad"], "after_zero_grad", len(data)),
                          output=read_output(got["output"], "output"))


def parse_structure(value: Any, spec: dict[str, Any], x: Any) -> StructureAnswer:
    got = record(value, "nn_structure", ("parts", "distinct", "all_values", "data", "output"))
    found = got["parts"]
    if found is not None and (type(found) is not list or len(found) > MAX_ITEMS):
        raise MalformedAnswer(f"parts: expected a list of at most {MAX_ITEMS} parts, or null")
    shapes: list[tuple[int, int, bool | None]] = []
    for k, item in enumerate(found or []):
        if type(item) is not list or len(item) != 3 or (item[2] is not None and type(item[2]) is not bool):
            raise MalformedAnswer(f"parts[{k}]: expected [nin, nout, nonlin]")
        shapes.append((count(item[0], f"parts[{k}][0]", MAX_ITEMS, -1), count(item[1], f"parts[{k}][1]", MAX_ITEMS, -1),
                       item[2]))
    data = numbers(got["data"], "data")
    return StructureAnswer(parts=None if found is None else shapes, distinct=count(got["distinct"], "distinct", len(data)),
                           all_values=flag(got["all_values"], "all_values"), data=data,
                           output=read_output(got["output"], "output"))


def parse_train(value: Any, spec: dict[str, Any], xs: list[Any], ys: Any, lr: Any, steps: int, margin: Any) -> TrainAnswer:
    got = record(value, "nn_train", ("initial", "losses", "steps", "preds", "final", "zero_grad"))
    taken = count(got["steps"], "steps", steps)
    initial = numbers(got["initial"], "initial")
    if got["zero_grad"] is not None and got["zero_grad"] not in ZERO_GRAD_STAND_INS:
        raise MalformedAnswer(f"zero_grad: expected one of {ZERO_GRAD_STAND_INS} or None")
    return TrainAnswer(initial=initial, losses=numbers(got["losses"], "losses", taken + 1), steps=taken,
                       preds=numbers(got["preds"], "preds", len(xs)),
                       final=numbers(got["final"], "final", len(initial)), zero_grad=got["zero_grad"])


PROBES = {
    "nn_parameters": lambda mg, ctx, spec, x=None: probe_parameters(mg, spec, ctx, x),
    "nn_forward": lambda mg, ctx, spec, inputs: probe_forward(mg, spec, inputs, ctx),
    "nn_backward": lambda mg, ctx, spec, x: probe_backward(mg, spec, x, ctx),
    "nn_zero_grad": lambda mg, ctx, spec, x: probe_zero_grad(mg, spec, x, ctx),
    "nn_structure": lambda mg, ctx, spec, x: probe_structure(mg, spec, x, ctx),
    "nn_train": lambda mg, ctx, spec, xs, ys, lr, steps, margin: probe_train(mg, spec, xs, ys, lr, steps, margin, ctx),
}
"""This module's probes (see ``grader.sandbox.probes``)."""
NEEDS = {name: ("micrograd.engine", "micrograd.nn") for name in PROBES}


def judged(probe: str, args: list[Any]) -> Any:
    """The judge's side of one call of ``probe`` (the part ``network_judge``; None without the grader's parts, in
    a self-check): what the grader's ``Value`` and parts may do while it runs.

    The grader's ``Value`` gets its gradients when the probe runs on it; the
    grader's network is made once, for a ``"parts"`` model; its parts run
    (``call``) and list their parameters only where the method under test is
    the one above them (:data:`BELOW`: the student's ``Layer.__call__`` on the
    grader's neurons), and where the probe itself needs them (the grader's
    network's own output, to check the reported weights): never the part the
    test is about. A constructor under test gets the grader's parts one level
    down (``make``) and the probe measures them (``compose``).
    """
    judge = part("network_judge")
    spec = args[0]
    kind = spec["kind"]
    parts = spec.get("build", "student") == "parts"
    if judge is None or kind not in KINDS:
        return None
    below = set(BELOW[kind]) if parts else set()
    calls, params, makes = set(below), set(below), set()
    if probe == "nn_parameters":
        params |= {"MLP"} if parts else set()
        calls = {"MLP"} if parts and len(args) > 1 and args[1] is not None else set()
    elif probe == "nn_backward":
        params |= {"MLP"} if parts else set()
    elif probe == "nn_zero_grad":
        calls = params = set(KINDS) if parts else set()
    elif probe == "nn_structure":
        makes = set(BELOW[kind][:1])
        calls = params = {*BELOW[kind], "MLP"}
    return judge.Network(layers(kind, *spec.get("args", []), **spec.get("kwargs", {})), spec.get("weights"),
                         spec.get("seed", 0), backward=spec.get("engine", "student") == "grader" or parts,
                         network=parts and probe != "nn_structure", calls=calls, parameters=params, makes=makes,
                         compose=probe == "nn_structure")


JUDGED = {name: functools.partial(judged, name) for name in PROBES}
"""The judge's side of each probe (see ``grader.sandbox.probes``): judge only."""
ANSWERS = {
    "nn_parameters": parse_parameters,
    "nn_forward": parse_forward,
    "nn_backward": parse_backward,
    "nn_zero_grad": parse_zero_grad,
    "nn_structure": parse_structure,
    "nn_train": parse_train,
}
