"""Where the time of grading goes: the judges under cProfile, optionally the whole process tree under py-spy.

    python bench/profile_grading.py [-a classifier -a mlp | --all] [--students 20] [--template] [--jobs 2] [--keep DIR]
                                    [--py-spy PATH/TO/py-spy] [--no-cprofile] [--top 25]

Grades ``--students`` correct students (the reference, and each correct
variant of ``reference/variants/`` over the reference's other files, in
turn) on the assignments asked (default: ``classifier`` and ``mlp``, the
slowest) with ``grader.grading.batch.grade`` in this process, every judge
process run as ``python -m cProfile -o judge-K.prof -m grader.judge MANIFEST``.
It prints the wall seconds, the judges' profile merged (the functions with
the most cumulative and own time), and the judges' time split into
buckets: start-up and collection, the reference's answers, worker starts,
waiting for the workers (their compute, and the pipe), answering the
workers' questions (the network's gradients), the tests' own checks, and
each submission's finish (workers killed, results written).

A worker runs in the sandbox, which cProfile cannot write from: with
``--py-spy`` (``pip install --target DIR py-spy``; it must be able to ptrace
the workers, e.g. as root) the whole tree, workers included, is sampled
(``py-spy record --subprocesses --format raw``) and the samples are
summed per process kind (grader, judge, fork server, worker) and per
function, own time (the innermost frame) and inclusive. py-spy cannot tell a
sandboxed process's idle threads, so samples whose innermost line waits on a
pipe or a child count as waiting; and it can leave a worker stopped under
ptrace, so the grading is given ``--timeout`` seconds.
"""

from __future__ import annotations

import argparse
import collections
import pstats
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.course.course import Course  # noqa: E402

IGNORE = shutil.ignore_patterns("__pycache__", "*.ipynb")


def correct_class(dest: Path, students: int, template: bool = False) -> None:
    """``students`` correct students: the reference, then each variant over the reference, in turn; or, with
    ``template``, untouched copies of the template (every stub raises at once: what is left is the grader's own
    cost per test)."""
    course = Course(ROOT)
    ref = course.reference_dir
    if template:
        for i in range(students):
            shutil.copytree(course.template_dir / "micrograd", dest / f"t{i:03d}" / "micrograd", ignore=IGNORE)
        return
    variants = [None] + [v for v in sorted((ref / "variants").iterdir()) if (v / "micrograd").is_dir()]
    for i in range(students):
        variant = variants[i % len(variants)]
        target = dest / f"c{i:03d}_{variant.name if variant else 'reference'}"
        shutil.copytree(ref / "micrograd", target / "micrograd", ignore=IGNORE)
        if variant is not None:
            shutil.copytree(variant, target, ignore=IGNORE, dirs_exist_ok=True)


BUCKETS = [  # (label, (file suffix, function)) of the judge's cumulative times; the first match of a frame counts
    ("the test loop (every test of every slot)", [("_pytest/main.py", "pytest_runtestloop")]),
    ("pytest collection (all slots' items)", [("_pytest/main.py", "pytest_collection")]),
    ("the judge's set-up (manifest, course parts)", [("_pytest/config/__init__.py", "_do_configure")]),
    ("reference answers (once per judge)", [("grader/judge/state.py", "_answer")]),
    ("worker starts (fork, isolation, student import)", [("grader/judge/submission_run.py", "_worker")]),
    ("student calls: the whole round trip", [("grader/judge/submission_run.py", "call")]),
    ("  of which waiting for the worker (select)", [("grader/judge/linux_handle.py", "_read")]),
    ("  of which answering its questions", [("grader/testing/judged.py", "reply")]),
    ("  of which sending requests", [("grader/judge/linux_handle.py", "_write")]),
    ("submission finish: kill workers, write results", [("grader/judge/submission_run.py", "finish")]),
    ("test results (make_result)", [("grader/judge/plugin.py", "make_result")]),
    ("pytest runtestprotocol (every test, all in)", [("_pytest/runner.py", "runtestprotocol")]),
]


def cumulative(stats: pstats.Stats, suffix: str, name: str) -> float:
    """Cumulative seconds of the function ``name`` in a file ending with ``suffix`` (summed over matches)."""
    total = 0.0
    for (file, _line, func), (_cc, _nc, _tt, ct, _callers) in stats.stats.items():  # type: ignore[attr-defined]
        if func == name and file.endswith(suffix):
            total += ct
    return total


