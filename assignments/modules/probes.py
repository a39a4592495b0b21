"""The probes of assignment ``modules``: they run the student's ``micrograd/modules.py`` in the sandbox.

Fault isolation. Every probe computes with the grader's own ``Value`` (the part
``recording`` in a worker: forward values and the graph, whose gradients the
judge computes) in place of the student's: each name of the student's modules
bound to the student's ``Value`` is bound to the grader's while the probe runs,
so an engine bug costs no points here (the engine is graded in assignments 1 and
2). Then each probe runs one of the student's methods on what the grader made:

* ``Linear.forward`` and ``Linear.parameters`` run on a ``Linear`` whose
  ``weight`` and ``bias`` the grader set (its ``__init__`` runs first when it
  works, and a broken one is not what those tests are about);
* ``Sequential`` runs on the grader's *stand-in modules* (:class:`StandIn`):
  small modules that scale, shift or reverse a vector, with one parameter each.
  They are not ``Linear`` or an activation, so they hold no answer, and a bug
  in ``Linear`` or ``Tanh`` costs no ``Sequential`` points;
* ``train`` runs on a stand-in model, with a stand-in optimiser (a sign step,
  not SGD) and a stand-in loss in place of ``mse_loss`` (half the summed
  squares, not the mean), so a bug in ``SGD``, ``mse_loss`` or the layers costs
  no ``train`` points.

Without the grader's parts (a student's self-check) every probe runs on the
student's own engine: the self-check gives up fault isolation from the engine,
never correctness.

Probes measure, never decide: they return the numbers (outputs, gradients,
weights, losses) and the judge compares them with the reference's or with what
math says. Weights are in the documented order: ``Linear``'s rows of
``weight`` one after the other, then ``bias``.
"""

from __future__ import annotations

import functools
import itertools
import random
from typing import Any

from assignments.shared.probes.module_stand_ins import (
    MAX_EVENTS,
    SoftSignStep,
    StandInModel,
    stand_in_loss,
    stand_ins,
    subclass,
)
from assignments.shared.probes.nn_probes import (
    FACTS,
    NONE_GRAD_TEXT,
    engine_in_use,
    grads_set_to_none,
    handles,
    parameter_facts,
    read_facts,
    rebound,
    swapped,
)
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
    read_number,
    record,
)
from probekit import read_text as read_text_field

NAMES = ("Module", "Linear", "Tanh", "ReLU", "Sequential", "SGD", "mse_loss", "train")
"""The student's classes and functions: the modules they were defined in are the student's too (a notebook's code
lives in one module, which ``modules.py`` re-exports)."""
ACTIVATION_MODULES = ("Tanh", "ReLU")


def grader_engine(mg: Any, engine: str) -> Any:
    """With ``engine == "grader"`` (and the grader's parts), the grader's ``Value`` in place of the student's."""
    return engine_in_use(mg, engine == "grader", "modules", NAMES)


def _weighted_sum(values: list[Any], weights: list[float]) -> Any:
    """``sum_k weights[k] * values[k]`` built with the values' own operations (the root of a backward pass)."""
    total = values[0] * weights[0]
    for v, c in zip(values[1:], weights[1:]):
        total = total + v * c
    return total


def _items(out: Any) -> list[Any]:
    return list(out) if isinstance(out, (list, tuple)) else []


def _backward_from(out: Any, cotangent: list[float] | None, value_cls: Any, ctx: Context, what: str) -> bool:
    """``backward()`` from ``sum_k c_k * out[k]`` when ``out`` is a list of ``len(c)`` Values; whether it ran."""
    items = _items(out)
    if cotangent is None or len(items) != len(cotangent) or not all(isinstance(o, value_cls) for o in items):
        return False
    ctx.during = f"backward() from sum_k c_k * {what}[k] with c = {cotangent}"
    _weighted_sum(items, cotangent).backward()
    return True


