"""``grader similarity OUT``: similarity evidence for a graded class (never a score).

Finds the submissions ``grader grade`` recorded in ``OUT/_instructor/class.json`` (``--submissions``
overrides), compares them pairwise and against each ``--corpus`` folder
(:func:`grader.similarity.run.compare_class`), prints a summary (student text made inert), and
rewrites ``OUT/report.html`` so its "Similar submissions" section shows the run.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path

from grader.commands import CourseArgs, ExitCode, course_of, jobs_option, percentage, positive_float
from grader.errors import GraderError
from grader.inert import terminal
from grader.outputs.gradebook import origin_of, read_gradebook
from grader.outputs.store import ResultStore
from grader.similarity.graded_class import CLASS_FILE, GradedClass, recorded_class
from grader.similarity.ranking import FLOOR, IDENTICAL, THRESHOLD, Settings
from grader.similarity.similarity_json import SimilarityReport

NAME = "similarity"
HELP = ("similarity evidence for a graded class: unusually alike pairs, for a person to review (never changes a "
        "score)")
SHOWN = 10
"""Flagged pairs printed per assignment (the report and similarity.json have them all)."""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("graded", metavar="OUT", help="the output folder of `grader grade`")
    p.add_argument("--corpus", action="append", metavar="DIR", help="also compare every submission with the code in "
                   "DIR: submissions in the class's layouts, or plain .py files (repeatable; e.g. last term's class)")
    p.add_argument("--submissions", metavar="DIR", help="the class's submissions (default: the folder `grader grade` "
                   "recorded in OUT/_instructor/class.json)")
    p.add_argument("-a", "--assignment", action="append", metavar="ID",
                   help="assignment to compare (repeatable; default: the released ones graded in OUT)")
    p.add_argument("--threshold", type=positive_float, default=THRESHOLD, metavar="SCORE",
                   help="flag pairs whose robust z-score against the class reaches SCORE (default: %(default)s)")
    p.add_argument("--floor", type=percentage, default=FLOOR * 100, metavar="PERCENT",
                   help="... and whose similarity reaches PERCENT (default: %(default)s)")
    p.add_argument("--identical", type=percentage, default=IDENTICAL * 100, metavar="PERCENT",
                   help="also flag every pair whose similarity reaches PERCENT, whatever its score (default: %(default)s)")
    jobs_option(p, "processes that tokenise")


@dataclass(frozen=True)
class Args(CourseArgs):
    """``grader similarity``'s arguments (see :func:`add_arguments`; ``floor`` and ``identical`` in percent)."""

    graded: str
    corpus: list[str] | None
    submissions: str | None
    assignment: list[str] | None
    threshold: float
    floor: float
    identical: float
    jobs: int


def _who(side_id: str, origin: str) -> str:
    who = terminal(side_id, keep="")[:80]
    return who if origin == "class" else f"{who} [corpus {terminal(origin, keep='')[:40]}]"


def summary(report: SimilarityReport) -> list[str]:
    """What the terminal shows of a run: per assignment and distribution, the statistics and the flagged pairs."""
    s = report.settings
    lines = [f"Similarity: evidence for a person to review, never a verdict; no score changes. Flagged: a score "
             f"(robust z against the class) of at least {s.threshold:g} and a similarity of at least {s.floor:.0%}, or a "
             f"similarity of at least {s.identical:.0%}."]
    for d in report.distributions:
        what = "class pairs" if d.against == "class" else f"pairs with corpus {terminal(d.against, keep='')}"
        lines.append(f"{d.assignment}: {d.pairs} {what} ({d.documents} documents); median similarity "
                     f"{d.median:.0%}, MAD {d.mad:.0%}, flagged from {d.cutoff:.0%}: {d.flagged} flagged")
        flagged = [p for p in report.flagged if p.assignment == d.assignment and p.against == d.against]
        for p in flagged[:SHOWN]:
            lines.append(f"  {_who(p.a.id, p.a.origin)} ~ {_who(p.b.id, p.b.origin)}: {p.similarity:.0%} similar, "
                         f"score {p.score:.1f} (more alike than {p.percentile:.2f}% of pairs)  {p.evidence}")
        if len(flagged) > SHOWN:
            lines.append(f"  ... and {len(flagged) - SHOWN} more (see the report)")
    if report.notes:
        lines.append(f"{len(report.notes)} note(s) on submissions not compared (in similarity.json and the report), e.g.:")
        for n in report.notes[:3]:
            where = f" ({n.assignment})" if n.assignment else ""
            lines.append(f"  {_who(n.id, n.origin)}{where}: {terminal(n.note, keep='')}")
    return lines