def judge_profile(profiles: list[Path], top: int) -> None:
    """Print the merged profile of the judges and its buckets."""
    stats = pstats.Stats(*map(str, profiles))
    total = stats.total_tt  # type: ignore[attr-defined]
    print(f"\njudges: {len(profiles)} process(es), {total:.1f} s of profiled time in all")
    print(f"{'bucket (cumulative, as profiled)':52s}{'seconds':>9s}{'share':>8s}")
    outside = total - cumulative(stats, "_pytest/main.py", "pytest_runtestloop")
    print(f"{'outside the test loop (start-up, collection, end)':52s}{outside:9.2f}{outside / total:8.0%}")
    for label, keys in BUCKETS:
        seconds = sum(cumulative(stats, s, f) for s, f in keys)
        print(f"{label:52s}{seconds:9.2f}{seconds / total:8.0%}")
    for key, title in (("cumulative", "cumulative"), ("tottime", "own time")):
        print(f"\nthe judges' {top} functions with the most {title}:")
        rows = sorted(stats.stats.items(), key=lambda kv: kv[1][3 if key == "cumulative" else 2],  # type: ignore[attr-defined]
                      reverse=True)
        for (file, line, func), (_cc, nc, tt, ct, _callers) in rows[:top]:
            short = file.replace(str(ROOT) + "/", "").split("site-packages/")[-1]
            print(f"  {ct if key == 'cumulative' else tt:8.2f} s {(ct if key == 'cumulative' else tt) / total:6.1%}"
                  f"  {nc:>9d} calls  {short}:{line}({func})")


PROCESS = re.compile(r'process \d+:"[^"]*";?')
WAITING = ("readline(", "select.select(", "select([", "waitpid(", "os.read(", ".wait(", "poll(", "wfile.flush()")
"""Text of a source line that blocks until another process acts: a sample there is waiting, not working (a
worker's flush of a question larger than the pipe's 64 KiB waits for the judge to read it)."""


def source_line(frame: str) -> str:
    """The source text of a py-spy frame ``name (path:line)``, for the grader's files ("" for others)."""
    match = re.search(r"\(([^()]*):(\d+)\)$", frame)
    if not match:
        return ""
    path, line = match.group(1), int(match.group(2))
    for prefix, folder in (("_grader_sandbox/", ROOT / "grader" / "sandbox"), ("grader/", ROOT / "grader")):
        if path.startswith(prefix):
            try:
                return (folder / path[len(prefix):]).read_text(encoding="utf-8").splitlines()[line - 1]
            except (OSError, IndexError):
                return ""
    return ""


def matches(frame: str, suffix: str, func: str) -> bool:
    """Whether a py-spy frame ``Class.func (path:line)`` is the function ``func`` of a file ending with ``suffix``."""
    name, _, where = frame.partition(" (")
    return name.rsplit(".", 1)[-1] == func and where.rsplit(":", 1)[0].endswith(suffix)


def classify(stack: str) -> tuple[str, list[str]]:
    """(the kind of process a py-spy stack was sampled in, its function frames, outermost first)."""
    processes = PROCESS.findall(stack)
    frames = [f for f in PROCESS.sub("", stack).split(";") if f]
    innermost = processes[-1] if processes else ""
    if any(f.startswith("_worker (") for f in frames):
        return "worker (sandbox)", frames
    if any(f.startswith("main (_grader_sandbox/worker.py") for f in frames):
        return "worker's launcher", frames
    if "forkserver" in innermost:
        return "fork server", frames
    if "grader.judge" in innermost:
        return "judge", frames
    return "grader", frames


def pyspy_profile(raw: Path, top: int, rate: int) -> None:
    """Print the samples of a ``py-spy record --format raw`` file per process kind, waiting or working, and the
    working samples per function (own: the innermost frame; inclusive: anywhere in the stack). py-spy cannot tell
    a sandboxed process's idle threads, so samples whose innermost line blocks on another process (``WAITING``)
    count as waiting."""
    per_kind: collections.Counter[str] = collections.Counter()
    waiting: collections.Counter[str] = collections.Counter()
    own: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    incl: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    texts: dict[str, str] = {}
    buckets: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for line in raw.read_text(encoding="utf-8", errors="replace").splitlines():
        stack, _, count = line.rpartition(" ")
        if not count.isdigit():
            continue
        kind, frames = classify(stack)
        n = int(count)
        per_kind[kind] += n
        for label, keys in BUCKETS:
            if any(matches(frame, suffix, func) for frame in frames for suffix, func in keys):
                buckets[kind][label] += n
        leaf = frames[-1] if frames else "?"
        if leaf not in texts:
            texts[leaf] = source_line(leaf)
        if any(w in texts[leaf] for w in WAITING) or leaf.startswith(("_wait (", "wait (", "select (", "_try_wait (")):
            waiting[kind] += n
            continue
        own[kind][leaf] += n
        for name in set(frames):
            incl[kind][name] += n
    total = sum(per_kind.values())
    judge = per_kind["judge"]
    if judge:
        print(f"\njudges under py-spy: {per_kind['judge'] / rate:.1f} s sampled, {waiting['judge'] / rate:.1f} s of it "
              "waiting on another process (inclusive samples, waiting included)")
        for label, _keys in BUCKETS:
            n = buckets["judge"][label]
            print(f"  {label:52s}{n / rate:9.2f}{n / judge:8.0%}")
    print(f"\npy-spy: {total} samples at {rate} per second ({total / rate:.1f} s of samples across the tree)")
    print(f"  {'process':22s}{'sampled':>9s}{'waiting':>9s}{'working':>9s}")
    for kind, n in per_kind.most_common():
        print(f"  {kind:22s}{n / rate:8.1f}s{waiting[kind] / rate:8.1f}s{(n - waiting[kind]) / rate:8.1f}s")
    for kind, _n in per_kind.most_common():
        working = sum(own[kind].values())
        if not working:
            continue
        print(f"\n{kind}: {working / rate:.1f} s working; the {top} lines with the most own samples (and inclusive)")
        for name, n in own[kind].most_common(top):
            print(f"  {n / rate:7.2f} s {n / working:6.1%}  (incl {incl[kind][name] / rate:7.2f} s)  {name}")
        print(f"  {kind}: the {top} functions with the most inclusive samples")
        for name, n in incl[kind].most_common(top):
            print(f"  {n / rate:7.2f} s {n / working:6.1%}  {name}")


