"""The instructor's class report: one self-contained page, ``OUT/report.html``.

:func:`write_report` reads a folder written by ``grader grade`` (``grades.csv``
and every ``<assignment>/<student>/results.json``) and renders, with the
Jinja2 template ``grader/outputs/templates/report.html.j2`` (autoescaped: student ids
and outputs are untrusted text):

1. *needs attention*: the gradebook's cells (a student on an assignment) that could not be graded, came after the
   cut-off, have no submission, hold the template unchanged or a score withheld because the grader failed, each with
   what to do, and their count, the one ``grader grade`` prints (:mod:`grader.outputs.attention`);
2. per assignment, a histogram of the students' scores (inline SVG) with the
   mean, median and maximum (:mod:`grader.outputs.histogram`);
3. the points per handout task and in public against hidden tests, for the
   class and per student (:mod:`grader.outputs.breakdown`);
4. every test's pass rate over the class, worst first, with the hint the
   failing students saw (:mod:`grader.outputs.item_analysis`);
5. the *likely bugs*: for each student and assignment at most one catalogued
   bug (``assignments/<id>/bugs.yaml``), the one their failed tests match best,
   with how strongly (:mod:`grader.outputs.likely_bugs`), most common first;
6. the gradebook, with each student's public and hidden points, likely bugs
   and relative links to their ``feedback.md``;
7. when an assignment has a due date or the course a roster, *due dates and late work*: each assignment's due
   date, policy and outcomes, the late or extended submissions, and the roster's missing students
   (:mod:`grader.outputs.late_section`);
8. when ``grader similarity`` has run (``similarity.json``), the *similar
   submissions*: each distribution of pair similarities and the flagged pairs,
   linked to their side-by-side evidence (:mod:`grader.outputs.similarity_section`):
   evidence for a person to review, which never changes a score.

The statistics of 2 to 4 (and the class's count of clear bugs in 5) leave out the submissions that need
attention: they say nothing about how hard a task or a test is. The page says how many were left out and keeps
them in the list of 1 and the gradebook of 6.

The page needs no network: no scripts, fonts, images or stylesheets are
loaded; the charts and the stylesheet are inline.

Every string a student controls (ids, which are the names of their folders, zips or notebooks), and every string
results.json holds (test titles, keys, task labels, methods, hints, problems, late sentences) is made inert and capped
where each section's records are built (:func:`grader.outputs.attention.one_line` and ``shown_id``): one line, control,
format (bidirectional overrides, zero-width characters) and lone surrogate characters as visible escapes. Jinja's
autoescaping then makes it text; and every string the template prints passes :func:`grader.inert.terminal`
as it is rendered, so one a section forgot is still inert.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from datetime import datetime, timezone
from pathlib import Path
from urllib.parse import quote

import jinja2

from grader import __version__
from grader.course.catalogue import Bug, load_bugs
from grader.course.config import Assignment
from grader.course.course import Course
from grader.course.roster import MISSING_REMEDY, read_roster
from grader.files import write_atomic
from grader.inert import terminal
from grader.outputs.adjustments_section import AdjustmentRow, adjustments_section
from grader.outputs.attention import (
    MAX_ID,
    MAX_MESSAGE,
    Attention,
    ClassAttention,
    Finding,
    Tally,
    class_attention,
    one_line,
    shown_id,
)
from grader.outputs.breakdown import Points, TaskRow, TaskTable, task_table
from grader.outputs.entries import TestEntry
from grader.outputs.gradebook import points, read_gradebook, student_id
from grader.outputs.histogram import BOTTOM, HEIGHT, LEFT, RIGHT, TOP, WIDTH, Distribution, histogram
from grader.outputs.item_analysis import Item, analyse
from grader.outputs.late_section import LateSection, late_section
from grader.outputs.likely_bugs import THRESHOLD, Attribution, attribute
from grader.outputs.similarity_section import SimilaritySection, similarity_section
from grader.outputs.store import Result, ResultStore

MAX_NOTES = 1000
"""Characters of a student's gradebook notes shown (they quote the submission's own text)."""


@dataclass
class LikelyBug:
    """A catalogued bug and the students it is the most likely bug of (each student once per assignment).

    Attributes:
        bug: The catalogued bug.
        attributions: One per student, strongest match first.
    """

    bug: Bug
    attributions: list[Attribution]

    @property
    def students(self) -> list[str]:
        return [a.student for a in self.attributions]

    @property
    def description_parts(self) -> list[str]:
        """The description split on backticks: odd-numbered parts are code."""
        return self.bug.description.split("`")


@dataclass
class StudentRow:
    """One student in the report's gradebook.

    Attributes:
        student: The student id, as the report shows it (:func:`grader.outputs.attention.shown_id`).
        scores: Assignment id to the score as ``grades.csv`` shows it ("" when withheld or missing).
        total: The total as ``grades.csv`` shows it.
        notes: The gradebook's notes (one inert, capped line).
        links: Assignment id to the relative link of the student's ``feedback.md``.
        public: Points in public tests, over every assignment counted.
        hidden: Points in hidden tests, over every assignment counted.
        bugs: The student's most likely bug per assignment (those found), in course order.
        attention: What the student's submissions need attention for (one per condition).
    """

    student: str
    scores: dict[str, str]
    total: str
    notes: str
    links: dict[str, str]
    public: Points = field(default_factory=Points)
    hidden: Points = field(default_factory=Points)
    bugs: list[Attribution] = field(default_factory=list)
    attention: list[str] = field(default_factory=list)


@dataclass
class ClassReport:
    """Everything the report's template shows.

    Attributes:
        assignments: The assignments graded, in course order.
        distributions: Each assignment's score histogram.
        tests: Each test across the class, worst pass rate first, with the hint most failing students saw.
        bugs: The likely bugs, most common first (ties: course then catalogue order).
        attention: The "needs attention" list, most urgent first.
        tasks: Each assignment's points per task and public/hidden.
        students: The gradebook's rows.
        total_points: Full marks over every assignment.
        threshold: The lowest match strength that names a bug.
        similarity: The "Similar submissions" section (None until ``grader similarity`` has run).
        late: The "Due dates and late work" section (None without due dates or a roster).
        adjustments: The "Adjustments" section: every score a person changed (:mod:`grader.outputs.adjusted`).
        left_out: Assignment id to how many of its submissions the statistics leave out (they need attention);
            assignments without any are absent.
        needs: How many cells need attention, found once (:attr:`attention` lists them): its
            :meth:`~grader.outputs.attention.Tally.headline` is the line ``grader grade`` prints.
    """

    assignments: list[Assignment]
    distributions: list[Distribution]
    tests: list[tuple[Item, list[tuple[str, int]]]]
    bugs: list[LikelyBug]
    attention: list[Attention]
    tasks: list[TaskTable]
    students: list[StudentRow]
    total_points: float
    threshold: float
    similarity: SimilaritySection | None = None
    late: LateSection | None = None
    adjustments: list[AdjustmentRow] = field(default_factory=list)
    left_out: dict[str, int] = field(default_factory=dict)
    needs: Tally = field(default_factory=Tally)


def first_hint(test: TestEntry) -> str:
    """The first hint a failed test gave (``extra_data.hints``: the test's own text, never the student's), or ""."""
    return test.hints[0] if test.hints else ""


def _score(cell: str | None) -> float | None:
    try:
        return float(cell) if cell not in (None, "") else None
    except ValueError:
        return None


def _hints(results: Mapping[str, Result | None]) -> Counter[tuple[str, str]]:
    """How often each (test key, first hint) was shown to a student who failed the test (the hint as the report
    shows it: one inert, capped line)."""
    seen: Counter[tuple[str, str]] = Counter()
    for result in results.values():
        for t in result.tests if result is not None else ():
            hint = first_hint(t) if not t.passed else ""
            if hint:
                seen[(t.key, one_line(hint, MAX_MESSAGE))] += 1
    return seen


def _item(it: Item) -> Item:
    """``it`` as the report shows it: its title, key, task label and the methods named in results.json as one inert,
    capped line each."""
    methods: Counter[str] = Counter()
    for m, n in it.methods.items():
        methods[one_line(m, MAX_ID)] += n
    return replace(it, key=one_line(it.key, MAX_MESSAGE), name=one_line(it.name, MAX_MESSAGE),
                   task=one_line(it.task, MAX_ID), methods=methods)


@dataclass
class _Assignment:
    """What the report computes from one assignment's results (internal to :func:`class_data`)."""

    bugs: list[Bug]
    findings: dict[str, Finding]
    table: TaskTable
    attributions: dict[str, Attribution]
    hints: Counter[tuple[str, str]]
    rows: dict[str, TaskRow] = field(default_factory=dict)

    def counted(self, student: str) -> list[TaskRow]:
        """The student's row of points, unless the score is withheld or missing."""
        row = self.rows.get(student)
        return [row] if row is not None and not row.status else []


