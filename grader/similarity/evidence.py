"""The side-by-side evidence page of a flagged pair: ``OUT/similarity/pair-NNNN.html``.

Each page shows the two documents next to each other, line by line, with every matched region of each side
highlighted and numbered (the same number on both sides, so a region moved elsewhere is still found; code that
matches twice, such as a classmate's pasted twice, is highlighted both times, its counterpart carrying both numbers),
at most :data:`~grader.similarity.fingerprints.MAX_REGIONS` regions (the page says when it stops there),
the pair's similarity, how unusual it is in the class, and the class's usual similarity. It is rendered
by Jinja2 with autoescaping from ``templates/evidence.html.j2``: ids, file names and code are the
student's text, shown only as text, with control and bidirectional-override characters made visible
(:func:`grader.inert.terminal`) so the code reads as it is. Pages are self-contained (no
script, nothing loaded) and say plainly that they are evidence for a person to review, not a verdict.
"""

from __future__ import annotations

import functools
import re
from bisect import bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import jinja2

from grader import __version__
from grader.files import write_atomic
from grader.inert import terminal
from grader.similarity.fingerprints import MAX_REGIONS, Region
from grader.similarity.similarity_json import DistributionRecord, PairRecord
from grader.similarity.sources import Document

FOLDER = "similarity"
"""Where the pages go, under OUT."""
PAGE = re.compile(r"pair-\d{4,6}\.html")
MAX_LINES = 3000
"""Lines of each document shown on a page (the rest is summarised)."""
MAX_LINE_CHARS = 300
"""Characters of a line shown."""
MAX_LABEL = 160
"""Characters of an id or a file name shown."""
COLOURS = 8
"""Highlight colours, reused in turn by the regions."""


@dataclass(frozen=True)
class Evidence:
    """What one page shows: the ranked pair, its two documents and their matched regions (character offsets)."""

    record: PairRecord
    a: Document
    b: Document
    regions: list[Region]


@dataclass
class Segment:
    """Part of a line: its text, and the regions it belongs to ("" outside every region)."""

    text: str
    regions: str = ""
    colour: int = 0


@dataclass
class Line:
    """One line of a document as shown: its number, a file header when a file starts here, its segments."""

    number: int
    segments: list[Segment] = field(default_factory=list)
    header: str = ""
    anchors: list[str] = field(default_factory=list)


@dataclass
class Column:
    """One side of the page."""

    who: str
    label: str
    lines: list[Line]
    hidden: int


def short(text: str, limit: int = MAX_LABEL) -> str:
    """``text`` (an id or a file name) as one inert line of at most ``limit`` characters."""
    text = " ".join(terminal(text, keep="").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _shown(text: str) -> str:
    """A line of code as shown: control, format and lone surrogate characters as escapes, tabs kept."""
    return terminal(text.removesuffix("\r"), keep="\t")


def column(doc: Document, spans: Sequence[tuple[int, int, str, int]], side: str, who: str, label: str) -> Column:
    """``doc`` split into lines and segments; ``spans`` are ``(start, end, region numbers, colour)``, disjoint.

    The line where a region starts carries the anchor ``<side>-r<number>`` of each of its numbers.
    """
    spans = sorted(spans)
    headers = dict(doc.parts)
    raw = doc.text.split("\n")
    if raw and raw[-1] == "":
        raw.pop()
    starts = [0]
    for text in raw:
        starts.append(starts[-1] + len(text) + 1)
    anchors: dict[int, list[str]] = {}
    for begin, _, numbers, _ in spans:
        anchors.setdefault(bisect_right(starts, begin), []).extend(f"{side}-r{n}" for n in numbers.split(","))
    lines: list[Line] = []
    k = 0
    for number, text in enumerate(raw[:MAX_LINES], start=1):
        begin, end = starts[number - 1], starts[number - 1] + len(text)
        line = Line(number, header=short(headers[begin]) if begin in headers else "", anchors=anchors.get(number, []))
        cur, shown = begin, 0
        while cur < end and shown < MAX_LINE_CHARS:
            while k < len(spans) and spans[k][1] <= cur:
                k += 1
            if k < len(spans) and spans[k][0] <= cur:
                stop, regions, colour = min(spans[k][1], end), spans[k][2], spans[k][3]
            else:
                stop, regions, colour = min(spans[k][0] if k < len(spans) else end, end), "", 0
            piece = doc.text[cur:stop][: MAX_LINE_CHARS - shown]
            shown += len(piece)
            line.segments.append(Segment(_shown(piece), regions, colour))
            cur = stop
        if cur < end:
            line.segments.append(Segment(f" … ({end - cur} more characters)"))
        lines.append(line)
    return Column(who, label, lines, max(0, len(raw) - MAX_LINES))


@functools.lru_cache(maxsize=1)
def _template() -> jinja2.Template:
    env = jinja2.Environment(loader=jinja2.PackageLoader("grader.similarity", "templates"), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    return env.get_template("evidence.html.j2")


def _spans(spans: Iterable[tuple[int, int]]) -> list[tuple[int, int, str, int]]:
    """One side's highlighted spans, ``(start, end, region numbers, colour)``, from each region's span on that side
    (regions are numbered from 1): a span that is several regions' (the counterpart of code pasted twice on the
    other side) is highlighted once, with all their numbers."""
    grouped: dict[tuple[int, int], list[int]] = {}
    for n, span in enumerate(spans, start=1):
        grouped.setdefault(span, []).append(n)
    return [(s, e, ",".join(map(str, ns)), ns[0] % COLOURS) for (s, e), ns in grouped.items()]


def render(evidence: Evidence, distribution: DistributionRecord | None) -> str:
    """The page of one pair (autoescaped)."""
    record = evidence.record
    spans_a, spans_b = _spans(r.a for r in evidence.regions), _spans(r.b for r in evidence.regions)
    other = short(record.b.id) if record.b.origin == "class" else f"{short(record.b.id)} (corpus {short(record.b.origin)})"
    left = column(evidence.a, spans_a, "a", short(record.a.id), short(record.a.label))
    right = column(evidence.b, spans_b, "b", other, short(record.b.label))
    regions = [(n, rr) for n, rr in enumerate(record.regions, start=1)]
    return _template().render(
        pair=record, left=left, right=right, regions=regions, distribution=distribution, version=__version__,
        against=short(record.against), capped=MAX_REGIONS if len(evidence.regions) >= MAX_REGIONS else 0)


def write_pages(out: Path, evidence: Sequence[Evidence],
                distributions: Mapping[tuple[str, str], DistributionRecord]) -> dict[int, str]:
    """Write one page per pair into ``out/similarity/`` (earlier pages removed first).

    Returns:
        ``id(record)`` of each pair to its page's link, relative to ``out``.
    """
    folder = Path(out) / FOLDER
    if folder.is_dir() and not folder.is_symlink():
        for old in folder.iterdir():
            if PAGE.fullmatch(old.name) and old.is_file() and not old.is_symlink():
                old.unlink()
    links: dict[int, str] = {}
    for n, ev in enumerate(evidence, start=1):
        name = f"pair-{n:04d}.html"
        write_atomic(folder / name, render(ev, distributions.get((ev.record.assignment, ev.record.against))))
        links[id(ev.record)] = f"{FOLDER}/{name}"
    return links