def _constructed(cls: Any, args: list[Any], attributes: dict[str, Any], ctx: Context, call: str) -> Any:
    """An object of the student's ``cls`` whose handout attributes the grader set: made with ``cls(*args)`` when that
    works, else without its ``__init__`` (a broken constructor is not what the test is about)."""
    ctx.during = f"{call} (the grader then sets its {', '.join(attributes)})"
    try:
        made = cls(*args)
    except Exception:  # noqa: BLE001 - a missing or broken __init__: the grader's attributes replace what it made
        made = cls.__new__(cls)
    ctx.during = f"setting {', '.join(attributes)} of {call}"
    for name, value in attributes.items():
        setattr(made, name, value)
    return made


# --- Linear -------------------------------------------------------------------------------------------------------

def linear_attributes(nin: int, nout: int, weights: list[float], value_cls: Any) -> dict[str, Any]:
    """``Linear(nin, nout)``'s attributes holding the grader's Values of ``weights`` (rows, then bias)."""
    params = [value_cls(float(w)) for w in weights]
    return {"nin": nin, "nout": nout, "weight": [params[i * nin:(i + 1) * nin] for i in range(nout)],
            "bias": params[nin * nout:]}


def probe_linear(mg: Any, ctx: Context, nin: int, nout: int, weights: list[float], inputs: list[list[float]],
                 cotangent: list[float] | None, engine: str = "grader") -> dict[str, Any]:
    """Probe ``modules_linear``: ``Linear(nin, nout)`` with the grader's ``weight`` and ``bias`` (``weights``: rows,
    then bias) on each input (the grader's leaves ``Value(x)``), by its ``forward`` (the handout's method: a layer
    computing in its own ``__call__`` instead has none); after ``backward()`` from ``sum_k c_k * y_k`` on the
    first input, the gradient of each weight (documented order) and each input."""
    with grader_engine(mg, engine) as value_cls:
        attributes = linear_attributes(nin, nout, weights, value_cls)
        layer = _constructed(mg.modules.Linear, [nin, nout], attributes, ctx, f"Linear({nin}, {nout})")
        params = [w for row in attributes["weight"] for w in row] + attributes["bias"]
        leaves = [value_cls(float(v)) for v in inputs[0]]
        outs = []
        for k, x in enumerate(inputs):
            ctx.during = f"Linear({nin}, {nout}).forward(x) on x = {x!r}"
            outs.append(layer.forward(list(leaves) if k == 0 else [value_cls(float(v)) for v in x]))
        answer: dict[str, Any] = {"outputs": [listed(o, nout) for o in outs], "grads": None, "input_grads": None}
        if _backward_from(outs[0], cotangent, value_cls, ctx, "Linear(x)"):
            answer["grads"] = [number(p.grad) for p in params]
            answer["input_grads"] = [number(v.grad) for v in leaves]
    return answer


def probe_linear_parameters(mg: Any, ctx: Context, nin: int, nout: int, weights: list[float]) -> dict[str, Any]:
    """Probe ``modules_linear_parameters``: ``parameters()`` of ``Linear(nin, nout)`` whose ``weight`` and ``bias``
    the grader set (:func:`parameter_facts`, against its weights in the documented order)."""
    with grader_engine(mg, "grader") as value_cls:
        attributes = linear_attributes(nin, nout, weights, value_cls)
        layer = _constructed(mg.modules.Linear, [nin, nout], attributes, ctx, f"Linear({nin}, {nout})")
        own = [w for row in attributes["weight"] for w in row] + attributes["bias"]
        ctx.during = f"Linear({nin}, {nout}).parameters()"
        return parameter_facts(list(layer.parameters()), list(layer.parameters()), value_cls, own)