def _assignment(a: Assignment, course: Course, results: Mapping[str, Result | None], needs: ClassAttention
                ) -> _Assignment:
    findings: dict[str, Finding] = {}
    counted: dict[str, Sequence[TestEntry] | str] = {}
    eligible: dict[str, list[TestEntry]] = {}
    for student, result in results.items():
        found = needs.of(student, a.id) if needs.left_out(student, a.id) else None  # "look at this" still counts
        tests = list(result.tests) if result is not None else []
        if found is not None:
            findings[student] = found
        if result is None:
            counted[student] = "no submission" if found is not None and found.kind == "no submission" else "no results"
        elif result.withheld:
            counted[student] = "withheld"
        else:
            counted[student] = tests
        if found is None:  # results that need attention (nothing ran, only stubs, the grader failed) show no bug
            eligible[student] = tests  # and count in no statistic: they say nothing about the tests
    left_out = {s: f.kind for s, f in findings.items() if not isinstance(counted[s], str)}
    bugs, table = load_bugs(a, course.reference_dir), task_table(a, counted, left_out)
    return _Assignment(bugs, findings, table, attribute(bugs, eligible), _hints({s: results[s] for s in eligible}),
                       dict(zip(counted, table.rows)))  # by the student's own id: the rows show it inert


def class_data(out: Path, course: Course, store: ResultStore | None = None, ids: list[str] | None = None
               ) -> ClassReport:
    """Everything the report shows, computed from the graded folder ``out``.

    Args:
        out: A folder written by ``grader grade``.
        course: The course whose assignments and bug catalogues were used.
        store: The folder's results store, when the caller has one (its results are not parsed again).
        ids: The assignments to report on, of those the gradebook holds (None: its released ones:
            :meth:`grader.course.course.Course.released_assignments`).

    Returns:
        The report's content.

    Raises:
        GraderError: If ``out/grades.csv`` is missing or malformed.
        ConfigError: If an assignment's ``bugs.yaml``, the course's ``course.yaml`` or its roster is invalid.
    """
    header, rows = read_gradebook(out)
    assignments = [a for a in course.released_assignments(ids) if a.id in header]
    students = [student_id(row["student"], out, [a.id for a in assignments]) for row in rows]
    store = store if store is not None else ResultStore(out)
    needs = class_attention(store, assignments, students)
    items = analyse(store, assignments, students, needs)
    results = {a.id: {s: store.get(a.id, s) for s in students} for a in assignments}
    per = {a.id: _assignment(a, course, results[a.id], needs) for a in assignments}
    distributions = [histogram(a, [s for s in (_score(row.get(a.id)) for row, student in zip(rows, students)
                                               if student not in per[a.id].findings) if s is not None],
                               len(per[a.id].findings)) for a in assignments]
    roster = course.term.roster
    best_hint: dict[str, list[tuple[str, int]]] = {}
    for p in per.values():
        for (key, hint), n in p.hints.most_common():
            best_hint.setdefault(key, [(hint, n)])
    likely: list[LikelyBug] = []
    for a in assignments:
        found = per[a.id].attributions
        for bug in per[a.id].bugs:
            mine = sorted((at for at in found.values() if at.bug.id == bug.id), key=lambda at: -at.strength)
            if mine:
                likely.append(LikelyBug(bug, mine))
    likely.sort(key=lambda lb: -len(lb.attributions))  # stable: assignment then catalogue order on ties
    table = []
    for row, student in zip(rows, students):
        links = {a.id: f"{quote(a.id, safe='')}/{quote(student, safe='')}/feedback.md"
                 for a in assignments if (out / a.id / student / "feedback.md").is_file()}
        counted = [r for p in per.values() for r in p.counted(student)]
        kinds = {p.findings[student].kind: None for p in per.values() if student in p.findings}
        table.append(StudentRow(
            shown_id(student), {a.id: one_line(row.get(a.id) or "", MAX_ID) for a in assignments},
            one_line(row.get("total") or "", MAX_ID),
            one_line(row.get("notes") or "", MAX_NOTES),
            links, sum((r.public for r in counted), Points()), sum((r.hidden for r in counted), Points()),
            [per[a.id].attributions[student] for a in assignments if student in per[a.id].attributions], list(kinds)))
    return ClassReport(
        assignments=assignments,
        distributions=distributions,
        tests=[(_item(it), best_hint.get(it.key, [])) for it in items if it.attempts],
        bugs=likely,
        attention=needs.lines(),
        tasks=[per[a.id].table for a in assignments],
        students=table,
        total_points=sum(a.points for a in assignments),
        threshold=float(THRESHOLD),
        similarity=similarity_section(out),
        late=late_section(assignments, results, students, read_roster(roster) if roster is not None else None),
        adjustments=adjustments_section(store, assignments, students),
        left_out={a.id: len(per[a.id].findings) for a in assignments if per[a.id].findings},
        needs=needs.tally(),
    )