def _class(args: Args, out: Path) -> tuple[GradedClass, bool]:
    """The submissions to compare: ``--submissions``, else the folder ``grader grade`` recorded (with its deadline);
    and whether they are the folder graded (then git repositories are read at the commits the results record)."""
    if not args.submissions:
        return recorded_class(out), True
    folder = Path(args.submissions)
    if not folder.is_dir():
        raise GraderError(f"--submissions {folder} is not a folder")
    try:
        graded = recorded_class(out)
    except GraderError:
        return GradedClass(folder.resolve()), False
    same = graded.submissions.resolve() == folder.resolve()
    return GradedClass(folder.resolve(), graded.deadline if same else None), same


def graded_commits(out: Path) -> dict[str, dict[str, str]]:
    """Student id to assignment id to the commit of their git repository that was graded, as each result records
    it (:func:`grader.outputs.gradebook.origin_of` checks it): what ``grader similarity`` compares."""
    store, commits = ResultStore(out), dict[str, dict[str, str]]()
    for aid, student, _ in store.stored():
        result = store.get(aid, student)
        if result is not None and (commit := origin_of(result.origin).get("commit")):
            commits.setdefault(student, {})[aid] = commit
    return commits


def graded_assignments(out: Path, known: list[str]) -> list[str] | None:
    """The assignments ``out/grades.csv`` has a column for (None: no gradebook, or none known)."""
    try:
        header, _ = read_gradebook(out)
    except GraderError:  # a ConfigError too: too large, not UTF-8, not CSV
        return None
    return [a for a in known if a in header] or None


def run(args: Args) -> ExitCode:
    """``grader similarity OUT``.

    Raises:
        GraderError: If copydetect is not installed (it is an extra: students never need it).
    """
    if importlib.util.find_spec("copydetect") is None:
        raise GraderError("grader similarity needs copydetect, which the grader installs only on request: "
                          "pip install 'micrograd-grader[similarity]' (or, in the course folder, "
                          "pip install -e '.[similarity]')")
    from grader.similarity.run import compare_class  # copydetect, numpy and Pygments: only when this command runs

    course = course_of(args)
    out = Path(args.graded)
    if not out.is_dir():
        raise GraderError(f"{out} is not a folder: give the output folder of `grader grade`")
    graded, same = _class(args, out)
    released = [a.id for a in course.released_assignments()]
    print(f"Comparing the submissions in {terminal(str(graded.submissions), keep='')}"
          + (f" (git repositories at {graded.deadline.isoformat()})" if graded.deadline else "")
          + (f" (recorded in {out / CLASS_FILE})" if not args.submissions else ""), file=sys.stderr)
    report = compare_class(course, out, graded.submissions, deadline=graded.deadline,
                           commits=graded_commits(out) if same else None,
                           corpora=[Path(c) for c in args.corpus or []],
                           assignment_ids=args.assignment or graded_assignments(out, released) or released,
                           settings=Settings(threshold=args.threshold, floor=args.floor / 100,
                                             identical=args.identical / 100), jobs=args.jobs)
    print("\n".join(summary(report)))
    pages = sum(1 for p in report.pairs if p.evidence)
    written = [f"{out / 'similarity.json'}", f"{pages} evidence page(s) in {out / 'similarity'}"]
    if (out / "grades.csv").is_file():
        from grader.outputs.class_report import write_report

        written.append(f"{write_report(out, course)} (section \"Similar submissions\")")
    else:
        written.append(f"no report.html ({out / 'grades.csv'} is missing: run `grader report` after grading)")
    print(f"Compared in {report.seconds:.1f} s. Wrote {'; '.join(written)}.")
    return ExitCode.OK
