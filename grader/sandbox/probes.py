"""The registry of probes: the only functions a judge can ask a worker to run.

A probe takes the micrograd under test (``mg``, with ``mg.engine`` and
``mg.nn`` modules), a :class:`~.graph.Context` and plain-data arguments, and
returns plain data. The same probe runs on the student's code in the sandbox
and on the reference solution in the judge, so the two results can be
compared field by field.

Probes measure; they never decide. A probe returns raw measurements (numbers,
lists of numbers), never a verdict such as "converged", because student code
shares the worker process and could replace any function in it: the judge
derives every verdict from numbers that only a correct computation yields.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import call_probes, contract_probes, engine_probes, nn_probes

Probe = Callable[..., Any]

PROBES: dict[str, Probe] = {
    "graph": lambda mg, ctx, spec: engine_probes.run_graph(mg, spec, ctx),
    "value_contract": lambda mg, ctx: contract_probes.value_contract(mg, ctx),
    "derived_calls": lambda mg, ctx, spec, index: call_probes.derived_calls(mg, spec, index, ctx),
    "nn_contract": lambda mg, ctx: contract_probes.network_contract(mg, ctx),
    "nn_parameters": lambda mg, ctx, spec, x=None: nn_probes.probe_parameters(mg, spec, ctx, x),
    "nn_forward": lambda mg, ctx, spec, inputs: nn_probes.probe_forward(mg, spec, inputs, ctx),
    "nn_backward": lambda mg, ctx, spec, x: nn_probes.probe_backward(mg, spec, x, ctx),
    "nn_zero_grad": lambda mg, ctx, spec, x: nn_probes.probe_zero_grad(mg, spec, x, ctx),
    "nn_structure": lambda mg, ctx, spec, x: nn_probes.probe_structure(mg, spec, x, ctx),
    "nn_train": lambda mg, ctx, spec, xs, ys, lr, steps, margin: nn_probes.probe_train(
        mg, spec, xs, ys, lr, steps, margin, ctx
    ),
}
"""Probe name to function."""

ENGINE = ("micrograd.engine",)
NETWORK = ("micrograd.engine", "micrograd.nn")
NEEDS: dict[str, tuple[str, ...]] = {
    "graph": ENGINE,
    "value_contract": ENGINE,
    "derived_calls": ENGINE,
    "nn_contract": NETWORK,
    "nn_parameters": NETWORK,
    "nn_forward": NETWORK,
    "nn_backward": NETWORK,
    "nn_zero_grad": NETWORK,
    "nn_structure": NETWORK,
    "nn_train": NETWORK,
}
"""Probe name to the student modules it needs (the judge fails a probe at once when one did not import)."""
