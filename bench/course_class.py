"""A class on every assignment of the course against its compute floor, measured in one run.

    python bench/run.py --course [--size 300] [--jobs 2] ...      # the same as:
    python bench/course_class.py [--size 300] [--jobs 2] [--hangs K] [--no-separate] [--no-combined] [-a ID]...
                                 [--copies 4] [--floor-repeats 3] [--slots N] [--json FILE]

The class (:func:`build`): ``--size`` students, each a whole ``micrograd/`` of
every assignment's files, in a fixed rotation: 12% untouched template copies
(3 in 25), one hang per 100 (the reference with one method looping forever:
``__truediv__``, ``__pow__`` or ``backward`` in turn), and of the rest one in
five correct (the reference, or a correct variant of ``reference/variants/``
over the reference's other files) and four in five a catalogued bug (the
reference with one bug of a ``bugs.yaml``, the assignments taken in turn): at
300, 36 templates, 3 hangs, 53 correct and 208 bugs (264 with code). A bug
student is correct on the six other assignments.

What it measures, in the same run:

* the compute floor per assignment (:func:`floor`): the reference solution's
  own work for that assignment's tests. A judge grading ``--copies`` copies of
  the reference records every call its tests make of the student's code (probe
  and arguments, as they cross to the sandbox); one copy's calls are replayed
  on the reference in a plain process (no sandbox, no pipe, no pytest; the
  network's probes on the grader's engine in-process, as the judge runs them
  on the reference), the least of ``--floor-repeats`` replays. Floor = that x
  class size / cores (``--cores``, default ``--jobs``). The same judge gives,
  per copy and assignment, the tests' durations, the calls' round trips, the
  judge answering the probes' questions, the worker starts, and the judge's
  start-up, reference answers and per-unit finish;
* the class graded on all seven assignments in one ``grader grade -j N`` (the
  instructor's command; ``--no-combined`` skips it): wall seconds, total /
  floor, and the judges' seconds inside and outside the tests;
* each assignment graded alone (``grader grade -a ID -j N``; ``--no-separate``
  skips it): wall seconds, total / floor, judges, inside and outside the tests;
* with ``--slots N``, the one run again with N work units of each assignment
  per judge and with the default (``grader.grading.batch.slots_for``: the
  largest assignment's units / jobs), twice each in turn: what the number of
  judge start-ups costs.

Every ``grader grade`` runs the grader's own command in a process that only
notes when each judge starts and ends. ``--size 12 --hangs 0 --no-separate``
runs in about a minute on 2 cores; the default (300, both) about 15 minutes.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.course.catalogue import Bug, load_bugs, write_mutant  # noqa: E402
from grader.course.course import Course  # noqa: E402

IGNORE = shutil.ignore_patterns("__pycache__", "*.ipynb")

HANGS = [
    Bug("hang_truediv", "value_ops", "Value.__truediv__", "loops forever", "micrograd/engine.py",
        "        return self * other**-1\n", "        while True:\n            pass\n", ()),
    Bug("hang_pow", "value_ops", "Value.__pow__", "loops forever", "micrograd/engine.py",
        '        if not isinstance(other, (int, float)):\n            raise TypeError("only int/float exponents are '
        'supported")\n', "        while True:\n            pass\n", ()),
    Bug("hang_backward", "backward", "Value.backward", "loops forever", "micrograd/engine.py",
        "    def backward(self) -> None:\n", "    def backward(self) -> None:\n        while True:\n            pass\n", ()),
]
"""Students whose code loops forever: the reference with one method that never returns."""


def is_template(i: int) -> bool:
    """Whether student ``i`` hands in the untouched template: 3 in 25 (12%), spread through the class."""
    return i % 25 in (2, 10, 18)


def build(dest: Path, size: int, hangs: int | None = None, seed: int = 7) -> dict[str, int]:
    """Write the class of ``size`` students into ``dest`` (see the module's docstring); return how many of each
    kind. ``hangs``: how many loop forever (default: one per 100 students, at least one)."""
    course = Course(ROOT)
    ref = course.reference_dir
    n_hangs = max(1, size // 100) if hangs is None else hangs
    variants = [None] + [v for v in sorted((ref / "variants").iterdir()) if (v / "micrograd").is_dir()]
    rng = random.Random(seed)
    per_assignment = []
    for a in course.code_assignments():
        bugs = load_bugs(a, ref)
        rng.shuffle(bugs)
        per_assignment.append(bugs)
    longest = max(len(bs) for bs in per_assignment)
    bugs_in_turn = [bs[k % len(bs)] for k in range(longest) for bs in per_assignment if bs]  # assignments in turn
    code_slots = [i for i in range(size) if not is_template(i)]
    hang_at = {code_slots[(k * len(code_slots)) // n_hangs + len(code_slots) // (2 * n_hangs)]
               for k in range(n_hangs)} if n_hangs and code_slots else set()
    counts: dict[str, int] = defaultdict(int)
    n_code = n_correct = n_bug = 0
    for i in range(size):
        if is_template(i):
            kind = "template"
            shutil.copytree(course.template_dir / "micrograd", dest / f"s{i:04d}_{kind}" / "micrograd", ignore=IGNORE)
        elif i in hang_at:
            kind = "hang"
            write_mutant(HANGS[counts[kind] % len(HANGS)], ref, dest / f"s{i:04d}_{kind}")
        elif n_code % 5 == 0:
            kind = "correct"
            variant = variants[n_correct % len(variants)]
            target = dest / f"s{i:04d}_{kind}"
            shutil.copytree(ref / "micrograd", target / "micrograd", ignore=IGNORE)
            if variant is not None:
                shutil.copytree(variant, target, ignore=IGNORE, dirs_exist_ok=True)
            n_correct += 1
        else:
            kind = "bug"
            bug = bugs_in_turn[n_bug % len(bugs_in_turn)]
            write_mutant(bug, ref, dest / f"s{i:04d}_{kind}_{bug.assignment}_{bug.id}")
            n_bug += 1
        if kind in ("correct", "bug"):
            n_code += 1
        counts[kind] += 1
    return dict(counts)


# --- the judge that records the calls of the student's code --------------------------------------------------


def record_judge(manifest: str, log: str) -> int:
    """Run a judge on ``manifest`` that writes to ``log`` (JSON) what it spent its time on: every call its tests
    make of the student's code (student, assignment, probe, the arguments as they cross to the sandbox, the round
    trip's seconds, of which answering the probe's questions), every worker start and every finish (workers
    killed, results written), the reference's answers, and when the judge started, first called a student's code
    and ended. Run as ``course_class.py --record-judge MANIFEST LOG`` in place of ``python -m grader.judge
    MANIFEST``; the wrappers cost microseconds per call."""
    from grader.judge import __main__ as judge_main
    from grader.judge import worker_handle
    from grader.judge.state import GradingState
    from grader.judge.submission_run import SubmissionRun

    t0 = time.perf_counter()
    events: dict[str, Any] = {"calls": [], "workers": [], "finish": [], "reference": [0, 0.0], "first_call": None}
    answering = [0.0]

    def timed(cls: Any, name: str, note: Any) -> None:
        original = getattr(cls, name)

        def wrapper(self: Any, *args: Any, **kw: Any) -> Any:
            started = time.perf_counter()
            try:
                return original(self, *args, **kw)
            finally:
                note(self, args, time.perf_counter() - started)

        setattr(cls, name, wrapper)

    def on_call(run: SubmissionRun, args: tuple[Any, ...], seconds: float) -> None:
        aid, probe, values, test = args[:4]
        first = run.job.id == events.setdefault("recorded", run.job.id)  # the arguments of one student suffice
        events["calls"].append({"student": run.job.id, "assignment": aid, "probe": probe, "test": test,
                                "args": json.loads(json.dumps(values)) if first else None,
                                "seconds": seconds, "answering": answering[0]})
        answering[0] = 0.0

    def on_answer(_judged: Any, _args: tuple[Any, ...], seconds: float) -> None:
        answering[0] += seconds

    def on_worker(run: SubmissionRun, args: tuple[Any, ...], seconds: float) -> None:
        events["workers"].append({"student": run.job.id, "assignment": args[0].assignment.id, "seconds": seconds})

    def on_finish(run: SubmissionRun, _args: tuple[Any, ...], seconds: float) -> None:
        events["finish"].append({"student": run.job.id, "assignments": sorted(run.parts), "seconds": seconds})

    def on_reference(_state: GradingState, _args: tuple[Any, ...], seconds: float) -> None:
        events["reference"][0] += 1
        events["reference"][1] += seconds

    original_call = SubmissionRun.call

    def call(self: SubmissionRun, *args: Any, **kw: Any) -> Any:
        if events["first_call"] is None:
            events["first_call"] = time.perf_counter() - t0
        return original_call(self, *args, **kw)

    SubmissionRun.call = call  # type: ignore[method-assign]
    timed(SubmissionRun, "call", on_call)
    timed(SubmissionRun, "_worker", on_worker)
    timed(SubmissionRun, "finish", on_finish)
    timed(worker_handle, "reply", on_answer)  # the judge's reply to a probe's question (a function: its first argument)
    timed(GradingState, "_answer", on_reference)
    try:
        return judge_main.main([manifest])
    finally:
        events["end"] = time.perf_counter() - t0
        Path(log).write_text(json.dumps(events), encoding="utf-8")


def record_reference(course: Course, work: Path, copies: int) -> dict[str, Any]:
    """Grade ``copies`` copies of the reference on every assignment with one recording judge (:func:`record_judge`);
    return what it recorded, with ``"tests"``: per assignment, each copy's sum of test durations.

    Raises:
        SystemExit: If a copy does not get full marks (the recording would not be of a correct grading).
    """
    from grader.grading import batch
    from grader.outputs.store import ResultStore

    log = work / "judge.json"

    def recording(manifest: Any, path: Path, judge_log: Path) -> int:
        manifest.dump(path)
        judge_log.parent.mkdir(parents=True, exist_ok=True)
        with open(judge_log, "wb") as out:
            return subprocess.run([sys.executable, __file__, "--record-judge", str(path), str(log)], stdout=out,
                                  stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, check=False,
                                  env=batch.judge_environment(path)).returncode

    for i in range(copies):
        shutil.copytree(course.reference_dir / "micrograd", work / "class" / f"ref{i:02d}" / "micrograd",
                        ignore=IGNORE)
    saved, batch.run_judge = batch.run_judge, recording
    try:
        batch.grade(course, work / "class", None, work / "out", 1, force=True)
    finally:
        batch.run_judge = saved
    store = ResultStore(work / "out")
    events = json.loads(log.read_text(encoding="utf-8"))
    events["tests"] = defaultdict(list)
    for a in course.code_assignments():
        for i in range(copies):
            result = store.get(a.id, f"ref{i:02d}")
            if result is None or result.score < result.max_score:
                raise SystemExit(f"the reference did not get full marks on {a.id} while it was recorded")
            events["tests"][a.id].append(sum(float(t.get("extra_data", {}).get("duration", 0.0))
                                             for t in result.document.get("tests", [])))
    return events


def replay(calls: list[dict[str, Any]], repeats: int) -> dict[str, float]:
    """Seconds per assignment for the reference, in this process, to answer ``calls`` (the least of ``repeats``
    runs): each probe on the reference solution as the sandbox would run it on a student's, the questions it asks
    answered by a fresh judge side in-process (:func:`grader.judge.reference.run_probe`, without completing the
    request again: the recorded arguments are complete)."""
    from grader.judge.reference import in_process, judged_for, load_reference
    from grader.judge.state import use_course_parts
    from grader.sandbox.probekit import Context, answering
    from grader.sandbox.probes import PROBES

    course = Course(ROOT)
    use_course_parts(course, course.code_assignments(), required=True)
    mg = load_reference(course.reference_dir, course.package)
    best: dict[str, float] = {}
    for _ in range(repeats):
        took: dict[str, float] = defaultdict(float)
        for c in calls:
            args = c["args"]
            if args is None:  # another student's: the same calls
                continue
            started = time.perf_counter()
            judged = judged_for(c["probe"], args)
            try:  # a call the tests expect to raise (a wrong exponent's TypeError) is replayed too
                with answering(in_process(judged) if judged is not None else None):
                    json.dumps(PROBES[c["probe"]](mg, Context(), *(judged.public(args) if judged else args)))
            except Exception:  # noqa: BLE001, S110 - the worker reports it; its cost is the call's
                pass
            took[c["assignment"]] += time.perf_counter() - started
        for aid, seconds in took.items():
            best[aid] = min(best.get(aid, seconds), seconds)
    return best


def floor(work: Path, repeats: int = 3, copies: int = 4) -> dict[str, Any]:
    """The reference's own seconds per assignment for one student (``own``: its calls replayed in-process, the
    least of ``repeats``), and what one judge grading ``copies`` copies of the reference spent per assignment and
    student (the first copy left out: it pays the reference's answers): ``tests`` (the tests' durations),
    ``trips`` (the calls of the student's code, worker starts left out), ``answering`` (the judge answering the
    probes' questions, within the trips), ``workers`` (worker starts), ``calls`` (how many calls); and the judge's
    ``startup`` (until its first call of a student's code), ``reference`` (the reference's answers),
    ``finish`` (per unit), ``lifetime``."""
    course = Course(ROOT)
    events = record_reference(course, work, copies)
    (work / "calls.json").write_text(json.dumps([c for c in events["calls"] if c["args"] is not None]),
                                     encoding="utf-8")
    out = subprocess.run([sys.executable, __file__, "--replay", str(work / "calls.json"), str(repeats)],
                         capture_output=True, text=True, check=True)
    later = {f"ref{i:02d}" for i in range(1, copies)}
    n = max(len(later), 1)
    per: dict[str, dict[str, float]] = {k: defaultdict(float) for k in ("trips", "answering", "workers", "calls")}
    for c in events["calls"]:
        if c["student"] in later:
            per["trips"][c["assignment"]] += c["seconds"] / n
            per["answering"][c["assignment"]] += c["answering"] / n
            per["calls"][c["assignment"]] += 1 / n
    for w in events["workers"]:
        if w["student"] in later:
            per["workers"][w["assignment"]] += w["seconds"] / n
            per["trips"][w["assignment"]] -= w["seconds"] / n
    finishes = [f["seconds"] for f in events["finish"] if f["student"] in later]
    return {"own": json.loads(out.stdout), **{k: dict(v) for k, v in per.items()},
            "tests": {a: sum(v[1:]) / n for a, v in events["tests"].items()},
            "startup": events["first_call"], "reference": events["reference"][1],
            "finish": sum(finishes) / max(len(finishes), 1), "lifetime": events["end"], "copies": copies}


# --- grading ---------------------------------------------------------------------------------------------------


def timed_grade(timing: str, argv: list[str]) -> int:
    """``grader ARGV`` in this process, each judge process's start and end (seconds since this process started)
    written to ``timing`` as JSON with the whole run's: ``{"judges": [[start, end]...], "wall": s}``. Run as
    ``course_class.py --timed-grade TIMING ARGV...``: the grader's own command, with a stopwatch on its judges."""
    from grader import cli
    from grader.grading import batch

    t0 = time.monotonic()
    spans: list[list[float]] = []
    run_judge = batch.run_judge
    if os.environ.get("BENCH_MAX_SLOTS"):  # an experiment: more (or fewer) work units per judge
        forced = int(os.environ["BENCH_MAX_SLOTS"])
        batch.slots_for = lambda todo, jobs: forced

    def timed(*args: Any) -> int:
        started = time.monotonic() - t0
        try:
            return run_judge(*args)
        finally:
            spans.append([started, time.monotonic() - t0])

    batch.run_judge = timed
    stamps: dict[str, float] = {}

    def stamped(owner: Any, name: str) -> None:  # when each phase after the judges ends
        original = getattr(owner, name)

        def wrapper(*args: Any, **kw: Any) -> Any:
            started = time.monotonic() - t0
            try:
                return original(*args, **kw)
            finally:
                stamps[name] = time.monotonic() - t0
                stamps[name + ":start"] = started

        setattr(owner, name, wrapper)

    stamped(batch.JudgePool, "run")
    stamped(batch, "remove_tree")
    stamped(batch, "write_class_outputs")
    try:
        return cli.main(argv)
    finally:
        stamps["main"] = time.monotonic() - t0
        Path(timing).write_text(json.dumps({"judges": spans, "wall": stamps["main"], "stamps": stamps}),
                                encoding="utf-8")


def grade(subs: Path, out: Path, jobs: int, assignments: list[str] | None = None, slots: int | None = None
          ) -> dict[str, Any]:
    """``grader grade`` on ``subs`` (``--force``; all assignments unless ``assignments``; ``slots``: work units of
    each assignment per judge, instead of ``grader.grading.batch.slots_for``): ``wall`` seconds (of the whole
    process), the judges' ``spans``, and per assignment the sum of its ``tests``' durations."""
    only = [arg for a in assignments or [] for arg in ("-a", a)]
    timing = out.with_name(out.name + "-timing.json")
    started = time.monotonic()
    done = subprocess.run([sys.executable, __file__, "--timed-grade", str(timing), "--course", str(ROOT), "grade",
                           str(subs), "-o", str(out), "-j", str(jobs), "--force", *only],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False,
                          env=dict(os.environ, BENCH_MAX_SLOTS=str(slots or "")))
    wall = time.monotonic() - started
    if done.returncode != 0:
        raise SystemExit(f"grader grade {subs} failed with status {done.returncode}:\n{done.stderr[-2000:]}")
    timed = json.loads(timing.read_text(encoding="utf-8"))
    return {"wall": wall, "spans": timed["judges"], "stamps": timed.get("stamps", {}), "tests": test_seconds(out)}


def kind_of(student: str, assignment: str) -> str:
    """What a student of :func:`build` is on one assignment: ``correct`` (a correct student, or a bug student whose
    bug is in another assignment), ``bug``, ``template`` or ``hang``."""
    kind = student.split("_")[1] if "_" in student else "other"
    if kind == "bug":
        return "bug" if student.split("_", 2)[2].startswith(assignment + "_") else "correct"
    return kind


def test_seconds(out: Path) -> dict[str, float]:
    """Assignment id to the sum of its tests' durations over the class (judge time inside tests), and
    ``assignment/kind`` (:func:`kind_of`) to the same sum over the students of that kind, and ``#assignment/kind``
    to how many they are."""
    total: dict[str, float] = defaultdict(float)
    for path in out.glob("*/*/results.json"):
        aid, kind = path.parent.parent.name, kind_of(path.parent.name, path.parent.parent.name)
        took = sum(float(t.get("extra_data", {}).get("duration", 0.0))
                   for t in json.loads(path.read_text(encoding="utf-8")).get("tests", []))
        total[aid] += took
        total[f"{aid}/{kind}"] += took
        total[f"#{aid}/{kind}"] += 1
    return dict(total)


def measure(size: int, jobs: int, cores: int, hangs: int | None, separate: bool, combined: bool,
            ids: list[str] | None, repeats: int, copies: int = 4, slots: int | None = None) -> dict[str, Any]:
    """Build the class, grade it, compute the floor; return every figure."""
    course = Course(ROOT)
    ids = [a.id for a in course.code_assignments(ids)]
    figures: dict[str, Any] = {"size": size, "jobs": jobs, "cores": cores, "assignments": ids}
    with tempfile.TemporaryDirectory(prefix="bench-course-class-") as tmp_name:
        tmp = Path(tmp_name)
        figures["counts"] = build(tmp / "class", size, hangs)
        figures["floor"] = floor(tmp / "floor", repeats, copies)
        if combined:
            figures["combined"] = grade(tmp / "class", tmp / "out-all", jobs, ids if len(ids) < 7 else None)
            shutil.rmtree(tmp / "out-all")
        if slots:  # the experiment: the one run with other slots per judge, and with the default again, in turn
            figures["slots"] = {"other": slots, "runs": []}
            for _ in range(2):
                for k in (slots, None):
                    figures["slots"]["runs"].append([k or 0, grade(tmp / "class", tmp / "out-slots", jobs, None, k)])
                    shutil.rmtree(tmp / "out-slots")
        if separate:
            figures["separate"] = {}
            for aid in ids:
                figures["separate"][aid] = grade(tmp / "class", tmp / f"out-{aid}", jobs, [aid])
                shutil.rmtree(tmp / f"out-{aid}")
    return figures


def judge_seconds(run: dict[str, Any]) -> tuple[float, float, float, int]:
    """(the judges' seconds summed, the seconds before the first judge started, after the last ended, judges)."""
    spans = run["spans"]
    if not spans:
        return 0.0, 0.0, 0.0, 0
    return (sum(e - s for s, e in spans), min(s for s, _ in spans), run["wall"] - max(e for _, e in spans),
            len(spans))


def report(f: dict[str, Any]) -> None:
    """Print the figures of :func:`measure`."""
    size, cores, jobs, fl = f["size"], f["cores"], f["jobs"], f["floor"]
    ids = f["assignments"]
    combined = f.get("combined")
    print(f"class: {size} students {f['counts']}, on {len(ids)} assignments, -j {jobs}; floor = the reference's own "
          f"seconds x {size} / {cores} cores")
    print(f"{'assignment':14s}{'floor':>7s}{'alone':>7s}{'/floor':>7s}{'judges':>7s}{'in tests':>9s}{'outside':>8s}"
          f"{'in all: tests':>14s}{'its share':>10s}{'/floor':>7s}")
    all_tests = sum(combined["tests"].get(a, 0.0) for a in ids) if combined else 0.0
    floors = {a: fl["own"].get(a, 0.0) * size / cores for a in ids}
    for aid in ids:
        alone = f.get("separate", {}).get(aid)
        row = f"{aid:14s}{floors[aid]:7.1f}"
        if alone is not None:
            busy, _before, _after, n = judge_seconds(alone)
            tests = sum(v for k, v in alone["tests"].items() if k in ids)
            row += f"{alone['wall']:7.1f}{alone['wall'] / floors[aid] if floors[aid] else 0:7.2f}{n:7d}{tests:9.1f}" \
                   f"{busy - tests:8.1f}"
        else:
            row += f"{'-':>7s}{'-':>7s}{'-':>7s}{'-':>9s}{'-':>8s}"
        if combined and all_tests:
            share = combined["wall"] * combined["tests"].get(aid, 0.0) / all_tests
            row += f"{combined['tests'].get(aid, 0.0):14.1f}{share:10.1f}{share / floors[aid] if floors[aid] else 0:7.2f}"
        else:
            row += f"{'-':>14s}"
        print(row)
    floor_total = sum(floors.values())
    line = f"{'(all)':14s}{floor_total:7.1f}"
    if "separate" in f:
        walls = sum(r["wall"] for r in f["separate"].values())
        busy = sum(judge_seconds(r)[0] for r in f["separate"].values())
        tests = sum(sum(v for k, v in r["tests"].items() if k in ids) for r in f["separate"].values())
        line += (f"{walls:7.1f}{walls / floor_total:7.2f}{sum(judge_seconds(r)[3] for r in f['separate'].values()):7d}"
                 f"{tests:9.1f}{busy - tests:8.1f}")
    print(line + (f"{sum(combined['tests'].get(a, 0.0) for a in ids):{14 if 'separate' in f else 52}.1f}"
                  if combined else ""))
    if combined:
        busy, before, after, n = judge_seconds(combined)
        tests = sum(combined["tests"].get(a, 0.0) for a in ids)
        print(f"all {len(ids)} assignments in one `grader grade -j {jobs}`: {combined['wall']:.1f} s; floor "
              f"{floor_total:.1f} s; total / floor = {combined['wall'] / floor_total:.2f}")
        print(f"  its {n} judges ran {busy:.1f} s in all ({busy / jobs:.1f} s per job slot): {tests:.1f} s inside the "
              f"tests, {busy - tests:.1f} s outside them (start-up, collection, between tests, results); "
              f"{before:.1f} s before the first judge (reading, staging), {after:.1f} s after the last")
        st = combined.get("stamps", {})
        if st:
            last = max(e for _, e in combined["spans"])
            print(f"    after the last judge: {st['run'] - last:.1f} s to the pool's end, "
                  f"{st['remove_tree'] - st['remove_tree:start']:.1f} s removing the working folder, "
                  f"{st['write_class_outputs'] - st['write_class_outputs:start']:.1f} s writing the gradebook, "
                  f"{st['main'] - st['write_class_outputs']:.1f} s more in the command, "
                  f"{combined['wall'] - st['main']:.1f} s for the process to start and exit")
        kinds = ("correct", "bug", "template", "hang")
        print("  seconds of tests per student and assignment, by what the student is on it (how many):")
        for aid in ids:
            t = combined["tests"]
            print(f"    {aid:14s}" + "".join(
                f"{k} {t.get(f'{aid}/{k}', 0.0) / t[f'#{aid}/{k}']:6.3f} ({t[f'#{aid}/{k}']:.0f})   "
                for k in kinds if t.get(f"#{aid}/{k}")))
    if "slots" in f:
        for k, run in f["slots"]["runs"]:
            busy, _before, _after, n = judge_seconds(run)
            tests = sum(run["tests"].get(a, 0.0) for a in ids)
            print(f"  slots {str(k) if k else 'default':>7s}: {run['wall']:6.1f} s, {n} judges, {busy:.1f} s of judges, {tests:.1f} s in "
                  f"tests, {busy - tests:.1f} s outside")
    print(f"\none judge grading {fl['copies']} copies of the reference, seconds per copy (the first left out: it pays "
          "the reference's answers):")
    print(f"{'assignment':14s}{'calls':>6s}{'ref own':>8s}{'tests':>7s}{'/own':>6s}{'calls':>7s}{'of which':>9s}"
          f"{'worker':>7s}{'rest of':>8s}")
    print(f"{'':14s}{'':6s}{'':8s}{'':7s}{'':6s}{'(trips)':>7s}{'answers':>9s}{'start':>7s}{'tests':>8s}")
    for aid in ids:
        own, tests = fl["own"].get(aid, 0.0), fl["tests"].get(aid, 0.0)
        trips, workers = fl["trips"].get(aid, 0.0), fl["workers"].get(aid, 0.0)
        print(f"{aid:14s}{fl['calls'].get(aid, 0):6.0f}{own:8.3f}{tests:7.3f}{tests / own if own else 0:6.1f}"
              f"{trips:7.3f}{fl['answering'].get(aid, 0.0):9.3f}{workers:7.3f}{tests - trips - workers:8.3f}")
    tot = {k: sum(fl[k].get(a, 0.0) for a in ids) for k in ("own", "tests", "trips", "answering", "workers", "calls")}
    print(f"{'(all)':14s}{tot['calls']:6.0f}{tot['own']:8.3f}{tot['tests']:7.3f}{tot['tests'] / tot['own']:6.1f}"
          f"{tot['trips']:7.3f}{tot['answering']:9.3f}{tot['workers']:7.3f}"
          f"{tot['tests'] - tot['trips'] - tot['workers']:8.3f}")
    print(f"  the judge: {fl['startup']:.2f} s from its start to its first call of a student's code (interpreter, "
          f"pytest, collection); {fl['reference']:.2f} s on the reference's answers (once per judge); "
          f"{fl['finish'] * 1000:.0f} ms per work unit to finish (kill the worker, write the results); "
          f"{fl['lifetime']:.1f} s in all")
    print("(ref own: the reference's seconds for one student's calls of the student's code, in-process, the least "
          "of the replays; alone: the assignment graded by itself, its judges' seconds inside the tests and outside "
          "them; in all: the sum of its tests' durations in the one run, and its share of that run's wall time in "
          "proportion; calls (trips): the calls' round trips to "
          "the sandbox worker, worker starts left out; rest of tests: the tests' own code, the reference's "
          "answers and pytest)")


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["--record-judge"]:
        return record_judge(args[1], args[2])
    if args[:1] == ["--timed-grade"]:
        return timed_grade(args[1], args[2:])
    if args[:1] == ["--replay"]:
        print(json.dumps(replay(json.loads(Path(args[1]).read_text(encoding="utf-8")), int(args[2]))))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_arguments(parser)
    opts = parser.parse_args(args)
    return run(opts)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--size", type=int, default=300, help="students in the class (default: 300)")
    parser.add_argument("--jobs", type=int, default=2, help="parallel judges (default: 2)")
    parser.add_argument("--cores", type=int, default=None, help="cores the floor divides by (default: --jobs)")
    parser.add_argument("--hangs", type=int, default=None, help="students whose code loops forever "
                        "(default: one per 100, at least one)")
    parser.add_argument("-a", "--assignment", action="append", metavar="ID", help="only these assignments")
    parser.add_argument("--no-separate", action="store_true", help="do not grade each assignment alone")
    parser.add_argument("--no-combined", action="store_true", help="do not grade all assignments in one run")
    parser.add_argument("--floor-repeats", type=int, default=3, help="replays of the floor (the least counts)")
    parser.add_argument("--copies", type=int, default=4, help="copies of the reference one judge grades for the "
                        "per-student breakdown (default: 4)")
    parser.add_argument("--slots", type=int, metavar="N", help="also grade the class in one run with N work units of "
                        "each assignment per judge, and with the default (grader.grading.batch.slots_for), twice "
                        "each in turn")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")


def run(opts: argparse.Namespace) -> int:
    figures = measure(opts.size, opts.jobs, opts.cores or opts.jobs, opts.hangs, not opts.no_separate,
                      not opts.no_combined, opts.assignment, opts.floor_repeats, opts.copies, opts.slots)
    report(figures)
    if opts.json:
        opts.json.write_text(json.dumps(figures, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
