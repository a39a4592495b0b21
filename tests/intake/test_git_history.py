"""Reading a student's git repository at a deadline, or for several (due, cut-off) windows at once
(grader.intake.git_history): which commit is graded, what is read from it, that a repository is read once for
all its windows, and that nothing in the repository runs."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections import Counter
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from grader.course.late_policy import parse_deadline
from grader.errors import GraderError
from grader.intake import git_history, git_objects, git_refs, submission
from grader.intake.git_history import is_repository, read_at_deadline, read_at_deadlines
from grader.intake.submission import read_submission

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

DEADLINE = parse_deadline("2026-11-30T23:59:00Z")
ON_TIME, ON_TIME_2, LATE, LATE_2 = "2026-11-20T22:01:03Z", "2026-11-25T10:00:00Z", "2026-12-01T02:09:00Z", "2026-12-02T00:00:00Z"


def epoch(when: str) -> int:
    return int(datetime.fromisoformat(when.replace("Z", "+00:00")).timestamp())


def git(repo: Path, *args: str, when: str = ON_TIME) -> str:
    """Run git in ``repo`` with dates fixed and no global or system configuration."""
    env = {"PATH": os.environ["PATH"], "HOME": str(repo.parent), "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_CONFIG_GLOBAL": os.devnull, "LC_ALL": "C",
           "GIT_AUTHOR_DATE": f"@{epoch(when)} +0000", "GIT_COMMITTER_DATE": f"@{epoch(when)} +0000"}
    config = ["-c", "user.name=Student", "-c", "user.email=student@example.com", "-c", "init.defaultBranch=main",
              "-c", "commit.gpgSign=false", "-c", "tag.gpgSign=false", "-c", "core.hooksPath=/nonexistent"]
    done = subprocess.run(["git", *config, "-C", str(repo), *args], env=env, check=True, capture_output=True,
                          stdin=subprocess.DEVNULL)
    return done.stdout.decode().strip()


def make_repo(path: Path, *args: str) -> Path:
    path.mkdir()
    git(path, "init", "-q", *args)
    return path


def commit(repo: Path, when: str, files: dict[str, str | None]) -> str:
    """Write (or, for None, delete) ``files`` and commit them all at ``when``; the commit's id."""
    for name, text in files.items():
        path = repo / name
        if text is None:
            path.unlink()
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    git(repo, "add", "-A", when=when)
    git(repo, "commit", "-q", "--allow-empty", "-m", f"work at {when}", when=when)
    return git(repo, "rev-parse", "HEAD")


def tag(repo: Path, name: str, annotated: bool = False, when: str = ON_TIME) -> None:
    git(repo, "tag", *(["-a", "-m", name] if annotated else []), name, when=when)


def checkout(repo: Path, sha: str, dest: Path) -> Path:
    """A plain clone of ``repo`` with ``sha`` checked out (the way a grader could read it by hand)."""
    git(dest.parent, "clone", "-q", "--no-checkout", str(repo), str(dest))
    git(dest, "checkout", "-q", sha)
    return dest


@pytest.fixture
def history(tmp_path: Path) -> tuple[Path, list[str]]:
    """A repository with two commits on time, then two late ones."""
    repo = make_repo(tmp_path / "alice")
    shas = [commit(repo, when, {"micrograd/engine.py": f"# version at {when}\n"})
            for when in (ON_TIME, ON_TIME_2, LATE, LATE_2)]
    return repo, shas


def test_latest_tag_on_time_is_graded_not_a_later_tag(history: tuple[Path, list[str]]) -> None:
    repo, shas = history
    git(repo, "tag", "submit/first", shas[0])
    git(repo, "tag", "submit/second", shas[1])
    git(repo, "tag", "submit/third", shas[2])
    sub = read_at_deadline(repo, DEADLINE)
    assert sub.error == "" and sub.id == "alice"
    assert sub.origin is not None
    assert (sub.origin.ref, sub.origin.commit, sub.origin.late) == ("submit/second", shas[1], False)
    assert sub.origin.time == ON_TIME_2
    assert sub.origin.note == f"graded submit/second (commit {shas[1][:7]}, {ON_TIME_2}), on time"
    assert sub.files == {"micrograd/engine.py": f"# version at {ON_TIME_2}\n".encode()}
    assert sub.mtimes == {"micrograd/engine.py": float(epoch(ON_TIME_2))}


