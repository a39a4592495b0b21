"""Grading a batch: intake, staging, parallel judge processes, resumable outputs.

:func:`grade` reads every submission (never executing it), skips those whose
results are already complete for the same content (unless ``force``), stages
the files each assignment names into a working folder inside the output
folder, splits the class into chunks and runs one judge process per chunk
(``-j`` at a time). Each judge writes a submission's ``results.json`` and
``feedback.md`` atomically as soon as that submission is graded, so an
interrupted run (Ctrl-C, ``kill -9``) loses at most the submissions being
graded at that moment, and running again finishes the class. Judges and
sandboxes die with the grader. A submission that cannot be read or staged
still gets its tests (all failed, with the reason), so the batch always
completes; ``grades.csv`` is rebuilt from the results files at the end.
"""

from __future__ import annotations

import hashlib
import math
import os
import shutil
import subprocess
import sys
import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .config import Assignment, Course
from .errors import GraderError, SubmissionError
from .gradebook import StudentGrade, write_csv
from .item_analysis import Item, analyse
from .item_analysis import write_csv as write_items
from .manifest import Job, Manifest, Part
from .results import grader_data, read_results, score_of, write_submission
from .submission import Submission, discover, read_submission, resolve, stage, student_id
from .worker_process import prepare_runtime

Progress = Callable[[int, int, str], None]
PROGRESS_POLL_SECONDS = 0.5
"""How often the batch looks for newly written results, to report progress."""
MAX_CHUNK = 25
"""Most submissions one judge process grades (its pytest session and reports stay small)."""


@dataclass
class GradeRun:
    """What :func:`grade` did.

    Attributes:
        assignments: The assignments graded, in order.
        grades: One grade per submission (graded now or before).
        graded: Student ids graded in this run.
        skipped: Student ids whose complete results were kept from an earlier run.
        isolation: Sandbox layer name to the set of statuses reported by the workers.
        items: Per-test statistics over the class, worst first.
    """

    assignments: list[Assignment]
    grades: list[StudentGrade] = field(default_factory=list)
    graded: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    isolation: dict[str, set[str]] = field(default_factory=dict)
    items: list[Item] = field(default_factory=list)


def chunked(todo: list[Job], jobs: int) -> list[list[Job]]:
    """Split the work into judge processes, largest chunks first (guided self-scheduling).

    Each chunk takes the remaining submissions divided by ``2 * jobs``, at
    most 25 (a judge's pytest session stays small) and at least 2 (a judge
    costs about a second to start). Early chunks amortise that start; the
    small chunks at the end keep every core busy until the class is done,
    where equal chunks left one core idle while the other finished a chunk
    holding a slow submission. With one job, every chunk is the largest.
    (Polychronopoulos and Kuck, "Guided
    self-scheduling", IEEE Trans. Computers, 1987.)

    Args:
        todo: The submissions to grade, in order.
        jobs: Judge processes run in parallel.

    Returns:
        Consecutive slices of ``todo`` covering it exactly, non-increasing in size.
    """
    chunks: list[list[Job]] = []
    start = 0
    while start < len(todo):
        remaining = len(todo) - start
        size = MAX_CHUNK if jobs <= 1 else min(MAX_CHUNK, max(2, math.ceil(remaining / (2 * jobs))))
        chunks.append(todo[start : start + size])
        start += size
    return chunks


def fingerprint(sub: Submission) -> str:
    """SHA-256 over what was read from a submission (paths, contents, read error)."""
    digest = hashlib.sha256(sub.error.encode())
    for path in sorted(sub.files):
        digest.update(b"\0" + path.encode() + b"\0" + hashlib.sha256(sub.files[path]).digest())
    return digest.hexdigest()


def is_complete(out: Path, assignments: list[Assignment], student: str, print_: str) -> bool:
    """Whether every assignment has a results.json for this very content."""
    for a in assignments:
        doc = read_results(out, a, student)
        if doc is None or grader_data(doc).get("fingerprint") != print_:
            return False
    return True


def written_since(out: Path, assignments: list[Assignment], student: str, since: float) -> bool:
    """Whether every assignment's results.json of ``student`` was written at or after ``since`` (epoch seconds)."""
    for a in assignments:
        try:
            if (out / a.id / student / "results.json").stat().st_mtime < since:
                return False
        except OSError:
            return False
    return True


def intake(sub: Submission, index: int, assignments: list[Assignment], stage_root: Path, print_: str) -> Job:
    """Stage one read submission for every assignment."""
    job = Job(sub.id, index, fingerprint=print_)
    for a in assignments:
        base = stage_root / f"{index:06d}" / a.id
        try:
            stage(resolve(sub, a.files), base / "code")
            job.parts[a.id] = Part(str(base / "code"), str(base / "scratch"), notes=sub.notes[:20])
        except SubmissionError as exc:
            job.parts[a.id] = Part(error=str(exc), notes=sub.notes[:20])
    return job


def run_judge(manifest: Manifest, path: Path, log: Path) -> int:
    """Run one judge process on ``manifest`` (saved at ``path``); its output goes to ``log``."""
    manifest.dump(path)
    log.parent.mkdir(parents=True, exist_ok=True)
    env = dict(
        os.environ,
        PYTHONDONTWRITEBYTECODE="1",
        HYPOTHESIS_STORAGE_DIRECTORY=str(path.parent / "hypothesis"),
        GRADER_PARENT_PID=str(os.getpid()),
    )
    with open(log, "wb") as out:
        return subprocess.run(
            [sys.executable, "-m", "grader.judge", str(path)],
            stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env, check=False,
        ).returncode


