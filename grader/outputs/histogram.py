"""Score distributions for the class report: one inline-SVG histogram per assignment.

:func:`histogram` lays out the bars, ticks and mean line in SVG user units;
the report's template (``templates/report.html.j2``) draws them, so the page
needs no charting script. The scores are those of the submissions graded
normally: the report leaves out those that need attention (could not be
graded, the unchanged template, a withheld score) and says how many.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from grader.course.config import Assignment
from grader.outputs.gradebook import points

BINS = 10
"""Bars per histogram: equal-width bins from 0 to the assignment's points."""

WIDTH, HEIGHT = 440, 256
"""Size of a histogram, in SVG user units (a card of the report shows it at about 340 to 440 px wide, so its text
is drawn at about 80% to 100% of its size)."""

LEFT, RIGHT, TOP, BOTTOM = 50, 14, 40, 44
"""Histogram margins: room for the axis labels. The top margin holds two bands of text that never overlap: each
bar's count just above the bar (its baseline at most ``TOP - 3``), and above those the label of the mean (or of a
similarity chart's cutoff), whose baseline the template puts at ``TOP - 24``."""


@dataclass
class Bar:
    """One histogram bar, in SVG coordinates (the y axis points down)."""

    x: float
    y: float
    width: float
    height: float
    count: int
    title: str


@dataclass
class Distribution:
    """The score distribution of one assignment.

    Attributes:
        assignment: The assignment.
        scores: One score per student counted, in points.
        bars: The histogram's bars, one per bin (empty bins have height 0).
        x_ticks: (x, label) of the bin edges.
        y_ticks: (y, count) of the student-count axis.
        mean_x: Where the mean falls on the x axis.
        left_out: Students left out of ``scores`` (their submissions need attention).
    """

    assignment: Assignment
    scores: list[float]
    bars: list[Bar]
    x_ticks: list[tuple[float, str]]
    y_ticks: list[tuple[float, int]]
    mean_x: float
    left_out: int = 0

    @property
    def mean(self) -> float:
        return statistics.fmean(self.scores) if self.scores else 0.0

    @property
    def median(self) -> float:
        return statistics.median(self.scores) if self.scores else 0.0

    @property
    def max(self) -> float:
        return max(self.scores, default=0.0)


def tick_step(most: int) -> int:
    """The step of the student-count axis up to ``most``: the smallest of 1, 2, 5, 10, 20, 50... that needs at most
    six steps, so the ticks read as round numbers (0, 50, 100, ... rather than 0, 54, 108, ...)."""
    scale = 1
    while True:
        for step in (scale, 2 * scale, 5 * scale):
            if -(-most // step) <= 6:
                return step
        scale *= 10


def histogram(assignment: Assignment, scores: list[float], left_out: int = 0) -> Distribution:
    """Lay out the histogram of ``scores`` (0 to ``assignment.points``) as SVG bars; ``left_out`` students were not
    counted."""
    full, plot_w, plot_h = assignment.points, WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    counts = [0] * BINS
    for s in scores:
        counts[min(max(int(s / full * BINS), 0), BINS - 1)] += 1
    top = max(max(counts), 1)
    step = tick_step(top)
    top = -(-top // step) * step
    slot = plot_w / BINS
    bars = []
    for i, n in enumerate(counts):
        lo, hi = full * i / BINS, full * (i + 1) / BINS
        h = plot_h * n / top
        upper = "]" if i == BINS - 1 else ")"
        bars.append(Bar(round(LEFT + i * slot + 1, 2), round(TOP + plot_h - h, 2), round(slot - 2, 2), round(h, 2), n,
                        f"[{points(lo)}, {points(hi)}{upper} points: {n} student{'s' if n != 1 else ''}"))
    x_ticks = [(round(LEFT + i * slot, 2), points(full * i / BINS)) for i in range(0, BINS + 1, 2)]
    y_ticks = [(round(TOP + plot_h - plot_h * v / top, 2), v) for v in range(0, top + 1, step)]
    dist = Distribution(assignment, scores, bars, x_ticks, y_ticks, 0.0, left_out)
    dist.mean_x = round(LEFT + plot_w * min(dist.mean / full, 1.0), 2)
    return dist
