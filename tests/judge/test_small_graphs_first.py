"""The random-graph tests of backward try three small graphs before any random one (issue 16, item 4).

A broken ``backward()`` used to fail a random graph and then pay for
hypothesis to shrink it, in each of the two random-graph tests (about 0.4 s
per test, most of a failing submission's time in them). The graphs hypothesis
shrank to were almost always one of a few small ones, so those are now tried
first, as explicit examples: a common bug fails one of them at once, with a
graph of at most 4 nodes in its feedback, and the score is unchanged
(``bench/same_scores.py``).
"""

from __future__ import annotations

import json

from checkout import ROOT

from grader.cli import main
from grader.course.catalogue import load_bugs, write_mutant
from grader.course.course import Course


def test_a_common_backward_bug_is_shown_on_a_small_graph_in_both_random_graph_tests(tmp_path, capsys):
    course = Course(ROOT)
    bug = next(b for b in load_bugs(course.assignment("backward"), course.reference_dir) if b.id == "topo_not_reversed")
    write_mutant(bug, course.reference_dir, tmp_path / "subs" / "student")
    out = tmp_path / "out"
    assert main(["--course", str(ROOT), "grade", str(tmp_path / "subs"), "-o", str(out), "-a", "backward"]) == 0
    capsys.readouterr()
    tests = json.loads((out / "backward" / "student" / "results.json").read_text(encoding="utf-8"))["tests"]
    random_graphs = [t for t in tests if t["name"].startswith("Random expression graphs")]
    assert len(random_graphs) == 2
    for test in random_graphs:
        assert test["score"] == 0
        assert "n1 = x0 + x0; n2 = x0 + n1; n3 = x0 + n1; n4 = n2 + n3" in test["output"]
        assert "x0=0.05" in test["output"] and "Value.backward" in test["output"]
