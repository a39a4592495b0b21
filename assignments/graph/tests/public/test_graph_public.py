"""Public tests of assignment ``graph`` (students run them with ``grader check``; there is no reference here).

Every graph here is made by the grader: ``Value(data)`` with ``_prev``,
``_op`` and ``grad`` set directly, so none of your engine's operations runs
and an engine bug costs no points in this assignment. ``to_dot`` runs with
``trace`` replaced by the grader's list of the graph's nodes and edges, so a
bug in ``trace`` costs points only in ``trace``'s tests. Your DOT text is
read by a DOT parser (pydot) and compared as a drawing: which records, op
nodes and arrows it has and what each label shows, never its spacing or the
order of its lines. The expected answers are written out here.
"""

import math

import pytest

from assignments.graph.checks import attempt, check_rankdir_refused, check_trace_edges, check_trace_nodes, draw, typed
from assignments.graph.checks import uses_of_to_dot
from assignments.graph.dot import short, shown_texts
from assignments.graph.drawings import check_edges, check_ops, check_rankdir, check_records, expected_drawing
from assignments.graph.specs import deep_chain, describe, diamond_chain, dot_spec, from_expression
from assignments.shared.checks.graphs import spec as expression
from grader.testing import Failure, close, show

# f = (x + y) * z + exp(x * z): x0 = x, x1 = y, x2 = z, n3 = s, n4 = a, n5 = m, n6 = e, n7 = f
WORKED = [["add", 0, 1], ["mul", 3, 2], ["mul", 0, 2], ["exp", 5], ["add", 4, 6]]
WORKED_EDGES = {(0, 3), (1, 3), (3, 4), (2, 4), (0, 5), (2, 5), (5, 6), (4, 7), (6, 7)}
TRACE_HINT = ("walk from root through _prev with an explicit stack and a visited check: add each node once, and "
              "an edge (child, parent) for each child in parent._prev")


@pytest.mark.points(3)
@pytest.mark.task("5.1")
@pytest.mark.time_limit(3)  # a trace with a visited check takes a few ms here; one without never finishes
def test_trace_small_graphs(student, check):
    """trace(root): the worked example, a node used twice, a leaf, an inner node as the root, a deep chain, many paths"""
    student = typed(student)
    spec = from_expression(expression([1.0, 2.0, -1.0], WORKED), "worked")
    got, failure = attempt(student, "graph_trace", spec)
    with check.case(f"the worked example ({describe(spec)}): trace(n7)'s nodes", method="trace", hint=TRACE_HINT):
        if failure:
            raise failure
        check_trace_nodes(got, set(range(8)), spec)
    with check.case("the worked example: trace(n7)'s edges", method="trace",
                    hint="edges are (child, parent) pairs: the child was used to compute the parent"):
        if failure:
            raise failure
        check_trace_edges(got, WORKED_EDGES, spec)
    twice = from_expression(expression([3.0], [["mul", 0, 0], ["add", 1, 0]]), "twice")
    with check.case(f"a node used twice ({describe(twice)}): trace(n2)", method="trace",
                    hint="x0 is reached along three paths: a visited set keeps it once, and the edges form a set"):
        got = student("graph_trace", twice)
        check_trace_nodes(got, {0, 1, 2}, twice)
        check_trace_edges(got, {(0, 1), (0, 2), (1, 2)}, twice)
    leaf = dot_spec([4.0], [[]], [""])
    with check.case("a leaf alone: trace(x0) is ({x0}, set())", method="trace",
                    hint="the root is a node too, even when its _prev is empty"):
        got = student("graph_trace", leaf)
        check_trace_nodes(got, {0}, leaf)
        check_trace_edges(got, set(), leaf)
    inner = {**spec, "root": 3}
    with check.case("the worked example from an inner node: trace(n3) with n3 = x0 + x1", method="trace",
                    hint="follow _prev downwards only: the nodes computed from the root are not part of its graph"):
        got = student("graph_trace", inner)
        check_trace_nodes(got, {0, 1, 3}, inner)
        check_trace_edges(got, {(0, 3), (1, 3)}, inner)
    chain = deep_chain(1500)
    with check.case("a chain of 1500 operations, deeper than Python's recursion limit", method="trace",
                    hint="a recursive trace stops at Python's recursion limit (about 1000 calls deep): keep the nodes "
                         "still to expand on an explicit stack (a list) instead"):
        got = student("graph_trace", chain)
        check_trace_nodes(got, set(range(1501)), chain)
        check_trace_edges(got, {(k, k + 1) for k in range(1500)}, chain)
    paths = diamond_chain(24, "public")
    with check.case("x = x * c + x, 24 times (2**24 paths from the root down to x0): trace finishes at once",
                    method="trace", hint="skip a node that is already in nodes before you expand it: without that "
                                         "visited check, each node is expanded once per path"):
        got = student("graph_trace", paths)
        check_trace_nodes(got, set(range(len(paths["data"]))), paths)
        check_trace_edges(got, {(c, p) for p, children in enumerate(paths["prev"]) for c in children}, paths)


