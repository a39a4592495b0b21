"""A student repository's refs, read as bounded plain data: git itself never opens the student's repository.

``HEAD``, the ``submit/*`` tags (loose under ``.git/refs/tags/submit/`` or in ``.git/packed-refs``), the branches
(:func:`branches`) and the symbolic refs between them are read here without following a symbolic link on the way,
each file capped in size, the refs capped in number (:data:`MAX_REFS`), and every name checked (:func:`valid_name`);
:mod:`grader.intake.git_history` hands the object ids found to git on a repository of its own.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from grader.errors import SubmissionError

MAX_REFS = 1000
"""Most ``submit/*`` tags, and most branches, read from one repository."""
HEX = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
"""A full SHA-1 or SHA-256 object id."""
_PART = re.compile(r"[A-Za-z0-9_+=,@-][A-Za-z0-9._+=,@-]{0,99}")


def read_small(git_dir: Path, rel: str, cap: int) -> bytes | None:
    """The bytes of ``.git/<rel>``, or None if it is not a file; no symbolic link is followed on the way."""
    path = git_dir
    for part in rel.split("/"):
        path = path / part
        try:
            st = path.lstat()
        except (FileNotFoundError, NotADirectoryError):
            return None
        if stat.S_ISLNK(st.st_mode):
            raise SubmissionError(f".git/{rel} is a symbolic link")
    if not stat.S_ISREG(st.st_mode):
        return None
    if st.st_size > cap:
        raise SubmissionError(f".git/{rel} is larger than {cap} bytes")
    with open(path, "rb") as f:
        return f.read(cap)


def valid_name(name: str) -> bool:
    """Whether a ref name is made of plain parts (no ``..``, no leading dot, no ``.lock``, no odd characters)."""
    return len(name) <= 255 and all(_PART.fullmatch(p) and not p.endswith((".lock", ".")) and ".." not in p
                                    for p in name.split("/"))


def packed_refs(git_dir: Path) -> dict[str, str]:
    """The refs of ``.git/packed-refs`` (``<oid> <name>`` lines; ``#`` and ``^`` lines skipped)."""
    refs: dict[str, str] = {}
    for line in (read_small(git_dir, "packed-refs", 4 << 20) or b"").decode("ascii", "replace").split("\n"):
        oid, _, name = line.strip().partition(" ")
        if HEX.fullmatch(oid.lower()) and name.startswith("refs/") and valid_name(name):
            refs[name] = oid.lower()
    return refs


def submit_tags(git_dir: Path, packed: dict[str, str]) -> list[str]:
    """The names (``refs/tags/submit/...``) of the submit tags, loose or packed, sorted."""
    names, complete = _under(git_dir, packed, "refs/tags/submit")
    if len(names) > MAX_REFS or not complete:
        raise SubmissionError(f"the repository has more than {MAX_REFS} submit tags")
    return names


def branches(git_dir: Path, packed: dict[str, str]) -> list[str]:
    """The names of the repository's branches, loose or packed, sorted: its own (``refs/heads/...``) and those a clone
    keeps of its remote (``refs/remotes/<remote>/...``), at most :data:`MAX_REFS` of them (the first by name when there
    are more: they are only looked at, never graded)."""
    names: list[str] = []
    for top in ("refs/heads", "refs/remotes"):
        names += _under(git_dir, packed, top)[0]
    return sorted(names)[:MAX_REFS]


def _under(git_dir: Path, packed: dict[str, str], top: str) -> tuple[list[str], bool]:
    """The refs named under ``top`` (a folder of ``.git``), loose or packed, sorted, and whether all were seen (False
    past :data:`MAX_REFS` names, or ten times as many entries in the folder)."""
    names = {n for n in packed if n.startswith(top + "/")}
    folder, seen = git_dir.joinpath(*top.split("/")), 0
    if not any(p.is_symlink() for p in (folder, *folder.parents[: len(top.split("/"))])) and folder.is_dir():
        for dirpath, dirnames, filenames in os.walk(folder):  # symbolic links to folders are not entered
            seen += len(dirnames) + len(filenames)
            if seen > 10 * MAX_REFS:
                break
            names.update(r for f in filenames if valid_name(r := Path(dirpath, f).relative_to(git_dir).as_posix()))
    return sorted(names), len(names) <= MAX_REFS and seen <= 10 * MAX_REFS


def resolve(git_dir: Path, packed: dict[str, str], name: str) -> str | None:
    """The object id the ref ``name`` points to, following at most 5 symbolic refs; None if it does not exist."""
    for _ in range(5):
        data = read_small(git_dir, name, 1024)
        if data is None:
            return packed.get(name)
        text = data.decode("ascii", "replace").strip()
        if not text.startswith("ref:"):
            if HEX.fullmatch(text.lower()):
                return text.lower()
            raise SubmissionError(f".git/{name} does not hold an object id")
        name = text[4:].strip()
        if not (name.startswith("refs/") and valid_name(name)):
            raise SubmissionError(f"a symbolic ref names {name[:100]!r}")
    raise SubmissionError("too many symbolic refs in a row")


def branch_tips(git_dir: Path, packed: dict[str, str]) -> dict[str, str]:
    """The repository's branches by short name (``master`` for ``refs/heads/master`` and for a clone's
    ``refs/remotes/origin/master``; a branch of its own wins over a remote's of the same name) to the object id each
    points to. A remote's ``HEAD`` (a pointer to one of its branches) and a ref that cannot be read are left out: the
    branches are only looked at, never graded."""
    tips: dict[str, str] = {}
    for name in branches(git_dir, packed):
        local = name.startswith("refs/heads/")
        short = name[len("refs/heads/"):] if local else name[len("refs/remotes/"):].partition("/")[2]
        if not short or short == "HEAD" or (short in tips and not local):
            continue
        try:
            if oid := resolve(git_dir, packed, name):
                tips[short] = oid
        except (SubmissionError, OSError):  # a link, a file too large or unreadable
            continue
    return tips
