"""Assignment gradcheck: the functions its hidden tests draw are fair over many seeds, not just the ones in use.

For every kind of broken operation and every family of correct functions of
``assignments/gradcheck/tests/hidden``, over many seeds: the reference's ``gradcheck`` (run through the probe, on
the grader's own ``Value``, as in hidden grading) flags each broken function and passes each correct one; each
broken one is off by at least ``MARGIN`` tolerances (``small``: within ``SMALL``), each correct one's central
differences by at most a tenth of one. So a seed can be changed without re-checking by hand.
"""

from __future__ import annotations

import math
import random
from dataclasses import replace

import pytest
from checkout import ROOT
from hidden_tests import load_hidden

from grader.course.catalogue import load_bugs, write_mutant
from grader.course.course import Course
from grader.judge.answers import parse
from grader.judge.reference import complete_request, load_reference, run_probe

SEEDS = 12


H = load_hidden("gradcheck")


@pytest.fixture(scope="module")
def mg():
    return load_reference(ROOT / "reference")


def verdicts(mg, specs, atol=H.ATOL, rtol=H.RTOL):
    values = complete_request("gradcheck_verdicts", [specs, atol, rtol])
    return parse("gradcheck_verdicts", values, run_probe(mg, "gradcheck_verdicts", values))["verdicts"]


@pytest.mark.parametrize("seed", ["", *(f"term-{k}/" for k in range(SEEDS))])
def test_every_case_is_fair(mg, seed):
    """Every function of every case the checker's tests draw, for the seed in use and others: the reference gives
    the verdict the case expects; a broken one is off by MARGIN tolerances or more (small: within SMALL), a correct
    one's central differences by at most a tenth of one; an obvious twin is caught even without abs() on the first
    input alone."""
    for what, _, items in H.broken_cases(seed):
        kind = H.BROKEN[what][0]
        for item in items:
            if item.correct:
                assert H.well_conditioned(item.spec), (seed, what)
            else:
                right = H.gradient(H.completed({k: v for k, v in item.spec.items() if k != "locals"}))
                moved = max(H.tolerances_moved(right, H.gradient(item.spec)))
                low, high = H.SMALL if kind == "small" else (H.MARGIN, math.inf)
                assert low * 0.999 <= moved <= high * 1.001, (seed, what, moved)
                assert item.what
        assert verdicts(mg, [i.spec for i in items]) == [i.correct for i in items], (seed, what)
    for what, _, items in H.false_alarm_cases(seed):
        for item in items:
            if item.correct:
                assert H.well_conditioned(item.spec, largest=math.inf), (seed, what)
            else:
                right = H.gradient(H.completed({k: v for k, v in item.spec.items() if k != "locals"}))[0]
                wrong = H.gradient(item.spec)[0]
                assert wrong - right >= H.MARGIN * (H.ATOL + H.RTOL * abs(right)), (seed, what)
        assert verdicts(mg, [i.spec for i in items]) == [i.correct for i in items], (seed, what)
    for atol, rtol, _, items in H.tolerance_cases(seed):
        assert all(H.well_conditioned(i.spec, atol=atol, rtol=rtol) for i in items if i.correct and not i.what)
        assert verdicts(mg, [i.spec for i in items], atol, rtol) == [i.correct for i in items], (seed, atol, rtol)


def test_the_small_kind_is_a_real_test():
    """The small errors are caught at the handout's tolerances, but a checker 8 times too lax misses some of them
    and one 16 times too lax nearly all."""
    moved = []
    for seed in range(40):
        rng = random.Random(f"small-{seed}")
        spec, wrong = H.pick_fault(rng, H.any_graph(rng), "small")
        moved.append(max(H.tolerances_moved(H.gradient(spec), H.gradient(wrong.spec))))
    assert H.SMALL[0] * 0.999 <= min(moved) and max(moved) <= H.SMALL[1] * 1.001
    assert sum(m <= 8 for m in moved) >= 0.2 * len(moved)
    assert sum(m <= 16 for m in moved) == len(moved)


def test_no_answer_pattern_that_ignores_the_functions_gets_many_cases():
    """Each case's verdict pattern holds a True and a False, drawn per case: a constant answer gets no case, a
    fixed alternating one few."""
    patterns = []
    for seed in range(200):
        rng = random.Random(f"pattern-{seed}")
        patterns.append([item.correct for item in H.case_items(rng, lambda right: H.Item({}, right))])
    assert all(any(p) and not all(p) for p in patterns)
    alternating = [[i % 2 == 0 for i in range(H.PER_CASE)], [i % 2 == 1 for i in range(H.PER_CASE)]]
    assert sum(p in alternating for p in patterns) <= 0.25 * len(patterns)


def count_raising(mg, spec, node):
    values = complete_request("gradcheck_count_raising", [spec, node])
    return parse("gradcheck_count_raising", values, run_probe(mg, "gradcheck_count_raising", values))


def test_a_count_ops_must_restore_the_closures_when_the_pass_raises(mg, tmp_path):
    """When one of f's closures raises during the pass: the reference lets the exception through with every closure
    back; a count_ops that restores them without finally leaves its wrappers, one that swallows the error returns
    (each whichever node raises, the output's or one further down)."""
    course = Course(ROOT)
    assignment = next(a for a in course.assignments() if a.id == "gradcheck")
    bug = next(b for b in load_bugs(assignment, course.reference_dir) if b.id == "count_ops_restore_without_finally")
    no_finally = load_reference(write_mutant(bug, course.reference_dir, tmp_path / "no_finally"))
    swallows = replace(bug, find="        out.backward()\n    finally:\n",
                       replace="        out.backward()\n    except Exception:\n        pass\n    finally:\n")
    swallowing = load_reference(write_mutant(swallows, course.reference_dir, tmp_path / "swallows"))
    rng = random.Random("raising")
    specs = [H.completed(H.function([0.3], [["tanh", i] for i in range(5)]))]
    specs += [H.grow(rng, n, rng.randint(4, 9)) for n in (1, 2, 3) for _ in range(3)]
    for spec in specs:
        for node in H.reachable(spec):
            assert count_raising(mg, spec, node) == {"propagated": True, "not_restored": 0}
            got = count_raising(no_finally, spec, node)
            assert got["propagated"] and got["not_restored"] == len(H.reachable(spec))
            assert count_raising(swallowing, spec, node) == {"propagated": False, "not_restored": 0}
