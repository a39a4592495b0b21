"""Reading a student's Graphviz DOT text in the judge: bounded, parsed with pydot, never rendered.

``to_dot``'s answer is untrusted text. This module reads it in three steps,
each bounded (what it draws is :mod:`assignments.graph.drawings`):

1. its length, against what the request allowed (:func:`check_length`);
2. a scan of its tokens (:func:`scan`): how many names stand outside
   attribute lists (about one per statement), how many groups ``{ }`` open
   and how deep braces nest, so that pydot, whose parser is slow on long
   inputs, slower on groups and recursive on nested ones, only sees texts the
   size of a right answer (the scan also finds the
   ``;`` between attributes, which Graphviz reads and pydot does not:
   :func:`with_commas`);
3. pydot's parser (:func:`parse`), its printed complaints captured.

Then each node and edge statement with its attributes (:func:`collect`); the texts
Graphviz shows for them are :mod:`assignments.graph.labels`'. Every text
from the student's DOT that reaches a message is cut short and shown inert
(:func:`short`).
"""

from __future__ import annotations

import contextlib
import functools
import io
import warnings
from collections.abc import Mapping
from typing import Any, NamedTuple

import pydot

from assignments.graph.labels import dot_string, esc_string, record_fields, show_fields
from assignments.graph.repeats import distinct_lines
from grader.testing import Failure

MAX_DEPTH = 4
"""Deepest nesting of ``{`` (the graph's body is 1, a subgraph 2) and of ``[`` (1) a DOT text may have."""
CACHE_SIZE = 256
"""How many label sets :func:`shown_texts` keeps parsed."""
MAX_DOT_CHARS = 1 << 20
"""The probe reports a text's length up to this (and one more for any longer text)."""
NAMES_PER_GROUP = 16
"""What a group ``{ }`` costs pydot's parser, in names of statements (one costs about twenty, nested ones more: a
text of 360 groups nested three deep took it 15 s); a text may open 8 groups and one per this many names it may
have (:func:`parse`). A right answer opens one, the digraph's body."""


def short(text: str, limit: int = 60) -> str:
    """A text from the student's DOT as it may appear in feedback: cut to ``limit`` characters, between backticks,
    backslashes and quotes as they are (the subject of the messages), any other unprintable character escaped."""
    shown = "".join(c if c.isprintable() and c != "`" else repr(c)[1:-1] for c in text[:limit])
    return f"`{shown}`" + ("..." if len(text) > limit else "")


PARSE_HINT = ("print(to_dot(f)) and read the line pydot names: each statement is name [key=\"value\", ...]; or "
              "a -> b; inside digraph { }, and each label is written in double quotes, escaped with _escape")
"""The hint shown when the text cannot be read as a drawing at all (whatever the case was about)."""


# --- bounds before parsing ---------------------------------------------------------------------------------------

def dot_limits(spec: dict[str, Any]) -> tuple[int, int]:
    """The most characters and the most statement names a DOT text of the graph ``spec`` may have.

    A right answer has about 200 characters and 3 names per node and edge;
    these limits are a few times that, so that any reasonable style fits.
    """
    n = len(spec["data"])
    edges = sum(len(set(p)) for p in spec["prev"])
    labels = sum(len(t) for t in (spec.get("label") or {}).values())
    return 2000 + 400 * (n + edges) + 8 * labels, 60 + 8 * (2 * n + edges)


REPEATS = 16
"""How many times the characters :func:`dot_limits` allows a text may have as ``to_dot`` returned it: a line
repeated word for word (the same arrow written once per path) counts once against the bounds
(:func:`distinct_lines`), and only here as it is."""


def raw_limit(most_chars: int) -> int:
    """The most characters ``to_dot``'s text may have before its repeated lines are counted once."""
    return min(MAX_DOT_CHARS, REPEATS * most_chars)