def probe_linear_init(mg: Any, ctx: Context, nin: int, nout: int, seed: int) -> dict[str, Any]:
    """Probe ``modules_linear_init``: what ``Linear(nin, nout)`` built after ``random.seed(seed)``: the length of each
    row of ``weight``, the length of ``bias``, ``nin`` and ``nout``, whether every weight and bias is a distinct
    ``Value``, and their data (rows, then bias)."""
    with grader_engine(mg, "grader") as value_cls:
        random.seed(seed)
        ctx.during = f"Linear({nin}, {nout})"
        layer = mg.modules.Linear(nin, nout)
        ctx.during = f"reading weight and bias of Linear({nin}, {nout})"
        rows = list(layer.weight)[:MAX_ITEMS]
        bias = list(layer.bias)[:MAX_ITEMS]
        params = [w for row in rows for w in list(row)[:MAX_ITEMS]][:MAX_ITEMS] + bias
        sizes = [getattr(layer, "nin", None), getattr(layer, "nout", None)]
        return {"rows": [min(len(list(row)), MAX_ITEMS) for row in rows], "bias": len(bias),
                "sizes": [n if type(n) is int and 0 <= n <= MAX_ITEMS else -1 for n in sizes],
                "all_values": all(isinstance(p, value_cls) for p in params), "distinct": len({id(p) for p in params}),
                "data": [number(getattr(p, "data", None)) for p in params]}


# --- activations --------------------------------------------------------------------------------------------------

def probe_activation(mg: Any, ctx: Context, name: str, x: list[float], cotangent: list[float] | None,
                     engine: str = "grader") -> dict[str, Any]:
    """Probe ``modules_activation``: ``Tanh()(x)`` or ``ReLU()(x)`` on the grader's leaves, each input's gradient
    after ``backward()`` from ``sum_k c_k * y_k``, and how many parameters the module has."""
    if name not in ACTIVATION_MODULES:
        raise ValueError(f"unknown activation {name!r}")
    with grader_engine(mg, engine) as value_cls:
        leaves = [value_cls(float(v)) for v in x]
        ctx.during = f"{name}()"
        module = getattr(mg.modules, name)()
        ctx.during = f"{name}()(x) on x = {x!r}"
        out = module(list(leaves))
        answer: dict[str, Any] = {"output": listed(out, len(x)), "grads": None}
        if _backward_from(out, cotangent, value_cls, ctx, f"{name}()(x)"):
            answer["grads"] = [number(v.grad) for v in leaves]
        ctx.during = f"{name}().parameters()"
        answer["parameters"] = min(len(list(module.parameters())), MAX_ITEMS)
    return answer


# --- Sequential on the grader's stand-in modules -----------------------------------------------------------------

def _flat(modules: list[Any]) -> list[Any]:
    return [p for m in modules for p in m.params]


def probe_sequential(mg: Any, ctx: Context, specs: list[list[Any]], x: list[float], cotangent: list[float] | None,
                     measure: str = "forward", engine: str = "grader") -> dict[str, Any]:
    """Probe ``modules_sequential``: ``Sequential(*stand_ins)`` of the grader's stand-in modules.

    ``measure``: ``"held"``, what its own ``__init__`` kept in ``modules`` (each item's index among the stand-ins, -1
    for another object); ``"parameters"``, what ``parameters()`` returned (:func:`parameter_facts`, against the
    stand-ins' parameters in order); ``"forward"``, its output on ``x``, the order the stand-ins were called in and,
    after ``backward()`` from ``sum_k c_k * y_k``, the gradient of each stand-in parameter and each input. For the
    last two the grader sets ``modules``, so that only the method measured runs.
    """
    calls: list[int] = []
    with grader_engine(mg, engine) as value_cls:
        modules = stand_ins(specs, calls, value_cls, getattr(mg.modules, "Module", None))
        call = f"Sequential({', '.join(map(repr, modules))})"
        cls = mg.modules.Sequential
        if measure == "held":
            ctx.during = call
            seq = cls(*modules)
            ctx.during = f"reading {call}.modules"
            index = {id(m): k for k, m in enumerate(modules)}
            return {"held": [index.get(id(m), -1) for m in list(getattr(seq, "modules", []))[:MAX_ITEMS]]}
        seq = _constructed(cls, list(modules), {"modules": list(modules)}, ctx, call)
        own = _flat(modules)
        if measure == "parameters":
            ctx.during = f"{call}.parameters()"
            return parameter_facts(list(seq.parameters()), list(seq.parameters()), value_cls, own)
        if measure != "forward":
            raise ValueError(f"unknown measure {measure!r}")
        leaves = [value_cls(float(v)) for v in x]
        ctx.during = f"{call}(x) on x = {x!r}"
        out = seq(list(leaves))
        answer: dict[str, Any] = {"output": listed(out, len(x)), "calls": list(calls), "grads": None,
                                  "input_grads": None}
        if _backward_from(out, cotangent, value_cls, ctx, f"{call}(x)"):
            answer["grads"] = [number(p.grad) for p in own]
            answer["input_grads"] = [number(v.grad) for v in leaves]
    return answer


