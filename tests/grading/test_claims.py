"""How judge processes share a class: the claim queue of `grader grade`."""

from __future__ import annotations

import threading
from pathlib import Path

from grader.grading.claims import ClaimQueue
from grader.grading.manifest import Job


def jobs(n: int) -> list[Job]:
    return [Job(f"s{i}", i) for i in range(n)]


def test_each_submission_is_claimed_once_in_order(tmp_path: Path) -> None:
    a, b = ClaimQueue(tmp_path, jobs(5), "judge-0"), ClaimQueue(tmp_path, jobs(5), "judge-1")
    got = [a.claim(), b.claim(), b.claim(), a.claim(), a.claim(), a.claim(), b.claim()]
    assert [j.id if j else None for j in got] == ["s0", "s1", "s2", "s3", "s4", None, None]
    assert [j.id for j in a.claimed_by("judge-0")] == ["s0", "s3", "s4"]
    assert [j.id for j in a.claimed_by("judge-1")] == ["s1", "s2"]
    assert a.unclaimed() == []


def test_concurrent_claims_never_share_a_submission(tmp_path: Path) -> None:
    claimed: list[list[str]] = [[] for _ in range(8)]

    def take(k: int) -> None:
        queue = ClaimQueue(tmp_path, jobs(400), f"judge-{k}")
        while (job := queue.claim()) is not None:
            claimed[k].append(job.id)

    threads = [threading.Thread(target=take, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    flat = [x for c in claimed for x in c]
    assert sorted(flat) == sorted(f"s{i}" for i in range(400))
