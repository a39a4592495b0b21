"""Grading a batch: intake, staging, parallel judge processes, resumable outputs.

:func:`grade` reads every submission (never executing it), skips those whose
results are already complete for the same content (unless ``force``), stages
the files each assignment names into a working folder inside the output
folder, and keeps ``-j`` judge processes running while work is left: each
judge claims work units, one assignment of one submission at a time, from a
shared queue (:mod:`grader.judge.claims`), at most 25 per assignment, so a submission that
hangs holds up only one judge per assignment while the others take its other
assignments and the rest of the class. Each judge writes an assignment's ``results.json`` and
``feedback.md`` atomically as soon as that assignment is graded, so an
interrupted run (Ctrl-C, ``kill -9``) loses at most the submissions being
graded at that moment, and running again finishes the class. Judges and
sandboxes die with the grader. A submission that cannot be read or staged
still gets its tests (all failed, with the reason), so the batch always
completes; ``grades.csv`` is rebuilt from the results files at the end.
"""

from __future__ import annotations

import itertools
import math
import os
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path

from grader.course.config import Assignment
from grader.course.course import Course
from grader.course.due_dates import DueDate
from grader.course.roster import Identities, identify
from grader.errors import GraderError
from grader.files import remove_tree
from grader.grading.copied_times import CopiedTimes, withhold_copied_times
from grader.grading.due_work import DueWork, read_due_work
from grader.grading.freshness import course_fingerprints
from grader.grading.identity import numbers_salt, rename_results
from grader.grading.judge_failure import judges_failed
from grader.grading.shard import shard_of
from grader.grading.staging import intake, stale_assignments
from grader.grading.term_inputs import TermInputs
from grader.intake.submission import discover, student_id
from grader.judge.backends import choose as choose_backend
from grader.judge.claims import ClaimQueue
from grader.judge.linux_handle import prepare_runtime
from grader.judge.manifest import Job, Manifest
from grader.outputs.class_outputs import ClassOutputs, folder_class, write_class_outputs
from grader.outputs.gradebook import StudentGrade
from grader.outputs.records import empty_record
from grader.outputs.store import ResultStore
from grader.questions.points import check_points
from grader.similarity.graded_class import record_class

Progress = Callable[[int, int, str], None]
PROGRESS_POLL_SECONDS = 0.5
"""How often the batch looks for newly written results, to report progress."""
MAX_SLOTS = 50
"""Most work units of each assignment (one assignment of one submission) one judge process grades before the next
judge takes over: its pytest session holds this many copies of each test. 50 against 25 graded a class of 100 in
10% less time (``bench/run.py --course --size 100 --slots 50``, 2 cores, 2 runs each); more per judge was not
measured apart from other changes on a quiet machine (a judge's pytest session and its garbage grow with it)."""


def slots_for(todo: list[Job], jobs: int) -> int:
    """Work units of each assignment one judge takes: the most any assignment has, shared by the ``jobs`` judges
    that run at once, at most :data:`MAX_SLOTS`.

    A judge pays its start-up and the reference's answers once (about 1.3 s of a core), so fewer, longer judges
    cost less (a class of 100 on all seven assignments at ``-j 2``: 115 s with 50 slots instead of 127 s with 25,
    ``bench/run.py --course --slots``). Slots claim their unit when their
    first test starts, so a judge that is held up takes no more than it grades, and the others take the rest.
    """
    most = max(Counter(aid for job in todo for aid in job.parts).values(), default=1)
    return max(1, min(MAX_SLOTS, math.ceil(most / max(1, jobs))))


