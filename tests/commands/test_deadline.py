"""`grader grade REPOS --deadline TIME`: hidden grading of student git repositories at their submissions."""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
from pathlib import Path

from checkout import ROOT
from doc_quotes import assert_quoted

from grader.cli import main

EXAMPLES = ROOT / "examples" / "submissions"


def commit(repo: Path, when: str, message: str, tag: str = "") -> str:
    env = {**os.environ, "GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when, "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_CONFIG_GLOBAL": os.devnull}
    def git(*args: str) -> str:
        return subprocess.run(["git", "-c", "user.name=S", "-c", "user.email=s@example.org", "-C", str(repo), *args],
                              env=env, check=True, capture_output=True, text=True).stdout.strip()
    if not (repo / ".git").is_dir():
        git("init", "-q", "-b", "main")
    git("add", "-A")
    git("commit", "-q", "-m", message)
    if tag:
        git("tag", tag)
    return git("rev-parse", "HEAD")


def put(repo: Path, example: str) -> None:
    """Replace the repository's micrograd/ with an example submission's."""
    shutil.rmtree(repo / "micrograd", ignore_errors=True)
    shutil.copytree(EXAMPLES / example / "micrograd", repo / "micrograd")


def test_each_repository_is_graded_at_its_submission_before_the_deadline_and_late_ones_are_marked(tmp_path, capsys):
    repos = tmp_path / "repos"
    alice = repos / "alice"  # submitted a correct engine on time, then broke it after the deadline
    put(alice, "correct_recursive")
    on_time = commit(alice, "2026-11-30T20:00:00Z", "done", tag="submit/2026-11-30T20-00-00Z-a")
    put(alice, "template_unchanged")
    commit(alice, "2026-12-01T09:00:00Z", "oops", tag="submit/2026-12-01T09-00-00Z-b")
    bob = repos / "bob"  # no submit tag, and every commit after the deadline
    put(bob, "correct_recursive")
    late = commit(bob, "2026-12-01T02:00:00Z", "late work")
    shutil.copytree(EXAMPLES / "template_unchanged", repos / "carol")  # a plain folder: graded as it is, dated by
    for path in (repos / "carol").rglob("*.py"):                          # its files' modification times
        os.utime(path, (1796165000, 1796165000))  # 2026-12-01T22:43:20Z: late
    out = tmp_path / "out"
    args = ["--course", str(ROOT), "grade", str(repos), "-a", "value_ops", "-o", str(out),
            "--deadline", "2026-11-30T23:59:59Z"]
    assert main(args) == 0
    printed = capsys.readouterr()
    assert "Due: value_ops 2026-11-30T23:59:59+00:00 (2026-11-30T23:59:59Z, --deadline)" in printed.err
    with open(out / "grades.csv", encoding="utf-8") as f:
        rows = {row["student"]: row for row in csv.DictReader(f)}
    assert rows["alice"]["value_ops"] == "40" and rows["alice"]["value_ops.commit"] == on_time
    assert rows["alice"]["value_ops.commit_time"] == "2026-11-30T20:00:00Z" and rows["alice"]["value_ops.late"] == "on time"
    assert rows["bob"]["value_ops"] == "40" and rows["bob"]["value_ops.commit"] == late
    assert rows["bob"]["value_ops.late"] == "late, no penalty"
    assert rows["bob"]["notes"].startswith(f"value_ops: late: graded commit {late[:7]} of 2026-12-01T02:00:00Z")
    assert rows["carol"]["value_ops.commit"] == "" and rows["carol"]["value_ops"] == "0"
    origin = json.loads((out / "value_ops" / "bob" / "results.json").read_text())["extra_data"]["grader"]["origin"]
    assert origin["commit"] == late and origin["late"] is True and origin["time"] == "2026-12-01T02:00:00Z"
    assert "after the deadline" in (out / "value_ops" / "bob" / "feedback.md").read_text()
    carol = (out / "value_ops" / "carol" / "feedback.md").read_text()
    assert "the latest modification time of its files" in carol and "22 h 43 min" in carol
    assert_quoted("how-to/git-repositories.md", 0, (out / "grades.csv").read_text(encoding="utf-8"),
                  masks=[(r"\b[0-9a-f]{7,40}\b", "<commit>")])  # a commit id follows the bytes of the examples

    # a later due date: alice's latest submission is now the broken one, bob's commit is on time; all three are
    # graded again without --force (their due date changed, carol's too), and a run with nothing changed keeps all
    capsys.readouterr()
    assert main([*args[:-1], "2026-12-02T00:00:00Z"]) == 0
    assert "Graded 3 submission(s)" in capsys.readouterr().out
    assert main([*args[:-1], "2026-12-02T00:00:00Z"]) == 0
    assert "Graded 0 submission(s)" in capsys.readouterr().out
    with open(out / "grades.csv", encoding="utf-8") as f:
        rows = {row["student"]: row for row in csv.DictReader(f)}
    assert rows["alice"]["value_ops"] == "0" and rows["bob"]["value_ops.late"] == "on time"


def test_a_bad_deadline_is_a_clear_error(tmp_path, capsys):
    (tmp_path / "repos").mkdir()
    assert main(["--course", str(ROOT), "grade", str(tmp_path / "repos"), "--deadline", "next friday"]) == 2
    assert "deadline" in capsys.readouterr().err.lower()