# --- zero_grad, SGD -----------------------------------------------------------------------------------------------

def probe_zero_grad(mg: Any, ctx: Context, owner: str, data: list[float], grads: list[float], weights: list[float],
                    engine: str = "grader") -> dict[str, Any]:
    """Probe ``modules_zero_grad``: ``zero_grad()`` of a ``Module`` (a subclass of the student's whose
    ``parameters()`` are the grader's Values), of a ``Sequential`` of the grader's stand-in modules (one ``scale``
    module per parameter, its ``parameters()`` theirs; ``own``: whether its class has another ``zero_grad`` than
    ``Module``'s) or of ``SGD`` (the
    grader sets its ``params`` and ``lr``), on Values of ``data`` whose ``grad`` is ``grads``. Returns the grads and data after it, and the grads after a
    ``backward()`` from ``sum_k weights[k] * p_k * p_k`` that follows (``2 w_k p_k`` when zero_grad zeroed them)."""
    with grader_engine(mg, engine) as value_cls:
        params = [value_cls(float(d)) for d in data]
        for p, g in zip(params, grads):
            p.grad = float(g)
        own = False
        if owner == "Module":
            holder = subclass((mg.modules.Module,), "Holder", {"parameters": lambda self: list(params)})()
        elif owner == "Sequential":
            modules = stand_ins([["scale", d] for d in data], [], value_cls, getattr(mg.modules, "Module", None))
            params = _flat(modules)
            for p, g in zip(params, grads):
                p.grad = float(g)
            # its parameters() is the grader's too: a wrong Sequential.parameters costs nothing here
            holder = _constructed(mg.modules.Sequential, list(modules),
                                  {"modules": list(modules), "parameters": lambda: list(params)}, ctx,
                                  "Sequential(...) of the grader's modules")
            module = getattr(mg.modules, "Module", None)
            own = getattr(type(holder), "zero_grad", None) is not getattr(module, "zero_grad", None)
        elif owner == "SGD":
            holder = _constructed(mg.modules.SGD, [list(params), 0.1], {"params": list(params), "lr": 0.1}, ctx,
                                  "SGD(params, lr=0.1)")
        else:
            raise ValueError(f"unknown owner {owner!r}")
        ctx.during = f"{owner}.zero_grad() with every grad set"
        holder.zero_grad()
        if grads_set_to_none(params):
            raise ProbeError(NONE_GRAD_TEXT.format(who=f"{owner}.zero_grad()"))
        answer: dict[str, Any] = {"grads": [number(p.grad) for p in params], "data": [number(p.data) for p in params]}
        if owner == "Sequential":
            answer["own"] = own
        ctx.during = "backward() from sum_k w_k * p_k * p_k after zero_grad()"
        _weighted_sum([p * p for p in params], weights).backward()
        answer["after"] = [number(p.grad) for p in params]
    return answer


