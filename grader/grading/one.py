"""Grading one submission with one judge: a student's self-check (:func:`self_check`, ``grader check``) and
Gradescope's run (:func:`autograde`, ``grader autograde``).

The same intake (:func:`grader.grading.staging.intake`) and judge
(:func:`grader.grading.batch.run_judge`) as a class, without the queue:
the submission is read and staged in a temporary folder, one judge grades
it, and each assignment's ``results.json`` document comes back. Nothing is
left behind. A self-check can be followed as it runs: the judge then reports
each test as it ends (:mod:`grader.grading.follow`).
"""

from __future__ import annotations

import json
from pathlib import Path

from grader.course.config import Assignment
from grader.course.course import Course
from grader.errors import GraderError, WithheldError
from grader.files import temporary_folder, write_atomic
from grader.grading.batch import run_judge
from grader.grading.due_work import DueWork
from grader.grading.follow import Follower, run_followed_judge
from grader.grading.staging import intake
from grader.intake.layouts import submitter_id
from grader.intake.submission import read_submission
from grader.judge.backends import choose
from grader.judge.linux_handle import prepare_runtime
from grader.judge.manifest import Manifest
from grader.outputs.self_check import CheckResult
from grader.outputs.store import Result, ResultStore
from grader.questions.points import check_points

STUDENT = "submission"
"""The id the one submission is graded under."""
SELF_CHECK = "self-check"
"""The id a student's self-check is graded under."""


class JudgeFailed(GraderError):
    """The judge process itself failed (not the submission): its status and the end of its log."""

    def __init__(self, status: int, log_tail: str) -> None:
        self.status = status
        self.log_tail = log_tail
        super().__init__(f"the judge process failed (status {status}):\n{log_tail}")


def grade_one(course: Course, path: Path, assignments: list[Assignment], *, include_hidden: bool, sandbox: str,
              hide: list[Path] | None = None, student: str = STUDENT, follower: Follower | None = None,
              timing: tuple[Path, Path] | None = None) -> dict[str, Result | None]:
    """Grade the submission at ``path`` (a folder, a .zip or a .ipynb) on ``assignments``.

    Args:
        course: The course.
        path: The submission.
        assignments: What to grade it on.
        include_hidden: Run the hidden tests too (False: a student's self-check on the public tests).
        sandbox: The sandbox backend, ``"linux"`` or ``"portable"``.
        hide: Folders the sandbox must not see besides the course and the output folder.
        student: The id the submission is graded under.
        follower: Given each test's start and end as the judge reports them (public tests only: never with
            ``include_hidden``); None: the judge runs unfollowed.
        timing: A release's timing run (:func:`time_public_probes`): the folder holding the reference's package,
            and the file to write its time per probe to (:attr:`grader.judge.manifest.Manifest.probe_seconds`).

    Returns:
        Assignment id to its result (:class:`grader.outputs.store.Result`; None if the judge wrote none).

    Raises:
        ConfigError: With ``include_hidden``, if a concept check's questions do not add up to its points.
        JudgeFailed: If the judge process failed (status other than 0 or 1).
    """
    if include_hidden:  # a concept check's points (the hidden tests' total), before the judge refuses them
        check_points(assignments)
    with temporary_folder("grader-one-") as tmp:
        sub = read_submission(path)
        sub.id = student
        job = intake(student, {a.id: DueWork(sub, None) for a in assignments}, 0, assignments, tmp / "stage",
                     course.template_dir)
        out, feed = tmp / "out", tmp / "feed"
        followed = follower is not None and not include_hidden  # progress names public tests only
        manifest = Manifest(str(course.root), str(prepare_runtime(
            tmp / "runtime", course.parts_dir, course.assignments_dir, [p for a in assignments for p in a.grader_parts])), [a.id for a in assignments],
                            include_hidden, [job], hide=[str(course.root), str(out), *map(str, hide or []),
                                                         *([str(feed)] if followed else [])],
                            out=str(out), sandbox=sandbox, reference=str(timing[0]) if timing else "",
                            probe_seconds=str(timing[1]) if timing else "")
        if follower is not None and followed:
            status = run_followed_judge(manifest, tmp / "manifest.json", tmp / "judge.log", feed / "progress.jsonl",
                                        follower)
        else:
            status = run_judge(manifest, tmp / "manifest.json", tmp / "judge.log")
        if status not in (0, 1):
            log = (tmp / "judge.log").read_text(encoding="utf-8", errors="replace").strip().splitlines()[-5:]
            raise JudgeFailed(status, "\n".join(log))
        store = ResultStore(out)
        return {a.id: store.get(a.id, student) for a in assignments}


