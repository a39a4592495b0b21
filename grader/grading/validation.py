"""Testing the tests (``grader validate``).

For each assignment it grades, in one batch:

* the reference solution, which must score full marks;
* the student template, which must score 0;
* every correct variant in ``reference/variants/<name>/`` that holds one of the
  assignment's files, over the reference's other files (independent
  correct solutions in other styles), which must score full marks;
* every catalogued bug (:mod:`grader.course.catalogue`), which must lose points in
  each test its entry names, and whose feedback must name the method at
  fault, show what was expected (or what the code raised or that it did not
  finish) and give a hint;
* every "method missing" mutant (:mod:`grader.course.stubs`: the reference
  with one method put back to the template's stub).

Fault isolation is measured as *cascades*: the points a bug or a missing
method loses outside the tests about its method (a test is about the methods
its cases declare, or its ``methods(...)`` marker names, as graded on the
reference; a bug's entry may name more tests in ``caught_by``). A catalogued
bug's cascade above its ``max_cascade`` is a miss; missing methods' cascades
are printed with the totals, and flagged when above the assignment's limit. The *public kill rate* is
the share of catalogued bugs that lose points in a public test, i.e. that a
student's ``grader check`` reveals.

Every check that does not hold is a *miss*; ``grader validate`` exits non-zero if
there is any.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path

from grader.course.catalogue import Bug, load_bugs, max_cascade, write_mutant
from grader.course.config import Assignment
from grader.course.course import Course
from grader.course.stubs import missing_method_mutants
from grader.files import temporary_folder
from grader.grading.batch import grade
from grader.grading.concept_validation import validate_concept_check
from grader.grading.judge_failure import JudgesFailed
from grader.grading.task_order import task_order_misses
from grader.outputs.entries import TestEntry
from grader.outputs.store import ResultStore
from grader.questions.points import check_points

REFERENCE, TEMPLATE = "_reference", "_template"
KEPT_LOGS = "grader-validate-logs-"
"""The start of the name of the folder (in the temporary directory) a failed judge's logs are copied to: the run's
own folder is removed when validate ends, the copy is not."""


@dataclass
class BugOutcome:
    """How the tests fared against one catalogued bug."""

    bug: Bug
    points_lost: float
    caught_by: list[str]
    feedback_ok: bool
    misses: list[str] = field(default_factory=list)
    cascade: float = 0.0
    public: bool = False


@dataclass
class MissingOutcome:
    """What one "method missing" mutant cost in one assignment.

    Attributes:
        method: The method put back to its stub (``Value.tanh``).
        assignment: The assignment graded.
        own: Points lost in the tests about the method.
        cascade: Points lost in every other test of the assignment.
        limit: The assignment's ``max_cascade``.
    """

    method: str
    assignment: str
    own: float
    cascade: float
    limit: float


@dataclass
class Report:
    """Everything ``grader validate`` found."""

    bugs: list[BugOutcome] = field(default_factory=list)
    missing: list[MissingOutcome] = field(default_factory=list)
    variants: dict[str, float] = field(default_factory=dict)
    misses: list[str] = field(default_factory=list)
    code: list[str] = field(default_factory=list)
    """The code assignments validated (their reference, template, variants and mutants graded)."""
    answer_sets: dict[str, int] = field(default_factory=dict)
    """A concept check's id to how many answer sets made from its key were graded
    (:mod:`grader.grading.concept_validation`)."""

    def public_kill_rate(self, assignment: str | None = None) -> float:
        """Share of catalogued bugs (of ``assignment``, default all) that lose points in a public test."""
        bugs = [b for b in self.bugs if assignment in (None, b.bug.assignment)]
        return sum(1 for b in bugs if b.public) / len(bugs) if bugs else 1.0

    @property
    def kill_rate(self) -> float:
        """Share of catalogued bugs that lose points in every test their entry names."""
        return sum(1 for b in self.bugs if not b.misses) / len(self.bugs) if self.bugs else 1.0


def variant_dirs(course: Course) -> list[Path]:
    """Folders of the correct variants (each holding the student's package, ``micrograd/``)."""
    root = course.reference_dir / "variants"
    return sorted(p for p in root.iterdir() if (p / course.package).is_dir()) if root.is_dir() else []


def _tests(store: ResultStore, assignment: Assignment, student: str) -> tuple[TestEntry, ...]:
    result = store.get(assignment.id, student)
    return result.tests if result is not None else ()


def feedback_teaches(text: str, method: str) -> bool:
    """Whether feedback names ``method``, shows expected vs got (or the error) and gives a hint."""
    short = method.split(".")[-1]
    names_method = method in text or f".{short}" in text
    shows = any(w in text for w in ("expected", "raised", "did not finish", "finite difference"))
    return names_method and shows and "Hint:" in text


def is_public(test_key: str) -> bool:
    """Whether the test with this key (``path::name``) is one of the public tests students have."""
    return "/tests/public/" in "/" + test_key.split("::", 1)[0]


def lost(t: TestEntry) -> float:
    """Points a test did not give."""
    return max(0.0, t.max_score - t.score)


def validate_assignment(course: Course, assignment: Assignment, work: Path, jobs: int, report: Report,
                        missing: list[Bug]) -> None:
    """Grade the reference, template, variants and mutants of one assignment and record misses."""
    subs = work / assignment.id / "subs"
    out = work / assignment.id / "out"
    package = assignment.package
    shutil.copytree(course.reference_dir / package, subs / REFERENCE / package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(course.template_dir / package, subs / TEMPLATE / package, ignore=shutil.ignore_patterns("__pycache__"))
    variants = [v for v in variant_dirs(course) if any((v / f).is_file() for f in assignment.files)]
    for variant in variants:  # the variant's own files over the reference's (a variant of the engine alone is one)
        shutil.copytree(course.reference_dir / package, subs / f"variant--{variant.name}" / package,
                        ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copytree(variant, subs / f"variant--{variant.name}", ignore=shutil.ignore_patterns("__pycache__"),
                        dirs_exist_ok=True)
    bugs = load_bugs(assignment, course.reference_dir)
    for bug in bugs:
        write_mutant(bug, course.reference_dir, subs / f"bug--{bug.id}")
    missing = [m for m in missing if m.file in assignment.files]
    for mutant in missing:
        write_mutant(mutant, course.reference_dir, subs / f"missing--{mutant.id}")
    store = grade(course, subs, [assignment.id], out, jobs, force=True).store
    assert store is not None

    def total(student: str) -> tuple[float, float]:
        tests = _tests(store, assignment, student)
        return round(sum(t.score for t in tests), 4), round(sum(t.max_score for t in tests), 4)

    reference = _tests(store, assignment, REFERENCE)
    got, full = total(REFERENCE)
    if got != full or full != assignment.points:
        failing = [t.name for t in reference if not t.passed]
        report.misses.append(f"{assignment.id}: the reference scores {got:g}/{assignment.points:g} (fails: {failing})")
    about = {t.key: set(t.about) for t in reference}
    got, _ = total(TEMPLATE)
    if got != 0:
        passing = [t.name for t in _tests(store, assignment, TEMPLATE) if t.score > 0]
        report.misses.append(f"{assignment.id}: the template scores {got:g}, not 0 (passes: {passing})")
    for variant in variants:
        got, full = total(f"variant--{variant.name}")
        report.variants[f"{assignment.id}/{variant.name}"] = full - got
        if got != full:
            failing = [t.name for t in _tests(store, assignment, f"variant--{variant.name}") if not t.passed]
            report.misses.append(f"{assignment.id}: correct variant {variant.name} loses {full - got:g} points in {failing}")
    for bug in bugs:
        student = f"bug--{bug.id}"
        tests = _tests(store, assignment, student)
        points = sum(lost(t) for t in tests)
        failing = [t.test_name for t in tests if t.score < t.max_score]
        outcome = BugOutcome(bug, round(points, 4), failing, False)
        outside = [t for t in tests if bug.catches(t.key) is None and bug.method not in about.get(t.key, ())]
        outcome.cascade = round(sum(lost(t) for t in outside), 4)
        outcome.public = any(lost(t) > 0 and is_public(t.key) for t in tests)
        if outcome.cascade > bug.max_cascade + 1e-9:
            where = [t.test_name for t in outside if lost(t) > 0]
            outcome.misses.append(f"{bug.id}: loses {outcome.cascade:g} points outside the tests about {bug.method} "
                                  f"and those its entry names (max_cascade {bug.max_cascade:g}): {where}")
        if points <= 0:
            outcome.misses.append(f"{bug.id}: not caught (the mutant scores full marks)")
        for entry in bug.caught_by:
            if not any(bug.catches(t.key) == entry and t.score < t.max_score for t in tests):
                outcome.misses.append(f"{bug.id}: expected {entry} to catch it; caught by {failing or 'nothing'}")
        feedback = out / assignment.id / student / "feedback.md"
        outcome.feedback_ok = points > 0 and feedback.is_file() and feedback_teaches(feedback.read_text(encoding="utf-8"), bug.method)
        if points > 0 and not outcome.feedback_ok:
            outcome.misses.append(f"{bug.id}: the feedback does not name {bug.method} with expected vs got and a hint")
        report.bugs.append(outcome)
        report.misses += outcome.misses
    limit = max_cascade(assignment)
    for mutant in missing:
        tests = _tests(store, assignment, f"missing--{mutant.id}")
        own = sum(lost(t) for t in tests if mutant.method in about.get(t.key, ()))
        cascade = sum(lost(t) for t in tests if mutant.method not in about.get(t.key, ()))
        report.missing.append(MissingOutcome(mutant.method, assignment.id, round(own, 4), round(cascade, 4), limit))


def validate(course: Course, assignment_ids: list[str] | None, jobs: int) -> Report:
    """Run every check on the chosen assignments (default: all) and return the report.

    Raises:
        ConfigError: If a chosen concept check's questions do not add up to its points (before any judge runs).
        JudgesFailed: If a judge process failed; its logs are copied to a folder :data:`KEPT_LOGS`... that is not
            removed, and the message names the copy.
    """
    report = Report()
    chosen = course.assignments(assignment_ids)
    check_points(chosen)  # before any judge: the judge would refuse them, and say it as its own failure
    report.misses += task_order_misses(course, chosen)  # static: no grading
    files = sorted({f for a in course.assignments() if not a.is_concept_check for f in a.files})
    missing = missing_method_mutants(course.reference_dir, course.template_dir, files)
    with temporary_folder("grader-validate-") as tmp:
        try:
            for assignment in chosen:
                if assignment.is_concept_check:
                    misses, graded = validate_concept_check(course, assignment, Path(tmp), jobs)
                    report.misses += misses
                    report.answer_sets[assignment.id] = graded
                else:
                    validate_assignment(course, assignment, Path(tmp), jobs, report, missing)
                    report.code.append(assignment.id)
        except JudgesFailed as failed:  # its logs are in tmp, removed on the way out: the message names a copy
            raise failed.kept(KEPT_LOGS) from None
    return report


def _table(rows: list[tuple[str, ...]]) -> list[str]:
    widths = [min(max(len(r[i]) for r in rows), 48) for i in range(len(rows[0]))]
    lines = ["  ".join(c[:w].ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return lines


def format_report(report: Report, width: int = 110) -> str:
    """The report as plain text: for code assignments, tables (bugs, missing methods) and their summary; a line per
    concept check; then the misses, or what held. A run of concept checks alone shows no bug table."""
    lines = _code_lines(report) if report.code else []
    for aid, graded in report.answer_sets.items():
        lines.append(f"Concept check {aid}: {graded} answer sets made from its key graded (right, one wrong answer per "
                     "question, copied from a classmate, the empty template).")
    if report.misses:
        lines.append(f"\n{len(report.misses)} miss(es):")
        lines += [f"  - {m}"[:width * 3] for m in report.misses]
        return "\n".join(lines)
    held = []
    if report.code:
        held.append("the reference scores full marks, the template 0, every variant full marks, every bug is caught "
                    "where its entry says, and no cascade is above its catalogue's limit")
    if report.answer_sets:
        held.append("each key's answers score full marks, a wrong answer costs its question only, a classmate's "
                    "answers score what wrong answers score, the empty answers template 0, and no example scores")
    lines.append("No misses" + (": " + "; ".join(held) if held else "") + ".")
    return "\n".join(lines)


def _code_lines(report: Report) -> list[str]:
    """The code assignments' part of the report: the bug table, the missing methods' table, the summary lines."""
    rows: list[tuple[str, ...]] = [("bug", "method", "caught by", "points lost", "cascade", "public", "ok")]
    for b in report.bugs:
        caught = ", ".join(b.caught_by[:3]) + (f" +{len(b.caught_by) - 3}" if len(b.caught_by) > 3 else "")
        rows.append((f"{b.bug.assignment}/{b.bug.id}", b.bug.method, caught or "-", f"{b.points_lost:g}",
                     f"{b.cascade:g}", "yes" if b.public else "no", "yes" if not b.misses else "MISS"))
    lines = _table(rows) if report.bugs else []
    if report.missing:
        lines += [""] if lines else []
        rows = [("method missing (template stub)", "assignment", "own tests", "cascade", "within limit")]
        rows += [(m.method, m.assignment, f"{m.own:g}", f"{m.cascade:g}", "yes" if m.cascade <= m.limit + 1e-9 else "over")
                 for m in report.missing]
        lines += _table(rows)
    losing = sum(1 for b in report.bugs if b.points_lost > 0)
    if lines:
        lines.append("")
    lines.append(
        f"{len(report.bugs)} catalogued bugs: {losing} lose points ({losing / max(1, len(report.bugs)):.0%}), "
        f"{report.kill_rate:.0%} caught by the expected tests with teaching feedback; "
        f"{len(report.variants)} correct-variant gradings, "
        f"{sum(1 for v in report.variants.values() if v > 0)} false failures."
        if report.bugs else f"No catalogued bugs in {', '.join(report.code)}: add the bugs students make to each "
        f"assignment's bugs.yaml. {len(report.variants)} correct-variant gradings, "
        f"{sum(1 for v in report.variants.values() if v > 0)} false failures.")
    lines.append(f"Cascades (points lost outside the tests about the method at fault): catalogued bugs "
                 f"{sum(b.cascade for b in report.bugs):g} in total, at most "
                 f"{max((b.cascade for b in report.bugs), default=0):g}; missing methods "
                 f"{sum(m.cascade for m in report.missing):g} in total, at most "
                 f"{max((m.cascade for m in report.missing), default=0):g}.")
    assignments = list(dict.fromkeys(b.bug.assignment for b in report.bugs))
    if assignments:
        lines.append("Public kill rate (bugs a student's `grader check` reveals): "
                     + ", ".join(f"{a} {report.public_kill_rate(a):.0%}" for a in assignments)
                     + f"; all {report.public_kill_rate():.0%}.")
    return lines
