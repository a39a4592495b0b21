"""Public tests for assignment 10 (shipped to students): gradient checkpointing on a chain of tanh layers.

Every test runs your functions on a chain of layers ``tanh(w * x + b)`` with pinned
weights. In hidden grading the layers and the ``Value`` are the grader's: the
grader computes every layer and every ``backward()``, and counts on its own side
how often a layer was evaluated, how many ``backward()`` ran and the most
activations one of them reached; your self-check counts the same things on your
own engine. Expected values are computed here with ``math``.
"""

import pytest

from assignments.checkpointing.checks import (
    activations, backward_within_the_cost_model, chain_weights, compare, compare_grads, counts_of,
    forward_within_the_cost_model, grads_of, no_graph_outlives_its_layer, plain_gradients, reached_every_layer, returned,
)
from grader.testing import Failure

W7 = chain_weights(7, "public 7")
X = 0.3


@pytest.mark.points(2)
@pytest.mark.task("10.1")
def test_forward(student, check):
    """forward(layers, x) applies every layer in order; backward() from its output gives the plain gradients"""
    weights = W7[:10]
    with check.case("forward on a chain of 5 layers from x = 0.3", method="forward",
                    hint="x = layer(x) for each layer in order; return the last x (a Value: keep the graph)"):
        got = student("checkpointing_run", "forward", weights, X, 1)
        compare(got["output"], activations(weights, X)[-1], "forward(...)'s output")
        dx, grads = plain_gradients(weights, X)
        if got["input_grad"] is None:
            raise Failure("forward(...) did not return a Value, so backward() cannot run: return the last layer's "
                          "output itself")
        compare(got["input_grad"], dx, "after backward(), the input's grad")
        compare_grads(grads_of(got), grads, "after backward()")


@pytest.mark.points(3)
@pytest.mark.task("10.2")
def test_checkpointed_forward(student, check):
    """checkpointed_forward keeps the input of every every-th layer as a number, and evaluates each layer once"""
    a = activations(W7, X)
    for every in (3, 1, 7):
        kept = a[0:7:every]
        with check.case(f"checkpointed_forward(7 layers, 0.3, every={every})", method="checkpointed_forward",
                        hint="before layer i, when i % every == 0, keep the input's data; run each layer on a "
                             "fresh Value of the last output's data; return (output data, checkpoints)"):
            got = student("checkpointing_run", "checkpointed_forward", W7, X, every)
            compare(got["output"], a[-1], "the output")
            if got["checkpoints"] is None or len(got["checkpoints"]) != len(kept):
                raise Failure(f"checkpointed_forward returned {len(got['checkpoints'] or [])} checkpoints, expected "
                              f"{len(kept)} (the inputs of layers 0, {every}, {2 * every}, ...)")
            for k, (c, want) in enumerate(zip(got["checkpoints"], kept)):
                compare(c, want, f"checkpoint {k} (the input of layer {k * every})")
            counts = counts_of(got, 7)
            if counts["forward_passes"] != 7 or counts["backward_passes"]:
                raise Failure(f"the forward pass evaluated layers {counts['forward_passes']} times and ran "
                              f"backward() {counts['backward_passes']} times, expected each of the 7 layers once and "
                              "no backward()")
            no_graph_outlives_its_layer(counts, got["linked_inputs"])


@pytest.mark.points(4)
@pytest.mark.task("10.3")
def test_checkpointed_backward(student, check):
    """checkpointed_backward recomputes each segment from its checkpoint and gives the plain gradients"""
    a = activations(W7, X)
    for every, upstream in ((3, 0.5), (2, 1.0)):
        kept = a[0:7:every]
        segments = len(kept)
        with check.case(f"checkpointed_backward(7 layers, {segments} checkpoints, every={every}, upstream={upstream})",
                        method="checkpointed_backward",
                        hint="from the last segment to the first: x = Value(checkpoint), run the segment's layers, "
                             "(out * g).backward(), then g = x.grad; return g"):
            got = student("checkpointing_run", "checkpointed_backward", W7, X, every, kept, upstream)
            dx, grads = plain_gradients(W7, X, upstream)
            compare(got["input_grad"], dx, "the gradient returned (the input's)")
            compare_grads(grads_of(got), grads, "after checkpointed_backward")
            counts = counts_of(got, 7)
            reached_every_layer(counts, 7)
            if counts["backward_passes"] != segments or counts["most_alive"] > every:
                raise Failure(f"checkpointed_backward ran backward() {counts['backward_passes']} times, holding up to "
                              f"{counts['most_alive']} activations at once; expected one backward() per segment "
                              f"({segments}), each on at most {every} activations")
            if counts["forward_passes"] > 7:
                raise Failure(f"checkpointed_backward evaluated layers {counts['forward_passes']} times, expected "
                              "each of the 7 once (each segment recomputed once from its own checkpoint)")