def time_public_probes(release: Course, reference: Path, dest: Path) -> None:
    """Write to ``dest`` the reference's time for every probe the public tests of ``release`` (a student's release
    being built) make: the reference at ``reference`` (the instructor's ``reference/``) checked in the release as a
    student's copy is, its probes timed in the judge as hidden grading times them (:mod:`grader.judge.probe_seconds`).
    ``grader check`` derives each call's own time limit from them.

    Raises:
        GraderError: If the judge fails.
    """
    assignments = release.code_assignments()
    if not assignments:
        return
    try:
        grade_one(release, reference, assignments, include_hidden=False, sandbox=choose("auto").kind,
                  student="reference", timing=(reference, dest))
    except JudgeFailed as exc:
        raise GraderError(f"timing the reference on the public tests failed (status {exc.status}):\n"
                          f"{exc.log_tail}") from None
    if not dest.is_file():
        raise GraderError(f"timing the reference on the public tests wrote no {dest.name}")


GRADESCOPE_METADATA = "submission_metadata.json"
"""What Gradescope writes beside ``/autograder/submission``: the submitters (``users``: ``email``, ``sid``...)."""
MAX_METADATA_BYTES = 1 << 20


def gradescope_student(path: Path) -> str:
    """The id a Gradescope submission is graded under: its first submitter's ``sid``, else ``email``, from
    Gradescope's ``submission_metadata.json`` (read as bounded JSON, never through a link), as a bulk export of the
    same submission is (:mod:`grader.intake.layouts`), so a concept check draws the same numbers either way; else
    :data:`STUDENT`. Source: https://gradescope-autograders.readthedocs.io/en/latest/submission_metadata/."""
    try:
        if path.is_symlink() or not path.is_file():
            return STUDENT
        with path.open("rb") as f:
            data = json.loads(f.read(MAX_METADATA_BYTES + 1)[:MAX_METADATA_BYTES])
    except (OSError, ValueError, RecursionError):
        return STUDENT
    users = data.get("users") if isinstance(data, dict) else None
    return (submitter_id(users[0]) if isinstance(users, list) and users else "") or STUDENT


def autograde(course: Course, submission: Path, assignment_id: str, results: Path) -> float:
    """Grade Gradescope's submission folder and write its results.json; return the score.

    Raises:
        GraderError: If the submission folder does not exist.
        WithheldError: If the grader's own machinery failed (the sandbox could
            not start, an internal error): no results.json is written, so
            Gradescope reports a failed autograder run (which the instructor
            can re-run) instead of recording a score the student did not earn.
    """
    if not submission.is_dir():
        raise GraderError(f"no submission folder at {submission}")
    docs = grade_one(course, submission, course.assignments([assignment_id]), include_hidden=True,
                     sandbox=choose("auto").kind, hide=[submission.resolve()],
                     student=gradescope_student(submission.parent / GRADESCOPE_METADATA))
    result = docs[assignment_id]
    reason = result.withheld if result is not None else "the judge wrote no results"
    if reason or result is None:
        raise WithheldError(f"the submission could not be graded because of the grader, not the student's code "
                            f"({reason}); no results.json was written")
    write_atomic(results, json.dumps(result.document, indent=2))
    return result.score


def self_check(course: Course, path: Path, assignment_ids: list[str] | None = None, sandbox: str | None = None,
               follower: Follower | None = None) -> CheckResult:
    """Run the public tests of the chosen assignments (default: all) on the submission at ``path``.

    Args:
        course: The course (the release, for a student).
        path: A folder holding ``micrograd/`` (or flat files), a ``.zip`` or a ``.ipynb``.
        assignment_ids: Assignments to check; None for all.
        sandbox: The sandbox backend, ``"linux"`` or ``"portable"``; None picks it (:func:`grader.judge.backends.choose`).
        follower: Given each test's start and end as the judge runs them (e.g.
            :class:`grader.grading.follow.CheckProgress`); None: nothing until the end.

    Raises:
        GraderError: If ``path`` does not exist, or the judge fails.
    """
    if not path.exists():
        raise GraderError(f"{path} does not exist (give the folder holding {course.package}/, a .zip or a .ipynb)")
    assignments = course.assignments(assignment_ids)
    result = CheckResult(assignments, path=path)
    try:
        docs = grade_one(course, path, assignments, include_hidden=False, sandbox=sandbox or choose("auto").kind,
                         student=SELF_CHECK, follower=follower)
    except JudgeFailed as exc:
        raise GraderError(f"the self-check could not run (status {exc.status}):\n{exc.log_tail}") from None
    result.results = {aid: found.document for aid, found in docs.items() if found is not None}
    return result
