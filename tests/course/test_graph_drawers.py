"""Assignment graph on drawers written as real students wrote them (each the reference's ``graph.py`` with one
difference), graded once through ``grader grade``: a record is found by structure whatever its label says,
repeated statements do not make a drawing too large, and "Start here" says "built on ``_escape``" only for a
``to_dot`` that uses it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from checkout import ROOT

from grader.cli import main

REFERENCE = ROOT / "reference" / "micrograd"
GRAPH = (REFERENCE / "graph.py").read_text(encoding="utf-8")
TO_DOT = GRAPH[GRAPH.index("def to_dot("):GRAPH.index("def hand_gradients(")]
ESCAPE = GRAPH[GRAPH.index("def _escape("):GRAPH.index("def to_dot(")]

DRAW_DOT = '''def to_dot(root, rankdir="LR"):
    if rankdir not in RANKDIRS:
        raise ValueError(rankdir)
    nodes, edges = trace(root)
    lines = ["digraph {", f"  rankdir={rankdir};"]
    for n in nodes:
        uid = str(id(n))
        lines.append(f'  "{uid}" [label="{{ %s }}", shape=record];' % (FIELDS % (n.data, n.grad)))
        if n._op:
            lines.append(f'  "{uid}{n._op}" [label="{n._op}"];')
            lines.append(f'  "{uid}{n._op}" -> "{uid}";')
    for n1, n2 in edges:
        lines.append(f'  "{id(n1)}" -> "{id(n2)}{n2._op}";')
    return "\\n".join(lines + ["}"])


'''
"""micrograd's ``draw_dot`` written as text: records named ``str(id(v))``, op nodes ``str(id(v)) + v._op``, no
``_escape`` (FIELDS: how the label shows data and grad)."""
REPEATS = 40


def draw_dot(fields: str) -> str:
    """``graph.py`` with micrograd's ``draw_dot`` as ``to_dot``, its label ``{ <fields> }``, and no ``_escape``."""
    return GRAPH.replace(ESCAPE, "").replace(TO_DOT, DRAW_DOT.replace("FIELDS", repr(fields)))


def edit(old: str, new: str) -> str:
    assert old in GRAPH, old
    return GRAPH.replace(old, new)


DRAWERS = {
    "value_label": draw_dot("value %.4f | grad %.4f"),
    "equals_label": draw_dot("data=%.4f | grad=%.4f"),
    "repeated_arrows": edit('        lines.append(f"  n{id(child)} -> {target};")',
                            f'        lines += [f"  n{{id(child)}} -> {{target}};"] * {REPEATS}'),
    "escape_missing_but_called": GRAPH.replace(ESCAPE, ""),
}
"""The drawers: the reference's ``graph.py`` with one difference each."""


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    subs = tmp_path_factory.mktemp("drawers") / "subs"
    for name, text in DRAWERS.items():
        assert text != GRAPH, name
        package = subs / name / "micrograd"
        shutil.copytree(REFERENCE, package, ignore=shutil.ignore_patterns("__pycache__"))
        (package / "graph.py").write_text(text, encoding="utf-8")
    out = subs.parent / "out"
    assert main(["--course", str(ROOT), "grade", str(subs), "-o", str(out), "-a", "graph"]) == 0
    return out


def graded_tests(out: Path, student: str) -> dict[str, dict[str, Any]]:
    """The student's tests, by the name of their function."""
    result: dict[str, Any] = json.loads((out / "graph" / student / "results.json").read_text(encoding="utf-8"))
    return {t["extra_data"]["key"].rsplit("::", 1)[1].split("[", 1)[0]: t for t in result["tests"]}


def start_here(out: Path, student: str) -> str:
    feedback = (out / "graph" / student / "feedback.md").read_text(encoding="utf-8")
    return feedback.split("## Start here", 1)[1].split("##", 1)[0]


@pytest.mark.parametrize("student", ["value_label", "equals_label"])
def test_records_written_otherwise_cost_the_record_cases_only(graded, student):
    """micrograd's ids for names and a label written otherwise: the op nodes and arrows are right and pass; only the
    record cases fail, on what the label shows, not on a missing record."""
    got = graded_tests(graded, student)
    worked, random_graphs = got["test_to_dot_worked_example"], got["test_to_dot_random_graphs"]
    assert worked["score"] == pytest.approx(4 * 4 / 5), worked["output"]  # of 5 cases, the records' alone fails
    assert random_graphs["score"] == pytest.approx(3 * 6 / 9), random_graphs["output"]  # 3 graphs: records, ops, arrows
    assert got["test_to_dot_rankdir"]["status"] == "passed", got["test_to_dot_rankdir"]["output"]
    shown = "`{ value " if student == "value_label" else "`{ data="
    for test in (worked, random_graphs, got["test_to_dot_number_format"]):
        assert f"record shows {shown}" in test["output"], test["output"]
        assert "has no record node" not in test["output"] and "op nodes differ" not in test["output"]
        assert "arrows differ" not in test["output"]


def test_arrows_written_many_times_do_not_make_the_drawing_too_large(graded):
    """Each arrow written 40 times: the size bounds count each repeated statement once, so the records and op nodes
    of every graph are judged (Graphviz draws the same nodes), never refused as a text too large."""
    got = graded_tests(graded, "repeated_arrows")
    for name in ("test_to_dot_worked_example", "test_to_dot_random_graphs", "test_to_dot_number_format",
                 "test_to_dot_rankdir", "test_labels_and_escaping", "test_escaping"):
        assert got[name]["status"] == "passed", got[name]["output"]
        assert "more than" not in got[name]["output"]


def test_start_here_names_escape_only_for_a_to_dot_that_uses_it(graded):
    """micrograd's draw_dot has no _escape and never calls it: its to_dot failures are its own, so Start here names
    to_dot first and never says "built on _escape". A to_dot that calls a missing _escape is built on it."""
    advice = start_here(graded, "value_label")
    assert "built on" not in advice, advice
    assert "point to `to_dot`: fix it first" in advice, advice
    advice = start_here(graded, "escape_missing_but_called")
    assert "`to_dot` (" in advice and "built on `_escape`" in advice, advice
    assert "point to `_escape`: fix it first" in advice, advice
