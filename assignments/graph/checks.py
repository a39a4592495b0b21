"""Checks of assignment ``graph`` (judge side): ``trace``'s answer against the nodes and edges it should have, and
``to_dot``'s drawing through :mod:`assignments.graph.drawings`.

Every message names nodes as the feedback's listing of the graph does (``x0``
for a leaf, ``n3`` for a node made by an operation, by spec index).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from assignments.graph.dot import dot_limits, raw_limit
from assignments.graph.drawings import Drawing, drawing, node_name
from assignments.graph.specs import dot_spec
from grader.testing import Failure, StudentFault

STRANGER = -1
"""A node index in ``trace``'s answer: an object that is no node of the graph."""
NOT_A_PAIR = -2
"""An edge in ``trace``'s answer that is not a ``(child, parent)`` pair."""


def _names(spec: dict[str, Any], nodes: set[int] | list[int], most: int = 4) -> str:
    shown = [node_name(spec, k) for k in sorted(nodes)[:most]]
    return ", ".join(shown) + (f" and {len(nodes) - most} more" if len(nodes) > most else "")


def _pairs(spec: dict[str, Any], pairs: set[tuple[int, int]], most: int = 3) -> str:
    shown = [f"({node_name(spec, c)}, {node_name(spec, p)})" for c, p in sorted(pairs)[:most]]
    return ", ".join(shown) + (f" and {len(pairs) - most} more" if len(pairs) > most else "")


def trace_sets(answer: dict[str, Any]) -> tuple[set[int], set[tuple[int, int]]]:
    """The nodes and edges of a ``graph_trace`` answer, as sets of spec indices."""
    return set(answer["nodes"]), {tuple(e) for e in answer["edges"]}  # type: ignore[misc]


def check_trace_nodes(got: dict[str, Any], want: set[int], spec: dict[str, Any]) -> None:
    """``trace``'s nodes are exactly ``want``, each once.

    Raises:
        Failure: Saying which nodes are missing or extra, or what else the collection holds.
    """
    nodes = got["nodes"]
    problems = []
    if got["more"][0]:
        problems.append(f"nodes holds more than {len(nodes)} items, for a graph of {len(spec['data'])} nodes")
    strangers = nodes.count(STRANGER)
    if strangers:
        problems.append(f"nodes holds {strangers} object(s) that are not Values of the graph (copies, numbers?)")
    twice = sorted(k for k, n in Counter(nodes).items() if n > 1 and k != STRANGER)
    if twice:
        problems.append(f"nodes lists {_names(spec, twice)} more than once")
    found = set(nodes) - {STRANGER}
    missing, extra = want - found, found - want
    hints = []
    if missing:
        root = spec.get("root", len(spec["data"]) - 1) % len(spec["data"])
        leaves = {k for k in missing if not spec["prev"][k]}
        what = " (the root itself)" if missing == {root} else " (all of them leaves)" if missing == leaves else ""
        problems.append(f"{len(missing)} node(s) missing: {_names(spec, missing)}{what}")
        hints.append("the root is a node too: add every node you pop to nodes" if missing == {root} else
                     "leaves (an empty _prev) are nodes too: add every node you pop, children or not"
                     if missing == leaves else
                     "push every child onto the stack inside the for loop over v._prev, so each branch is explored")
    if extra:
        problems.append(f"{len(extra)} node(s) that the root does not depend on: {_names(spec, extra)}")
        hints.append("follow _prev from the root only: nodes computed from the root are not part of its graph")
    if problems:
        raise Failure(f"trace(root) returned nodes ({got['kinds'][0]}) with {len(nodes)} items, expected "
                      f"{len(want)}: " + "; ".join(problems), hint=hints[0] if hints and not strangers else None)


def check_trace_edges(got: dict[str, Any], want: set[tuple[int, int]], spec: dict[str, Any]) -> None:
    """``trace``'s edges are exactly the ``(child, parent)`` pairs ``want``.

    Raises:
        Failure: Saying which edges are missing or extra (or that every edge is the wrong way round).
    """
    edges = [tuple(e) for e in got["edges"]]
    problems = []
    if got["more"][1]:
        problems.append(f"edges holds more than {len(edges)} items")
    bad = sum(1 for e in edges if e == (NOT_A_PAIR, NOT_A_PAIR))
    if bad:
        problems.append(f"{bad} item(s) of edges are not (child, parent) pairs")
    strangers = sum(1 for e in edges if STRANGER in e)
    if strangers:
        problems.append(f"{strangers} edge(s) hold an object that is not a Value of the graph")
    found = {e for e in edges if min(e) >= 0}
    hint = None
    if found != want:
        if want and {(p, c) for c, p in found} == want:
            problems.append("every edge is (parent, child): an edge is (child, parent), for each child in "
                            "parent._prev")
            hint = "record the pair (child, parent) for each child in parent._prev: the child first, so arrows point to results"
        else:
            missing, extra = want - found, found - want
            if missing:
                problems.append(f"{len(missing)} edge(s) missing: {_pairs(spec, missing)}")
            if extra:
                problems.append(f"{len(extra)} edge(s) not expected: {_pairs(spec, extra)}")
    if problems:
        raise Failure(f"trace(root) returned edges ({got['kinds'][1]}) with {len(edges)} items, expected "
                      f"{len(want)} (child, parent) pairs: " + "; ".join(problems), hint=hint)


