"""How judge processes share a class: the claim queue of `grader grade`, whose work units are
(submission, assignment) pairs."""

from __future__ import annotations

import threading
from pathlib import Path

from grader.grading.claims import ClaimQueue, work_units
from grader.grading.manifest import Job, Part


def jobs(n: int, parts: tuple[str, ...] = ("a",)) -> list[Job]:
    return [Job(f"s{i}", i, {p: Part(code_dir=f"/stage/{i}/{p}") for p in parts}) for i in range(n)]


def test_each_submission_is_claimed_once_in_order(tmp_path: Path) -> None:
    a, b = ClaimQueue(tmp_path, jobs(5), "judge-0"), ClaimQueue(tmp_path, jobs(5), "judge-1")
    got = [a.claim(), b.claim(), b.claim(), a.claim(), a.claim(), a.claim(), b.claim()]
    assert [j.id if j else None for j in got] == ["s0", "s1", "s2", "s3", "s4", None, None]
    assert [j.id for j in a.claimed_by("judge-0")] == ["s0", "s3", "s4"]
    assert [j.id for j in a.claimed_by("judge-1")] == ["s1", "s2"]
    assert a.unclaimed() == []


def test_a_submissions_assignments_are_separate_units_that_different_judges_take(tmp_path: Path) -> None:
    """Issue 16: the three assignments of a submission that hangs go to whichever judges are free."""
    whole = jobs(2, ("value_ops", "backward", "mlp"))
    units = work_units(whole)
    assert [(u.id, list(u.parts)) for u in units] == [
        ("s0", ["value_ops"]), ("s0", ["backward"]), ("s0", ["mlp"]),
        ("s1", ["value_ops"]), ("s1", ["backward"]), ("s1", ["mlp"])]
    assert all(u.parts[a] is whole[int(u.id[1])].parts[a] for u in units for a in u.parts)
    assert all(u.index == int(u.id[1]) for u in units)
    a, b = ClaimQueue(tmp_path, whole, "judge-0"), ClaimQueue(tmp_path, whole, "judge-1")
    first, second = a.claim(), b.claim()
    assert first is not None and second is not None
    assert (first.id, list(first.parts)) == ("s0", ["value_ops"]) and (second.id, list(second.parts)) == ("s0", ["backward"])
    assert [list(u.parts) for u in a.unclaimed()] == [["mlp"], ["value_ops"], ["backward"], ["mlp"]]
    assert [u.id for u in a.claimed_by("judge-1")] == ["s0"]


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
