"""The gradebook cells an instructor must look at before grades go out: the "needs attention" list and its count.

A cell is one student on one assignment. :func:`class_attention` reads each cell's ``results.json`` (as ``grader
grade`` wrote it) once and finds at most one condition, the first of these that holds; each kind carries what to do about it
(:data:`REMEDIES`), since a re-run fixes some and changes nothing for others:

1. **no submission**: no results.json and no folder for it: nothing of this student was graded on this assignment
   in this output folder (they never accepted it, dropped, joined late); there is nothing to grade;
2. **results missing**: the cell's folder is there but its results.json is missing or unreadable (a run stopped
   between its two files, a file damaged since): ``grader grade`` grades it again;
3. **grader error**: the grader's own machinery failed, so the score is withheld
   (:attr:`grader.outputs.store.Result.withheld`: ``extra_data.grader.grader_error``, or a test's
   ``grader_error``); ``grader grade`` grades it again;
4. **work on another branch**: the commit graded holds nothing of the student's (nothing by the due date, or only
   the repository's first commit) while another branch has commits (``extra_data.grader.origin.other_branch``:
   :mod:`grader.intake.other_branches`); grading that branch is the course's choice;
5. **after the cut-off**: the work came after the late policy's cut-off (``extra_data.grader.late.graded`` false),
   so it was not graded;
6. **could not be graded**: intake and loading reported problems (``extra_data.grader.problems``: no files found,
   a copy that cannot be read, a module that cannot be imported, a crash or hang at import): the submission, or the
   instructor's copy of it, has to change;
7. **no test ran**: no test ran and nothing says why;
8. **template unchanged**: every test failed, each on a template stub (``NotImplementedError``; a test worth no
   points that the template's given code passes, a contract test, does not count): the student handed in the
   template as it was, or the wrong files;
9. **look at this**: graded as usual, but intake noted something only a person can settle
   (:attr:`grader.outputs.store.Result.attention`: an answers file whose ``student:`` line names another student, two
   submissions that name one student): the only kind whose cells still count in the statistics (:data:`COUNTED`).

The list shows them most urgent first (:data:`KINDS`).
``grader grade`` and ``grader report`` both show :meth:`ClassAttention.headline`, the one count of these cells, and
the report lists them (:meth:`ClassAttention.lines`). The statistics (pass rates, histograms, class means) leave them
out, but for **look at this** (:meth:`ClassAttention.left_out`).

Reasons quote the grader's problems, which hold text from the submission:
they are capped and made inert (:func:`one_line`) here,
and escaped by the report's template. :func:`one_line` and :func:`shown_id` are what every section of the class
report shows a student-controlled string through (ids, notes, messages, test names and late sentences from
results.json): one line, every control, format (bidirectional overrides, zero-width and other invisible characters)
and lone surrogate character as a visible escape, capped.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from grader.course.config import Assignment
from grader.course.roster import MISSING_REMEDY
from grader.inert import terminal
from grader.outputs.store import Result, ResultStore

Kind = Literal["grader error", "results missing", "no test ran", "work on another branch", "could not be graded",
               "after the cut-off", "template unchanged", "look at this", "no submission"]

KINDS: tuple[Kind, ...] = ("grader error", "results missing", "no test ran", "work on another branch",
                           "could not be graded", "after the cut-off", "template unchanged", "look at this",
                           "no submission")
"""The conditions, most urgent first (the order of the list): what a re-run fixes, then what the course or the
submission must change, then what only a person, the student or the roster can settle."""

COUNTED: frozenset[Kind] = frozenset({"look at this"})
"""Kinds whose cells were graded as usual and still count in the class's statistics."""

REMEDIES: dict[Kind, str] = {
    "grader error": "the grader itself failed, not the student's code: run `grader grade` again, which grades "
                    "withheld scores again (if it fails again, the judges' logs are in the output folder's "
                    "_instructor/logs/)",
    "results missing": "run `grader grade` again, which grades a submission without a readable results.json again",
    "no test ran": "check that the assignment's tests run (`grader validate -a ID` runs them on the reference) and "
                   "the judges' logs in the output folder's _instructor/logs/; `grader grade --force` grades it again",
    "could not be graded": "it scores 0, and grading again gives the same until the submission, or your copy of it, "
                           "changes: the reason says what is missing or unreadable, and the student's feedback.md "
                           "says the same",
    "after the cut-off": "the late policy does not grade work after its cut-off (0): grading again gives the same "
                         "unless an extension (extensions.csv) moves the student's cut-off past the work",
    "work on another branch": "the work is on another branch than the one graded, which is never graded silently: "
                              "ask the student to merge it into the graded branch, or grade that branch if the "
                              "course accepts it (docs: git-repositories.md, work on another branch)",
    "look at this": "the score stands as graded: read the reason and decide (a copied answers file or two "
                    "submissions naming one student is evidence for a person, not a verdict)",
    "template unchanged": "ask the student for their work: they handed in the template as it was, or the wrong "
                          "files; grading again gives the same",
    "no submission": MISSING_REMEDY,
}
"""What to do about each kind (the report shows it beside each line, and ``grader report`` once per kind)."""

