"""Assignment graph: the judge reads DOT as Graphviz does, within bounds, never raising anything but a Failure;
the public tests' expected drawing is the reference's; answers are bounded by their requests."""

from __future__ import annotations

import contextlib
import io
import random
import time
import warnings

import pydot
import pytest
from checkout import ROOT
from hidden_tests import load_hidden

from assignments.graph import checks, dot, drawings, labels
from assignments.graph.checks import check_trace_edges, check_trace_nodes
from assignments.graph.probes import ANSWERS, edge_list
from assignments.graph.specs import deep_chain, diamond_chain, dot_spec, from_expression, random_expression
from grader.errors import GraderError
from grader.judge.reference import load_reference, run_probe
from grader.sandbox.schema import MalformedAnswer
from grader.testing import Failure, StudentFault


@pytest.fixture(scope="module")
def mg():
    return load_reference(ROOT / "reference")


def ask(mg, probe, *args):
    return ANSWERS[probe](run_probe(mg, probe, list(args)), *args)


def reachable(spec):
    """The nodes the root depends on (every node, for a graph to_dot is tested on)."""
    found, todo = set(), [spec.get("root", len(spec["data"]) - 1)]
    while todo:
        k = todo.pop()
        if k not in found:
            found.add(k)
            todo += spec["prev"][k]
    return found


def draw(mg, spec, rankdir=None):
    most_chars, most_names = dot.dot_limits(spec)
    return drawings.drawing(ask(mg, "graph_dot", spec, rankdir, most_chars), spec, most_chars, most_names)


@pytest.mark.parametrize("seed", range(6))
def test_the_reference_draws_what_the_public_tests_expect_and_traces_the_spec(mg, seed):
    rng = random.Random(seed)
    for k in range(4):
        spec = from_expression(random_expression(rng, rng.randint(1, 3), rng.randint(2, 9)), f"{seed}-{k}")
        assert len({drawings.data_field(x) for x in spec["data"]}) == len(spec["data"])
        assert reachable(spec) == set(range(len(spec["data"])))
        want = drawings.expected_drawing(spec)
        got = draw(mg, spec)
        assert (got.records, got.ops, got.edges, got.strays, got.rankdir) == (
            want.records, want.ops, want.edges, [], "LR")
        answer = ask(mg, "graph_trace", spec)
        check_trace_nodes(answer, set(range(len(spec["data"]))), spec)
        check_trace_edges(answer, set(edge_list(spec)), spec)


def test_labels_escapes_and_rankdirs_round_trip(mg):
    labels = {0: 'x"{a|b}<c> \\', 1: "C:\\new\\dir", 2: "|"}
    spec = dot_spec([1.5, -2.25, 0.5, 3.0], [[], [], [], [0, 1, 2]], ["", "", "", 'op"\\{'], [1, 2, 3, 4], labels)
    got, want = draw(mg, spec, "TB"), drawings.expected_drawing(spec, "TB")
    assert (got.records, got.ops, got.edges, got.rankdir) == (want.records, want.ops, want.edges, "TB")
    texts = ['"', "\\", "\\\\", "a\\nb", "{x}|<y>", "\\N", "end\\", "a \\ b"]
    for record in (False, True):
        escaped = ask(mg, "graph_escape", texts, record)
        assert dot.shown_texts(escaped, record) == texts
    assert dot.shown_texts(['"'], False) == [None]  # an unescaped quote does not parse
    assert dot.shown_texts(["a|b"], True) == ["2 fields: a | b"]


def test_trace_probe_on_deep_and_many_path_graphs(mg):
    for spec in (deep_chain(3000), diamond_chain(30, "x")):
        answer = ask(mg, "graph_trace", spec)
        check_trace_nodes(answer, set(range(len(spec["data"]))), spec)
        check_trace_edges(answer, set(edge_list(spec)), spec)


