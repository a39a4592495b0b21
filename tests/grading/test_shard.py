"""Sharding: `grade --shard K/N` on several machines, then `grader merge`."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pytest
from checkout import ROOT

from grader.cli import main
from grader.errors import GraderError
from grader.grading.shard import parse_shard, shard_of
from grader.similarity.graded_class import recorded_class


def rows(path: Path) -> dict[str, dict[str, str]]:
    with open(path, encoding="utf-8") as f:
        return {r["student"]: r for r in csv.DictReader(f)}


def test_shards_partition_the_class_and_merge_to_the_unsharded_gradebook(tmp_path):
    subs = tmp_path / "subs"
    for i, name in enumerate(["correct_recursive", "bug_overwritten_grad", "template_unchanged", "flat_layout"] * 2):
        shutil.copytree(ROOT / "examples" / "submissions" / name, subs / f"s{i}_{name}")
    args = ["--course", str(ROOT), "grade", str(subs), "-a", "value_ops", "-j", "1"]
    outs = []
    for k in (1, 2, 3):
        out = tmp_path / f"shard{k}"
        assert main([*args, "-o", str(out), "--shard", f"{k}/3"]) == 0
        outs.append(out)
    sharded = [set(rows(o / "grades.csv")) for o in outs]
    assert sum(len(s) for s in sharded) == 8 and set().union(*sharded) == {p.name for p in subs.iterdir()}
    assert main([*args, "-o", str(tmp_path / "whole")]) == 0
    merged = tmp_path / "merged"
    assert main(["--course", str(ROOT), "merge", *map(str, outs), "-o", str(merged)]) == 0
    assert rows(merged / "grades.csv") == rows(tmp_path / "whole" / "grades.csv")
    assert (merged / "report.html").is_file() and (merged / "item_analysis.csv").is_file()
    for student in rows(merged / "grades.csv"):
        assert (merged / "value_ops" / student / "feedback.md").is_file()
    # the shards graded one class: the merged folder records it, so `grader similarity MERGED` finds it
    assert recorded_class(merged).submissions == subs.resolve()


def test_shard_membership_is_stable_and_balanced():
    ids = [f"student{i:04d}" for i in range(1000)]
    counts = [sum(shard_of(s, 4) == k for s in ids) for k in (1, 2, 3, 4)]
    assert sum(counts) == 1000 and min(counts) > 200
    assert [shard_of(s, 4) for s in ids[:50]] == [shard_of(s, 4) for s in ids[:50]]


@pytest.mark.parametrize("text", ["0/3", "4/3", "1-3", "x/y", "3"])
def test_bad_shard_specs_are_instructor_errors(text):
    with pytest.raises(GraderError, match="K/N"):
        parse_shard(text)
