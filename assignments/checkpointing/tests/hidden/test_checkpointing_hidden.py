"""Hidden tests of assignment 10 (checkpointing): each function on seeded chains against the reference solution, and
the trade-off measured by the judge.

The layers and the ``Value`` are the grader's (see ``assignments/checkpointing/probes.py``): the judge computes every
layer and every ``backward()`` and counts them on its side. ``checkpointed_backward`` is given the reference's
checkpoints, so a bug in ``checkpointed_forward`` costs it nothing.
"""

import math
import random

import pytest

from assignments.checkpointing.checks import (
    backward_within_the_cost_model, chain_weights, compare, compare_grads, counts_of, forward_within_the_cost_model,
    grads_of, no_graph_outlives_its_layer, reached_every_layer, returned,
)
from grader.testing import Failure


@pytest.mark.points(2)
@pytest.mark.task("10.1")
def test_forward_on_seeded_chains(student, reference, check):
    """forward on chains of 1 and 12 layers: output, input gradient and every parameter's gradient"""
    for n in (1, 12):
        weights, x = chain_weights(n, f"forward {n}"), round(random.Random(n).uniform(-1, 1), 3)
        with check.case(f"forward on a chain of {n} layers from x = {x}", method="forward",
                        hint="apply every layer in order to the previous output, and return the last output"):
            got = student("checkpointing_run", "forward", weights, x, 1)
            exp = reference("checkpointing_run", "forward", weights, x, 1)
            compare(got["output"], exp["output"], "the output")
            if got["input_grad"] is None:
                raise Failure("forward(...) did not return a Value: backward() could not run")
            compare(got["input_grad"], exp["input_grad"], "after backward(), the input's grad")
            compare_grads(grads_of(got), exp["grads"], "after backward()")


@pytest.mark.points(2)
@pytest.mark.task("10.2")
def test_checkpointed_forward_on_seeded_chains(student, reference, check):
    """checkpointed_forward on 10 and 13 layers, every 3 and 5: output and checkpoints, each layer evaluated once"""
    for n, every in ((10, 3), (13, 5)):
        weights, x = chain_weights(n, f"checkpointed forward {n}"), -0.4
        with check.case(f"checkpointed_forward({n} layers, {x}, every={every})", method="checkpointed_forward",
                        hint="keep the input of layers 0, every, 2 every, ... as numbers; run each layer once"):
            got = student("checkpointing_run", "checkpointed_forward", weights, x, every)
            exp = reference("checkpointing_run", "checkpointed_forward", weights, x, every)
            compare(got["output"], exp["output"], "the output")
            if len(got["checkpoints"] or []) != len(exp["checkpoints"]):
                raise Failure(f"{len(got['checkpoints'] or [])} checkpoints, expected {len(exp['checkpoints'])}")
            for k, (c, want) in enumerate(zip(got["checkpoints"], exp["checkpoints"])):
                compare(c, want, f"checkpoint {k}")
            counts = counts_of(got, n)
            if counts["forward_passes"] != n or counts["backward_passes"]:
                raise Failure(f"{counts['forward_passes']} layer evaluations and {counts['backward_passes']} "
                              f"backward() runs, expected {n} and none")
            no_graph_outlives_its_layer(counts, got["linked_inputs"])


@pytest.mark.points(4)
@pytest.mark.task("10.3")
def test_checkpointed_backward_on_seeded_chains(student, reference, check):
    """checkpointed_backward on the reference's checkpoints: the plain gradients, one backward() per segment on at
    most `every` activations, each layer recomputed once"""
    for n, every, upstream in ((13, 4, 0.7), (9, 3, -1.3), (8, 8, 2.0)):
        weights, x = chain_weights(n, f"checkpointed backward {n}"), 0.25
        kept = reference("checkpointing_run", "checkpointed_forward", weights, x, every)["checkpoints"]
        segments = math.ceil(n / every)
        with check.case(f"checkpointed_backward({n} layers, {segments} checkpoints, every={every}, "
                        f"upstream={upstream})", method="checkpointed_backward",
                        hint="last segment first: recompute it from a fresh Value(checkpoint), (out * g).backward(), "
                             "and hand the leaf's grad to the segment before"):
            got = student("checkpointing_run", "checkpointed_backward", weights, x, every, kept, upstream)
            plain = reference("checkpointing_run", "forward", weights, x, 1)
            compare(got["input_grad"], upstream * plain["input_grad"], "the gradient returned", rel=1e-7)
            compare_grads(grads_of(got), [upstream * g for g in plain["grads"]], "after checkpointed_backward",
                          rel=1e-7)
            counts = counts_of(got, n)
            reached_every_layer(counts, n)
            if counts["backward_passes"] != segments or counts["most_alive"] > every \
                    or counts["forward_passes"] > n:
                raise Failure(f"{counts['backward_passes']} backward() runs (up to "
                              f"{counts['most_alive']} activations alive at once) and {counts['forward_passes']} layer "
                              f"evaluations, expected {segments} runs on at most {every} activations and {n} "
                              "evaluations")


