"""Comparing a ``graph`` probe's answer with the expected one, node by node (judge side).

The messages name the node (its expression, e.g. ``x0 * x1``), the inputs,
what was expected and what came; a failure keeps its graph
(``Failure.graph``), so a derived operation's failure can be traced to the base
operation it called (:mod:`.derived`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from assignments.shared.probes.engine_probes import describe_node
from grader.testing import ABS_TOL, REL_TOL, Failure, StudentFault, close, field_list, show


def compare_graph(
    got: Any,
    expected: Any,
    spec: dict[str, Any],
    *,
    data_nodes: Sequence[int] | None = None,
    grad_nodes: Sequence[int] | None = None,
    rel: float = REL_TOL,
    abs_tol: float = ABS_TOL,
) -> None:
    """Compare a ``graph`` probe result with the expected one.

    Args:
        got: The student's result (``{"data": [...], "grad": [...]}``).
        expected: The reference's result, or a hand-written one of the same shape.
        spec: The graph spec both were computed from.
        data_nodes: Node indices whose forward value is compared (default:
            every node that is not a leaf).
        grad_nodes: Node indices whose gradient is compared (default: the leaves).
        rel: Relative tolerance.
        abs_tol: Absolute tolerance.

    Raises:
        Failure: On the first mismatch: forward values first (a wrong forward
            value explains wrong gradients), then gradients.
    """
    try:
        _compare_graph(got, expected, spec, data_nodes, grad_nodes, rel, abs_tol)
    except Failure as failure:
        failure.graph = spec  # which graph failed: a derived operation's failure may be a base operation's
        raise


def _compare_graph(got: Any, expected: Any, spec: dict[str, Any], data_nodes: Sequence[int] | None,
                   grad_nodes: Sequence[int] | None, rel: float, abs_tol: float) -> None:
    n = len(spec["leaves"]) + len(spec["nodes"])
    inputs = ", ".join(f"x{i}={v!r}" for i, v in enumerate(spec["leaves"]))
    if data_nodes is None:
        data_nodes = range(len(spec["leaves"]), n)
    if grad_nodes is None:
        grad_nodes = range(len(spec["leaves"]))
    got_data, exp_data = field_list(got, "data", n), field_list(expected, "data", n)
    for i in data_nodes:
        if not close(got_data[i], float(exp_data[i]), rel, abs_tol):
            raise Failure(
                f"forward pass: {describe_node(spec, i)} with {inputs} gave {show(got_data[i])}, "
                f"expected {show(exp_data[i])}"
            )
    got_grad, exp_grad = field_list(got, "grad", n), field_list(expected, "grad", n)
    for i in grad_nodes:
        if not close(got_grad[i], float(exp_grad[i]), rel, abs_tol):
            raise Failure(
                f"{graph_text(spec)}\n  with {inputs}: "
                f"{'x' if i < len(spec['leaves']) else 'n'}{i}.grad was {show(got_grad[i])}, expected {show(exp_grad[i])}"
            )


def expect_error(student: Any, spec: dict[str, Any], types: Sequence[str], what: str) -> None:
    """Require the student's code to raise one of ``types`` (exception type names) on the graph ``spec``.

    A case that expects an error must also hold a value only a working
    implementation computes (raising is easy to make up): pair the call with a
    :func:`compare_graph` in the same ``check.case``.

    Args:
        student: The ``student`` fixture.
        spec: The graph spec to run.
        types: Accepted exception type names, e.g. ``["OverflowError"]``.
        what: How the student would write it, e.g. ``"Value(710.0).exp()"``.

    Raises:
        Failure: If the code returned an answer, or raised another exception.
    """
    try:
        got = student("graph", spec)
    except StudentFault as fault:
        if fault.raised(*types):
            return
        raise
    raise Failure(f"{what} gave {show(got['data'][-1])}, expected {' or '.join(types)} (as Python's math module raises)")


def expression(spec: dict[str, Any]) -> str:
    """The nodes of a graph spec, e.g. ``n1 = x0 * 2; n2 = n1.tanh()``."""
    leaves = len(spec["leaves"])
    return "; ".join(f"n{i} = {describe_node(spec, i)}" for i in range(leaves, leaves + len(spec["nodes"])))


def graph_text(spec: dict[str, Any]) -> str:
    """A readable listing of a graph spec and how its backward pass was run."""
    leaves = len(spec["leaves"])
    body = expression(spec)
    mode = spec.get("mode", "backward")
    if mode == "local":
        how = f"set n{(spec.get('output', -1)) % (leaves + len(spec['nodes']))}.grad = {spec.get('seed', 1.0)!r} and ran the _backward closures"
    else:
        targets = ", ".join(f"n{i % (leaves + len(spec['nodes']))}" for i in spec.get("backward", [-1]))
        how = f"called backward() on {targets}"
    if spec.get("build") == "probe":
        how += " (the grader made every node with Value(data, children, op) and its own _backward, so only your backward() ran)"
    elif isinstance(spec.get("build"), list):
        how += f" (the grader made {', '.join(f'n{i}' for i in spec['build'])} itself)"
    return f"{body}; {how}"