def test_when_every_tag_is_late_the_latest_is_graded_late(history: tuple[Path, list[str]]) -> None:
    repo, shas = history
    git(repo, "tag", "submit/b-late", shas[3])
    git(repo, "tag", "submit/a-late", shas[2])
    sub = read_at_deadline(repo, DEADLINE)
    assert sub.origin is not None
    assert (sub.origin.ref, sub.origin.commit, sub.origin.late) == ("submit/b-late", shas[3], True)
    assert sub.origin.note.endswith("1 min after the deadline")
    early = read_at_deadline(repo, parse_deadline("2026-12-01T00:00Z"))
    assert early.origin is not None and early.origin.ref == "submit/b-late"
    assert early.origin.note.endswith(", 1 d after the deadline")
    git(repo, "tag", "-d", "submit/b-late")
    sub = read_at_deadline(repo, DEADLINE)
    assert sub.origin is not None and sub.origin.note.endswith(", 2 h 10 min after the deadline")
    assert sub.files == {"micrograd/engine.py": f"# version at {LATE}\n".encode()}


def test_tags_on_the_same_commit_time_are_chosen_by_name(history: tuple[Path, list[str]]) -> None:
    repo, shas = history
    git(repo, "tag", "submit/2026-11-20T220103Z-b", shas[0])
    git(repo, "tag", "submit/2026-11-20T220103Z-a", shas[0])
    git(repo, "tag", "other", shas[1])  # not a submit tag
    sub = read_at_deadline(repo, DEADLINE)
    assert sub.origin is not None and sub.origin.ref == "submit/2026-11-20T220103Z-b"


def test_without_tags_the_latest_commit_before_the_deadline_is_graded(history: tuple[Path, list[str]]) -> None:
    repo, shas = history
    sub = read_at_deadline(repo, DEADLINE)
    assert sub.origin is not None
    assert (sub.origin.ref, sub.origin.commit, sub.origin.late) == ("HEAD", shas[1], False)
    assert sub.origin.note.endswith(f"(commit {shas[1][:7]}, {ON_TIME_2}), on time")
    assert sub.files == {"micrograd/engine.py": f"# version at {ON_TIME_2}\n".encode()}
    exact = read_at_deadline(repo, parse_deadline(LATE))  # a commit at the deadline itself is on time
    assert exact.origin is not None and (exact.origin.commit, exact.origin.late) == (shas[2], False)


def test_without_tags_and_no_commit_in_time_head_is_graded_late(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "bob")
    commit(repo, LATE, {"engine.py": "# late\n"})
    head = commit(repo, LATE_2, {"engine.py": "# later\n"})
    git(repo, "checkout", "-q", "-b", "side", "HEAD~1")  # HEAD is what counts, not the newest branch
    sub = read_at_deadline(repo, DEADLINE)
    assert sub.origin is not None
    assert (sub.origin.ref, sub.origin.commit, sub.origin.late) == ("HEAD", git(repo, "rev-parse", "HEAD"), True)
    assert sub.files == {"engine.py": b"# late\n"}
    git(repo, "checkout", "-q", head)  # a detached HEAD
    sub = read_at_deadline(repo, DEADLINE)
    assert sub.origin is not None and sub.origin.commit == head and sub.files == {"engine.py": b"# later\n"}


@pytest.mark.parametrize("annotated", [True, False], ids=["annotated", "lightweight"])
def test_annotated_and_lightweight_tags_count_by_their_commit(tmp_path: Path, annotated: bool) -> None:
    repo = make_repo(tmp_path / "carol")
    first = commit(repo, ON_TIME, {"engine.py": "# one\n"})
    tag(repo, "submit/one", annotated, when=LATE_2)  # a tag made late for a commit on time counts as on time
    commit(repo, LATE, {"engine.py": "# two\n"})
    tag(repo, "submit/two", annotated, when=LATE)
    sub = read_at_deadline(repo, DEADLINE)
    assert sub.origin is not None
    assert (sub.origin.ref, sub.origin.commit, sub.origin.late) == ("submit/one", first, False)
    assert sub.files == {"engine.py": b"# one\n"}