MAX_REASON = 300
"""Characters of a reason shown (problems quote the submission's own text)."""
MAX_ID = 160
"""Characters of a student id shown (a submission's folder, zip or notebook name), and of a test's task label or a
method's name."""
MAX_MESSAGE = 400
"""Characters of a message from results.json shown (a hint, a test's title or key, a late sentence)."""

TEMPLATE_REASON = "every test failed on a template stub (NotImplementedError): nothing was implemented"
NO_SUBMISSION_REASON = "nothing of this student was graded on it in this folder"
MISSING_REASON = "its folder holds no readable results.json"
NO_TEST_REASON = "the judge recorded no test and no reason"


@dataclass(frozen=True)
class Finding:
    """What one student's results on one assignment need attention for.

    Attributes:
        kind: Which condition.
        reason: Why, in one line (capped, inert).
    """

    kind: Kind
    reason: str

    @property
    def remedy(self) -> str:
        """What to do about it (:data:`REMEDIES`)."""
        return REMEDIES[self.kind]


@dataclass(frozen=True)
class Attention:
    """One line of the "needs attention" list: a student, a condition, and where it holds.

    Attributes:
        student: The student id, as the report shows it (:func:`shown_id`).
        kind: Which condition.
        assignments: The assignments where it holds with this reason, in course order.
        reason: Why, in one line (capped, inert).
    """

    student: str
    kind: Kind
    assignments: tuple[str, ...]
    reason: str

    @property
    def remedy(self) -> str:
        """What to do about it (:data:`REMEDIES`)."""
        return REMEDIES[self.kind]


def one_line(text: str, cap: int = MAX_REASON) -> str:
    """``text`` as one inert line (:func:`grader.inert.terminal`: control, format and lone surrogate characters as
    escapes) of at most ``cap`` characters."""
    text = " ".join(terminal(text, keep="").split())
    return text if len(text) <= cap else text[: cap - 1] + "…"


def shown_id(student: str) -> str:
    """A student id as the report shows it: one inert line of at most :data:`MAX_ID` characters (:func:`one_line`).

    The id itself (a folder name) still names the student's results and feedback; only what is shown changes.
    """
    return one_line(student, MAX_ID)


def finding(result: Result | None, *, submitted: bool = True) -> Finding | None:
    """What one result needs attention for, or None if it was graded normally.

    Args:
        result: The stored result (None: no readable results.json).
        submitted: Whether anything of the student was graded on the assignment into the folder (its folder there
            exists); without a result and without it, there was no submission.
    """
    if result is None:
        return Finding("results missing", MISSING_REASON) if submitted else Finding("no submission",
                                                                                     NO_SUBMISSION_REASON)
    if result.withheld:
        return Finding("grader error", one_line(f"score withheld: {result.withheld}"))
    if elsewhere := other_branch(result):
        return Finding("work on another branch", elsewhere)
    if result.late is not None and not result.late.graded:
        return Finding("after the cut-off", one_line(result.late.sentence or "; ".join(result.problems)))
    if result.problems:
        return Finding("could not be graded", one_line("; ".join(result.problems)))
    tests = result.tests
    if not tests:
        return Finding("no test ran", NO_TEST_REASON)
    if all(t.unfinished for t in tests if t.max_score or not t.passed):  # a contract test the template's given
        # constructor passes is worth no points: it does not make the template work
        return Finding("template unchanged", TEMPLATE_REASON)
    return None


def noticed(result: Result | None) -> Finding | None:
    """What a graded result's intake noted for the instructor to look at (:attr:`grader.outputs.store.Result.
    attention`: an answers file naming another student, two submissions naming one), or None. Unlike the other
    kinds of :func:`finding`, the result still counts in the class's statistics."""
    notes = result.attention if result is not None else []
    return Finding("look at this", one_line("; ".join(notes))) if notes else None


