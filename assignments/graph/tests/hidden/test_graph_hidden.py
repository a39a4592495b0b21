"""Hidden tests of assignment ``graph``: trace, to_dot, _escape and hand_gradients against the reference, on
seeded random graphs and on the traps the handout names.

Fault isolation: every graph is made by the grader (``Value(data)`` with
``_prev``, ``_op``, ``grad`` and ``label`` set directly: no engine operation
runs), and ``to_dot`` runs with ``trace`` replaced by the grader's list of
the graph's nodes and edges, so a ``trace`` bug costs points only in the
``trace`` tests. DOT texts are compared as drawings (records, op nodes,
arrows, the texts Graphviz shows), parsed by pydot, never rendered.
"""

import random

import pytest

from assignments.graph.checks import REFUSED_RANKDIRS, attempt, check_rankdir_refused, check_trace_edges, check_trace_nodes
from assignments.graph.checks import draw, trace_sets, typed, uses_of_to_dot
from assignments.graph.dot import short, shown_texts
from assignments.graph.drawings import EDGE_HINT, OP_HINT, RECORD_HINT, check_edges, check_nodes, check_ops
from assignments.graph.drawings import check_rankdir, check_records
from assignments.graph.specs import deep_chain, describe, diamond_chain, dot_spec, from_expression, random_expression
from assignments.shared.checks.graphs import spec as expression
from grader.testing import Failure, close, show

TRACE_HINT = ("walk from root through _prev with a stack and a visited set: add each node once, and an edge "
              "(child, parent) for each child in parent._prev")


def random_graphs(seed, count, most=7, inner=False):
    """``count`` seeded random graphs of 3 to ``most`` operations (and the additions that join their ends); with
    ``inner``, every other one is traced from an inner node."""
    rng = random.Random(seed)
    graphs = []
    for k in range(count):
        spec = from_expression(random_expression(rng, rng.randint(1, 3), rng.randint(3, most)), f"{seed}-{k}")
        if inner and k % 2:
            inside = [i for i in range(len(spec["data"]) - 1) if spec["prev"][i]]
            if inside:
                spec = {**spec, "root": rng.choice(inside)}
        graphs.append(spec)
    return graphs


def traced_by(spec):
    return f" (traced from n{spec['root']})" if "root" in spec else ""


@pytest.mark.points(3)
@pytest.mark.task("5.1")
def test_trace_random_graphs(student, reference, check):
    """trace(root) on 8 random graphs with reused nodes, some traced from an inner node"""
    student = typed(student)
    for spec in random_graphs("trace", 8, inner=True):
        with check.case(f"{describe(spec)}{traced_by(spec)}", method="trace", hint=TRACE_HINT):
            got = student("graph_trace", spec)
            nodes, edges = trace_sets(reference("graph_trace", spec))
            check_trace_nodes(got, nodes, spec)
            check_trace_edges(got, edges, spec)


@pytest.mark.points(2)
@pytest.mark.task("5.1")
@pytest.mark.time_limit(2)  # a trace with a visited check takes about 1 ms here; one without never finishes
def test_trace_many_paths(student, reference, check):
    """trace(root) expands each node once: a graph with 2**30 paths from the root to x0"""
    student = typed(student)
    spec = diamond_chain(30, "paths")
    with check.case("n_{k+1} = n_k * c_k + n_k, 30 times (2**30 paths from the root down to x0)", method="trace",
                    hint="skip a node that is already in nodes before you expand it: without that visited check, "
                         "each node is expanded once per path, and the work doubles at every level"):
        got = student("graph_trace", spec)
        nodes, edges = trace_sets(reference("graph_trace", spec))
        check_trace_nodes(got, nodes, spec)
        check_trace_edges(got, edges, spec)


