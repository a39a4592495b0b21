"""The docs quote what the program prints: the rules by which a page's ```text block is compared with what a command
printed or wrote, for the tests that run the scenario a page describes (issue 58).

A quoted line is compared with a whole line of the output (trailing white space aside), under these rules:

- ``...`` elides: a line that is only ``...`` stands for lines left out (not compared), and a line that ends with it
  is cut (a table cuts its last cell to the terminal's width): what comes before must start a line of the output;
  ``...`` inside a line stands for any text there
  (``7d8f6060...,2026-11-29`` a whole commit id, ``Assignment 1: ... (5001)`` a title);
- ``<word>`` (``<cause>``, ``<path>``) is a placeholder for any text;
- a time the machine decides (a run's seconds, a time limit calibrated on the reference: ``41.0 s``, ``less than
  1 ms``) is compared as ``T s``, ``T ms``;
- the sandbox's line (``Sandbox (``) depends on the host, and a table's rule (only ``-`` and spaces) is as wide as the
  terminal: neither is compared;
- a block indented under a list item is compared without its indentation.

A test may give more masks for a part that varies with the run (a temporary folder): each a pattern and what it is
replaced by, applied to the output's lines and the page's alike.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from textwrap import dedent

from checkout import ROOT

QUOTED = re.compile(r"^( *)```text\n(.*?)^\1```$", re.M | re.S)
TIMES = re.compile(r"\b(?:less than )?\d+(?:\.\d+)? (ms|s)\b")
"""A time the machine decides (a run's seconds, a time limit calibrated on the reference): compared as ``T ms``."""
HOST_LINES = ("Sandbox (",)
"""Quoted lines that depend on the machine, not on the grader: not compared."""
PLACEHOLDER = re.compile(r"\\\.\\\.\\\.|<[a-z_]+>")
"""``...`` inside a line, or a ``<word>``, after :func:`re.escape`: any text."""

Mask = tuple[str, str]


def text_blocks(page: str | Path) -> list[str]:
    """The ```text blocks of a page (a path, or relative to ``docs/``), in order, each without its indentation."""
    path = page if isinstance(page, Path) else ROOT / "docs" / page
    return [dedent(body) for _, body in QUOTED.findall(path.read_text(encoding="utf-8"))]


def normal(line: str, masks: Sequence[Mask] = ()) -> str:
    """A line as it is compared: trailing white space off, times and the test's masks applied."""
    line = TIMES.sub(r"T \1", line.rstrip())
    for pattern, by in masks:
        line = re.sub(pattern, by, line)
    return line


def compared(block: str, masks: Sequence[Mask] = ()) -> list[str]:
    """The lines of a quoted block that are compared (see the module's rules), normalised."""
    lines = [normal(line, masks) for line in block.splitlines()]
    return [line for line in lines if line.strip() and line.strip() != "..." and not line.startswith(HOST_LINES)
            and set(line) != {"-", " "}]


def missing(block: str, printed: Iterable[str], masks: Sequence[Mask] = ()) -> list[str]:
    """The compared lines of ``block`` that are no line of ``printed`` (texts, each split into lines)."""
    produced = {normal(line, masks) for text in printed for line in text.splitlines()}
    gone = []
    for line in compared(block, masks):
        if line in produced:
            continue
        cut = line.endswith("...")  # a cut line: what it shows starts a line of the output
        pattern = re.compile(PLACEHOLDER.sub(".*", re.escape(line[:-3] if cut else line)))
        if not any(pattern.match(out) if cut else pattern.fullmatch(out) for out in produced):
            gone.append(line)
    return gone


def assert_quoted(page: str | Path, k: int | str, *printed: str, masks: Sequence[Mask] = ()) -> None:
    """Every compared line of ``page``'s ```text block ``k`` is a line of ``printed``: the block's number (from 0),
    or the text of one of its lines' start (the page's first block that has such a line)."""
    blocks = text_blocks(page)
    if isinstance(k, str):
        found = [i for i, b in enumerate(blocks) if any(line.lstrip().startswith(k) for line in b.splitlines())]
        assert found, f"{page} has no ```text block with a line starting {k!r}"
        k = found[0]
    block = blocks[k]
    gone = missing(block, printed, masks)
    assert not gone, (f"{page}, ```text block {k}, quotes lines the program no longer prints:\n" + "\n".join(gone)
                      + "\n--- it printed:\n" + "\n".join(text[-4000:] for text in printed))
