"""A graded class's own outputs, made from the results store in one pass: ``grades.csv``, ``item_analysis.csv``,
the isolation the workers reported, the cells that need attention, the late work and the work on another branch, and
what ``grader grade`` prints about them.

:func:`write_class_outputs` takes every student's results from the store once (each results.json parsed once: see
:mod:`grader.outputs.store`), finds the cells that need attention once (:func:`grader.outputs.attention.
class_attention`, the same count ``grader report`` shows) and writes the two tables; :func:`run_summary` is the
terminal's view of a run, made from what it took (student ids and reasons made inert).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from grader.course.adjustments import Adjustments
from grader.course.config import Assignment
from grader.inert import terminal
from grader.outputs.adjusted import apply_to_folder
from grader.outputs.attention import ClassAttention, class_attention, other_branch
from grader.outputs.formats import write_grade_junit
from grader.outputs.gradebook import StudentGrade, grade_from_results, table, write_csv
from grader.outputs.item_analysis import Item, analyse, summary
from grader.outputs.item_analysis import write_csv as write_items
from grader.outputs.store import Result, ResultStore
from grader.sandbox.protocol import BACKEND, layer_text

Isolation = dict[str, set[tuple[bool, str]]]
"""Sandbox layer to the (active, shown) pairs the workers reported: for an active layer, how the summary names it
(``"on"``; the backend, ``"linux"``, for :data:`~grader.sandbox.protocol.BACKEND`), for one that was off, its
status line (``"off: reason"``, capped at 200 characters)."""


@dataclass
class ClassOutputs:
    """What :func:`write_class_outputs` made.

    Attributes:
        grades: One grade per student, in the order given.
        items: Per-test statistics over the class, worst first.
        isolation: What the workers reported of each sandbox layer (:data:`Isolation`).
        junit: The JUnit gradebook, when one was asked for.
        attention: The gradebook's cells that need attention (what the report lists).
        late: Assignment id to ``late`` and ``after the cut-off`` (in that order), each to the evidence its late
            results rest on (:attr:`~grader.outputs.store.LateWork.evidence`) and how many do (withheld ones left out).
        other_branch: Student to the assignment ids whose graded commit holds nothing of theirs while another branch
            of their repository has commits (:func:`grader.outputs.attention.other_branch`), in the order given.
    """

    grades: list[StudentGrade] = field(default_factory=list)
    items: list[Item] = field(default_factory=list)
    isolation: Isolation = field(default_factory=dict)
    junit: Path | None = None
    attention: ClassAttention = field(default_factory=ClassAttention)
    late: dict[str, dict[str, dict[str, int]]] = field(default_factory=dict)
    other_branch: dict[str, set[str]] = field(default_factory=dict)


@dataclass(frozen=True)
class RunSummary:
    """What ``grader grade`` prints when it is done (:func:`run_summary`).

    Attributes:
        text: For standard output: the gradebook table, what the course changed, the counts, where the outputs are,
            the hardest tests, the cells that need attention and the sandbox's layers.
        notes: For standard error, one line each: the late work of each assignment, by the evidence it rests on; the
            students graded on a branch that holds nothing of theirs.
        withheld: For standard error: the error naming why scores were withheld ("" when none was).
    """

    text: str
    notes: list[str]
    withheld: str


def folder_class(store: ResultStore, course: list[Assignment], students: list[str]) -> tuple[list[Assignment], list[str]]:
    """The class an output folder holds: each of the ``course``'s assignments (in course order) that has a result in
    ``store``, whichever run graded it, and ``students`` followed by every other student with a result there.

    One output folder is one gradebook: grading one assignment a week into it (``grader grade -a ID -o OUT``) keeps
    the earlier weeks' columns, and a student graded earlier stays in it. A result of an assignment the course no
    longer has is left out.
    """
    stored = store.stored()
    graded = {aid for aid, _, _ in stored}
    extra = sorted({student for _, student, _ in stored} - set(students))
    return [a for a in course if a.id in graded], [*students, *extra]


def write_class_outputs(store: ResultStore, assignments: list[Assignment], students: list[str], junit: bool = False,
                        adjustments: Adjustments | None = None) -> ClassOutputs:
    """Take every student's results from ``store``; write ``grades.csv`` and ``item_analysis.csv`` in its folder
    (and, with ``junit``, ``grades.junit.xml``: :func:`grader.outputs.formats.write_grade_junit`); with
    ``adjustments`` (the term's, even none), every result's ``results.json`` and ``feedback.md`` first
    (:func:`grader.outputs.adjusted.apply_to_folder`) and the gradebook's scores adjusted."""
    made = ClassOutputs(late={a.id: {"late": {}, "after the cut-off": {}} for a in assignments})
    if adjustments is not None:
        apply_to_folder(store, assignments, adjustments)
    for student in students:
        made.grades.append(grade_from_results(store, assignments, student, adjustments))
        for a in assignments:
            result = store.get(a.id, student)
            if result is not None:
                _take(made, a.id, student, result)
    write_csv(store.out / "grades.csv", assignments, made.grades)
    made.attention = class_attention(store, assignments, [g.student for g in made.grades])
    made.items = analyse(store, assignments, [g.student for g in made.grades], made.attention)
    write_items(store.out / "item_analysis.csv", made.items)
    if junit:
        made.junit = store.out / "grades.junit.xml"
        write_grade_junit(made.junit, assignments, store, [g.student for g in made.grades])
    return made


def _take(made: ClassOutputs, assignment: str, student: str, result: Result) -> None:
    """Add what the terminal counts of one result to ``made``: its sandbox layers, its late work, its other branch."""
    for layer, status in result.isolation.items():
        text = layer_text(status)  # what was on is named; why a layer was off is kept
        shown = (text.split(" (")[0] if layer == BACKEND else "on") if status["active"] else text[:200]
        made.isolation.setdefault(layer, set()).add((status["active"], shown))
    late = result.late
    if late is not None and late.late and not result.withheld:
        kind = made.late[assignment]["late" if late.graded else "after the cut-off"]
        kind[late.evidence] = kind.get(late.evidence, 0) + 1
    if other_branch(result):
        made.other_branch.setdefault(student, set()).add(assignment)


def isolation_summary(layers: Isolation) -> str:
    """One line naming the sandbox backend, the layers that were on, and why any was off."""
    layers = dict(layers)
    backends = sorted(shown for _, shown in layers.pop(BACKEND, set()))
    if not layers:
        return "Sandbox isolation: no sandbox was started in this run."
    on = [name for name, states in layers.items() if states and all(active for active, _ in states)]
    reasons: dict[str, list[str]] = {}  # layers that were off for the same reasons are named together
    for name, states in layers.items():
        if name not in on:
            reasons.setdefault("; ".join(sorted(s for active, s in states if not active)), []).append(name)
    off = [f"{', '.join(names)} ({why})" for why, names in reasons.items()]
    line = f"Sandbox ({', '.join(backends) or 'linux'}) isolation: {', '.join(on) or 'none'}."
    return line + (f" Not active: {'; '.join(off)}." if off else "")


def late_lines(made: ClassOutputs, assignments: list[Assignment]) -> list[str]:
    """One line per assignment with late work: how many results were late and how many after the cut-off, each
    counted by the evidence it rests on (``value_ops: 3 late (2 by the server's push times, 1 by committer dates);
    1 after the cut-off (file modification times)``)."""
    lines = []
    for a in assignments:
        parts = [f"{sum(by.values())} {what} ({', '.join(f'{n} by {k}' for k, n in by.items())})"
                 for what, by in made.late.get(a.id, {}).items() if by]
        if parts:
            lines.append(f"Late work: {a.id}: {'; '.join(parts)}")
    return lines


SHOWN = 10
"""Students named on a line of the terminal before ``...``."""


def course_changed_line(changed: dict[str, tuple[str, int]]) -> str:
    """One line naming the assignments graded again because the course changed since their kept results."""
    parts = [f"{aid} ({what}; {count} submission(s))" for aid, (what, count) in changed.items()]
    return f"Course content changed since the kept results, graded again: {'; '.join(parts)}."


def summary_text(assignments: list[Assignment], made: ClassOutputs, out: Path, *, graded: int, kept: int,
                 course_changed: dict[str, tuple[str, int]], seconds: float, jobs: int,
                 book: list[Assignment] | None = None) -> str:
    """What ``grader grade`` prints when it is done: the gradebook table, what the course changed, the counts, where
    the outputs are, the hardest tests, the cells that need attention (as ``grader report`` counts them) and the
    sandbox's layers.

    Args:
        assignments: The assignments graded in this run.
        made: The class outputs (:func:`write_class_outputs`).
        out: The output folder.
        graded: Submissions graded in this run.
        kept: Submissions whose complete results were kept from an earlier run.
        course_changed: Assignment id to (what of the course changed, how many submissions were graded again).
        seconds: How long the run took, in seconds.
        jobs: Judge processes run in parallel.
        book: The gradebook's assignments (every one graded into the folder; None: ``assignments``).
    """
    sandbox = isolation_summary(made.isolation)
    lines = [table(book or assignments, made.grades)]
    if course_changed:
        lines.append("\n" + course_changed_line(course_changed))
    kept_note = f" (kept {kept} complete result(s) from an earlier run; --force re-grades them)" if kept else ""
    earlier = [a.id for a in book or () if a.id not in {x.id for x in assignments}]
    book_note = f" (also {', '.join(earlier)}, graded into it by earlier runs)" if earlier else ""
    lines.append(f"\nGraded {graded} submission(s) on {len(assignments)} assignment(s) in {seconds:.1f} s "
                 f"with {jobs} job(s){kept_note}.\nGradebook: {out / 'grades.csv'}{book_note}; per-student "
                 f"results.json and feedback.md in {out}/<assignment>/<student>/")
    if made.junit is not None:
        lines.append(f"JUnit gradebook: {made.junit}")
    if len(made.grades) > 1:
        lines.append(summary(made.items) + f"\n  (all tests: {out / 'item_analysis.csv'})")
    lines.append(made.attention.headline() + (f" `grader report {out}` lists them, each with what to do."
                                              if made.attention.count else ""))
    lines.append(sandbox)
    return "\n".join(lines)


def run_summary(made: ClassOutputs, assignments: list[Assignment], out: Path, *, graded: int, kept: int,
                course_changed: dict[str, tuple[str, int]], seconds: float, jobs: int,
                book: list[Assignment] | None = None) -> RunSummary:
    """What ``grader grade`` prints when it is done, made from the class outputs alone (``assignments``: those graded
    in this run; the other arguments as :func:`summary_text`'s)."""
    notes = late_lines(made, assignments)
    text = summary_text(assignments, made, out, graded=graded, kept=kept, course_changed=course_changed,
                        seconds=seconds, jobs=jobs, book=book)
    ids = {a.id for a in assignments}
    found = [s for s, where in made.other_branch.items() if where & ids]
    if found:
        shown = ", ".join(s[:60] for s in found[:SHOWN]) + (f", ... ({len(found) - SHOWN} more)" if len(found) > SHOWN
                                                             else "")
        notes.append(terminal(f"Work on another branch: {len(found)} student(s) ({shown}) graded on a branch that holds "
                              "nothing of theirs by the due date (or only the repository's first commit, the "
                              "template's) while another branch has commits; graded as it is. Their notes in grades.csv "
                              "and the report say which branch. Grading that branch is the course's choice: "
                              "docs/how-to/git-repositories.md, 'Work on another branch'.", keep=""))
    withheld = [(g.student, a, reason) for g in made.grades for a, reason in g.withheld.items()]
    causes: dict[str, list[str]] = {}  # why scores were withheld: one line per distinct cause, at most five
    for student, assignment, reason in withheld:
        causes.setdefault(terminal(reason, keep=""), []).append(terminal(f"{student}/{assignment}", keep=""))
    lines = [f"grader: error: {len(withheld)} score(s) withheld because the grader itself failed (not the students' "
             "code); they are empty in grades.csv and a re-run grades them again:"] if withheld else []
    for reason, where in list(causes.items())[:5]:
        lines.append(f"  {reason} ({', '.join(where[:3])}{' ...' if len(where) > 3 else ''})")
    return RunSummary(text, notes, "\n".join(lines))