@pytest.mark.points(2)
@pytest.mark.task("5.1")
def test_trace_deep_chain(student, reference, check):
    """trace(root) on a chain of 3000 operations, deeper than Python's recursion limit"""
    student = typed(student)
    spec = deep_chain(3000)
    with check.case("n_{k+1} = op(n_k), 3000 times", method="trace",
                    hint="a recursive trace stops at Python's recursion limit (about 1000 calls deep): "
                         "keep the nodes still to expand on an explicit stack (a list) instead"):
        got = student("graph_trace", spec)
        nodes, edges = trace_sets(reference("graph_trace", spec))
        check_trace_nodes(got, nodes, spec)
        check_trace_edges(got, edges, spec)


def compare_drawings(check, student, reference, spec, title):
    got, failure = attempt(draw, student, spec)
    want = draw(reference, spec)
    for aspect, compare, hint in [("records", check_records, RECORD_HINT), ("op nodes", check_ops, OP_HINT),
                                  ("arrows", check_edges, EDGE_HINT)]:
        with check.case(f"{title}: the {aspect}", method="to_dot", hint=hint):
            if failure:
                raise failure
            compare(got, want, spec)


@pytest.mark.points(3)
@pytest.mark.task("5.2")
def test_to_dot_random_graphs(student, reference, check):
    """to_dot(root) on 3 random graphs of every operation: records, op nodes and arrows match the reference's"""
    student = typed(student)
    uses_of_to_dot(student, check)
    for spec in random_graphs("dot", 3, most=5):
        compare_drawings(check, student, reference, spec, describe(spec))


AWKWARD = [0.36787944117144233, 2.0, 1e-05, -1e-07, 1234.56789, -0.00015, 123456789.0]


@pytest.mark.points(2)
@pytest.mark.task("5.2")
def test_to_dot_number_format(student, reference, check):
    """to_dot's records show data and grad with %.4f: 0.3679, 2.0000, 0.0000, -0.0000, 1234.5679"""
    student = typed(student)
    uses_of_to_dot(student, check)
    n = len(AWKWARD)
    prev = [[] for _ in range(n)] + [[0, 1]] + [[n + k, k + 2] for k in range(n - 2)]
    sums = [AWKWARD[0] + AWKWARD[1]]
    for x in AWKWARD[2:]:
        sums.append(sums[-1] + x + 0.5)
    data = AWKWARD + sums
    ops = [""] * n + ["+"] * (n - 1)
    rng = random.Random("format")
    as_data = dot_spec(data, prev, ops, [round(rng.uniform(-2, 2), 3) for _ in data])
    as_grad = dot_spec([round(rng.uniform(-5, 5), 2) + k for k in range(len(data))], prev, ops, AWKWARD + sums)
    for title, spec in [(f"data {', '.join(repr(x) for x in AWKWARD)}", as_data),
                        (f"grad {', '.join(repr(x) for x in AWKWARD)}", as_grad)]:
        with check.case(f"leaves with {title}, summed", method="to_dot",
                        hint='format with "%.4f" % x: four decimals always (2.0000), never exponent notation, '
                             "and never round() or str()"):
            check_records(draw(student, spec), draw(reference, spec), spec)


@pytest.mark.points(2)
@pytest.mark.task("5.2")
def test_to_dot_rankdir(student, reference, check):
    """to_dot(root, rankdir=...) sets the layout direction; a direction Graphviz does not know raises ValueError"""
    student = typed(student)
    uses_of_to_dot(student, check)
    spec = from_expression(expression([1.25, -0.5], [["mul", 0, 1], ["tanh", 2]]), "rankdir")
    want = draw(reference, spec)
    for rankdir in ("TB", "BT", "RL"):
        with check.case(f"to_dot(root, rankdir={rankdir!r}) for {describe(spec)}", method="to_dot",
                        hint=f"write the argument into the graph: rankdir={rankdir};"):
            got = draw(student, spec, rankdir)
            check_rankdir(got, rankdir)
            check_nodes(got, want, spec)
    refused = ", ".join(repr(r) for r in REFUSED_RANKDIRS)
    with check.case(f"to_dot(root, rankdir='LR') draws; to_dot(root, rankdir=...) raises ValueError for {refused}",
                    method="to_dot", hint='check the argument first, exactly as given (no .upper(), no .strip()): '
                                          'if rankdir not in ("TB", "LR", "BT", "RL"): raise ValueError(...)'):
        got = draw(student, spec, "LR")
        check_rankdir(got, "LR")
        check_nodes(got, want, spec)
        for rankdir in REFUSED_RANKDIRS:
            check_rankdir_refused(student, spec, rankdir)


