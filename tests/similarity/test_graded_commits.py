"""`grader similarity` compares the code that was graded: a git repository is read, per assignment, at the commit its
result records (each assignment with a due date of its own, extensions included), not at its working tree."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from checkout import ROOT

from grader.commands.similarity import graded_commits
from grader.course.course import Course
from grader.outputs.records import Stamp, empty_record
from grader.outputs.store import ResultStore
from grader.similarity.sources import read_folder

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def commit(repo: Path, text: str, when: int) -> str:
    env = {"PATH": os.environ["PATH"], "HOME": str(repo.parent), "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_CONFIG_GLOBAL": os.devnull, "GIT_AUTHOR_DATE": f"@{when} +0000", "GIT_COMMITTER_DATE": f"@{when} +0000"}

    def git(*args: str) -> str:
        return subprocess.run(["git", "-c", "user.name=S", "-c", "user.email=s@example.org", "-C", str(repo), *args],
                              env=env, check=True, capture_output=True, text=True).stdout.strip()
    (repo / "micrograd").mkdir(parents=True, exist_ok=True)
    (repo / "micrograd" / "engine.py").write_text(text)
    if not (repo / ".git").exists():
        git("init", "-q", "-b", "main")
    git("add", "-A")
    git("commit", "-q", "-m", "work")
    return git("rev-parse", "HEAD")


def test_each_assignment_is_compared_at_the_commit_its_result_records(tmp_path):
    course = Course(ROOT)
    value_ops, backward = course.assignments(["value_ops", "backward"])
    subs = tmp_path / "subs"
    first = commit(subs / "alice", "class Value:\n    graded_for_value_ops = 1\n", 1_790_000_000)
    second = commit(subs / "alice", "class Value:\n    graded_for_backward = 2\n", 1_790_100_000)
    (subs / "alice" / "micrograd" / "engine.py").write_text("class Value:\n    working_tree = 3\n")
    out = tmp_path / "out"
    store = ResultStore(out)
    for a, sha in ((value_ops, first), (backward, second)):
        origin = {"commit": sha, "time": "2026-09-21T14:13:20Z", "ref": "HEAD", "late": False, "note": ""}
        store.write(a, "alice", empty_record(), Stamp(fingerprint="f", course={}, origin=origin, late=None))
    commits = graded_commits(out)
    assert commits == {"alice": {"value_ops": first, "backward": second}}

    source = read_folder(subs, "class", [value_ops, backward], None, commits=commits)
    assert "graded_for_value_ops" in source.documents["value_ops"][0].text
    assert "graded_for_backward" in source.documents["backward"][0].text
    plain = read_folder(subs, "class", [value_ops], None)  # no record: the working tree, as before
    assert "working_tree" in plain.documents["value_ops"][0].text

    gone = read_folder(subs, "class", [value_ops], None, commits={"alice": {"value_ops": "0" * 40}})
    assert not gone.documents["value_ops"]
    assert any("is not in the repository any more" in n.note for n in gone.notes)