def test_packed_refs_and_packed_objects(history: tuple[Path, list[str]]) -> None:
    repo, shas = history
    git(repo, "tag", "-a", "-m", "x", "submit/annotated", shas[0])
    git(repo, "tag", "submit/light", shas[1])
    git(repo, "gc", "-q")
    git(repo, "pack-refs", "--all")
    assert not list((repo / ".git" / "refs" / "tags").rglob("*light*"))
    assert not [p for p in (repo / ".git" / "objects").iterdir() if len(p.name) == 2]
    sub = read_at_deadline(repo, DEADLINE)
    assert sub.error == "" and sub.origin is not None
    assert (sub.origin.ref, sub.origin.commit) == ("submit/light", shas[1])
    git(repo, "tag", "-d", "submit/light")
    git(repo, "tag", "-d", "submit/annotated")
    sub = read_at_deadline(repo, DEADLINE)
    assert sub.origin is not None and (sub.origin.ref, sub.origin.commit) == ("HEAD", shas[1])


def test_shallow_clone_is_read(history: tuple[Path, list[str]], tmp_path: Path) -> None:
    repo, shas = history
    clone = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "3", f"file://{repo}", str(clone))
    sub = read_at_deadline(clone, DEADLINE)
    assert sub.error == "" and sub.origin is not None and sub.origin.commit == shas[1]


def test_sha256_repository(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "dave", "--object-format=sha256")
    sha = commit(repo, ON_TIME, {"engine.py": "# sha-256\n"})
    tag(repo, "submit/x", annotated=True)
    sub = read_at_deadline(repo, DEADLINE)
    assert len(sha) == 64 and sub.origin is not None and sub.origin.commit == sha
    assert sub.files == {"engine.py": b"# sha-256\n"}


def test_empty_repository_is_an_error(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "empty")
    assert is_repository(repo)
    sub = read_at_deadline(repo, DEADLINE)
    assert sub.error == "the repository has no commits" and sub.origin is None


def test_a_git_file_or_link_is_not_a_repository(history: tuple[Path, list[str]], tmp_path: Path) -> None:
    repo, _ = history
    pointer = tmp_path / "worktree"
    pointer.mkdir()
    (pointer / ".git").write_text(f"gitdir: {repo / '.git'}\n")
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / ".git").symlink_to(repo / ".git")
    plain = tmp_path / "plain"
    plain.mkdir()
    assert is_repository(repo)
    for entry in (pointer, linked):
        assert not is_repository(entry)
        sub = read_at_deadline(entry, DEADLINE)
        assert ".git is a file or a symbolic link" in sub.error and sub.files == {}
    assert not is_repository(plain) and "not a git repository" in read_at_deadline(plain, DEADLINE).error


def test_nothing_in_the_repository_runs(history: tuple[Path, list[str]], tmp_path: Path) -> None:
    repo, shas = history
    git(repo, "tag", "-a", "-m", "x", "submit/one", shas[0])
    marker = tmp_path / "marker"
    hook = f"#!/bin/sh\ntouch '{marker}'\n"
    for name in ("post-checkout", "pre-commit", "reference-transaction", "post-index-change", "fsmonitor-watchman"):
        (repo / ".git" / "hooks" / name).write_text(hook)
        (repo / ".git" / "hooks" / name).chmod(0o755)
    with open(repo / ".git" / "config", "a") as f:
        f.write(f"[core]\n\tfsmonitor = {repo / '.git' / 'hooks' / 'fsmonitor-watchman'}\n"
                f"\tpager = touch '{marker}'; cat\n\tsshCommand = touch '{marker}'\n"
                f"[diff]\n\texternal = {repo / '.git' / 'hooks' / 'pre-commit'}\n")
    before = snapshot(repo / ".git")
    for deadline in (DEADLINE, parse_deadline("2020-01-01")):
        sub = read_at_deadline(repo, deadline)
        assert sub.error == "" and sub.origin is not None
    assert snapshot(repo / ".git") == before  # nothing written into the student's repository
    git(repo, "tag", "-d", "submit/one")
    assert read_at_deadline(repo, DEADLINE).origin is not None
    assert not marker.exists()
    subprocess.run(["git", "-C", str(repo), "status"], capture_output=True, env={**os.environ, "HOME": str(tmp_path)})
    assert marker.exists(), "the repository's own configuration does run the marker hook"


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    return {p.relative_to(folder).as_posix(): (p.lstat().st_size, p.lstat().st_mtime_ns) for p in folder.rglob("*")}