@pytest.mark.points(1.5)
@pytest.mark.task("10.2")
def test_the_forward_pass_measured_by_the_grader(student, reference, check):
    """36 layers, the forward pass alone, checkpoints every 1, 6 and 36 layers: its share of the cost model the
    grader counts (36 of the 72 evaluations, one activation alive at a time, the checkpoints plain numbers)"""
    n = 36
    weights, x = chain_weights(n, "trade-off"), 0.1
    for every in (6, 1, 36):
        with check.case(f"checkpointed_forward on {n} layers, every={every}: {n} layer evaluations, one activation "
                        f"alive at a time", method="checkpointed_forward",
                        hint="the forward pass keeps numbers only: each layer once, on a fresh Value of the last "
                             "output's data"):
            forward_within_the_cost_model(student("checkpointing_run", "checkpointed_forward", weights, x, every),
                                          n, every)


@pytest.mark.points(1.5)
@pytest.mark.task("10.3")
def test_memory_against_compute_measured_by_the_grader(student, reference, check):
    """36 layers, checkpoints every 1, 6 and 36 layers: the plain gradients, and the activations held and layer
    evaluations the grader counts stay within the cost model (every 6: 12 held, 36 of the 72 evaluations, the other
    36 being the forward pass's); the backward pass runs on the reference's checkpoints"""
    n = 36
    weights, x = chain_weights(n, "trade-off"), 0.1
    plain = reference("checkpointing_run", "forward", weights, x, 1)
    for every in (6, 1, 36):
        bound = reference("checkpointing_cost", n, every)["result"][0]
        kept = reference("checkpointing_run", "checkpointed_forward", weights, x, every)["checkpoints"]
        with check.case(f"checkpointed_backward on {n} layers, every={every}, from the grader's checkpoints: at most "
                        f"{bound:g} activations held, {n} layer evaluations", method="checkpointed_backward",
                        hint="the backward pass holds one segment's graph at a time, recomputed once from its "
                             "checkpoint"):
            got = student("checkpointing_run", "checkpointed_backward", weights, x, every, kept)
            backward_within_the_cost_model(got, plain["input_grad"], plain["grads"], n, bound)


@pytest.mark.points(2)
@pytest.mark.task("10.4")
def test_cost_on_seeded_sizes(student, reference, check):
    """cost(n, every) for seeded sizes, divisible or not, every larger than n included"""
    rng = random.Random("cost")
    for _ in range(6):
        n, every = rng.randint(1, 80), rng.randint(1, 20)
        with check.case(f"cost({n}, {every})", method="cost",
                        hint="(ceil(n / every) + min(every, n), 2 * n)"):
            got, want = student("checkpointing_cost", n, every), reference("checkpointing_cost", n, every)
            if got["result"] != want["result"]:
                raise Failure(f"cost({n}, {every}) returned {returned(got)}, expected {returned(want)}")


@pytest.mark.points(2)
@pytest.mark.task("10.4")
def test_best_every_on_seeded_sizes(student, reference, check):
    """best_every(n) for seeded n up to 200"""
    rng = random.Random("best")
    for n in sorted({rng.randint(2, 200) for _ in range(6)} | {12, 42}):
        with check.case(f"best_every({n})", method="best_every",
                        hint="the every from 1 to n whose cost holds fewest activations, the smallest on a tie"):
            got, want = student("checkpointing_cost", n, None), reference("checkpointing_cost", n, None)
            if got["result"] != want["result"]:
                raise Failure(f"best_every({n}) returned {returned(got)}, expected {returned(want)}")