def test_another_style_of_dot_draws_the_same():
    spec = dot_spec([1.0, 2.0, 3.0], [[], [], [0, 1]], ["", "", "+"], [0.5, 0.25, 1.0])
    text = """strict digraph G { // a comment
      graph [rankdir="LR"]; node [fontname=Helvetica]
      "n11" -> "n33_op"; n22 -> n33_op /* another */
      "n33" [label="{data 3.0000|grad 1.0000}", shape="record"]
      n11 [shape=record label="{ data 1.0000 | grad 0.5000 }"]; n22 [shape=record, label="{data 2.0000|grad 0.2500}"]
      n33_op [label="+"]; n33_op -> n33
    }"""
    got = drawings.drawing({"dot": text, "length": len(text), "ids": [11, 22, 33]}, spec, 10_000, 100)
    want = drawings.expected_drawing(spec)
    assert (got.records, got.ops, got.edges, got.rankdir) == (want.records, want.ops, want.edges, "LR")
    # micrograd's draw_dot names (str(id(v)), id + op): found by the data their labels show
    text = """digraph { rankdir=LR; "101" [shape=record, label="{ data 1.0000 | grad 0.5000 }"];
      "202" [shape=record, label="{ data 2.0000 | grad 0.2500 }"]; "303" [shape=record, label="{ data 3.0000 | grad 1.0000 }"];
      "303+" [label="+"]; "303+" -> "303"; "101" -> "303+"; "202" -> "303+" }"""
    got = drawings.drawing({"dot": text, "length": len(text), "ids": [1, 2, 3]}, spec, 10_000, 100)
    assert (got.records, got.ops, got.edges) == (want.records, want.ops, want.edges)


def test_what_graphviz_reads_and_pydot_alone_would_not_draws_the_same():
    """Semicolons between attributes (DOT's grammar allows ``;`` or ``,``; pydot's parser only ``,``), with edge
    chains, a record shape by default and keywords in capitals: the drawing is the handout's, and a ``;`` in a
    label, a comment or outside brackets stays what it was."""
    spec = dot_spec([1.0, 2.0, 3.0], [[], [], [0, 1]], ["", "", "+"], [0.5, 0.25, 1.0])
    spec["label"] = {"0": "a;b"}
    template = """STRICT DiGraph { rankdir = "TB"; NODE [shape=record]; /* [x=1; y=2] */ // [a=b; c=d]
      n11 [label="{ a;b | data 1.0000 | grad 0.5000 }"§ fontname=Helvetica]; n22 [label="{data 2.0000|grad 0.2500}"]
      n33 [label = "{data 3.0000|grad 1.0000}" § color=black §]
      n33_op [shape=ellipse§ label="+"]
      n11 -> n33_op -> n33; n22 -> n33_op -> n33 [arrowsize=0.8§ color="gray;50"];
    }"""  # § between attributes
    text = template.replace("§", ";")
    assert dot.with_commas(text, dot.scan(text).semicolons) == template.replace("§", ",")
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():  # pydot alone: no drawing
        warnings.simplefilter("ignore")
        assert pydot.graph_from_dot_data(text) is None
    got = drawings.drawing({"dot": text, "length": len(text), "ids": [11, 22, 33]}, spec, 10_000, 100)
    want = drawings.expected_drawing(spec, "TB")
    assert (got.records, got.ops, got.edges, got.rankdir) == (want.records, want.ops, want.edges, "TB")


GRAPHVIZ_READS = {  # DOT that Graphviz draws as the handout's drawing of x0 + x1 -> x2 ("§" is x0's record line)
    "quoted attribute names": '"rankdir"="LR"; § ["shape"="record", "label"="{ data 1.0000 | grad 0.5000 }"]',
    "Mrecord (rounded corners)": 'rankdir=LR; § [shape=Mrecord, label="{ data 1.0000 | grad 0.5000 }"]',
    "line ends left-justified": r'rankdir=LR; § [shape=record, label="{ data 1.0000\l | grad 0.5000 \l}"]',
    "ports in the record": 'rankdir=LR; § [shape=record, label="{ <d> data 1.0000 | <g> grad 0.5000 }"]; '
                           'n11:g:e -> n33_op',
    "arrows from a subgraph": 'rankdir=LR; § [shape=record, label="{ data 1.0000 | grad 0.5000 }"]; '
                              '{ n11 "n22" } -> n33_op',
}


