"""What the class report shows of ``OUT/similarity.json``: the "Similar submissions" section.

:func:`similarity_section` reads the records (:func:`grader.similarity.similarity_json.load`) and lays out, for
each distribution (an assignment's class pairs, or the class against a corpus folder), a histogram of
the pairs' similarity on a logarithmic count axis (the few unusual pairs stay visible next to tens of
thousands of ordinary ones), with the flag cutoff marked, and lists the flagged pairs with links to
their evidence pages. Without ``similarity.json`` there is no section; a damaged one gives a section
that says so. Every student-controlled string (ids, corpus folder names, labels, notes) is made inert and capped
here, as the evidence pages show it. Nothing here reads or changes a score.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from pathlib import Path

from grader.outputs.attention import one_line
from grader.outputs.histogram import BOTTOM, HEIGHT, LEFT, RIGHT, TOP, WIDTH, Bar
from grader.similarity.similarity_json import (
    FILE,
    DistributionRecord,
    NoteRecord,
    PairRecord,
    Settings,
    Side,
    SimilarityError,
    load,
)

MAX_NOTES = 200
"""Notes on submissions not compared listed in the report (similarity.json has them all)."""
MAX_NOTE = 400
"""Characters of one note (or of the reason the file could not be read) shown."""
MAX_NAME = 160
"""Characters of an id, a file name or a corpus name shown (as on the evidence pages)."""


def short(text: str, limit: int = MAX_NAME) -> str:
    """``text`` as one inert line of at most ``limit`` characters (:func:`grader.outputs.attention.one_line`; not
    the evidence page's own helper, which would import the similarity extra's numpy into every command)."""
    return one_line(text, limit)


@dataclass
class Chart:
    """One distribution's histogram, in SVG user units (the y axis points down, counts on a log scale).

    Attributes:
        distribution: The distribution.
        bars: One per bin (empty bins have height 0); ``title`` says the range and the count.
        flagged_bars: The indexes of the bars at or above the cutoff.
        x_ticks: (x, label) along the similarity axis.
        y_ticks: (y, count) along the log count axis.
        cutoff_x: Where the cutoff falls on the x axis.
        median_x: Where the median falls.
    """

    distribution: DistributionRecord
    bars: list[Bar]
    flagged_bars: set[int]
    x_ticks: list[tuple[float, str]]
    y_ticks: list[tuple[float, int]]
    cutoff_x: float
    median_x: float

    @property
    def title(self) -> str:
        d = self.distribution
        return f"{d.assignment}: {'class pairs' if d.against == 'class' else 'the class against ' + d.against}"


@dataclass
class SimilaritySection:
    """The report's "Similar submissions" section.

    Attributes:
        error: Why ``similarity.json`` could not be read ("" when it was).
        generated: When the run was made.
        settings: Its flag settings.
        corpora: The corpus folders' names.
        charts: One per distribution, in the run's order.
        flagged: The flagged pairs, most unusual first.
        notes: Submissions not compared (at most :data:`MAX_NOTES`).
        more_notes: How many notes are not listed.
    """

    error: str = ""
    generated: str = ""
    settings: Settings | None = None
    corpora: list[str] = field(default_factory=list)
    charts: list[Chart] = field(default_factory=list)
    flagged: list[PairRecord] = field(default_factory=list)
    notes: list[NoteRecord] = field(default_factory=list)
    more_notes: int = 0


def chart(d: DistributionRecord) -> Chart:
    """Lay out the histogram of one distribution."""
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    bins = max(1, len(d.counts))
    top = max(d.counts, default=0)
    decades = max(1, math.ceil(math.log10(top + 1))) if top else 1

    def y_of(count: int) -> float:
        return TOP + plot_h - plot_h * math.log10(count + 1) / decades

    slot = plot_w / bins
    bars, flagged = [], set()
    for i, n in enumerate(d.counts):
        lo, hi = i / bins, (i + 1) / bins
        y = y_of(n)
        bars.append(Bar(round(LEFT + i * slot + 1, 2), round(y, 2), round(slot - 2, 2), round(TOP + plot_h - y, 2), n,
                        f"{lo:.0%} to {hi:.0%} similar: {n} pair{'s' if n != 1 else ''}"))
        if hi > d.cutoff and n:
            flagged.add(i)
    x_ticks = [(round(LEFT + plot_w * v / 100, 2), f"{v}%") for v in range(0, 101, 20)]
    y_ticks = [(round(y_of(0), 2), 0)] + [(round(TOP + plot_h - plot_h * k / decades, 2), 10 ** k)
                                          for k in range(1, decades + 1)]
    return Chart(d, bars, flagged, x_ticks, y_ticks, round(LEFT + plot_w * min(d.cutoff, 1.0), 2),
                 round(LEFT + plot_w * min(d.median, 1.0), 2))


def _side(side: Side) -> Side:
    return Side(short(side.origin), short(side.id), short(side.label))


def _pair(p: PairRecord) -> PairRecord:
    """``p`` as the report shows it: its names inert and capped (:func:`short`)."""
    return replace(p, assignment=short(p.assignment), against=short(p.against), a=_side(p.a), b=_side(p.b))


def _note(n: NoteRecord) -> NoteRecord:
    return NoteRecord(short(n.origin), short(n.id), short(n.assignment), short(n.note, MAX_NOTE))


def similarity_section(out: Path) -> SimilaritySection | None:
    """The section for the graded folder ``out``: None without ``similarity.json``.

    ``similarity.json`` keeps student text as it is (ids, corpus folder names, file names, notes); the section's
    records hold it as the evidence pages show it: one line, control and bidirectional-override characters as
    visible escapes, capped (:func:`short`). Jinja's autoescaping then makes it text.
    """
    if not (Path(out) / FILE).exists():
        return None
    try:
        report = load(Path(out))
    except SimilarityError as exc:
        return SimilaritySection(error=short(str(exc), MAX_NOTE))
    notes = report.notes
    return SimilaritySection(generated=short(report.generated), settings=report.settings,
                             corpora=[short(c) for c in report.corpora],
                             charts=[chart(replace(d, assignment=short(d.assignment), against=short(d.against)))
                                     for d in report.distributions],
                             flagged=[_pair(p) for p in report.flagged],
                             notes=[_note(n) for n in notes[:MAX_NOTES]], more_notes=max(0, len(notes) - MAX_NOTES))
