"""The texts Graphviz shows for a DOT text's IDs and labels (judge side, with :mod:`assignments.graph.dot`).

Quoted strings are unquoted as Graphviz's lexer does (:func:`dot_string`),
record labels split into fields as its record parser does
(:func:`record_fields`), and escapes resolved as in its labels
(:func:`esc_string`), so that a student's drawing is compared by what it
shows, not by how it is written. Source: the DOT language
(https://graphviz.org/doc/info/lang.html), record shapes
(https://graphviz.org/doc/info/shapes.html#record) and escString
(https://graphviz.org/docs/attr-types/escString/).
"""

from __future__ import annotations

from typing import Any


def dot_string(value: str) -> str | None:
    """The text of a DOT ID as Graphviz's lexer reads it (pydot keeps the quotes): a quoted string's content with
    ``\\"`` as ``"``, an unquoted ID as it is; None for an HTML label ``<...>``."""
    if value.startswith("<") and value.endswith(">"):
        return None
    if len(value) < 2 or value[0] != '"' or value[-1] != '"':
        return value
    out, i, body = [], 0, value[1:-1]
    while i < len(body):
        pair = body[i:i + 2]
        if pair == '\\"':
            out.append('"')
        elif pair == "\\\\":
            out.append(pair)
        elif pair == "\\\n":
            pass
        else:
            out.append(body[i])
            i += 1
            continue
        i += 2
    return "".join(out)


SUBSTITUTIONS = "GNETHL"
"""Escapes Graphviz replaces by names in a label (``\\N`` the node's name...): kept as they are here."""


def esc_string(text: str) -> str:
    """A label's text as Graphviz shows it (its escString): ``\\\\`` is a backslash, ``\\n``, ``\\l`` and ``\\r``
    end a line (shown here as a newline; at the end of the text, where they start no other line, as nothing),
    ``\\N`` and the other name substitutions are kept, and a backslash before any other character is dropped."""
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            out.append("\n" if nxt in "nlr" else c + nxt if nxt in SUBSTITUTIONS else nxt)
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out).rstrip("\n")


HARD_SPACE = "\x00"
MAX_GROUPS = 16
"""The deepest nesting of ``{ ... }`` groups in a record label read (the handout's record has one; each level is a
call of the parser: a student's label nested thousands deep is not read, :func:`record_fields`)."""


def record_fields(label: str) -> tuple[Any, ...] | None:
    """A record label split as Graphviz's record parser splits it: a tuple of fields, each a text or a tuple (a
    ``{ ... }`` group); None if the label does not parse (unbalanced braces, text after a group, a ``<`` or ``>``
    that opens no port at the start of a field) or nests groups more than :data:`MAX_GROUPS` deep.

    ``\\{ \\} \\| \\< \\>`` are literal characters and ``\\ `` a space that is kept; other backslash pairs stay
    for the field's escString. A port ``<name>`` at the start of a field is not shown, so not kept. Field texts are
    trimmed.
    """
    pos = 0

    def finish(chars: list[str]) -> str:  # "data 1.0000 \l" shows what "data 1.0000" does
        return esc_string("".join(chars).strip(" \t\n")).strip(" \t\n").replace(HARD_SPACE, " ")

    def fields(top: bool, depth: int = 0) -> tuple[Any, ...] | None:
        nonlocal pos
        if depth > MAX_GROUPS:
            return None
        out: list[Any] = []
        chars: list[str] | None = []
        ported = False  # this field has its port
        while pos < len(label):
            c = label[pos]
            if c == "\\" and pos + 1 < len(label):
                nxt = label[pos + 1]
                if chars is None:
                    return None
                chars.append(nxt if nxt in "{}|<>" else HARD_SPACE if nxt == " " else "\\" + nxt)
                pos += 2
            elif c == "{":
                if chars is None or "".join(chars).strip() or ported:
                    return None
                pos += 1
                group = fields(False, depth + 1)
                if group is None:
                    return None
                out.append(group)
                chars = None
            elif c == "}":
                if top:
                    return None
                pos += 1
                if chars is not None:
                    out.append(finish(chars))
                return tuple(out)
            elif c == "|":
                pos += 1
                if chars is not None:
                    out.append(finish(chars))
                chars, ported = [], False
            elif c == "<":  # a port, <name>, at the start of a field: Graphviz does not show it
                end = label.find(">", pos)
                if chars is None or "".join(chars).strip() or ported or end < 0 or "<" in label[pos + 1:end]:
                    return None
                pos, ported = end + 1, True
            elif c == ">":
                return None
            else:
                if chars is None:
                    if not c.isspace():
                        return None
                else:
                    chars.append(c)
                pos += 1
        if not top:
            return None
        if chars is not None:
            out.append(finish(chars))
        return tuple(out)

    return fields(True)


def show_fields(fields: Any, top: bool = True) -> str:
    """A record's fields written back as a label, ``{ data 1.0000 | grad 0.0000 }``, for messages."""
    if isinstance(fields, tuple):
        inner = " | ".join(show_fields(f, False) for f in fields)
        return inner if top else "{ " + inner + " }"
    return str(fields)