def probe_sgd(mg: Any, ctx: Context, data: list[float], grads: list[list[float]], lr: float, build: str = "parts",
              engine: str = "grader") -> dict[str, Any]:
    """Probe ``modules_sgd``: ``SGD(params, lr)`` on Values of ``data``.

    ``build == "parts"``: the grader sets ``params`` and ``lr`` (``step`` alone is tested); for each list of
    ``grads`` in turn, the grads are set and ``step()`` runs; the data after each step. ``"held"``: its own
    ``__init__`` alone, given a one-pass iterator ``iter(params)`` (as ``model.parameters()`` could be): what two
    passes over its ``params`` give (each item's index among the Values given, -1 for another object) and its ``lr``;
    no ``step()`` runs, so a wrong ``step`` costs nothing here.
    """
    with grader_engine(mg, engine) as value_cls:
        params = [value_cls(float(d)) for d in data]
        if build == "held":
            ctx.during = f"SGD(iter(params), lr={lr})"
            sgd = mg.modules.SGD(iter(params), lr)
            index = {id(p): k for k, p in enumerate(params)}
            passes = []
            for k in range(2):
                ctx.during = f"pass {k + 1} over self.params of SGD(iter(params), lr={lr})"
                passes.append([index.get(id(p), -1) for p in itertools.islice(getattr(sgd, "params", ()), MAX_ITEMS)])
            return {"passes": passes, "lr": number(getattr(sgd, "lr", None))}
        if build != "parts":
            raise ValueError(f"unknown build {build!r}")
        sgd = _constructed(mg.modules.SGD, [list(params), lr], {"params": list(params), "lr": lr}, ctx,
                           f"SGD(params, lr={lr})")
        steps = []
        for k, step_grads in enumerate(grads):
            for p, g in zip(params, step_grads):
                p.grad = float(g)
            ctx.during = f"step() {k + 1} of SGD(params, lr={lr})"
            sgd.step()
            steps.append([number(p.data) for p in params])
    return {"steps": steps}


# --- mse_loss and train -------------------------------------------------------------------------------------------

def probe_mse(mg: Any, ctx: Context, preds: list[float], targets: list[float], engine: str = "grader") -> dict[str, Any]:
    """Probe ``modules_mse``: ``mse_loss`` of the grader's leaves ``Value(p)`` and ``targets``, and each
    prediction's gradient after ``backward()`` from the loss."""
    with grader_engine(mg, engine) as value_cls:
        leaves = [value_cls(float(p)) for p in preds]
        ctx.during = f"mse_loss(preds={preds}, targets={targets})"
        loss = mg.modules.mse_loss(list(leaves), list(targets))
        answer: dict[str, Any] = {"loss": listed(loss, 1), "grads": None}
        if isinstance(loss, value_cls):
            ctx.during = "backward() from the loss"
            loss.backward()
            answer["grads"] = [number(v.grad) for v in leaves]
    return answer


def probe_train(mg: Any, ctx: Context, weights: list[float], xs: list[list[float]], ys: list[float], lr: float,
                steps: int) -> dict[str, Any]:
    """Probe ``modules_train``: ``train(model, xs, ys, optimizer, steps)`` on the grader's :class:`StandInModel`
    pinned to ``weights``, with :class:`SoftSignStep` and :func:`stand_in_loss` in place of ``mse_loss``.

    Returns:
        What ``train`` returned (at most ``steps`` items, as they are), the model's weights after training, how
        often the loss was called, how often the model was called, and the optimiser's calls in order, with
        ``backward`` (hints only: the judge compares the numbers).
    """
    calls, events = [0], []
    with grader_engine(mg, "grader") as value_cls:
        model = StandInModel(weights, value_cls)
        optimizer = SoftSignStep(model.parameters(), lr, events)
        swaps = rebound(mg, mg.modules.mse_loss, stand_in_loss(calls), "modules", NAMES)
        if handles() is not None and value_cls is handles().Value:
            backward = value_cls.backward

            def noted(self: Any) -> None:
                if len(events) < MAX_EVENTS:
                    events.append("backward")
                backward(self)
            swaps.append((value_cls, "backward", noted))
        ctx.during = f"train(model, xs, ys, optimizer, steps={steps}) on {len(xs)} points"
        with swapped(swaps):
            losses = mg.modules.train(model, xs, ys, optimizer, steps)
        return {"losses": listed(losses, steps, raw=True), "final": [number(p.data) for p in model.parameters()],
                "calls": calls[0], "model_calls": min(model.called, MAX_ITEMS), "events": events}