def _shown(value: object) -> object:
    """What the template prints of ``value``: a string inert (:func:`grader.inert.terminal`; the records
    are already, this is for one a section forgot), anything else (numbers, the template's own markup) as it is."""
    return terminal(value) if isinstance(value, str) and not hasattr(value, "__html__") else value


def render_report(report: ClassReport) -> str:
    """Render ``report.html.j2`` with ``report`` (autoescaped, every string printed inert, undefined names are
    errors)."""
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("grader.outputs", "templates"),
        autoescape=True,
        finalize=_shown,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["points"] = points
    context = {f.name: getattr(report, f.name) for f in fields(report)}
    return env.get_template("report.html.j2").render(
        **context, missing_remedy=MISSING_REMEDY, width=WIDTH, height=HEIGHT, left=LEFT, right=RIGHT, top=TOP, bottom=BOTTOM, version=__version__,
        generated=datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    )


def save_report(out: Path, report: ClassReport) -> Path:
    """Write ``report`` as ``out/report.html`` (atomically) and return its path."""
    path = Path(out) / "report.html"
    write_atomic(path, render_report(report))
    return path


def write_report(out: Path, course: Course, store: ResultStore | None = None, ids: list[str] | None = None) -> Path:
    """Write ``out/report.html``, the class report of a graded folder.

    Args:
        out: A folder written by ``grader grade`` (``grades.csv`` and
            ``<assignment>/<student>/results.json``).
        course: The course that was graded (assignments, bug catalogues).
        store: The folder's results store, when the caller has one.
        ids: The assignments to report on (None: the gradebook's released ones).

    Returns:
        The path of the report.

    Raises:
        GraderError: If ``out/grades.csv`` is missing or malformed.
        ConfigError: If an assignment's ``bugs.yaml`` is invalid.
    """
    return save_report(Path(out), class_data(Path(out), course, store, ids))
