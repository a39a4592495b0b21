"""Whatever a worker leaves in its scratch folder, cleanup removes it, and nothing outside it."""

from __future__ import annotations

import json
import os
import stat
import sys
import tempfile
from pathlib import Path

import pytest

from grader.files import remove_tree

AS_ROOT = getattr(os, "geteuid", lambda: -1)() == 0


def deep_chain(root: Path, depth: int) -> Path:
    """``root/a/a/.../a`` ``depth`` folders deep, made relative to each folder (the path outgrows PATH_MAX)."""
    root.mkdir()
    fd = os.open(root, os.O_RDONLY)
    for _ in range(depth):
        os.mkdir("a", dir_fd=fd)
        child = os.open("a", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = child
    with open(os.open("deepest.txt", os.O_WRONLY | os.O_CREAT, 0o600, dir_fd=fd), "w") as f:
        f.write("bottom")
    os.close(fd)
    return root


@pytest.mark.skipif(os.open not in os.supports_dir_fd, reason="needs folder-relative calls (POSIX)")
def test_a_chain_three_thousand_folders_deep_is_removed(tmp_path):
    root = deep_chain(tmp_path / "scratch", 3000)
    assert remove_tree(root) == []
    assert not root.exists()


def locked_tree(root: Path, outside: Path) -> Path:
    """Folders with no permission at all, a read-only file, links out of the tree, a FIFO."""
    (root / "open" / "locked" / "inner").mkdir(parents=True)
    (root / "open" / "locked" / "inner" / "file.txt").write_text("x")
    (root / "readonly.txt").write_text("x")
    (root / "readonly.txt").chmod(0o400)
    (root / "link-to-outside").symlink_to(outside)
    (root / "dir-link-to-outside").symlink_to(outside.parent, target_is_directory=True)
    if hasattr(os, "mkfifo"):
        os.mkfifo(root / "fifo")
    (root / "open" / "locked" / "inner").chmod(0)
    (root / "open" / "locked").chmod(0)
    return root


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions and links")
@pytest.mark.parametrize("relative", [True, False], ids=["folder-relative", "by-path"])
def test_locked_folders_links_and_fifos_go_and_nothing_outside_is_touched(tmp_path, monkeypatch, relative):
    if not relative:  # the fallback of hosts without folder-relative calls (Windows)
        monkeypatch.setattr(os, "supports_dir_fd", set())
    outside = tmp_path / "keep" / "precious.txt"
    outside.parent.mkdir()
    outside.write_text("precious")
    root = locked_tree(tmp_path / "scratch", outside)
    assert remove_tree(root) == []
    assert not root.exists() and outside.read_text() == "precious"


@pytest.mark.skipif(not AS_ROOT or not sys.platform.startswith("linux"), reason="acts as a normal user from root")
def test_a_normal_user_removes_the_chmod_000_folders_it_made(tmp_path):
    """As the grading user without privileges (root ignores permissions): the locked folders still go."""
    base = Path(tempfile.mkdtemp(prefix="grader-cleanup-", dir="/tmp"))  # pytest's tmp_path is root's alone
    os.chown(base, 65534, 65534)
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
            outside = base / "precious.txt"
            outside.write_text("precious")
            root = locked_tree(base / "scratch", outside)
            failed = remove_tree(root)
            result = {"failed": failed, "gone": not root.exists(), "kept": outside.exists()}
        except BaseException as exc:  # noqa: BLE001
            result = {"error": repr(exc)}
        os.write(w, json.dumps(result).encode())
        os._exit(0)
    os.close(w)
    with os.fdopen(r) as f:
        result = json.loads(f.read())
    os.waitpid(pid, 0)
    remove_tree(base)
    assert result == {"failed": [], "gone": True, "kept": True}


def test_a_link_or_a_missing_root_is_handled(tmp_path):
    target = tmp_path / "target"
    target.mkdir()
    (target / "file").write_text("x")
    link = tmp_path / "link"
    link.symlink_to(target, target_is_directory=True)
    assert remove_tree(link) == []
    assert not link.exists() and (target / "file").exists()
    assert remove_tree(tmp_path / "missing") == []
    assert stat.S_ISDIR(os.stat(target).st_mode)