def check_length(answer: dict[str, Any], most: int) -> str:
    """The answer's DOT text with each repeated line kept once (:func:`distinct_lines`), if it was not longer than
    :func:`raw_limit` characters as returned nor ``most`` characters once repeats are counted once.

    Raises:
        Failure: If ``to_dot`` returned a longer text (the probe sent only its beginning).
    """
    raw = raw_limit(most)
    if answer["length"] > raw or len(answer["dot"]) > raw:
        size = f"{answer['length']}" if answer["length"] <= MAX_DOT_CHARS else f"more than {MAX_DOT_CHARS}"
        raise Failure(f"to_dot returned {size} characters for this graph: more than {raw}, far more "
                      "than its drawing needs (one line per node, op node and arrow)", hint=PARSE_HINT)
    text = distinct_lines(answer["dot"])
    if len(text) > most:
        raise Failure(f"to_dot returned {len(text)} characters for this graph (each repeated line counted once): "
                      f"more than {most}, far more than its drawing needs (one line per node, op node and arrow)",
                      hint=PARSE_HINT)
    return text


class Scan(NamedTuple):
    """What :func:`scan` found in a DOT text.

    Attributes:
        names: The names (IDs, quoted strings) outside attribute lists: about one per statement.
        deepest: The deepest nesting of ``{`` and of ``[``.
        semicolons: The offsets of the ``;`` that separate attributes inside ``[...]``.
        groups: How many ``{`` open a group (the graph's body, subgraphs).
    """

    names: int
    deepest: int
    semicolons: list[int]
    groups: int = 0


def scan(text: str) -> Scan:
    """Count the names (IDs, quoted strings) outside attribute lists, the groups ``{`` opens and the deepest nesting
    of ``{`` and ``[``, and find the semicolons between attributes.

    A lexer of DOT's tokens only: comments are skipped, quoted and HTML strings
    read whole. It bounds what pydot will be given, nothing more.
    """
    names = depth = brackets = deepest = groups = 0
    semicolons: list[int] = []
    i, n = 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if c == "\n":
            line_start = True
            i += 1
            continue
        if c in " \t\r":
            i += 1
            continue
        if c == "#" and line_start or text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        line_start = False
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
        elif c == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            i += 1
            names += brackets == 0
        elif c == "<":
            level = 0
            while i < n:
                level += {"<": 1, ">": -1}.get(text[i], 0)
                i += 1
                if level == 0:
                    break
                deepest = max(deepest, level)
            names += brackets == 0
        elif c in "{[":
            depth += c == "{"
            groups += c == "{"
            brackets += c == "["
            deepest = max(deepest, depth, brackets)
            i += 1
        elif c in "}]":
            depth -= c == "}"
            brackets = max(0, brackets - (c == "]"))
            i += 1
        elif c.isalnum() or c in "_.-" or ord(c) > 127:
            if text.startswith("->", i) or text.startswith("--", i):
                i += 2
                continue
            start = i
            while i < n and (text[i].isalnum() or text[i] in "_." or ord(text[i]) > 127 or
                             (text[i] == "-" and i == start)):
                i += 1
            i = max(i, start + 1)
            names += brackets == 0
        else:
            if c == ";" and brackets:
                semicolons.append(i)
            i += 1
    return Scan(names, deepest, semicolons, groups)


def with_commas(text: str, semicolons: list[int]) -> str:
    """``text`` with each ``;`` at the offsets ``semicolons`` (between attributes: :func:`scan`) made a ``,``.

    Graphviz's grammar separates the attributes of a list with either (``a_list : ID '=' ID [(';' | ',')]
    [a_list]``, https://graphviz.org/doc/info/lang.html), and Graphviz draws ``[label="*"; shape=ellipse]``; pydot's
    parser reads only the comma, and would call such a drawing text that does not parse.
    """
    if not semicolons:
        return text
    chars = list(text)
    for i in semicolons:
        chars[i] = ","
    return "".join(chars)