def other_branch(result: Result) -> str:
    """The evidence that the student's work is on another branch than the one graded, as one inert capped line ("" when
    the result records none: ``origin.other_branch``, :mod:`grader.intake.other_branches`)."""
    said = result.origin.get("other_branch")
    return one_line(said) if isinstance(said, str) and said.strip() else ""


def attention_list(findings: Mapping[str, Sequence[tuple[str, Finding]]]) -> list[Attention]:
    """The "needs attention" list: per student, each (condition, reason) once with the assignments it holds in.

    Args:
        findings: Student id to (assignment id, finding) pairs, in course order.

    Returns:
        The lines (each id as :func:`shown_id` shows it), in :data:`KINDS` order, by student id within each kind.
    """
    lines = []
    for student, found in findings.items():
        where: dict[tuple[Kind, str], list[str]] = {}
        for assignment, f in found:
            where.setdefault((f.kind, f.reason), []).append(assignment)
        lines += [Attention(shown_id(student), kind, tuple(ids), reason) for (kind, reason), ids in where.items()]
    return sorted(lines, key=lambda a: (KINDS.index(a.kind), a.student))


@dataclass
class ClassAttention:
    """The cells of a graded folder (a student on an assignment) that need attention, found once for every view.

    Attributes:
        cells: How many cells were looked at (students times assignments).
        findings: Student id to (assignment id, finding) pairs, in course order; students with none are absent.
    """

    cells: int = 0
    findings: dict[str, list[tuple[str, Finding]]] = field(default_factory=dict)

    @property
    def count(self) -> int:
        """How many cells need attention: the one number ``grader grade`` and ``grader report`` show."""
        return sum(len(found) for found in self.findings.values())

    def of(self, student: str, assignment: str) -> Finding | None:
        """The finding of one cell, or None when it was graded normally."""
        return next((f for aid, f in self.findings.get(student, ()) if aid == assignment), None)

    def left_out(self, student: str, assignment: str) -> bool:
        """Whether the class's statistics leave the cell out: it needs attention for a kind not in :data:`COUNTED`."""
        found = self.of(student, assignment)
        return found is not None and found.kind not in COUNTED

    def by_kind(self) -> dict[Kind, int]:
        """How many cells of each kind, in :data:`KINDS` order (kinds with none are absent)."""
        counts = Counter(f.kind for found in self.findings.values() for _, f in found)
        return {kind: counts[kind] for kind in KINDS if counts[kind]}

    def lines(self) -> list[Attention]:
        """The "needs attention" list (:func:`attention_list`)."""
        return attention_list(self.findings)

    def tally(self) -> Tally:
        """The counts alone (no student id): what the report keeps."""
        return Tally(self.cells, self.count, self.by_kind())

    def headline(self) -> str:
        """The count in one line, by kind: what ``grader grade`` prints (:meth:`Tally.headline`)."""
        return self.tally().headline()


@dataclass(frozen=True)
class Tally:
    """How many gradebook cells need attention, of how many, by kind: the one count ``grader grade`` and ``grader
    report`` show.

    Attributes:
        cells: How many cells were looked at (students times assignments).
        count: How many need attention.
        kinds: How many of each kind, in :data:`KINDS` order (kinds with none are absent).
    """

    cells: int = 0
    count: int = 0
    kinds: Mapping[Kind, int] = field(default_factory=dict)

    def headline(self) -> str:
        """The count in one line, by kind."""
        if not self.count:
            return f"Nothing needs attention: all {self.cells} gradebook cell(s) were graded normally."
        kinds = ", ".join(f"{n} {kind}" for kind, n in self.kinds.items())
        return (f"Needs attention: {self.count} of the {self.cells} gradebook cell(s) (a student on an assignment): "
                f"{kinds}.")


def class_attention(store: ResultStore, assignments: Sequence[Assignment], students: Sequence[str]
                    ) -> ClassAttention:
    """Find what each of ``students`` on each of ``assignments`` needs attention for (:func:`finding`, else
    :func:`noticed`).

    Args:
        store: The graded folder's results.
        assignments: The assignments, in course order.
        students: The students (the gradebook's rows), each id as its folders are named.

    Returns:
        The findings, and how many cells were looked at.
    """
    found = ClassAttention(cells=len(students) * len(assignments))
    for student in students:
        for a in assignments:
            result = store.get(a.id, student)
            f = (finding(result, submitted=result is not None or store.folder(a.id, student).is_dir())
                 or noticed(result))
            if f is not None:
                found.findings.setdefault(student, []).append((a.id, f))
    return found