# --- the whole network: the student's modules together ----------------------------------------------------------

def build_network(mg: Any, layers: list[list[Any]], ctx: Context) -> Any:
    """The student's ``Sequential`` of their ``Linear(nin, nout)``, ``Tanh()`` and ``ReLU()`` (``layers``:
    ``["Linear", nin, nout]``, ``["Tanh"]``, ``["ReLU"]``)."""
    made = []
    for layer in layers:
        if layer[0] == "Linear":
            ctx.during = f"Linear({layer[1]}, {layer[2]})"
            made.append(mg.modules.Linear(layer[1], layer[2]))
        elif layer[0] in ACTIVATION_MODULES:
            ctx.during = f"{layer[0]}()"
            made.append(getattr(mg.modules, layer[0])())
        else:
            raise ValueError(f"unknown layer {layer!r}")
    ctx.during = "Sequential(...) of them"
    return mg.modules.Sequential(*made)


def network_size(layers: list[list[Any]]) -> int:
    """How many weights and biases the network of ``layers`` has."""
    return sum((layer[1] + 1) * layer[2] for layer in layers if layer[0] == "Linear")


def probe_learn(mg: Any, ctx: Context, layers: list[list[Any]], weights: list[float], xs: list[list[float]],
                ys: list[float], lr: float, steps: int, engine: str = "grader") -> dict[str, Any]:
    """Probe ``modules_learn``: the student's whole network (:func:`build_network`), its parameters set to
    ``weights`` through ``parameters()``, trained by their ``train`` with their ``SGD(model.parameters(), lr)`` and
    ``mse_loss``. Returns the losses, the weights after training and the network's first output on each point."""
    with grader_engine(mg, engine):
        random.seed(0)
        model = build_network(mg, layers, ctx)
        ctx.during = "model.parameters()"
        params = list(model.parameters())
        if len(params) != len(weights):
            raise ProbeError(f"the network's parameters() returned {len(params)} values, expected {len(weights)}")
        for p, w in zip(params, weights):
            p.data = float(w)
        ctx.during = f"SGD(model.parameters(), lr={lr})"
        optimizer = mg.modules.SGD(model.parameters(), lr)
        ctx.during = f"train(model, xs, ys, optimizer, steps={steps})"
        losses = mg.modules.train(model, xs, ys, optimizer, steps)
        outputs = []
        for x in xs:
            ctx.during = f"the trained network on x = {x!r}"
            outputs.append(listed(model(x), 1))
        return {"losses": listed(losses, steps, raw=True), "final": [number(p.data) for p in params],
                "outputs": outputs}


# --- answers: one parser per probe, bounded by the request's own arguments -------------------------------------

def parse_linear(value: Any, nin: int, nout: int, weights: Any, inputs: list[Any], cotangent: Any,
                 engine: str = "grader") -> dict[str, Any]:
    got = record(value, "modules_linear", ("outputs", "grads", "input_grads"))
    outs = got["outputs"]
    if type(outs) is not list or len(outs) != len(inputs):
        raise MalformedAnswer(f"outputs: expected {len(inputs)} outputs, one per input")
    return {"outputs": [read_listed(o, f"outputs[{i}]", nout) for i, o in enumerate(outs)],
            "grads": read_grads(got["grads"], "grads", (nin + 1) * nout),
            "input_grads": read_grads(got["input_grads"], "input_grads", nin)}