@pytest.mark.parametrize("lines", GRAPHVIZ_READS.values(), ids=GRAPHVIZ_READS)
def test_dot_read_as_graphviz_reads_it(lines):
    """Quoted attribute names (a quoted ID is the same ID), Mrecord, a line terminator closing a field, record
    ports, and an edge from a subgraph's nodes: the drawing Graphviz shows, so the handout's."""
    spec = dot_spec([1.0, 2.0, 3.0], [[], [], [0, 1]], ["", "", "+"], [0.5, 0.25, 1.0])
    text = "digraph { " + lines.replace("§", "n11") + """
      n22 [shape=record, label="{data 2.0000|grad 0.2500}"]; n33 [shape=record, label="{data 3.0000|grad 1.0000}"]
      n33_op [label="+"]; n33_op -> n33; n11 -> n33_op; n22 -> n33_op
    }"""
    got = drawings.drawing({"dot": text, "length": len(text), "ids": [11, 22, 33]}, spec, 10_000, 100)
    want = drawings.expected_drawing(spec)
    assert (got.records, got.ops, got.edges, got.strays, got.rankdir) == (want.records, want.ops, want.edges, [], "LR")


def test_an_edge_from_a_subgraph_is_bounded():
    """``{a b ...} -> {c d ...}`` spreads into an arrow per pair, at most :data:`dot.MAX_EDGES` of them."""
    names = " ".join(f"a{i}" for i in range(200))
    text = f"digraph {{ {{ {names} }} -> {{ {names} }} }}"
    nodes, edges = {}, []
    dot.collect(dot.parse(text, 1000), nodes, edges, {})
    assert len(nodes) == 200 and edges == [(None, None, {})]
    nodes, edges = {}, []
    dot.collect(dot.parse("digraph { {a b} -> {c d}; e -> {f} }", 100), nodes, edges, {})
    assert sorted(t + h for t, h, _ in edges) == ["ac", "ad", "bc", "bd", "ef"] and set(nodes) == set("abcdf")


SPEC = dot_spec([1.0, 2.0, 3.0], [[], [], [0, 1]], ["", "", "+"], [0.5, 0.25, 1.0])
HOSTILE = [
    "", "digraph", "graph { a -- b }", "digraph { a } digraph { b }", "digraph {" + "{" * 500 + "}" * 500 + "}",
    "digraph {" + "subgraph {" * 50 + "}" * 50 + "}", "digraph {" + "a;" * 5000 + "}", "digraph { a -> " * 300,
    'digraph { a [label="' + "x" * 9000 + '"] }', "digraph { a [label=<" + "<b>" * 400 + "x" + "</b>" * 400 + ">] }",
    'digraph { "unterminated }', "digraph { a [label=\"\\\"] }", "digraph { a -> {b c} -> d; e:p -> f:q }",
    "digraph { n1 [label=<<b>html</b>>, shape=record]; n3_op -> n3 [dir=back] }", "\x00\udcff digraph {}",
    "digraph { node [shape=record]; n1 [label=\"{ a | { b | c } }\"]; n2 [label=\"x { y }\"] }",
]


