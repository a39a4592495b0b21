"""The instructor's class report: one self-contained page, ``OUT/report.html``.

:func:`write_report` reads a folder written by ``grader grade`` (``grades.csv``
and every ``<assignment>/<student>/results.json``) and renders, with the
Jinja2 template ``grader/outputs/templates/report.html.j2`` (autoescaped: student ids
and outputs are untrusted text):

1. per assignment, a histogram of the students' scores (inline SVG) with the
   mean, median and maximum;
2. every test's pass rate over the class, worst first, with the hint the
   failing students saw;
3. the *likely bugs*: catalogued bugs (``assignments/<id>/bugs.yaml``) whose
   signature a student's results show, most common first;
4. the gradebook, with relative links to each student's ``feedback.md``.

The page needs no network: no scripts, fonts, images or stylesheets are
loaded; the charts and the stylesheet are inline.
"""

from __future__ import annotations

import csv
import statistics
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any
from urllib.parse import quote

import jinja2

from grader import __version__
from grader.course.catalogue import Bug, load_bugs
from grader.course.config import Assignment, Course
from grader.errors import GraderError
from grader.outputs.gradebook import points
from grader.outputs.item_analysis import Item, analyse
from grader.outputs.results import grader_data, read_results, write_atomic

"""A hint line of a test's output (``check.case(..., hint=...)``)."""

UNFINISHED = "NotImplementedError"
"""A failure quoting this is unfinished work (a template stub), not a bug."""

BINS = 10
"""Bars per histogram: equal-width bins from 0 to the assignment's points."""

WIDTH, HEIGHT = 520, 240
"""Size of a histogram, in SVG user units."""