@dataclass
class GradeRun:
    """What :func:`grade` did.

    Attributes:
        assignments: The assignments graded, in order.
        graded: Student ids graded in this run.
        skipped: Student ids whose complete results were kept from an earlier run.
        course_changed: Assignment id to (what of the course changed since its kept results, how many
            submissions were graded again on it because of that).
        store: The output folder's results, as the run left them (each results.json parsed once).
        book: The assignments of the folder's gradebook: this run's and every other assignment of the course
            graded into the folder before (:func:`grader.outputs.class_outputs.folder_class`), in course order.
        copied: The submissions whose late work was graded without its due date (:mod:`grader.grading.copied_times`).
        outputs: The class's outputs, made from the store once the judges are done: each submission's grade
            (``grades.csv``), the per-test statistics (``item_analysis.csv``), the isolation the workers reported,
            and the JUnit gradebook if asked for.
        roster: What the roster made of the submissions' names and of the results kept under old names, one line
            each for the terminal (:func:`grader.course.roster.identify`,
            :func:`grader.grading.identity.rename_results`).
    """

    assignments: list[Assignment]
    graded: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    course_changed: dict[str, tuple[str, int]] = field(default_factory=dict)
    store: ResultStore | None = None
    outputs: ClassOutputs | None = None
    book: list[Assignment] = field(default_factory=list)
    copied: CopiedTimes = field(default_factory=CopiedTimes)
    roster: list[str] = field(default_factory=list)

    @property
    def grades(self) -> list[StudentGrade]:
        """One grade per submission (graded now or before); none before the outputs are made."""
        return self.outputs.grades if self.outputs is not None else []

    @property
    def withheld(self) -> list[tuple[str, str, str]]:
        """(student, assignment id, reason) of every score withheld because the grader failed."""
        return [(g.student, a, reason) for g in self.grades for a, reason in g.withheld.items()]


def run_judge(manifest: Manifest, path: Path, log: Path) -> int:
    """Run one judge process on ``manifest`` (saved at ``path``); its output goes to ``log``."""
    manifest.dump(path)
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "wb") as out:
        return subprocess.run(
            [sys.executable, "-m", "grader.judge", str(path)],
            stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=judge_environment(path), check=False,
        ).returncode


def judge_environment(manifest_path: Path, **extra: str) -> dict[str, str]:
    """A judge process's environment: this one's, no bytecode written, hypothesis's examples next to the manifest,
    this process as the parent it dies with, no plugin loaded because it is installed, and ``extra``.

    Whatever else is installed beside the grader (Colab's ``anyio`` and ``typeguard`` pytest plugins,
    ``pytest-randomly``, trio's hypothesis hook) stays out of the judge's session: pytest loads only the plugins
    :func:`grader.judge.__main__.pytest_args` names (``PYTEST_DISABLE_PLUGIN_AUTOLOAD``, pytest's documented
    switch), and hypothesis runs no ``hypothesis`` entry point (``HYPOTHESIS_NO_PLUGINS``). It also saves each judge
    about 0.1 s of start-up."""
    return dict(os.environ, PYTHONDONTWRITEBYTECODE="1",
                HYPOTHESIS_STORAGE_DIRECTORY=str(manifest_path.parent / "hypothesis"),
                PYTEST_DISABLE_PLUGIN_AUTOLOAD="1", HYPOTHESIS_NO_PLUGINS="1",
                GRADER_PARENT_PID=str(os.getpid()), **extra)


def clean_stale_work(instructor: Path) -> None:
    """Remove working folders left by grader runs that no longer exist (e.g. after kill -9)."""
    import psutil

    for work in instructor.glob("work-*"):
        pid = work.name.removeprefix("work-")
        if pid.isdigit() and not psutil.pid_exists(int(pid)):
            remove_tree(work)


@dataclass
class Plan:
    """What a class run grades: the submissions read and staged, and where the run works.

    Attributes:
        assignments: The assignments, in order.
        entries: Every submission entry of the class (or of the shard).
        todo: The submissions to grade now, staged.
        skipped: Student ids whose complete results for the same content are kept.
        course_changed: Assignment id to (the parts of the course that changed since its kept results, how many
            submissions are graded again on it for that reason).
        work: The run's working folder (removed at the end), inside ``instructor``.
        instructor: ``OUT/_instructor``: logs and working folders.
        base: The manifest every judge of the run starts from (its name and file differ).
        copied: The submissions whose late work is graded without its due date, their file times being a copy's
            (:mod:`grader.grading.copied_times`).
    """

    assignments: list[Assignment]
    entries: list[Path]
    todo: list[Job]
    skipped: list[str]
    work: Path
    instructor: Path
    base: Manifest
    course_changed: dict[str, tuple[str, int]] = field(default_factory=dict)
    copied: CopiedTimes = field(default_factory=CopiedTimes)