def parse(text: str, most_names: int) -> pydot.Dot:
    """The one graph of a DOT text, read by pydot once :func:`scan` found it within bounds.

    Raises:
        Failure: If the text has too many statements or groups or nests too deep, does not parse, or holds other
            than one graph.
    """
    names, deepest, semicolons, groups = scan(text)
    if names > most_names:
        raise Failure(f"to_dot's text has {names} names outside attribute lists, more than the {most_names} that "
                      "a drawing of this graph can need (one statement per node, op node and arrow)", hint=PARSE_HINT)
    most_groups = 8 + most_names // NAMES_PER_GROUP
    if groups > most_groups:
        raise Failure(f"to_dot's text opens {groups} groups {{ }}, more than the {most_groups} that a drawing of this "
                      "graph can need (the digraph's body is one)", hint=PARSE_HINT)
    if deepest > MAX_DEPTH:
        raise Failure(f"to_dot's text nests braces, brackets or <> {deepest} deep, expected at most {MAX_DEPTH}",
                      hint=PARSE_HINT)
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            graphs = pydot.graph_from_dot_data(with_commas(text, semicolons))
    except Exception:  # noqa: BLE001 - anything pydot's parser raises on a hostile text means: it does not parse
        graphs = None
    if not graphs:
        said = [line.strip() for line in printed.getvalue().splitlines() if line.strip()]
        where = f" (pydot: {short(said[-1], 100)})" if said else ""
        raise Failure(f"to_dot's text does not parse as DOT{where}; expected digraph {{ ... }} holding node and edge "
                      "statements, every label in double quotes", hint=PARSE_HINT)
    if len(graphs) != 1:
        raise Failure(f"to_dot's text holds {len(graphs)} graphs, expected one digraph {{ ... }}", hint=PARSE_HINT)
    return graphs[0]


# --- a parsed graph -----------------------------------------------------------------------------------------------

MAX_EDGES = 20_000
"""The most arrows :func:`collect` spreads ``{a b} -> {c d}`` into (beyond it, each end stays a subgraph)."""


def attributes(item: Any) -> dict[str, str]:
    """A pydot node's, edge's or graph's attributes (:func:`named`)."""
    return named(item.get_attributes())


def named(attrs: Mapping[Any, Any]) -> dict[str, Any]:
    """Attributes with each name as Graphviz reads it: ``"label"="x"`` is ``label="x"`` (a quoted ID is the same ID;
    pydot keeps the quotes of a name)."""
    return {(dot_string(str(k)) or str(k)): v for k, v in attrs.items()}


def collect(graph: Any, nodes: dict[str, dict[str, str]], edges: list[tuple[Any, Any, dict[str, str]]],
            defaults: dict[str, dict[str, str]], depth: int = 0) -> None:
    """Every node statement (attributes merged in order) and edge of ``graph`` and its subgraphs.

    An edge whose end is a subgraph, ``{a b} -> c``, is an arrow from each of its nodes (as Graphviz draws it), the
    nodes declared there among the nodes; an end none of whose names could be read is None.
    """
    for node in graph.get_nodes():
        name = dot_string(node.get_name()) or node.get_name()
        attrs = attributes(node)
        if name in ("node", "edge", "graph"):
            defaults.setdefault(name, {}).update(attrs)
        else:
            nodes.setdefault(name, {}).update(attrs)
    for edge in graph.get_edges():
        tails, heads = (_end_names(e, nodes) for e in (edge.get_source(), edge.get_destination()))
        attrs = attributes(edge)
        if len(tails) * len(heads) > MAX_EDGES - len(edges):
            tails, heads = (ends if len(ends) == 1 else [None] for ends in (tails, heads))
        edges += [(tail, head, attrs) for tail in tails for head in heads]
    if depth < MAX_DEPTH:
        for sub in graph.get_subgraphs():
            collect(sub, nodes, edges, defaults, depth + 1)