LEFT, RIGHT, TOP, BOTTOM = 44, 14, 26, 44
"""Histogram margins: room for the axis labels."""


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
        scores: One score per graded student, in points.
        bars: The histogram's bars, one per bin (empty bins have height 0).
        x_ticks: (x, label) of the bin edges.
        y_ticks: (y, count) of the student-count axis.
        mean_x: Where the mean falls on the x axis.
    """

    assignment: Assignment
    scores: list[float]
    bars: list[Bar]
    x_ticks: list[tuple[float, str]]
    y_ticks: list[tuple[float, int]]
    mean_x: float

    @property
    def mean(self) -> float:
        return statistics.fmean(self.scores) if self.scores else 0.0

    @property
    def median(self) -> float:
        return statistics.median(self.scores) if self.scores else 0.0

    @property
    def max(self) -> float:
        return max(self.scores, default=0.0)


@dataclass
class LikelyBug:
    """A catalogued bug and the students whose results show its signature."""

    bug: Bug
    students: list[str]

    @property
    def description_parts(self) -> list[str]:
        """The description split on backticks: odd-numbered parts are code."""
        return self.bug.description.split("`")


def histogram(assignment: Assignment, scores: list[float]) -> Distribution:
    """Lay out the histogram of ``scores`` (0 to ``assignment.points``) as SVG bars."""
    full, plot_w, plot_h = assignment.points, WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    counts = [0] * BINS
    for s in scores:
        counts[min(max(int(s / full * BINS), 0), BINS - 1)] += 1
    top = max(max(counts), 1)
    step = max(1, -(-top // 5))  # at most about 5 labelled ticks
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
    dist = Distribution(assignment, scores, bars, x_ticks, y_ticks, 0.0)
    dist.mean_x = round(LEFT + plot_w * min(dist.mean / full, 1.0), 2)
    return dist


def first_hint(test: dict[str, Any]) -> str:
    """The first hint a failed test gave (``extra_data.hints``: the test's own text, never the student's), or ""."""
    hints = (test.get("extra_data") or {}).get("hints") or []
    return str(hints[0]) if hints and isinstance(hints, list) else ""


def shows_bug(bug: Bug, doc: dict[str, Any]) -> bool:
    """Whether one student's results on ``bug.assignment`` show the bug's signature.

    A heuristic: every ``caught_by`` entry names a test the student failed
    (as ``grader validate`` checks the mutants), and ``bug.method`` is named
    by one of the failing tests (``extra_data.methods``) or in their feedback
    (title and output; hint lines do not count, as hints name other methods as
    advice). Failures quoting ``NotImplementedError`` (unfinished work) do not
    count.
    """
    failed = [t for t in doc.get("tests", []) if t.get("status") != "passed" and UNFINISHED not in str(t.get("output"))]
    keys = [str((t.get("extra_data") or {}).get("key", "")) for t in failed]
    if not all(any(bug.catches(k) == entry for k in keys) for entry in bug.caught_by):
        return False
    if any(bug.method in ((t.get("extra_data") or {}).get("methods") or []) for t in failed):
        return True
    feedback = "\n".join(f"{t.get('name', '')}\n{t.get('output', '')}" for t in failed)
    for t in failed:
        for hint in (t.get("extra_data") or {}).get("hints") or []:
            feedback = feedback.replace(f"Hint: {hint}", "")
    return bug.method in feedback


def read_gradebook(out: Path) -> tuple[list[str], list[dict[str, str]]]:
    """The header and rows of ``out/grades.csv``.

    Raises:
        GraderError: If the file is missing or not a gradebook.
    """
    try:
        with open(out / "grades.csv", encoding="utf-8", newline="") as f:
            reader = csv.DictReader(f)
            rows = list(reader)
            header = list(reader.fieldnames or [])
    except OSError as exc:
        raise GraderError(f"cannot read {out / 'grades.csv'} ({exc.strerror}): run `grader grade` first") from None
    if header[:1] != ["student"] or "total" not in header:
        raise GraderError(f"{out / 'grades.csv'} is not a gradebook written by `grader grade`")
    return header, rows


def _score(cell: str | None) -> float | None:
    try:
        return float(cell) if cell not in (None, "") else None
    except ValueError:
        return None


def class_data(out: Path, course: Course) -> dict[str, Any]:
    """Everything the template shows, computed from the graded folder ``out``.

    Args:
        out: A folder written by ``grader grade``.
        course: The course whose assignments and bug catalogues were used.

    Returns:
        The template's context: ``assignments``, ``distributions``,
        ``tests`` (items, worst first, with ``hints``), ``bugs`` (likely bugs,
        most common first), ``students`` (gradebook rows with ``links``).

    Raises:
        GraderError: If ``out/grades.csv`` is missing or malformed.
    """
    header, rows = read_gradebook(out)
    assignments = [a for a in course.assignments() if a.id in header]
    students = [row["student"] for row in rows]
    distributions = []
    for a in assignments:
        scores = [s for s in (_score(row.get(a.id)) for row in rows) if s is not None]
        distributions.append(histogram(a, scores))
    items: list[Item] = analyse(out, assignments, students)
    hints: dict[tuple[str, str], Counter] = {}
    likely: list[LikelyBug] = []
    for a in assignments:
        bugs = [LikelyBug(b, []) for b in load_bugs(a, course.reference_dir)]
        for student in students:
            doc = read_results(out, a, student)
            if doc is None:
                continue
            for t in doc["tests"]:
                hint = first_hint(t) if t.get("status") != "passed" else ""
                if hint:
                    key = (t.get("extra_data") or {}).get("key") or t["name"]
                    hints.setdefault((a.id, key), Counter())[hint] += 1
            if grader_data(doc).get("problems"):
                continue  # not importable or not readable: every test failed, whatever the bug
            for lb in bugs:
                if shows_bug(lb.bug, doc):
                    lb.students.append(student)
        likely += [lb for lb in bugs if lb.students]
    likely.sort(key=lambda lb: -len(lb.students))  # stable: assignment then catalogue order on ties
    table = []
    for row in rows:
        links = {a.id: f"{quote(a.id, safe='')}/{quote(row['student'], safe='')}/feedback.md"
                 for a in assignments if (out / a.id / row["student"] / "feedback.md").is_file()}
        table.append({"student": row["student"], "scores": {a.id: row.get(a.id) or "" for a in assignments},
                      "total": row.get("total") or "", "notes": row.get("notes") or "", "links": links})
    return {
        "assignments": assignments,
        "distributions": distributions,
        "tests": [(it, hints.get((it.assignment, it.key), Counter()).most_common(1)) for it in items],
        "bugs": likely,
        "students": table,
        "total_points": sum(a.points for a in assignments),
    }


def render_report(context: dict[str, Any]) -> str:
    """Render ``report.html.j2`` with ``context`` (autoescaped, undefined names are errors)."""
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("grader.outputs", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["points"] = points
    return env.get_template("report.html.j2").render(
        **context, width=WIDTH, height=HEIGHT, left=LEFT, right=RIGHT, top=TOP, bottom=BOTTOM, version=__version__,
        generated=datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    )


def write_report(out: Path, course: Course) -> Path:
    """Write ``out/report.html``, the class report of a graded folder.

    Args:
        out: A folder written by ``grader grade`` (``grades.csv`` and
            ``<assignment>/<student>/results.json``).
        course: The course that was graded (assignments, bug catalogues).

    Returns:
        The path of the report.

    Raises:
        GraderError: If ``out/grades.csv`` is missing or malformed.
        ConfigError: If an assignment's ``bugs.yaml`` is invalid.
    """
    path = Path(out) / "report.html"
    write_atomic(path, render_report(class_data(Path(out), course)))
    return path