def test_the_graders_environment_does_not_reach_git(history: tuple[Path, list[str]], tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    repo, shas = history
    marker = tmp_path / "marker"
    monkeypatch.setenv("GIT_DIR", str(tmp_path / "elsewhere"))
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", "'core.pager'='touch marker'")
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "core.commitGraph")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", "not a boolean")
    monkeypatch.chdir(tmp_path)
    sub = read_at_deadline(repo, DEADLINE)
    assert sub.error == "" and sub.origin is not None and sub.origin.commit == shas[1]
    assert not marker.exists()


def test_limits_on_time_and_tags(history: tuple[Path, list[str]], monkeypatch: pytest.MonkeyPatch) -> None:
    repo, shas = history
    for i in range(4):
        git(repo, "tag", f"submit/{i}", shas[i])
    monkeypatch.setattr(git_refs, "MAX_REFS", 3)
    assert read_at_deadline(repo, DEADLINE).error == "the repository has more than 3 submit tags"
    monkeypatch.setattr(git_refs, "MAX_REFS", 4)
    assert read_at_deadline(repo, DEADLINE).error == ""
    monkeypatch.setattr(git_objects, "GIT_TIMEOUT", 0.0)
    assert read_at_deadline(repo, DEADLINE).error == "reading the repository took more than 0 s"


def test_borrowed_objects_are_refused(history: tuple[Path, list[str]], tmp_path: Path) -> None:
    repo, _ = history
    clone = tmp_path / "shared"
    git(tmp_path, "clone", "-q", "--shared", str(repo), str(clone))
    assert "borrows objects from another one" in read_at_deadline(clone, DEADLINE).error


def test_symbolic_links_and_submodules_are_ignored_with_a_note(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "erin")
    (repo / "micrograd").mkdir()
    (repo / "micrograd" / "engine.py").symlink_to("/etc/passwd")
    (repo / "nn.py").write_text("# nn\n")
    sha = commit(repo, ON_TIME, {})
    blob = git(repo, "rev-parse", f"{sha}:nn.py")
    git(repo, "update-index", "--add", "--cacheinfo", f"160000,{sha},vendored")
    git(repo, "update-index", "--add", "--cacheinfo", f"100644,{blob},.hidden/x.py")
    git(repo, "commit", "-q", "-m", "submodule", when=ON_TIME_2)
    sub = read_at_deadline(repo, DEADLINE)
    assert sub.error == ""
    assert sub.files == {"nn.py": b"# nn\n"}
    assert "ignored symbolic link micrograd/engine.py" in sub.notes
    assert "ignored submodule vendored" in sub.notes


def test_the_files_read_are_those_of_a_checkout(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "frank")
    files = {"micrograd/engine.py": "# engine\n", "micrograd/nn.py": "# nn\n", "micrograd/__init__.py": "",
             "notebooks/value_ops.ipynb": '{"cells": []}\n', "README.md": "# not read\n",
             ".hidden/skip.py": "# hidden folder\n", ".dotfile.py": "# a hidden file is read\n",
             "node_modules/x.py": "# skipped\n", "venv/lib.py": "# skipped\n", "sub/__pycache__/c.py": "# skipped\n",
             "/".join(f"d{i}" for i in range(14)) + "/deep.py": "# too deep\n",
             "/".join(f"d{i}" for i in range(12)) + "/ok.py": "# deep but read\n",
             "caf\u00e9/\u00fcber.py": "# UTF-8 names are read\n"}
    sha = commit(repo, ON_TIME, files)
    (repo / "link.py").symlink_to("micrograd/nn.py")
    (repo / os.fsdecode(b"bad\xff.py")).write_text("# name not UTF-8\n")
    sha = commit(repo, ON_TIME_2, {})
    commit(repo, LATE, {"micrograd/engine.py": "# changed late\n"})
    sub = read_at_deadline(repo, DEADLINE)
    expected = read_submission(checkout(repo, sha, tmp_path / "frank-checkout"))
    assert sub.error == expected.error == ""
    assert sub.files == expected.files
    assert b"# UTF-8 names are read\n" in sub.files.values()
    assert "ignored symbolic link link.py" in sub.notes and "ignored symbolic link link.py" in expected.notes
    assert "ignored folders more than 12 levels deep" in sub.notes
    assert "ignored a file whose name is not UTF-8: bad\\xff.py" in sub.notes