def plan(course: Course, submissions: Path, assignments: list[Assignment], store: ResultStore, force: bool,
         shard: tuple[int, int] | None, sandbox: str, term: TermInputs | None = None) -> Plan:
    """Read every submission (never running it), keep the results that still stand, stage the rest into a working
    folder: a submission is graded again on the assignments whose result is missing, withheld, or made from other
    content (the submission's, or the course's: :mod:`grader.grading.freshness`). The entries are ``term``'s (those
    its inputs were checked against) when it has them, else the folder's.

    Raises:
        GraderError: If there is no submission.
    """
    entries = list(term.entries) if term is not None and term.entries else discover(submissions)
    if not entries:
        raise GraderError(f"no submissions found in {submissions} (expected folders, .zip or .ipynb files)")
    roster = term.roster if term is not None else ()
    known, _ = identify([student_id(e) for e in entries], roster)
    identities = Identities(roster) if roster else None
    concept = {a.id for a in assignments if a.is_concept_check}
    if shard is not None:  # by the student, so that a student's submissions of every week are in one shard
        entries = [e for e in entries if shard_of(known[student_id(e)].student, shard[1]) == shard[0]]
    out = store.out
    instructor = out / "_instructor"
    instructor.mkdir(parents=True, exist_ok=True)
    clean_stale_work(instructor)
    # Fixed-width names: the sandbox's paths have the same lengths on every run, and with them its heap
    # and the addresses student objects get (a set of Values iterates by address).
    work = instructor / f"work-{os.getpid():07d}"
    remove_tree(work)
    todo: list[Job] = []
    skipped: list[str] = []
    prints = course_fingerprints(course, assignments)
    changed: dict[str, tuple[str, int]] = {}
    started = datetime.now(timezone.utc)
    try:
        runtime = prepare_runtime(work / "runtime", course.parts_dir, course.assignments_dir,
                                  [p for a in assignments for p in a.grader_parts])
        dues: dict[str, dict[str, DueDate | None]] = {}
        read: dict[str, dict[str, DueWork]] = {}
        for entry in entries:  # every submission read first: whether its time can be trusted depends on the class
            who = known[student_id(entry)]
            student = who.student
            dues[student] = term.dues(student, assignments) if term is not None else \
                dict.fromkeys(a.id for a in assignments)
            read[student] = read_due_work(entry, dues[student], term.zone if term is not None else None,
                                          term.pushes_of(who.name) if term is not None else None,
                                          {a.id: a.files[0] for a in assignments if a.is_concept_check})
        read, copied = withhold_copied_times(read, dues, started)
        for index, entry in enumerate(entries):
            who = known[student_id(entry)]
            student = who.student
            work_of = {aid: replace(w, salt=numbers_salt(who)) if aid in concept else w
                       for aid, w in read[student].items()}
            fingerprints = {aid: work_of[aid].fingerprint for aid in work_of}
            why = {a.id: "forced" for a in assignments} if force else stale_assignments(
                store, assignments, student, fingerprints, prints)
            if not why:
                skipped.append(student)
                continue
            for aid, reason in why.items():
                if reason not in ("new", "withheld", "submission", "forced"):
                    changed[aid] = (reason, changed.get(aid, ("", 0))[1] + 1)
            todo.append(intake(who, work_of, index, [a for a in assignments if a.id in why], work / "stage",
                               course.template_dir, identities))
    except BaseException:
        remove_tree(work)
        raise
    hide = [str(course.root), str(submissions), str(out)]
    needed = [a.id for a in assignments if any(a.id in job.parts for job in todo)]  # judges collect only these tests
    base = Manifest(str(course.root), str(runtime), needed, True, todo, hide=hide, out=str(out),
                    queue=str(work / "queue"), slots=MAX_SLOTS, sandbox=sandbox, fingerprints=prints)
    return Plan(assignments, entries, todo, skipped, work, instructor, base, changed, copied)