@pytest.mark.points(4)
@pytest.mark.task("5.2")
def test_to_dot_worked_example(student, check):
    """to_dot(root): the worked example's graph as a digraph of records, op nodes and arrows; rankdir"""
    student = typed(student)
    uses_of_to_dot(student, check)
    spec = from_expression(expression([1.5, 2.0, -0.5], WORKED), "worked-dot")
    want = expected_drawing(spec)
    got, failure = attempt(draw, student, spec)
    where = f"the worked example's graph at x0 = 1.5, x1 = 2, x2 = -0.5 ({describe(spec)}), with grads set"
    with check.case(f"{where}: the text parses as digraph {{ ... }} with rankdir=LR", method="to_dot",
                    hint='start with "digraph {", then "  rankdir=LR;", one statement per line, and end with "}"'):
        if failure:
            raise failure
        check_rankdir(got, "LR")
    with check.case(f"{where}: one record per Value, {{ data D | grad G }} with %.4f", method="to_dot",
                    hint='n<id(v)> [shape=record, label="{ data %.4f | grad %.4f }"] for each node of trace'):
        if failure:
            raise failure
        check_records(got, want, spec)
    with check.case(f"{where}: one op node per Value made by an operation", method="to_dot",
                    hint='n<id(v)>_op [label="<op>"] for each value whose _op is not empty: its own op node, '
                         "named after the value, not after the op"):
        if failure:
            raise failure
        check_ops(got, want, spec)
    with check.case(f"{where}: the arrows op -> value and child -> op node of its parent", method="to_dot",
                    hint="n<id(v)>_op -> n<id(v)>, and for each (child, parent) of trace "
                         "n<id(child)> -> n<id(parent)>_op (to the parent's record when it has no op)"):
        if failure:
            raise failure
        check_edges(got, want, spec)
    with check.case(f"{where}: to_dot(root, rankdir='TB') has rankdir=TB; rankdir='XY' and 'lr' raise ValueError",
                    method="to_dot", hint='write the argument into the graph, rankdir=TB;, after checking that it is '
                                          'exactly one of "TB", "LR", "BT", "RL" (else raise ValueError)'):
        check_rankdir(draw(student, spec, "TB"), "TB")
        for rankdir in ("XY", "lr"):
            check_rankdir_refused(student, spec, rankdir)


def check_shown(escaped, texts, record):
    shown = shown_texts(escaped, record)
    for text, e, s in zip(texts, escaped, shown):
        if s != text:
            where = "a record's field" if record else "a label"
            seen = "does not parse" if s is None else f"shows {short(s, 40)}"
            raise Failure(f"_escape({text!r}{', record=True' if record else ''}) returned {short(e, 60)}: as "
                          f"{where} it {seen}, expected {short(text, 40)}")


@pytest.mark.points(2)
@pytest.mark.task("5.2")
def test_labels_and_escaping(student, check):
    """A Value's label comes first in its record; _escape makes quotes, backslashes and { } | < > literal"""
    student = typed(student)
    uses_of_to_dot(student, check)
    spec = dot_spec([2.0, -3.0, -6.0], [[], [], [0, 1]], ["", "", "*"], [-3.0, 2.0, 1.0], label={0: "a", 1: "b"})
    with check.case("a = Value(2.0) with a.label = 'a' (and b): its record is { a | data 2.0000 | grad -3.0000 }",
                    method="to_dot", hint="when getattr(v, 'label', '') is not empty, it is the record's first field"):
        check_records(draw(student, spec), expected_drawing(spec), spec)
    texts = ['say "hi"', "a\\b", 'both \\" here']
    with check.case(f"_escape(text) for {', '.join(repr(t) for t in texts)}", method="_escape",
                    hint='a backslash becomes \\\\ and a quote \\" (backslashes first)'):
        check_shown(student("graph_escape", texts, False), texts, False)
    texts = ["a|b", "{x}", "<p>", 'x"{y}\\']
    with check.case(f"_escape(text, record=True) for {', '.join(repr(t) for t in texts)}", method="_escape",
                    hint="in a record, also put a backslash before each of { } | < >"):
        check_shown(student("graph_escape", texts, True), texts, True)


def f(x, y, z):
    return (x + y) * z + math.exp(x * z)


@pytest.mark.points(3)
@pytest.mark.task("5.3")
def test_hand_gradients(student, check):
    """hand_gradients(): df/dx, df/dy, df/dz of f = (x + y) * z + exp(x * z) at (1, 2, -1)"""
    student = typed(student)
    got, failure = attempt(student, "graph_hand")
    point = [1.0, 2.0, -1.0]
    h = 1e-5
    for k, name in enumerate("xyz"):
        up, down = list(point), list(point)
        up[k] += h
        down[k] -= h
        want = (f(*up) - f(*down)) / (2 * h)  # the central finite difference
        with check.case(f"df/d{name} at x = 1, y = 2, z = -1", method="hand_gradients",
                        hint="work backward from f.grad = 1: each child's grad += local gradient * its parent's "
                             "grad; x and z reach f along two paths each, so their gradients are sums"):
            if failure:
                raise failure
            if not close(got[name], want, rel=1e-6, abs_tol=1e-6):
                raise Failure(f"hand_gradients()[{name!r}] is {show(got[name])}, but the central finite difference "
                              "of f gives another number (the expected numbers are not shown: work them out by hand)")
    with check.case("worked out by hand: hand_gradients() builds no Value", method="hand_gradients",
                    hint="write each gradient as the numeric expression you derived on paper (math.exp allowed), "
                         "without Value or backward()"):
        if failure:
            raise failure
        if got["made"]:
            raise Failure(f"hand_gradients() made {got['made']} Value(s) while it ran, expected none: the "
                          "gradients are to be worked out by hand")