def parse_linear_parameters(value: Any, nin: int, nout: int, weights: Any) -> dict[str, Any]:
    return read_facts(record(value, "modules_linear_parameters", FACTS))


def parse_linear_init(value: Any, nin: int, nout: int, seed: int) -> dict[str, Any]:
    got = record(value, "modules_linear_init", ("rows", "bias", "sizes", "all_values", "distinct", "data"))
    rows = got["rows"]
    if type(rows) is not list or len(rows) > MAX_ITEMS:
        raise MalformedAnswer("rows: expected the length of each row")
    rows = [count(r, f"rows[{k}]", MAX_ITEMS) for k, r in enumerate(rows)]
    bias = count(got["bias"], "bias", MAX_ITEMS)
    sizes = got["sizes"]
    if type(sizes) is not list or len(sizes) != 2:
        raise MalformedAnswer("sizes: expected [nin, nout]")
    total = min(sum(rows), MAX_ITEMS) + bias
    return {"rows": rows, "bias": bias, "sizes": [count(n, "sizes", MAX_ITEMS, -1) for n in sizes],
            "all_values": flag(got["all_values"], "all_values"),
            "distinct": count(got["distinct"], "distinct", total), "data": numbers(got["data"], "data", total)}


def parse_activation(value: Any, name: str, x: list[Any], cotangent: Any, engine: str = "grader") -> dict[str, Any]:
    got = record(value, "modules_activation", ("output", "grads", "parameters"))
    return {"output": read_listed(got["output"], "output", len(x)), "grads": read_grads(got["grads"], "grads", len(x)),
            "parameters": count(got["parameters"], "parameters", MAX_ITEMS)}


def parse_sequential(value: Any, specs: list[Any], x: list[Any], cotangent: Any, measure: str = "forward",
                     engine: str = "grader") -> dict[str, Any]:
    if measure == "held":
        got = record(value, "modules_sequential", ("held",))
        held = got["held"]
        if type(held) is not list or len(held) > MAX_ITEMS:
            raise MalformedAnswer("held: expected a list of indices")
        return {"held": [count(h, f"held[{k}]", len(specs) - 1, -1) for k, h in enumerate(held)]}
    if measure == "parameters":
        return read_facts(record(value, "modules_sequential", FACTS))
    got = record(value, "modules_sequential", ("output", "calls", "grads", "input_grads"))
    calls = got["calls"]
    if type(calls) is not list or len(calls) > MAX_EVENTS:
        raise MalformedAnswer(f"calls: expected at most {MAX_EVENTS} indices")
    params = sum(1 for s in specs if s[0] != "reverse")
    return {"output": read_listed(got["output"], "output", len(x)),
            "calls": [count(c, f"calls[{k}]", len(specs) - 1) for k, c in enumerate(calls)],
            "grads": read_grads(got["grads"], "grads", params),
            "input_grads": read_grads(got["input_grads"], "input_grads", len(x))}


def parse_zero_grad(value: Any, owner: str, data: list[Any], grads: Any, weights: Any,
                    engine: str = "grader") -> dict[str, Any]:
    if owner == "Sequential":
        got = record(value, "modules_zero_grad", ("grads", "data", "after", "own"))
        return {**{key: numbers(got[key], key, len(data)) for key in ("grads", "data", "after")},
                "own": flag(got["own"], "own")}
    got = record(value, "modules_zero_grad", ("grads", "data", "after"))
    return {key: numbers(got[key], key, len(data)) for key in ("grads", "data", "after")}