def node_of(end: str) -> str:
    """The node an edge's end names: ``n1``, ``"n1"``, and ``n1:port`` or ``"n1":"port":n`` (a port of its record,
    and a compass point) all name ``n1``."""
    if end.startswith('"'):
        i = 1
        while i < len(end) and end[i] != '"':
            i += 2 if end[i] == "\\" else 1
        return dot_string(end[:i + 1]) or end
    return end.split(":", 1)[0] if ":" in end else end


def _end_names(end: Any, nodes: dict[str, dict[str, str]], depth: int = 0) -> list[str | None]:
    """The node names one end of an edge stands for: a node's, or every node of a subgraph ``{a b}`` (declared in
    ``nodes`` on the way); ``[None]`` when none can be read."""
    if isinstance(end, str):
        return [node_of(end)]
    names: list[str | None] = []
    if isinstance(end, Mapping) and depth < MAX_DEPTH:
        for raw, statements in dict(end.get("nodes") or {}).items():
            name = dot_string(str(raw)) or str(raw)
            if name in ("node", "edge", "graph"):
                continue
            merged = nodes.setdefault(name, {})
            for statement in statements if isinstance(statements, (list, tuple)) else ():
                if isinstance(statement, Mapping) and isinstance(statement.get("attributes"), Mapping):
                    merged.update(named(statement["attributes"]))
            names.append(name)
        for subs in dict(end.get("subgraphs") or {}).values():
            for sub in subs if isinstance(subs, (list, tuple)) else ():
                names += [n for n in _end_names(sub, nodes, depth + 1) if n is not None]
    return names or [None]


def label_of(attrs: dict[str, str], name: str) -> str | None:
    """The text of a node's label (its name when it has none, as Graphviz's ``\\N``); None for an HTML label."""
    raw = attrs.get("label")
    return name if raw is None else dot_string(raw)


# --- what Graphviz shows for one label ---------------------------------------------------------------------------

def shown_texts(escaped: list[str], in_record: bool) -> list[str | None]:
    """What Graphviz shows for labels written ``"<escaped>"`` (inside ``{ }`` in a record): each text (``"2 fields:
    a | b"`` for a record split in several), or None when its DOT does not parse or makes other statements.

    The labels go in one DOT text, so that pydot parses once; only when that text does not read as one node per
    label is each parsed on its own.
    """
    together = _shown(tuple(escaped), in_record)
    if together is not None:
        return list(together)
    return [(_shown((e,), in_record) or (None,))[0] for e in escaped]


@functools.lru_cache(maxsize=CACHE_SIZE)
def _shown(escaped: tuple[str, ...], in_record: bool) -> tuple[str | None, ...] | None:
    lines = ["digraph {"]
    for k, e in enumerate(escaped):
        lines.append(f'  t{k} [shape=record, label="{{ {e} }}"];' if in_record else f'  t{k} [label="{e}"];')
    lines.append("}")
    try:
        graph = parse("\n".join(lines), 4 * len(escaped) + 20)
    except Failure:
        return None
    nodes: dict[str, dict[str, str]] = {}
    edges: list[tuple[Any, Any, dict[str, str]]] = []
    collect(graph, nodes, edges, {})
    if edges or set(nodes) != {f"t{k}" for k in range(len(escaped))}:
        return None  # a quote too few ended a string early, and the rest made other statements
    out: list[str | None] = []
    for k in range(len(escaped)):
        label = label_of(nodes[f"t{k}"], f"t{k}")
        if label is None:
            out.append(None)
        elif in_record:
            fields = record_fields(label)
            inner = fields[0] if fields is not None and len(fields) == 1 and isinstance(fields[0], tuple) else fields
            if inner is None:
                out.append(None)
            elif len(inner) == 1 and isinstance(inner[0], str):
                out.append(inner[0])
            else:
                out.append(f"{len(inner)} fields: {show_fields(inner)}")
        else:
            out.append(esc_string(label))
    return tuple(out)
