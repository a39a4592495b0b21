"""Grading a batch: intake, staging, parallel judge processes, outputs.

:func:`grade` reads every submission (never executing it), stages the files
each assignment names into a private temporary folder, splits the class into
chunks and runs one judge process per chunk (``-j`` at a time). Each judge
grades its chunk submission by submission; as soon as a chunk is done its
submissions' ``results.json`` and ``feedback.md`` are written, then
``grades.csv``. A submission that cannot be read or staged still gets its
tests (all failed, with the reason), so the batch always completes.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import Callable

from .config import Assignment, Course
from .errors import GraderError, SubmissionError
from .gradebook import StudentGrade, write_csv
from .manifest import Job, Manifest, Part
from .results import problems, score_of, write_submission
from .submission import discover, read_submission, resolve, stage
from .worker_process import prepare_runtime

Progress = Callable[[int, int, str], None]


def chunk_size(n: int, jobs: int) -> int:
    """Submissions per judge process: about two chunks per parallel slot, at most 25."""
    return max(1, min(25, math.ceil(n / max(1, 2 * jobs))))


def intake(entries: list[Path], assignments: list[Assignment], stage_root: Path) -> list[Job]:
    """Read and stage every submission for every assignment."""
    jobs = []
    for index, entry in enumerate(entries):
        sub = read_submission(entry)
        job = Job(sub.id, index)
        for a in assignments:
            base = stage_root / str(index) / a.id
            try:
                stage(resolve(sub, a.files), base / "code")
                job.parts[a.id] = Part(str(base / "code"), str(base / "scratch"), notes=sub.notes[:20])
            except SubmissionError as exc:
                job.parts[a.id] = Part(error=str(exc), notes=sub.notes[:20])
        jobs.append(job)
    return jobs


def run_judge(manifest: Manifest, path: Path, log: Path) -> int:
    """Run one judge process on ``manifest`` (saved at ``path``); its output goes to ``log``."""
    manifest.dump(path)
    log.parent.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", HYPOTHESIS_STORAGE_DIRECTORY=str(path.parent / "hypothesis"),
               GRADER_PARENT_PID=str(os.getpid()))
    with open(log, "wb") as out:
        return subprocess.run(
            [sys.executable, "-m", "grader.judge", str(path)],
            stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env, check=False,
        ).returncode


def collect(job: Job, results_dir: Path, assignments: list[Assignment], status: int) -> dict[str, dict]:
    """The judge's records for ``job``, or failure records if the judge wrote none."""
    path = results_dir / f"{job.index}.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return {a.id: data["assignments"][a.id] for a in assignments}
    except (OSError, ValueError, KeyError):
        reason = f"internal grader error: the judge process ended with status {status} before grading this submission"
        return {a.id: {"tests": [], "error": job.parts[a.id].error or reason} for a in assignments}


def record_grade(out: Path, assignments: list[Assignment], student: str, records: dict[str, dict]) -> StudentGrade:
    """Write one student's outputs; return their grade, with each distinct problem noted once."""
    grade_ = StudentGrade(student)
    where: dict[str, list[str]] = {}
    for a in assignments:
        write_submission(out, a, student, records[a.id])
        grade_.scores[a.id] = score_of(records[a.id])
        for problem in problems(records[a.id]):
            where.setdefault(problem, []).append(a.id)
    grade_.notes = [f"{', '.join(ids)}: {problem}" for problem, ids in where.items()]
    return grade_


def grade(
    course: Course,
    submissions: Path,
    assignment_ids: list[str] | None,
    out: Path,
    jobs: int,
    progress: Progress | None = None,
) -> tuple[list[Assignment], list[StudentGrade]]:
    """Grade every submission in ``submissions`` on the chosen assignments.

    Args:
        course: The course (assignments, reference).
        submissions: Folder of submission entries (see :mod:`grader.submission`).
        assignment_ids: Assignments to grade; None for all.
        out: Output folder: ``<assignment>/<student>/results.json``,
            ``feedback.md``, ``grades.csv``; judge logs in ``_instructor/``.
        jobs: Judge processes run in parallel.
        progress: Called as ``progress(done, total, student)`` after each submission.

    Returns:
        The assignments and one :class:`StudentGrade` per submission.

    Raises:
        GraderError: For instructor errors (no submissions, bad configuration).
    """
    assignments = course.assignments(assignment_ids)
    entries = discover(submissions)
    if not entries:
        raise GraderError(f"no submissions found in {submissions} (expected folders, .zip or .ipynb files)")
    out.mkdir(parents=True, exist_ok=True)
    grades: list[StudentGrade] = []
    with tempfile.TemporaryDirectory(prefix="grader-") as tmp_name:
        tmp = Path(tmp_name)
        runtime = prepare_runtime(tmp / "runtime")
        results_dir = tmp / "results"
        results_dir.mkdir()
        all_jobs = intake(entries, assignments, tmp / "stage")
        size = chunk_size(len(all_jobs), jobs)
        chunks = [all_jobs[i : i + size] for i in range(0, len(all_jobs), size)]

        def run(k: int, chunk: list[Job]) -> tuple[list[Job], int]:
            manifest = Manifest(str(course.root), str(runtime), str(results_dir), [a.id for a in assignments], True, chunk,
                                hide=[str(course.root), str(submissions.resolve()), str(out.resolve()), str(tmp)])
            status = run_judge(manifest, tmp / f"manifest-{k}.json", out / "_instructor" / "logs" / f"judge-{k}.log")
            return chunk, status

        failed_judges: list[tuple[int, int]] = []
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            futures = [pool.submit(run, k, chunk) for k, chunk in enumerate(chunks)]
            for future in as_completed(futures):
                chunk, status = future.result()
                if status not in (0, 1):
                    failed_judges.append((futures.index(future), status))
                for job in chunk:
                    records = collect(job, results_dir, assignments, status)
                    grades.append(record_grade(out, assignments, job.id, records))
                    if progress is not None:
                        progress(len(grades), len(all_jobs), job.id)
    write_csv(out / "grades.csv", assignments, grades)
    if failed_judges:
        k, status = failed_judges[0]
        log = out / "_instructor" / "logs" / f"judge-{k}.log"
        tail = "\n".join(log.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-5:])
        raise GraderError(f"{len(failed_judges)} judge process(es) failed (status {status}); see {log}:\n{tail}")
    return assignments, grades