class JudgePool:
    """Keeps ``jobs`` judge processes running while work is left unclaimed, and reports each submission.

    Judges claim work units (one assignment of one submission) from a shared queue
    (:mod:`grader.judge.claims`) and write each one's results as soon as it is graded; a judge that ends
    without writing what it claimed leaves those assignments a record whose score is withheld
    (:meth:`give_up`), so the batch always completes. A submission is reported once all its assignments are.
    """

    def __init__(self, plan: Plan, store: ResultStore, progress: Progress | None) -> None:
        self.plan, self.store, self.progress = plan, store, progress
        self.queue = ClaimQueue(Path(plan.base.queue), plan.todo)
        self.names = itertools.count()
        self.lock = threading.Lock()
        self.ended: list[tuple[int, list[Job]]] = []  # (status, the work units it claimed) of each judge that ended
        self.stop = threading.Event()
        self.failed: list[tuple[int, int]] = []  # (judge number, status) of each judge that failed
        self.reported: dict[str, None] = {}  # student ids in the order they were reported
        self.started = time.time()
        self.slots = self.plan.base.slots  # the work units of each assignment a judge takes (set by run)

    def judges(self) -> None:
        """Start judges one after another while work units are left unclaimed (one thread of the pool)."""
        while not self.stop.is_set() and self.queue.unclaimed():
            k = next(self.names)
            name = f"judge-{k}"
            status = run_judge(replace(self.plan.base, claimant=name, slots=self.slots), self.plan.work / f"manifest-{k}.json",
                               self.plan.instructor / "logs" / f"{name}.log")
            claimed = self.queue.claimed_by(name)
            with self.lock:
                self.ended.append((status, claimed))
                # 1 is pytest's "some tests failed", which a judge that graded nothing cannot say: there, it is an
                # interpreter that died of an uncaught exception (the grader's own crash)
                if status not in (0, 1) or status == 1 and not claimed:
                    self.failed.append((k, status))
                    if not claimed:  # it failed before grading anything: another judge would too
                        self.stop.set()

    def report(self, job: Job) -> None:
        if job.id not in self.reported:
            self.reported[job.id] = None
            if self.progress is not None:
                self.progress(len(self.reported), len(self.plan.todo), job.id)

    def give_up(self, unit: Job, reason: str) -> None:
        """Write a withheld record for a work unit its judge ended without grading (unless it was written)."""
        if not self.store.written_since(unit.parts, unit.id, self.started):
            for a in self.plan.assignments:
                if a.id in unit.parts:
                    error = unit.parts[a.id].error
                    record = empty_record(error=error) if error else empty_record(grader_error=reason)
                    self.store.write(a, unit.id, record, unit.stamp(a.id, self.plan.base.fingerprints[a.id]))

    def report_written(self) -> None:
        """Report every submission all of whose assignments have been written in this run."""
        for job in self.plan.todo:
            if job.id not in self.reported and self.store.written_since(job.parts, job.id, self.started):
                self.report(job)

    def run(self, jobs: int) -> None:
        """Grade every submission of the plan with up to ``jobs`` judges at a time."""
        self.slots = slots_for(self.plan.todo, jobs)
        parallel = max(1, min(jobs, len(self.plan.todo)))
        with ThreadPoolExecutor(max_workers=parallel) as pool:
            pending = {pool.submit(self.judges) for _ in range(parallel)}
            while pending:
                _, pending = wait(pending, timeout=PROGRESS_POLL_SECONDS, return_when=FIRST_COMPLETED)
                self.report_written()  # judges write results as they go: report each as soon as it is there
                with self.lock:
                    done, self.ended[:] = list(self.ended), []
                for status, claimed in done:
                    for unit in claimed:
                        self.give_up(unit, f"the judge process ended with status {status} before grading it")
        for unit in self.queue.unclaimed():
            self.give_up(unit, "the judge processes failed before grading it")
        self.report_written()


