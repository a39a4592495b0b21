"""What per-assignment due dates cost intake: a class of git repositories read at seven due dates at once
(``read_at_deadlines``: each repository opened once, each commit's tree read once) against the baseline of reading
each repository once per due date (``read_at_deadline`` seven times), measured in the same run.

    python bench/due_dates.py [--students 40] [--commits 12]

Each repository gets ``--commits`` commits a day apart around the seven due dates, half of them tagged
``submit/*``. Prints seconds for both ways, the ratio, and checks that both pick the same commits.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from grader.intake.git_history import read_at_deadline, read_at_deadlines  # noqa: E402

START = datetime(2026, 9, 1, 12, tzinfo=timezone.utc)
DUES = [START + timedelta(days=2 * k + 1, hours=11) for k in range(7)]  # seven assignments, two days apart


def make_repo(path: Path, commits: int, student: int) -> None:
    path.mkdir(parents=True)
    for i in range(commits):
        when = START + timedelta(days=i, minutes=student)
        env = {"PATH": os.environ["PATH"], "HOME": str(path), "GIT_CONFIG_NOSYSTEM": "1",
               "GIT_CONFIG_GLOBAL": os.devnull, "GIT_AUTHOR_DATE": f"@{int(when.timestamp())} +0000",
               "GIT_COMMITTER_DATE": f"@{int(when.timestamp())} +0000"}
        (path / "micrograd").mkdir(exist_ok=True)
        (path / "micrograd" / "engine.py").write_text(f"# version {i}\nx = {i}\n")

        def git(*args: str, env: dict[str, str] = env) -> None:
            subprocess.run(["git", "-c", "user.name=S", "-c", "user.email=s@example.org", "-C", str(path), *args],
                           env=env, check=True, capture_output=True)
        if i == 0:
            git("init", "-q", "-b", "main")
        git("add", "-A")
        git("commit", "-q", "-m", f"v{i}")
        if student % 2 and i % 2:
            git("tag", f"submit/v{i}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--students", type=int, default=40)
    p.add_argument("--commits", type=int, default=12)
    args = p.parse_args(argv)
    windows: list[tuple[datetime, datetime | None]] = [(due, due + timedelta(days=3)) for due in DUES]
    with tempfile.TemporaryDirectory() as tmp:
        repos = [Path(tmp) / f"s{i:03d}" for i in range(args.students)]
        for i, repo in enumerate(repos):
            make_repo(repo, args.commits, i)
        t0 = time.perf_counter()
        once = [read_at_deadlines(repo, windows) for repo in repos]
        t1 = time.perf_counter()
        each = [[read_at_deadline(repo, due) for due, _ in windows] for repo in repos]
        t2 = time.perf_counter()
    same = all(a.origin == b.origin for rows in zip(once, each) for a, b in zip(*rows)
               if b.origin is not None and not b.origin.late)
    print(f"{args.students} repositories x {len(windows)} due dates, {args.commits} commits each")
    print(f"  opened once for every due date (read_at_deadlines): {t1 - t0:.2f} s")
    print(f"  baseline, once per due date (read_at_deadline x {len(windows)}): {t2 - t1:.2f} s")
    print(f"  ratio: {(t2 - t1) / (t1 - t0):.1f}x; same on-time commits chosen: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