def test_a_file_over_the_cap_is_the_same_error_as_for_a_folder(history: tuple[Path, list[str]], tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    repo, _ = history
    sha = commit(repo, ON_TIME_2, {"micrograd/nn.py": "x = 1\n" * 20})
    git(repo, "tag", "submit/big", sha)
    monkeypatch.setattr(submission, "MAX_FILE_BYTES", 100)
    sub = read_at_deadline(repo, DEADLINE)
    expected = read_submission(checkout(repo, sha, tmp_path / "checkout"))
    assert sub.error == expected.error == "nn.py is 120 bytes, more than the 100 allowed"
    assert sub.origin is not None and sub.origin.ref == "submit/big"
    monkeypatch.setattr(submission, "MAX_TOTAL_BYTES", 130)
    monkeypatch.setattr(submission, "MAX_FILE_BYTES", 1000)
    assert read_at_deadline(repo, DEADLINE).error == "the submission's source files exceed 130 bytes"


def test_broken_refs_are_noted_or_an_error(history: tuple[Path, list[str]]) -> None:
    repo, shas = history
    tags = repo / ".git" / "refs" / "tags" / "submit"
    tags.mkdir(parents=True)
    (tags / "garbage").write_text("not an object id\n")
    (tags / "missing").write_text("0" * 40 + "\n")
    (tags / "link").symlink_to(repo / ".git" / "refs" / "heads" / "main")
    (tags / "good").write_text(shas[0] + "\n")
    sub = read_at_deadline(repo, DEADLINE)
    assert sub.origin is not None and sub.origin.ref == "submit/good"
    assert any(n.startswith("ignored tag submit/garbage") for n in sub.notes)
    assert any(n.startswith("ignored tag submit/missing") for n in sub.notes)
    assert any(n.startswith("ignored tag submit/link") for n in sub.notes)
    (repo / ".git" / "HEAD").write_text("ref: ../../../etc/passwd\n")
    for t in tags.iterdir():
        t.unlink()
    assert "symbolic ref" in read_at_deadline(repo, DEADLINE).error


def test_no_git_on_path_is_the_graders_problem(history: tuple[Path, list[str]],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    repo, _ = history
    monkeypatch.setattr(git_objects.shutil, "which", lambda name: None)
    with pytest.raises(GraderError, match="install git"):
        read_at_deadline(repo, DEADLINE)


SECOND = timedelta(seconds=1)


def test_windows_with_their_own_due_dates_grade_their_own_commits(history: tuple[Path, list[str]]) -> None:
    repo, shas = history
    first, second, third = read_at_deadlines(repo, [(parse_deadline(ON_TIME), None), (DEADLINE, None),
                                                    (parse_deadline(LATE) - SECOND, None)])
    assert first.error == second.error == third.error == "" and first.id == second.id == third.id == "alice"
    assert first.origin is not None and second.origin is not None and third.origin is not None
    assert (first.origin.commit, first.origin.time, first.origin.late) == (shas[0], ON_TIME, False)
    assert first.origin.note == f"graded the latest commit of HEAD at the deadline (commit {shas[0][:7]}, {ON_TIME}), on time"
    assert first.files == {"micrograd/engine.py": f"# version at {ON_TIME}\n".encode()}
    assert first.mtimes == {"micrograd/engine.py": float(epoch(ON_TIME))}
    for sub in (second, third):  # one second before LATE is still ON_TIME_2's window
        assert sub.origin is not None and (sub.origin.commit, sub.origin.time, sub.origin.late) == (shas[1], ON_TIME_2, False)
        assert sub.files == {"micrograd/engine.py": f"# version at {ON_TIME_2}\n".encode()}
        assert sub.mtimes == {"micrograd/engine.py": float(epoch(ON_TIME_2))}
    assert read_at_deadlines(repo, []) == []


def test_a_cutoff_grades_the_latest_commit_at_or_before_it_late(history: tuple[Path, list[str]]) -> None:
    repo, shas = history
    due = parse_deadline(ON_TIME) - SECOND  # nothing is on time
    at_cutoff, before_it, no_cutoff, nothing_before, on_time = read_at_deadlines(
        repo, [(due, parse_deadline(LATE)), (due, parse_deadline(LATE) - SECOND), (due, None), (due, due),
               (due + SECOND, parse_deadline(LATE))])
    assert at_cutoff.origin is not None and at_cutoff.error == ""
    assert (at_cutoff.origin.ref, at_cutoff.origin.commit, at_cutoff.origin.late) == ("HEAD", shas[2], True)
    assert at_cutoff.origin.note == (f"graded the latest commit of HEAD at the cut-off (commit {shas[2][:7]}, {LATE}), "
                                     "10 d 4 h 7 min after the deadline")
    assert at_cutoff.files == {"micrograd/engine.py": f"# version at {LATE}\n".encode()}
    assert at_cutoff.mtimes == {"micrograd/engine.py": float(epoch(LATE))}
    assert before_it.origin is not None and (before_it.origin.commit, before_it.origin.late) == (shas[1], True)
    assert before_it.origin.note.endswith(f"(commit {shas[1][:7]}, {ON_TIME_2}), 4 d 11 h 58 min after the deadline")
    assert before_it.files == {"micrograd/engine.py": f"# version at {ON_TIME_2}\n".encode()}
    for sub in (no_cutoff, nothing_before):  # nothing at or before the cut-off either: HEAD, late
        assert sub.origin is not None and (sub.origin.commit, sub.origin.late) == (shas[3], True)
        assert sub.origin.note == f"graded HEAD (commit {shas[3][:7]}, {LATE_2}), 11 d 1 h 58 min after the deadline"
        assert sub.files == {"micrograd/engine.py": f"# version at {LATE_2}\n".encode()}
    assert on_time.origin is not None and (on_time.origin.commit, on_time.origin.late) == (shas[0], False)
    assert on_time.origin.note.endswith(f"(commit {shas[0][:7]}, {ON_TIME}), on time")


def test_a_cutoff_with_submit_tags(history: tuple[Path, list[str]]) -> None:
    repo, shas = history
    for name, sha in (("a", shas[0]), ("b", shas[2]), ("c", shas[3])):
        git(repo, "tag", f"submit/{name}", sha)
    due = parse_deadline(ON_TIME) - SECOND
    subs = read_at_deadlines(repo, [(due, parse_deadline(LATE)), (due, parse_deadline(LATE) - SECOND), (due, due),
                                    (due, None), (due + SECOND, parse_deadline(LATE))])
    assert [s.error for s in subs] == [""] * 5
    origins = [s.origin for s in subs]
    assert [(o.ref, o.commit, o.late) for o in origins if o] == [
        ("submit/b", shas[2], True), ("submit/a", shas[0], True), ("submit/c", shas[3], True),
        ("submit/c", shas[3], True), ("submit/a", shas[0], False)]
    assert [o.note for o in origins if o] == [
        f"graded submit/b (commit {shas[2][:7]}, {LATE}), 10 d 4 h 7 min after the deadline",
        f"graded submit/a (commit {shas[0][:7]}, {ON_TIME}), 1 s after the deadline",
        f"graded submit/c (commit {shas[3][:7]}, {LATE_2}), 11 d 1 h 58 min after the deadline",
        f"graded submit/c (commit {shas[3][:7]}, {LATE_2}), 11 d 1 h 58 min after the deadline",
        f"graded submit/a (commit {shas[0][:7]}, {ON_TIME}), on time"]
    assert [s.files for s in subs] == [{"micrograd/engine.py": f"# version at {when}\n".encode()}
                                       for when in (LATE, ON_TIME, LATE_2, LATE_2, ON_TIME)]
    assert [s.mtimes for s in subs] == [{"micrograd/engine.py": float(epoch(when))}
                                        for when in (LATE, ON_TIME, LATE_2, LATE_2, ON_TIME)]


@pytest.mark.parametrize("tagged", [False, True], ids=["head", "tags"])
def test_a_repository_is_read_once_for_all_its_windows(history: tuple[Path, list[str]], tagged: bool,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    repo, shas = history
    for i, sha in enumerate(shas if tagged else []):
        git(repo, "tag", f"submit/{i}", sha)
    (repo / ".git" / "refs" / "tags" / "submit").mkdir(parents=True, exist_ok=True)
    (repo / ".git" / "refs" / "tags" / "submit" / "garbage").write_text("not an object id\n")
    calls: Counter[tuple[str, ...]] = Counter()
    run, packed, tags = git_history.Git.run, git_history.packed_refs, git_history.submit_tags

    def counting_run(self: git_history.Git, *args: str, stdin: bytes = b"", limit: int = 1 << 20) -> bytes:
        calls[args[:1] if args[0] == "ls-tree" else args[:2]] += 1
        return run(self, *args, stdin=stdin, limit=limit)

    def counting(name: str, f: Callable[..., Any]) -> Callable[..., Any]:
        def counted(*args: Any) -> Any:
            calls[(name,)] += 1
            return f(*args)
        return counted

    monkeypatch.setattr(git_history.Git, "run", counting_run)
    monkeypatch.setattr(git_history, "packed_refs", counting("packed-refs", packed))
    monkeypatch.setattr(git_history, "submit_tags", counting("submit tags", tags))
    windows = [(DEADLINE, None), (DEADLINE, None), (parse_deadline(ON_TIME_2), None), (parse_deadline(LATE_2), None),
               (parse_deadline(LATE_2), parse_deadline(LATE_2))]
    subs = read_at_deadlines(repo, windows)
    assert [s.origin.commit for s in subs if s.origin] == [shas[1], shas[1], shas[1], shas[3], shas[3]]
    assert calls[("ls-tree",)] == 2 and calls[("cat-file", "--batch")] == 2  # one tree and one blob read per commit
    assert calls[("packed-refs",)] == calls[("submit tags",)] == 1
    assert calls[("cat-file", "--batch-check=%(objectname) %(objecttype)")] == 1  # the tags, or HEAD, peeled once
    logs = sum(n for k, n in calls.items() if k[0] == "log")
    assert (logs == calls[("log", "--no-walk=unsorted")] == 1) if tagged else logs == 3  # tags dated once; a walk per due
    assert all(s.notes == ["ignored tag submit/garbage: .git/refs/tags/submit/garbage does not hold an object id"]
               for s in subs)
    for one, other in ((subs[0], subs[1]), (subs[3], subs[4])):  # equal, but copies
        assert (one.files, one.mtimes, one.notes) == (other.files, other.mtimes, other.notes)
        assert one.files is not other.files and one.mtimes is not other.mtimes and one.notes is not other.notes
    subs[0].files.clear()
    subs[0].notes.append("changed")
    subs[0].mtimes.clear()
    assert subs[1].files == subs[2].files == {"micrograd/engine.py": f"# version at {ON_TIME_2}\n".encode()}
    assert subs[1].mtimes == {"micrograd/engine.py": float(epoch(ON_TIME_2))} and "changed" not in subs[1].notes


def test_an_unreadable_repository_is_every_windows_error(history: tuple[Path, list[str]], tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    repo, _ = history
    windows = [(DEADLINE, None), (parse_deadline(ON_TIME), DEADLINE), (parse_deadline(LATE_2), None)]
    (repo / ".git" / "HEAD").write_text("ref: ../../../etc/passwd\n")
    subs = read_at_deadlines(repo, windows)
    assert [(s.error, s.origin, s.files, s.mtimes) for s in subs] == [("a symbolic ref names '../../../etc/passwd'",
                                                                      None, {}, {})] * 3
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / ".git").symlink_to(repo / ".git")
    errors = [s.error for s in read_at_deadlines(linked, windows)]
    assert len(set(errors)) == 1 and errors[0].startswith(".git is a file or a symbolic link")
    (repo / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    monkeypatch.setattr(git_objects, "GIT_TIMEOUT", 0.0)
    assert [s.error for s in read_at_deadlines(repo, windows)] == ["reading the repository took more than 0 s"] * 3


def test_a_problem_with_one_commits_files_is_only_its_windows_error(history: tuple[Path, list[str]],
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    repo, shas = history
    big = commit(repo, LATE_2, {"micrograd/nn.py": "x = 1\n" * 20})
    monkeypatch.setattr(submission, "MAX_FILE_BYTES", 100)
    on_time, late = read_at_deadlines(repo, [(DEADLINE, None), (parse_deadline(LATE_2), None)])
    assert on_time.error == "" and on_time.origin is not None and on_time.origin.commit == shas[1]
    assert on_time.files == {"micrograd/engine.py": f"# version at {ON_TIME_2}\n".encode()}
    assert late.error == "nn.py is 120 bytes, more than the 100 allowed"
    assert late.origin is not None and late.origin.commit == big
