"""Probes on ``nn.py``: parameters, forward values, gradients and training.

Models are built with the student's own ``Neuron``/``Layer``/``MLP`` and, when
the test pins them, weights are set through ``parameters()`` (the documented
order: layer by layer, neuron by neuron, weights then bias), so no probe
relies on attribute names or on the order of random-number use.

A *model spec* is ``{"kind": "Neuron"|"Layer"|"MLP", "args": [...],
"kwargs": {...}, "seed": int, "weights": [floats] | None}``.
"""

from __future__ import annotations

import random
from typing import Any

from .engine_probes import Context, ProbeError
from .plain import number, short_repr

KINDS = ("Neuron", "Layer", "MLP")


def make_model(mg: Any, spec: dict[str, Any], ctx: Context) -> Any:
    """Build the model of ``spec`` with a seeded ``random`` and pin its weights."""
    kind = spec["kind"]
    if kind not in KINDS:
        raise ValueError(f"unknown model kind {kind!r}")
    args, kwargs = spec.get("args", []), spec.get("kwargs", {})
    call = f"{kind}({', '.join(map(repr, args))}{''.join(f', {k}={v!r}' for k, v in kwargs.items())})"
    ctx.during = call
    random.seed(spec.get("seed", 0))
    model = getattr(mg.nn, kind)(*args, **kwargs)
    weights = spec.get("weights")
    if weights is not None:
        params = parameters(model, ctx)
        if len(params) != len(weights):
            raise ProbeError(f"{call}.parameters() returned {len(params)} values, expected {len(weights)}")
        ctx.during = "setting p.data for each p in parameters()"
        for p, w in zip(params, weights):
            p.data = w
    return model


def parameters(model: Any, ctx: Context) -> list[Any]:
    """Return ``model.parameters()`` as a list."""
    ctx.during = "calling parameters()"
    return list(model.parameters())


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


def probe_parameters(mg: Any, spec: dict[str, Any], ctx: Context, x: list[float] | None = None) -> dict[str, Any]:
    """Probe ``nn_parameters``: count, data and identity of ``parameters()``.

    With ``x``, also the model's output on it: what the judge recomputes from
    ``data`` to confirm that those numbers are the model's live weights.
    """
    model = make_model(mg, spec, ctx)
    first, second = parameters(model, ctx), parameters(model, ctx)
    value_cls = mg.engine.Value
    answer = {
        "count": len(first),
        "distinct": len({id(p) for p in first}),
        "all_values": all(isinstance(p, value_cls) for p in first),
        "stable": len(first) == len(second) and all(a is b for a, b in zip(first, second)),
        "data": [number(getattr(p, "data", None)) for p in first],
        "output": None,
    }
    if x is not None:
        ctx.during = f"forward pass on x = {x!r}"
        answer["output"] = output(model(x))
    return answer


def probe_forward(mg: Any, spec: dict[str, Any], inputs: list[list[float]], ctx: Context) -> dict[str, Any]:
    """Probe ``nn_forward``: the model's output for each input vector."""
    model = make_model(mg, spec, ctx)
    outs = []
    for x in inputs:
        ctx.during = f"forward pass on x = {x!r}"
        outs.append(output(model(x)))
    return {"outputs": outs}


def probe_backward(mg: Any, spec: dict[str, Any], x: list[float], ctx: Context) -> dict[str, Any]:
    """Probe ``nn_backward``: gradients of the (summed) output w.r.t. ``parameters()``."""
    model = make_model(mg, spec, ctx)
    params = parameters(model, ctx)
    ctx.during = f"forward pass on x = {x!r}"
    out = _as_scalar(model(x))
    ctx.during = "backward() on the output"
    out.backward()
    return {"grads": [number(p.grad) for p in params]}


def probe_zero_grad(mg: Any, spec: dict[str, Any], x: list[float], ctx: Context) -> dict[str, Any]:
    """Probe ``nn_zero_grad``: set every parameter's grad to 1, call ``zero_grad()``, then run forward on ``x``.

    Needs no ``backward()``. Reports the parameters' data and gradients after
    ``zero_grad()`` and the output on ``x`` computed after it, which the judge
    recomputes from ``data``: zeros alone are easy to make up, a forward pass
    that agrees with the reported weights is not.
    """
    model = make_model(mg, spec, ctx)
    params = parameters(model, ctx)
    ctx.during = "setting p.grad = 1.0 for each p in parameters()"
    for p in params:
        p.grad = 1.0
    ctx.during = "zero_grad()"
    model.zero_grad()
    after = [number(p.grad) for p in params]
    ctx.during = f"forward pass on x = {x!r} after zero_grad()"
    out = output(model(x))
    return {"data": [number(p.data) for p in params], "after_zero_grad": after, "output": out}


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
    model = make_model(mg, spec, ctx)
    params = parameters(model, ctx)
    initial = [number(p.data) for p in params]
    losses: list[Any] = []
    step = 0
    while True:
        ctx.during = f"training step {step}: forward pass"
        preds = [model(x) for x in xs]
        values = [number(p.data) for p in preds]
        ctx.during = f"training step {step}: loss"
        loss = sum((p - y) ** 2 for p, y in zip(preds, ys)) * (1.0 / len(ys))
        losses.append(number(loss.data))
        if margin is not None and all(isinstance(v, float) and v * y > margin for v, y in zip(values, ys)):
            break
        if step == steps:
            break
        ctx.during = f"training step {step}: zero_grad()"
        model.zero_grad()
        ctx.during = f"training step {step}: backward()"
        loss.backward()
        ctx.during = f"training step {step}: SGD update"
        for p in params:
            p.data -= lr * p.grad
        step += 1
    return {"initial": initial, "losses": losses, "steps": step, "preds": values,
            "final": [number(p.data) for p in params]}