@pytest.mark.points(2)
@pytest.mark.task("10.4")
def test_cost(student, check):
    """cost(n, every): (ceil(n / every) + min(every, n) activations held, 2 n layer evaluations)"""
    for n, every, want in ((16, 4, (8, 32)), (10, 3, (7, 20)), (5, 5, (6, 10)), (3, 8, (4, 6))):
        with check.case(f"cost({n}, {every})", method="cost",
                        hint="held: one checkpoint per segment (ceil(n / every)) plus one segment's activations "
                             "(every, or n if fewer); evaluations: each layer forward, then again in its segment"):
            got = student("checkpointing_cost", n, every)
            if got["result"] != [float(w) for w in want]:
                raise Failure(f"cost({n}, {every}) returned {returned(got)}, expected {want}")


@pytest.mark.points(2)
@pytest.mark.task("10.4")
def test_best_every(student, check):
    """best_every(n): the distance between checkpoints with the fewest activations held, the smallest on a tie"""
    for n, want in ((16, 4), (7, 2), (1, 1), (30, 5)):
        with check.case(f"best_every({n})", method="best_every",
                        hint="try every distance from 1 to n and keep the one whose cost holds fewest activations; "
                             "on a tie, the smaller"):
            got = student("checkpointing_cost", n, None)
            if got["result"] != [float(want)]:
                raise Failure(f"best_every({n}) returned {returned(got)}, expected {want}")


@pytest.mark.points(1)
@pytest.mark.task("10.2")
def test_the_forward_pass_of_the_trade_off(student, check):
    """16 layers, the forward pass alone: every 4 and 16, each layer evaluated once, one activation alive at a time
    and ceil(16 / every) checkpoints as plain numbers (its share of the cost model: 16 of the 32 evaluations)"""
    weights = chain_weights(16, "public 16")
    for every in (4, 16):
        with check.case(f"checkpointed_forward on 16 layers, every={every}: 16 layer evaluations, one activation "
                        f"alive at a time, {-(-16 // every)} checkpoints", method="checkpointed_forward",
                        hint="the forward pass keeps numbers only: each layer once, on a fresh Value of the last "
                             "output's data"):
            forward_within_the_cost_model(student("checkpointing_run", "checkpointed_forward", weights, X, every),
                                          16, every)


@pytest.mark.points(1)
@pytest.mark.task("10.3")
def test_the_trade_off(student, check):
    """16 layers: checkpointed every 4, the gradients are the plain ones, with at most 8 activations held and 16
    layer evaluations, the other 16 of the 32 being the forward pass's (the plain backward pass holds 16 for 16); the
    backward pass runs on the grader's checkpoints"""
    weights = chain_weights(16, "public 16")
    a = activations(weights, X)
    dx, grads = plain_gradients(weights, X)
    for every in (4, 16):
        bound = -(-16 // every) + every
        with check.case(f"checkpointed_backward on 16 layers, every={every}, from the grader's checkpoints: at most "
                        f"{bound} activations held, 16 layer evaluations", method="checkpointed_backward",
                        hint="the backward pass holds one segment's graph at a time, recomputed once from its "
                             "checkpoint"):
            got = student("checkpointing_run", "checkpointed_backward", weights, X, every, a[0:16:every])
            backward_within_the_cost_model(got, dx, grads, 16, bound)