def parse_sgd(value: Any, data: list[Any], grads: list[Any], lr: Any, build: str = "parts",
              engine: str = "grader") -> dict[str, Any]:
    if build == "held":
        got = record(value, "modules_sgd", ("passes", "lr"))
        passes = got["passes"]
        if type(passes) is not list or len(passes) != 2 or any(type(p) is not list or len(p) > MAX_ITEMS
                                                                for p in passes):
            raise MalformedAnswer("passes: expected two lists of indices")
        return {"passes": [[count(i, f"passes[{k}]", len(data) - 1, -1) for i in p] for k, p in enumerate(passes)],
                "lr": read_number(got["lr"], "lr")}
    got = record(value, "modules_sgd", ("steps",))
    steps = got["steps"]
    if type(steps) is not list or len(steps) != len(grads):
        raise MalformedAnswer(f"steps: expected {len(grads)} lists of data, one per step")
    return {"steps": [numbers(s, f"steps[{k}]", len(data)) for k, s in enumerate(steps)]}


def parse_mse(value: Any, preds: list[Any], targets: Any, engine: str = "grader") -> dict[str, Any]:
    got = record(value, "modules_mse", ("loss", "grads"))
    return {"loss": read_listed(got["loss"], "loss", 1), "grads": read_grads(got["grads"], "grads", len(preds))}


def parse_train(value: Any, weights: list[Any], xs: Any, ys: Any, lr: Any, steps: int) -> dict[str, Any]:
    got = record(value, "modules_train", ("losses", "final", "calls", "model_calls", "events"))
    events = got["events"]
    if type(events) is not list or len(events) > MAX_EVENTS:
        raise MalformedAnswer(f"events: expected at most {MAX_EVENTS} names")
    return {"losses": read_listed(got["losses"], "losses", steps), "final": numbers(got["final"], "final", len(weights)),
            "calls": count(got["calls"], "calls", MAX_ITEMS), "model_calls": count(got["model_calls"], "model_calls",
                                                                                   MAX_ITEMS),
            "events": [read_text_field(e, "events") for e in events]}


def parse_learn(value: Any, layers: Any, weights: list[Any], xs: list[Any], ys: Any, lr: Any, steps: int,
                engine: str = "grader") -> dict[str, Any]:
    got = record(value, "modules_learn", ("losses", "final", "outputs"))
    outs = got["outputs"]
    if type(outs) is not list or len(outs) != len(xs):
        raise MalformedAnswer(f"outputs: expected {len(xs)} outputs, one per point")
    return {"losses": read_listed(got["losses"], "losses", steps), "final": numbers(got["final"], "final", len(weights)),
            "outputs": [read_listed(o, f"outputs[{k}]", 1) for k, o in enumerate(outs)]}


PROBES = {
    "modules_linear": probe_linear,
    "modules_linear_parameters": probe_linear_parameters,
    "modules_linear_init": probe_linear_init,
    "modules_activation": probe_activation,
    "modules_sequential": probe_sequential,
    "modules_zero_grad": probe_zero_grad,
    "modules_sgd": probe_sgd,
    "modules_mse": probe_mse,
    "modules_train": probe_train,
    "modules_learn": probe_learn,
}
"""This module's probes (see ``grader.sandbox.probes``): each is ``probe(mg, ctx, *args)``."""
NEEDS = {name: ("micrograd.engine", "micrograd.modules") for name in PROBES}
ANSWERS = {
    "modules_linear": parse_linear,
    "modules_linear_parameters": parse_linear_parameters,
    "modules_linear_init": parse_linear_init,
    "modules_activation": parse_activation,
    "modules_sequential": parse_sequential,
    "modules_zero_grad": parse_zero_grad,
    "modules_sgd": parse_sgd,
    "modules_mse": parse_mse,
    "modules_train": parse_train,
    "modules_learn": parse_learn,
}


def judged(probe: str, args: list[Any]) -> Any:
    """The judge's side of one call of ``probe`` (the part ``network_judge``; None without the grader's parts, in a
    self-check): the gradients of the grader's ``Value``, and nothing else: no probe here gives the student's code
    one of the grader's layers."""
    judge = part("network_judge")
    return None if judge is None else judge.Network(backward=True)


JUDGED = {name: functools.partial(judged, name) for name in PROBES}
"""The judge's side of each probe (see ``grader.sandbox.probes``): judge only."""