def _in_course_order(course: Course, graded: list[Assignment], term: TermInputs | None) -> list[Assignment]:
    """Every assignment of ``course`` in course order (``term``'s when it has them), ``graded`` (this run's, as
    loaded) among them."""
    mine = {a.id: a for a in graded}
    return [mine.get(a.id, a) for a in (term.every if term is not None and term.every else course.assignments())]


def grade(
    course: Course,
    submissions: Path,
    assignment_ids: list[str] | None,
    out: Path,
    jobs: int,
    progress: Progress | None = None,
    force: bool = False,
    shard: tuple[int, int] | None = None,
    sandbox: str | None = None,
    term: TermInputs | None = None,
    junit: bool = False,
) -> GradeRun:
    """Grade every submission in ``submissions`` on the chosen assignments: plan, run the judges, collect.

    Args:
        course: The course (assignments, reference).
        submissions: Folder of submission entries (see :mod:`grader.intake.submission`).
        assignment_ids: Assignments to grade; None for all (``term``'s, when it has them).
        out: Output folder: ``<assignment>/<student>/results.json``,
            ``feedback.md``, ``grades.csv``; logs and working files in ``_instructor/``.
        jobs: Judge processes run in parallel.
        progress: Called as ``progress(done, total, student)`` after each submission.
        force: Re-grade submissions that already have complete results.
        shard: ``(K, N)``: grade only the students of shard K of N (see :mod:`grader.grading.shard`).
        sandbox: The sandbox backend, ``"linux"`` or ``"portable"``; None picks it (:func:`grader.judge.backends.choose`).
        term: The term's inputs, read and checked once (:func:`grader.grading.term_check.load_term_inputs`): the
            assignments graded, each student's due dates (the assignments' ``due``, ``--deadline``, extensions, the
            roster), the course's time zone, the push records and the class's entries: a git repository is graded,
            per assignment, at its latest ``submit/*`` tag (or commit) at or before the student's due date, and late
            work pays the policy (:mod:`grader.grading.due_work`). None applies no due date (``grader validate``,
            benchmarks): every entry is graded as it is.
        junit: Also write ``grades.junit.xml`` (for CI systems that read JUnit).

    Returns:
        A :class:`GradeRun`.

    Raises:
        ConfigError: If a concept check's questions do not add up to its points (before any judge runs).
        JudgesFailed: If a judge process failed (:mod:`grader.grading.judge_failure`).
        GraderError: For instructor errors (no submissions, bad configuration,
            a judge that failed).
    """
    out, submissions = out.resolve(), submissions.resolve()  # workers run elsewhere: no relative paths
    assignments = list(term.assignments) if term is not None and term.assignments else course.assignments(assignment_ids)
    check_points(assignments)  # a concept check's points: said as the configuration error it is, before any judge
    work: Path | None = None
    store = ResultStore(out)
    run = GradeRun(assignments, store=store)
    roster = term.roster if term is not None else ()
    run.roster = rename_results(store, roster)  # before any kept result is looked for: they are the student's
    try:
        the_plan = plan(course, submissions, assignments, store, force, shard, sandbox or choose_backend("auto").kind,
                        term)
        work = the_plan.work
        run.skipped = the_plan.skipped
        run.course_changed = the_plan.course_changed
        run.copied = the_plan.copied
        pool = JudgePool(the_plan, store, progress)
        pool.run(jobs)
        run.graded = list(pool.reported)
    finally:
        if work is not None:
            remove_tree(work)
    known, lines = identify([student_id(e) for e in the_plan.entries], roster)
    run.roster += lines
    book, students = folder_class(store, _in_course_order(course, assignments, term),
                                  list(dict.fromkeys(k.student for k in known.values())))
    run.book = book
    run.outputs = write_class_outputs(store, book, students, junit, term.adjustments if term is not None else None)
    if pool.failed:
        raise judges_failed(pool.failed, the_plan.instructor / "logs")
    record_class(out, submissions, term.override if term else None)  # for `grader similarity OUT`; not in any result or gradebook
    return run