@pytest.mark.parametrize("text", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_dot_is_a_failure_or_a_drawing_quickly(text):
    start = time.process_time()
    answer = {"dot": text, "length": len(text), "ids": [1, 2, 3]}
    most_chars, most_names = dot.dot_limits(SPEC)
    try:
        got = drawings.drawing(answer, SPEC, most_chars, most_names)
    except Failure as failure:
        assert len(str(failure)) < 700
    else:
        for check in (drawings.check_records, drawings.check_ops, drawings.check_edges):
            with pytest.raises(Failure):
                check(got, drawings.expected_drawing(SPEC), SPEC)
    assert time.process_time() - start < 2.0


def test_the_refused_rankdirs_are_refused_by_the_reference_and_only_a_valueerror_passes(mg):
    """The four directions draw; every rankdir the tests refuse (lower case, spaces, empty) the reference refuses with
    ValueError, as the handout says. The check passes a ValueError only: a returned text fails, and another
    exception is reported as the student's."""
    for rankdir in checks.RANKDIRS:
        assert draw(mg, SPEC, rankdir).rankdir == rankdir
    assert {"lr", "tb"} <= set(checks.REFUSED_RANKDIRS)
    for rankdir in checks.REFUSED_RANKDIRS:
        with pytest.raises(GraderError) as raised:  # the probe raised on the reference
            ask(mg, "graph_dot", SPEC, rankdir, 10_000)
        assert isinstance(raised.value.__cause__, ValueError)

    def asking(result):
        def ask_student(probe, *args):
            if isinstance(result, Exception):
                raise result
            return result
        return ask_student

    value_error = StudentFault("raised", "to_dot raised ValueError: no", {"type": "ValueError", "message": "no"})
    checks.check_rankdir_refused(asking(value_error), SPEC, "lr")
    with pytest.raises(Failure, match=r"to_dot\(root, rankdir='lr'\) returned, expected ValueError") as failed:
        checks.check_rankdir_refused(asking(ask(mg, "graph_dot", SPEC, "LR", 10_000)), SPEC, "lr")
    assert not isinstance(failed.value, StudentFault)
    key_error = StudentFault("raised", "to_dot raised KeyError: 'lr'", {"type": "KeyError", "message": "'lr'"})
    with pytest.raises(StudentFault, match="KeyError"):
        checks.check_rankdir_refused(asking(key_error), SPEC, "lr")


def test_record_fields_and_escstring_follow_graphviz():
    assert labels.record_fields("{ a | b }") == (("a", "b"),)
    assert labels.record_fields("a | { b | c } | d") == ("a", ("b", "c"), "d")
    assert labels.record_fields("\\{x\\} \\| \\<y\\>") == ("{x} | <y>",)
    assert labels.record_fields("a\\\\|b") == ("a\\", "b")
    assert labels.record_fields("{ <d> a | <g>b }") == (("a", "b"),)  # ports are not shown
    for bad in ("{ a", "a }", "a <p>", "<p a", "a > b", "<p> <q> a", "<p> { a }", "x { y }", "{ a } b"):
        assert labels.record_fields(bad) is None
    assert labels.esc_string("a\\\\b\\c\\nd\\N") == "a\\bc\nd\\N"
    assert labels.dot_string('"a\\"b\\\\"') == 'a"b\\\\' and labels.dot_string("abc") == "abc"
    assert labels.dot_string("<<b>x</b>>") is None


@pytest.mark.parametrize("probe, args, answer", [
    ("graph_trace", [SPEC], {"nodes": [0, 1, 2, 3], "edges": [], "more": [False, False], "kinds": ["set", "set"]}),
    ("graph_trace", [SPEC], {"nodes": [0] * 9, "edges": [], "more": [False, False], "kinds": ["set", "set"]}),
    ("graph_trace", [SPEC], {"nodes": [], "edges": [[0, 1, 2]], "more": [False, False], "kinds": ["set", "set"]}),
    ("graph_trace", [SPEC], {"nodes": [True], "edges": [], "more": [False, False], "kinds": ["set", "set"]}),
    ("graph_trace", [SPEC], {"nodes": [], "edges": [], "more": [0, 0], "kinds": ["set", "set"]}),
    ("graph_dot", [SPEC, None, 50], {"dot": "x" * 51, "length": 51, "ids": [1, 2, 3]}),
    ("graph_dot", [SPEC, None, 50], {"dot": "x", "length": 1, "ids": [1, 2]}),
    ("graph_dot", [SPEC, None, 50], {"dot": "x", "length": 1, "ids": [1, 2, -3]}),
    ("graph_dot", [SPEC, None, 50], {"dot": "x", "length": 10**12, "ids": [1, 2, 3]}),
    ("graph_escape", [["ab"], False], {"escaped": ["x" * 25]}),
    ("graph_escape", [["ab"], False], {"escaped": ["a", "b"]}),
    ("graph_hand", [], {"x": 1.0, "y": 2.0, "z": "3", "made": 0}),
    ("graph_hand", [], {"x": 1.0, "y": 2.0, "z": 3.0, "made": -1}),
])
def test_answers_are_bounded_by_their_requests(probe, args, answer):
    with pytest.raises(MalformedAnswer):
        ANSWERS[probe](answer, *args)


def test_the_hidden_graphs_are_fair(mg):
    """Every node of a graph to_dot is tested on is reachable from its root, and shows distinct data."""
    hidden = load_hidden("graph")
    for spec in hidden.random_graphs("dot", 3, most=5):
        assert reachable(spec) == set(range(len(spec["data"])))
        assert len({drawings.data_field(x) for x in spec["data"]}) == len(spec["data"])
    for spec in hidden.random_graphs("trace", 8, inner=True):
        nodes = ask(mg, "graph_trace", spec)["nodes"]
        assert set(nodes) == reachable(spec)


LABEL_ATTACKS = ["\x1b[2J\x1b[31mred", "\u202eevil\u202c", "`` ```\n# Heading", "</script><script>alert(1)</script>",
                 "\x07\x08\r\x00", "\u200b\u2066hidden\u2069"]


@pytest.mark.parametrize("label", LABEL_ATTACKS, ids=range(len(LABEL_ATTACKS)))
def test_a_hostile_label_reaches_the_feedback_inert(label):
    """Student labels are the subject of the drawing checks' messages: control, bidi and invisible characters are
    escaped there (the feedback writer then fences them), so none reaches a terminal, Markdown or HTML as it is."""
    import unicodedata

    escaped = label.replace("\\", "\\\\").replace('"', '\\"')
    text = 'digraph { rankdir=LR; node [shape=record]; "1" [label="{ ' + escaped + ' | data 1.0000 }"]; }'
    answer = {"dot": text, "length": len(text), "ids": [1, 2, 3]}
    most_chars, most_names = dot.dot_limits(SPEC)
    messages = []
    try:
        got = drawings.drawing(answer, SPEC, most_chars, most_names)
        for check in (drawings.check_records, drawings.check_ops, drawings.check_edges):
            try:
                check(got, drawings.expected_drawing(SPEC), SPEC)
            except Failure as failure:
                messages.append(str(failure))
    except Failure as failure:
        messages.append(str(failure))
    assert messages
    for message in messages:
        assert not [c for c in message if c != "\n" and unicodedata.category(c) in ("Cc", "Cf")], message


def test_repeated_lines_count_once_against_the_bounds_and_a_large_drawing_is_still_refused():
    """An arrow written 300 times draws what it draws once (the last of repeated attributes wins, as in Graphviz);
    a text of many distinct statements is refused as before, with what it counted; lines inside a string that
    spans lines, and braces of groups, are kept as they are."""
    most_chars, most_names = dot.dot_limits(SPEC)
    arrows = "  n11 -> n33_op;\n  n22 -> n33_op;\n" * 300
    text = f"""digraph {{
  rankdir=LR;
  n11 [shape=record, label="{{ data 1.0000 | grad 0.5000 }}", color=red];
  n11 [color=blue];
{arrows}  n22 [shape=record, label="{{ data 2.0000 | grad 0.2500 }}"];
  n33 [shape=record, label="{{ data 3.0000 | grad 1.0000 }}"];
  n33_op [label="+"];
  n33_op -> n33;
  n11 [color=red];
}}"""
    assert len(text) > most_chars and dot.scan(text).names > most_names
    answer = {"dot": text, "length": len(text), "ids": [11, 22, 33]}
    got = drawings.drawing(answer, SPEC, most_chars, most_names)
    want = drawings.expected_drawing(SPEC)
    assert (got.records, got.ops, got.edges, got.strays) == (want.records, want.ops, want.edges, [])
    distinct = dot.distinct_lines(text)
    assert distinct.count("n11 -> n33_op;") == 1 and distinct.index("[color=blue]") < distinct.index("n11 [color=red]")
    many = "digraph {\n" + "".join(f"  a{i} -> b{i};\n" for i in range(3000)) + "}"
    with pytest.raises(Failure, match=r"each repeated line counted once\): more than"):
        drawings.drawing({"dot": many, "length": len(many), "ids": [1, 2, 3]}, SPEC, most_chars, most_names)
    huge = "digraph {\n" + "  a -> b;\n" * 10**5 + "}"
    with pytest.raises(Failure, match=r"to_dot returned \d+ characters for this graph: more than"):
        drawings.drawing({"dot": huge, "length": len(huge), "ids": [1, 2, 3]}, SPEC, most_chars, most_names)
    kept = 'digraph {\n  a [label="x\n  y;\n  y;\n"];\n  subgraph {\n  }\n  subgraph {\n  }\n}'
    assert dot.distinct_lines(kept) == kept
