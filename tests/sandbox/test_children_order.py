"""A node's ``_prev`` is iterated in the spec's order, not by memory address.

A ``backward()`` whose gradients depend on the order it visits ``_prev`` (the
catalogued ``topo_preorder`` bug) used to score differently depending on
where objects happened to land in memory: grading the same submission from a
folder with a longer name changed its score. The graph probe now iterates
every node's children in the order the spec lists them
(:class:`assignments.shared.probes.engine_probes.Children`).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from checkout import ROOT

from assignments.shared.checks import graphs
from assignments.shared.probes.engine_probes import Children, order_children
from grader.cli import main
from grader.course.catalogue import load_bugs, write_mutant
from grader.course.course import Course
from grader.judge.reference import load_reference, run_probe

COURSE = Course(ROOT)

DIAMONDS = [  # a shared node d, listed first and last among its users' operands
    graphs.spec([0.7, 1.3], [["mul", 0, 1], ["mul", 2, 0], ["add", 2, 3]]),
    graphs.spec([0.7, 1.3], [["mul", 0, 1], ["mul", 2, 0], ["add", 3, 2]]),
    graphs.built(graphs.spec([0.7, 1.3], [["mul", 0, 1], ["mul", 2, 0], ["add", 2, 3]])),
]


def mutant(bug_id: str, dest: Path) -> Path:
    bug = next(b for b in load_bugs(COURSE.assignment("backward"), COURSE.reference_dir) if b.id == bug_id)
    write_mutant(bug, COURSE.reference_dir, dest)
    return dest


def test_children_iterate_in_the_given_order_and_stay_a_set():
    a, b, c = object(), object(), object()
    for order in ([a, b, c], [c, a, b], [b, c, a]):
        kids = Children(order)
        assert list(kids) == order and [k for k in kids] == order
        assert isinstance(kids, set) and len(kids) == 3 and b in kids and kids == {a, b, c}
    kids = Children([a, b])
    kids.discard(a)  # the student's code may change its own set: iteration follows
    kids.add(c)
    assert list(kids) == [b, c]


def test_only_a_plain_set_of_exactly_the_operands_is_reordered():
    class Node:
        def __init__(self, prev):
            self._prev = prev

    a, b = Node(set()), Node(set())
    as_tuple, merged, other = Node((a, b)), Node({a}), Node({a, Node(set())})
    for node in (as_tuple, merged, other):
        before = node._prev
        order_children(node, [a, b])
        assert node._prev is before
    node = Node({a, b})
    order_children(node, [b, a])
    assert type(node._prev) is Children and list(node._prev) == [b, a]

    class Slotted:
        __slots__ = ("data",)

    order_children(Slotted(), [a, b])  # nothing to reorder, no error


@pytest.mark.parametrize("spec", DIAMONDS, ids=["shared-first", "shared-last", "grader-made"])
def test_an_order_dependent_backward_gets_the_same_gradients_wherever_its_objects_land(tmp_path, spec):
    """The pre-order bug's gradients on a diamond, with 0 to 40 objects allocated in between (which moves
    the Values in memory): one answer, not one per memory layout."""
    mg = load_reference(mutant("topo_preorder", tmp_path / "sub"))
    answers, keep = set(), []
    for padding in range(41):
        keep.append([mg.engine.Value(0.0) for _ in range(padding)])
        answers.add(json.dumps(run_probe(mg, "graph", [spec])))
    assert len(answers) == 1


def test_the_same_submission_scores_the_same_from_folders_of_different_lengths(tmp_path, capsys):
    """End to end: the pre-order bug graded from folders whose names are 1 to 16 letters long gets the same
    scores (before the fix, the accumulation traps gave it 3.33, 4.17 or 5 of 5 points, depending on that
    length alone)."""
    scores = []
    for name in ("s", "s" * 6, "s" * 11, "s" * 16):
        subs = tmp_path / name / "submissions"
        mutant("topo_preorder", subs / "student")
        out = tmp_path / name / "out"
        assert main(["--course", str(ROOT), "grade", str(subs), "-o", str(out), "-a", "backward", "-j", "1"]) == 0
        result = json.loads((out / "backward" / "student" / "results.json").read_text(encoding="utf-8"))
        scores.append({t["name"]: t["score"] for t in result["tests"]})
        shutil.rmtree(subs)
    capsys.readouterr()
    assert all(s == scores[0] for s in scores)