def draw(ask: Any, spec: dict[str, Any], rankdir: str | None = None) -> Drawing:
    """What the DOT text of ``to_dot`` (asked through ``ask``: the ``student`` or ``reference`` fixture) draws.

    Raises:
        Failure: If the call raised, or its text is too long, does not parse or is not a digraph.
    """
    most_chars, most_names = dot_limits(spec)
    return drawing(ask("graph_dot", spec, rankdir, raw_limit(most_chars)), spec, most_chars, most_names)


RANKDIRS = ("TB", "LR", "BT", "RL")
"""The only ``rankdir`` values ``to_dot`` accepts (the handout: "Raise ValueError for anything else")."""
REFUSED_RANKDIRS = ("XY", "lr", "tb", " LR", "LR ", "")
"""Texts that are no direction: one Graphviz does not know, the right letters in lower case or with a space, and
the empty text. The handout's check is exact (as Graphviz's own: it reads ``rankdir=lr`` as TB), so each one must
raise ValueError."""


def check_rankdir_refused(ask: Any, spec: dict[str, Any], rankdir: str) -> None:
    """``to_dot(root, rankdir=rankdir)`` (asked through ``ask``, the ``student`` fixture) raises ValueError.

    Raises:
        Failure: If it returned (a text or anything else) instead.
        StudentFault: If it raised another exception, crashed or timed out.
    """
    try:
        ask("graph_dot", spec, rankdir, dot_limits(spec)[0])
    except StudentFault as fault:
        if fault.raised("ValueError"):
            return
        raise
    except Failure:  # it returned something that is no text: it did not raise either
        pass
    raise Failure(f"to_dot(root, rankdir={rankdir!r}) returned, expected ValueError: rankdir must be exactly one "
                  f"of {', '.join(RANKDIRS)} as given, in upper case and without spaces (Graphviz itself compares "
                  "it exactly: it draws rankdir=lr top to bottom, as TB)")


USES_SPEC = dot_spec([2.0, -3.0, -6.0], [[], [], [0, 1]], ["", "", "*"], label={0: "a"})
"""A graph whose drawing needs ``_escape`` (an op, a label): a ``to_dot`` built on it calls it here."""


def uses_of_to_dot(ask: Any, check: Any) -> None:
    """Count this test's ``to_dot`` cases for ``_escape`` too (the handout builds ``to_dot`` on it:
    ``assignment.yaml``'s ``uses``) only when the student's ``to_dot`` uses it: it called ``_escape`` while it drew
    :data:`USES_SPEC`, or its code names it (a missing ``_escape``). A ``to_dot`` that never does (micrograd's
    ``draw_dot``) has failures of its own, which fixing ``_escape`` would not fix: "Start here" then does not call it
    built on ``_escape``. When the probe itself fails, the handout's table stands.

    Args:
        ask: The ``student`` fixture.
        check: The test's ``check`` fixture (:class:`grader.testing.cases.Check`).
    """
    try:
        got = ask("graph_dot_uses", USES_SPEC)
    except Failure:
        return
    if not got["calls"] and not got["named"]:
        check.uses_table = {**check.uses_table, "to_dot": ()}


def attempt(fn: Any, *args: Any) -> tuple[Any, Failure | None]:
    """``fn(*args)`` and None, or None and the :class:`Failure` it raised (re-raised in each case that needs it)."""
    try:
        return fn(*args), None
    except Failure as failure:
        return None, failure


RETURNS = {
    "graph_trace": "return a pair (nodes, edges): a set of the Values themselves and a set of (child, parent) tuples",
    "graph_dot": "return the DOT text as one str",
    "graph_escape": "return the escaped text as a str",
    "graph_hand": 'return a dict {"x": ..., "y": ..., "z": ...} of three floats',
}
"""What each function must return: the hint when the probe found its result of the wrong kind."""


def typed(ask: Any) -> Any:
    """``ask`` (the ``student`` fixture), with a result of the wrong kind reported with a hint about what to return
    (the probe raises ``ProbeError: f() returned ..., expected ...``; the case's own hint is about the algorithm)."""

    def asking(probe: str, *args: Any) -> Any:
        try:
            return ask(probe, *args)
        except StudentFault as fault:
            message = str(fault.error.get("message", ""))
            if fault.kind == "raised" and fault.error.get("type") == "ProbeError" and " returned " in message:
                raise Failure(fault.message, hint=RETURNS.get(probe)) from None
            raise

    return asking
