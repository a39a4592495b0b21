"""Grading one submission with one judge: what ``grader check`` and ``grader autograde`` run.

The same intake (:func:`grader.grading.batch.intake`) and judge
(:func:`grader.grading.batch.run_judge`) as a class, without the queue:
the submission is read and staged in a temporary folder, one judge grades
it, and each assignment's ``results.json`` document comes back. Nothing is
left behind.
"""

from __future__ import annotations

from pathlib import Path

from grader.course.config import Assignment, Course
from grader.errors import GraderError
from grader.files import temporary_folder
from grader.grading.batch import intake, run_judge
from grader.grading.freshness import submission_fingerprint
from grader.intake.submission import read_submission
from grader.judge.linux_worker import prepare_runtime
from grader.judge.manifest import Manifest
from grader.outputs.store import Result, ResultStore

STUDENT = "submission"
"""The id the one submission is graded under."""


class JudgeFailed(GraderError):
    """The judge process itself failed (not the submission): its status and the end of its log."""

    def __init__(self, status: int, log_tail: str) -> None:
        self.status = status
        self.log_tail = log_tail
        super().__init__(f"the judge process failed (status {status}):\n{log_tail}")


def grade_one(course: Course, path: Path, assignments: list[Assignment], *, include_hidden: bool, sandbox: str,
              hide: list[Path] | None = None, student: str = STUDENT) -> dict[str, Result | None]:
    """Grade the submission at ``path`` (a folder, a .zip or a .ipynb) on ``assignments``.

    Args:
        course: The course.
        path: The submission.
        assignments: What to grade it on.
        include_hidden: Run the hidden tests too (False: a student's self-check on the public tests).
        sandbox: The sandbox backend, ``"linux"`` or ``"portable"``.
        hide: Folders the sandbox must not see besides the course and the output folder.
        student: The id the submission is graded under.

    Returns:
        Assignment id to its result (:class:`grader.outputs.store.Result`; None if the judge wrote none).

    Raises:
        JudgeFailed: If the judge process failed (status other than 0 or 1).
    """
    with temporary_folder("grader-one-") as tmp:
        sub = read_submission(path)
        sub.id = student
        job = intake(sub, 0, assignments, tmp / "stage", submission_fingerprint(sub), course.template_dir)
        out = tmp / "out"
        manifest = Manifest(str(course.root), str(prepare_runtime(tmp / "runtime", course.parts_dir, course.assignments_dir)), [a.id for a in assignments],
                            include_hidden, [job], hide=[str(course.root), str(out), *map(str, hide or [])],
                            out=str(out), sandbox=sandbox)
        status = run_judge(manifest, tmp / "manifest.json", tmp / "judge.log")
        if status not in (0, 1):
            log = (tmp / "judge.log").read_text(encoding="utf-8", errors="replace").strip().splitlines()[-5:]
            raise JudgeFailed(status, "\n".join(log))
        store = ResultStore(out)
        return {a.id: store.get(a.id, student) for a in assignments}