def grade_from_results(out: Path, assignments: list[Assignment], student: str) -> StudentGrade:
    """A student's grade read back from their results files, each distinct problem noted once."""
    grade_ = StudentGrade(student)
    where: dict[str, list[str]] = {}
    for a in assignments:
        doc = read_results(out, a, student) or {"tests": []}
        grade_.scores[a.id] = score_of(doc)
        for problem in grader_data(doc).get("problems", []):
            where.setdefault(str(problem), []).append(a.id)
    grade_.notes = [f"{', '.join(ids)}: {problem}" for problem, ids in where.items()]
    return grade_


def clean_stale_work(instructor: Path) -> None:
    """Remove working folders left by grader runs that no longer exist (e.g. after kill -9)."""
    for work in instructor.glob("work-*"):
        pid = work.name.removeprefix("work-")
        if pid.isdigit() and not Path(f"/proc/{int(pid)}").exists():
            shutil.rmtree(work, ignore_errors=True)


def grade(
    course: Course,
    submissions: Path,
    assignment_ids: list[str] | None,
    out: Path,
    jobs: int,
    progress: Progress | None = None,
    force: bool = False,
    shard: tuple[int, int] | None = None,
) -> GradeRun:
    """Grade every submission in ``submissions`` on the chosen assignments.

    Args:
        course: The course (assignments, reference).
        submissions: Folder of submission entries (see :mod:`grader.submission`).
        assignment_ids: Assignments to grade; None for all.
        out: Output folder: ``<assignment>/<student>/results.json``,
            ``feedback.md``, ``grades.csv``; logs and working files in ``_instructor/``.
        jobs: Judge processes run in parallel.
        progress: Called as ``progress(done, total, student)`` after each submission.
        force: Re-grade submissions that already have complete results.
        shard: ``(K, N)``: grade only the students of shard K of N (see :mod:`grader.shard`).

    Returns:
        A :class:`GradeRun`.

    Raises:
        GraderError: For instructor errors (no submissions, bad configuration,
            a judge that failed).
    """
    out, submissions = out.resolve(), submissions.resolve()  # workers run elsewhere: no relative paths
    assignments = course.assignments(assignment_ids)
    entries = discover(submissions)
    if not entries:
        raise GraderError(f"no submissions found in {submissions} (expected folders, .zip or .ipynb files)")
    if shard is not None:
        from .shard import shard_of

        entries = [e for e in entries if shard_of(student_id(e), shard[1]) == shard[0]]
    instructor = out / "_instructor"
    instructor.mkdir(parents=True, exist_ok=True)
    clean_stale_work(instructor)
    run = GradeRun(assignments)
    # Fixed-width names: the sandbox's paths have the same lengths on every run, and with them its heap
    # and the addresses student objects get (a set of Values iterates by address).
    work = instructor / f"work-{os.getpid():07d}"
    shutil.rmtree(work, ignore_errors=True)
    failed_judges: list[tuple[int, int]] = []
    try:
        runtime = prepare_runtime(work / "runtime")
        results_dir = work / "results"
        results_dir.mkdir(parents=True)
        todo: list[Job] = []
        for index, entry in enumerate(entries):
            sub = read_submission(entry)
            print_ = fingerprint(sub)
            if not force and is_complete(out, assignments, sub.id, print_):
                run.skipped.append(sub.id)
                continue
            todo.append(intake(sub, index, assignments, work / "stage", print_))
        chunks = chunked(todo, jobs)
        hide = [str(course.root), str(submissions.resolve()), str(out.resolve())]

        def judge(k: int, chunk: list[Job]) -> tuple[int, list[Job], int]:
            manifest = Manifest(str(course.root), str(runtime), str(results_dir), [a.id for a in assignments], True,
                                chunk, hide=hide, out=str(out))
            return k, chunk, run_judge(manifest, work / f"manifest-{k}.json", instructor / "logs" / f"judge-{k}.log")

        reported: set[str] = set()

        def report(job: Job) -> None:
            if job.id not in reported:
                reported.add(job.id)
                run.graded.append(job.id)
                if progress is not None:
                    progress(len(reported), len(todo), job.id)

        started = time.time()
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            pending = {pool.submit(judge, k, chunk) for k, chunk in enumerate(chunks)}
            while pending:
                finished, pending = wait(pending, timeout=PROGRESS_POLL_SECONDS, return_when=FIRST_COMPLETED)
                for job in todo:  # judges write results as they go: report each as soon as it is there
                    if job.id not in reported and written_since(out, assignments, job.id, started):
                        report(job)
                for future in finished:
                    k, chunk, status = future.result()
                    if status not in (0, 1):
                        failed_judges.append((k, status))
                    for job in chunk:
                        if not is_complete(out, assignments, job.id, job.fingerprint):
                            reason = f"internal grader error: the judge process ended with status {status} first"
                            for a in assignments:
                                record = {"tests": [], "error": job.parts[a.id].error or reason}
                                write_submission(out, a, job.id, record, job.fingerprint)
                        report(job)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for entry in entries:
        run.grades.append(grade_from_results(out, assignments, student_id(entry)))
        for a in assignments:
            doc = read_results(out, a, run.grades[-1].student) or {}
            for layer, status_ in (grader_data(doc).get("isolation") or {}).items():
                run.isolation.setdefault(layer, set()).add(str(status_).split(" (")[0])
    write_csv(out / "grades.csv", assignments, run.grades)
    run.items = analyse(out, assignments, [g.student for g in run.grades])
    write_items(out / "item_analysis.csv", run.items)
    if failed_judges:
        k, status = failed_judges[0]
        log = instructor / "logs" / f"judge-{k}.log"
        tail = "\n".join(log.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-5:])
        raise GraderError(f"{len(failed_judges)} judge process(es) failed (status {status}); see {log}:\n{tail}")
    return run