def inner(tmp: Path, jobs: int, ids: list[str], profile: bool = True) -> int:
    """Grade ``tmp/class`` into ``tmp/out`` in this process, every judge under cProfile (``tmp/judge-K.prof``)
    unless not ``profile``."""
    from grader.grading import batch

    count = iter(range(10_000))

    def profiled(manifest: batch.Manifest, path: Path, log: Path) -> int:
        manifest.dump(path)
        log.parent.mkdir(parents=True, exist_ok=True)
        prof = tmp / f"judge-{next(count)}.prof"
        with open(log, "wb") as out:
            return subprocess.run([sys.executable, *(["-m", "cProfile", "-o", str(prof)] if profile else []),
                                   "-m", "grader.judge", str(path)],
                                  stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                  env=batch.judge_environment(path), check=False).returncode

    batch.run_judge = profiled
    batch.grade(Course(ROOT), tmp / "class", ids, tmp / "out", jobs, force=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] in (["--inner"], ["--inner-plain"]):
        return inner(Path(args[1]), int(args[2]), args[3:], profile=args[0] == "--inner")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-a", "--assignment", action="append", metavar="ID",
                        help="assignments to grade (default: classifier and mlp)")
    parser.add_argument("--students", type=int, default=20, help="correct students (default: 20)")
    parser.add_argument("--template", action="store_true", help="untouched template copies instead of correct "
                        "students: the grader's own cost per test")
    parser.add_argument("--all", action="store_true", help="every assignment of the course")
    parser.add_argument("--jobs", type=int, default=2, help="judges (default: 2)")
    parser.add_argument("--top", type=int, default=25, help="functions listed (default: 25)")
    parser.add_argument("--keep", type=Path, help="keep the profiles in this folder")
    parser.add_argument("--py-spy", type=Path, help="py-spy executable: also sample the whole tree, workers included")
    parser.add_argument("--rate", type=int, default=200, help="py-spy samples per second (default: 200)")
    parser.add_argument("--timeout", type=float, default=1200, help="seconds the grading may take (default: 1200)")
    parser.add_argument("--no-cprofile", action="store_true", help="run the judges plain (with --py-spy: its figures "
                        "of the judges are then undistorted by cProfile)")
    opts = parser.parse_args(args)
    ids = [a.id for a in Course(ROOT).assignments()] if opts.all else opts.assignment or ["classifier", "mlp"]
    from grader.outputs.store import ResultStore

    with tempfile.TemporaryDirectory(prefix="bench-profile-") as tmp_name:
        tmp = opts.keep or Path(tmp_name)
        tmp.mkdir(parents=True, exist_ok=True)
        correct_class(tmp / "class", opts.students, opts.template)
        command = [sys.executable, __file__, "--inner" if not opts.no_cprofile else "--inner-plain", str(tmp),
                   str(opts.jobs), *ids]
        if opts.py_spy:  # the whole tree, sampled: py-spy starts the grader and follows its subprocesses
            command = [str(opts.py_spy), "record", "--subprocesses", "--format", "raw", "--rate", str(opts.rate),
                       "-o", str(tmp / "tree.raw"), "--", *command]
        started = time.monotonic()
        try:  # py-spy can leave a sandboxed worker stopped under ptrace: then it never ends
            subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           timeout=opts.timeout)
        except subprocess.TimeoutExpired:
            print(f"the grading did not end within {opts.timeout} s (py-spy stopped a process?); its figures are "
                  "incomplete")
        wall = time.monotonic() - started
        store = ResultStore(tmp / "out")
        short = [(sub.name, aid) for sub in (tmp / "class").iterdir() for aid in ids
                 if (r := store.get(aid, sub.name)) is None or (r.score < r.max_score) != opts.template]
        print(f"graded {opts.students} {'template copies' if opts.template else 'correct students'} on {', '.join(ids)} at -j {opts.jobs}: {wall:.1f} s wall "
              f"(judges under {'cProfile' if not opts.no_cprofile else 'nothing'}"
              f"{', the tree under py-spy' if opts.py_spy else ''}); "
              + (f"UNEXPECTED SCORES: {short[:5]}" if short else "all full marks" if not opts.template else "all 0"))
        if not opts.no_cprofile:
            judge_profile(sorted(tmp.glob("judge-*.prof")), opts.top)
        if opts.py_spy and (tmp / "tree.raw").is_file():
            pyspy_profile(tmp / "tree.raw", opts.top, opts.rate)
    return 0


if __name__ == "__main__":
    sys.exit(main())
