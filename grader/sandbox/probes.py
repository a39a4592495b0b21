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

from typing import Any, Callable

from . import graph, network

Probe = Callable[..., Any]

PROBES: dict[str, Probe] = {
    "graph": lambda mg, ctx, spec: graph.run_graph(mg, spec, ctx),
    "nn_parameters": lambda mg, ctx, spec, x=None: network.probe_parameters(mg, spec, ctx, x),
    "nn_forward": lambda mg, ctx, spec, inputs: network.probe_forward(mg, spec, inputs, ctx),
    "nn_backward": lambda mg, ctx, spec, x: network.probe_backward(mg, spec, x, ctx),
    "nn_zero_grad": lambda mg, ctx, spec, x: network.probe_zero_grad(mg, spec, x, ctx),
    "nn_train": lambda mg, ctx, spec, xs, ys, lr, steps, margin: network.probe_train(
        mg, spec, xs, ys, lr, steps, margin, ctx
    ),
}
"""Probe name to function."""