PLAIN = ['say "hi"', "C:\\new\\dir", "end\\", 'a"b\\"c', "\\\\ two", "{not a record} |x| <y>"]
RECORD = ["a|b", "{x}", "<port>", 'x"{a|b}<c> \\', "\\{", "back\\slash|", "}{", "|"]
LABELS = {0: 'x"{a|b}<c>', 1: "back\\slash", 2: "plain"}


def check_shown(escaped, texts, record):
    shown = shown_texts(escaped, record)
    wrong = [(t, e, s) for t, e, s in zip(texts, escaped, shown) if s != t]
    if wrong:
        text, e, s = wrong[0]
        where = "a record's field" if record else "a label"
        seen = "does not parse" if s is None else f"shows {short(s, 40)}"
        raise Failure(f"_escape({text!r}{', record=True' if record else ''}) returned {short(e, 60)}: as {where} it "
                      f"{seen}, expected {short(text, 40)}" + (f" ({len(wrong) - 1} more texts wrong)" if len(wrong) > 1 else ""))


@pytest.mark.points(3)
@pytest.mark.task("5.2")
def test_escaping(student, reference, check):
    """_escape and to_dot: labels and ops holding " \\ { } | < > show exactly their text"""
    student = typed(student)
    uses_of_to_dot(student, check)
    with check.case(f"_escape(text) for {len(PLAIN)} texts with quotes and backslashes", method="_escape",
                    hint='a backslash becomes \\\\ and a quote \\" (backslashes first, so that the ones you add '
                         "are not doubled); { } | < > need nothing outside a record"):
        check_shown(student("graph_escape", PLAIN, False), PLAIN, False)
    with check.case(f"_escape(text, record=True) for {len(RECORD)} texts with {{ }} | < > and backslashes",
                    method="_escape", hint="in a record, also put a backslash before each of { } | < >, after "
                                           "escaping backslashes and quotes"):
        check_shown(student("graph_escape", RECORD, True), RECORD, True)
    spec = dot_spec([1.5, -2.25, 0.5, -3.375, 2.875], [[], [], [], [0, 1], [3, 2]], ["", "", "", 'op"\\', "+"],
                    [0.25, -0.75, 1.0, 0.5, 1.0], label=LABELS)
    with check.case("to_dot of x0 (label 'x\"{a|b}<c>'), x1 (label 'back\\\\slash') and an op named 'op\"\\\\'",
                    method="to_dot", hint="escape the label with _escape(label, record=True) and the op with "
                                          "_escape(op): both go inside double quotes"):
        got, want = draw(student, spec), draw(reference, spec)
        check_records(got, want, spec)
        check_ops(got, want, spec)


@pytest.mark.points(1)
@pytest.mark.task("5.3")
def test_hand_gradients_match_reference(student, reference, check):
    """hand_gradients() matches the reference's gradients exactly"""
    student = typed(student)
    got, want = student("graph_hand"), reference("graph_hand")
    for name in "xyz":
        with check.case(f"df/d{name} of f = (x + y) * z + exp(x * z) at (1, 2, -1)", method="hand_gradients",
                        hint="x reaches f through s = x + y and through m = x * z; z through a = s * z and m; "
                             "the local gradient of exp(m) is exp(m) itself, at m = -1"):
            if not close(got[name], want[name], rel=1e-12, abs_tol=1e-12):
                raise Failure(f"hand_gradients()[{name!r}] is {show(got[name])}, expected {show(want[name])}")
