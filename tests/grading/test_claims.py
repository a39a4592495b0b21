"""How judge processes share a class: the claim queue of `grader grade`, whose work units are
(submission, assignment) pairs."""

from __future__ import annotations

import threading
from pathlib import Path

from checkout import ROOT

from grader.judge.claims import ClaimQueue, work_units
from grader.judge.manifest import Job, Part


def jobs(n: int, parts: tuple[str, ...] = ("a",)) -> list[Job]:
    return [Job(f"s{i}", {p: Part(code_dir=f"/stage/{i}/{p}") for p in parts}) for i in range(n)]


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
    assert all(u.parts[a] == whole[int(u.id[1])].parts[a] for u in units for a in u.parts)  # the same staged code
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


def test_a_slot_claims_the_next_unit_of_its_own_assignment(tmp_path: Path) -> None:
    """A judge's slots each belong to one assignment: while one judge is held up by s0's value_ops (a hang),
    another takes s1's value_ops and then s0's backward."""
    whole = jobs(3, ("value_ops", "backward", "mlp"))
    a, b = ClaimQueue(tmp_path, whole, "judge-0"), ClaimQueue(tmp_path, whole, "judge-1")

    def take(queue: ClaimQueue, assignment: str) -> str | None:
        unit = queue.claim(assignment)
        assert unit is None or list(unit.parts) == [assignment]
        return unit.id if unit else None

    assert take(a, "value_ops") == "s0"  # judge-0 is now stuck there
    assert [take(b, "value_ops"), take(b, "backward"), take(b, "mlp")] == ["s1", "s0", "s0"]
    assert [take(b, "value_ops"), take(b, "backward"), take(b, "mlp")] == ["s2", "s1", "s1"]
    assert [take(a, "backward"), take(a, "mlp"), take(a, "mlp")] == ["s2", "s2", None]
    assert a.unclaimed() == [] and [u.id for u in a.claimed_by("judge-0")] == ["s0", "s2", "s2"]


def test_a_judges_slots_are_per_assignment_and_no_more_than_its_units(tmp_path: Path) -> None:
    from grader.judge.manifest import Manifest
    from grader.judge.state import GradingState

    root = ROOT
    # a re-run: 30 submissions need value_ops again, 2 others backward
    whole = jobs(30, ("value_ops",)) + [Job(f"r{i}", {"backward": Part()}) for i in range(2)]
    manifest = Manifest(course=str(root), assignments=["value_ops", "backward"], jobs=whole, runtime=str(tmp_path),
                        out="", include_hidden=True, queue=str(tmp_path / "queue"), slots=25)
    state = GradingState(manifest)
    tests = root / "assignments" / "{}" / "tests" / "public" / "test_{}_public.py"
    value_ops = state.params_for(Path(str(tests).format("value_ops", "value_ops")))
    backward = state.params_for(Path(str(tests).format("backward", "backward")))
    assert len(value_ops) == 25 and len(backward) == 2 and not set(value_ops) & set(backward)
    in_order = [state.slot_assignment[p] for p in state.params[:3]]  # the order tests run in: slot by slot
    assert in_order == ["value_ops", "backward", "value_ops"]
    sample = state.sample_params()  # every test once, for the points check: one slot of each assignment
    assert sorted(state.slot_assignment[p] for p in sample) == ["backward", "value_ops"]
    assert sample <= {value_ops[0], backward[0]}


def test_the_judges_share_the_largest_assignment_between_them_up_to_the_cap() -> None:
    """Each judge pays its start-up and the reference's answers once: `-j` judges take the class between them
    (the largest assignment's units / jobs per judge), never more than MAX_SLOTS each, and never 0."""
    from grader.grading.batch import MAX_SLOTS, slots_for

    seven = tuple(f"a{i}" for i in range(7))
    assert slots_for(jobs(60, seven), 2) == 30
    assert slots_for(jobs(61, seven), 2) == 31  # rounded up: two judges, not a third for one unit
    assert slots_for(jobs(10, ("a",)) + jobs(3, ("b",)), 4) == 3  # by the assignment with the most units
    assert slots_for(jobs(300, seven), 2) == MAX_SLOTS
    assert slots_for([], 2) == 1 and slots_for(jobs(3), 0) == 3
