"""Git on a student repository's objects, run by the grader on a temporary bare repository of its own.

The student's repository is never opened by git: :class:`Git` makes a fresh bare repository that borrows its objects
(``objects/info/alternates``), with no system, global or repository configuration, no hooks, pager, replace objects,
commit-graph or terminal, and one time limit (:data:`GIT_TIMEOUT`) for all the git commands reading one repository;
every answer is capped in size. :mod:`grader.intake.git_history` picks the graded commits with it and
:mod:`grader.intake.other_branches` looks at the branches beside them; the helpers here turn what git or the
repository says into bounded, printable text and UTC times.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

from grader.errors import GraderError, SubmissionError
from grader.intake.git_refs import HEX

GIT_TIMEOUT = 60.0
"""Seconds all the git commands reading one repository may take together."""


class Git:
    """Runs git on a temporary bare repository borrowing a student's objects, within one time budget."""

    def __init__(self, git_dir: Path, objects: Path, sha256: bool) -> None:
        exe = shutil.which("git")
        if exe is None:
            raise GraderError("grading git repositories at a due date needs git: install git and put it on PATH")
        if "\n" in str(objects) or "\r" in str(objects):
            raise SubmissionError("the repository's path holds a line break")
        (git_dir / "objects" / "info").mkdir(parents=True)
        (git_dir / "refs").mkdir()
        (git_dir / "HEAD").write_text("ref: refs/heads/none\n", encoding="ascii")
        (git_dir / "objects" / "info" / "alternates").write_text(f"{objects}\n", encoding="utf-8")
        fmt = "1\n\tbare = true\n[extensions]\n\tobjectformat = sha256\n" if sha256 else "0\n\tbare = true\n"
        (git_dir / "config").write_text(f"[core]\n\trepositoryformatversion = {fmt}", encoding="ascii")
        home = str(git_dir.parent)
        self.env = {k: v for k, v in os.environ.items() if k in ("PATH", "SYSTEMROOT", "TMPDIR", "TEMP", "TMP")}
        self.env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull, HOME=home, USERPROFILE=home,
                        XDG_CONFIG_HOME=home, GIT_TERMINAL_PROMPT="0", GIT_NO_REPLACE_OBJECTS="1",
                        GIT_OPTIONAL_LOCKS="0", GIT_ATTR_NOSYSTEM="1", GIT_NO_LAZY_FETCH="1", LC_ALL="C",
                        GIT_PAGER="cat", PAGER="cat")
        self.base = [exe, "--no-pager", f"--git-dir={git_dir}", "-c", "core.commitGraph=false",
                     "-c", "core.multiPackIndex=false"]
        self.dir, self.until = git_dir, time.monotonic() + GIT_TIMEOUT

    def run(self, *args: str, stdin: bytes = b"", limit: int = 1 << 20) -> bytes:
        """Run one git command; its output, at most ``limit`` bytes, else a SubmissionError."""
        with tempfile.TemporaryFile() as feed, tempfile.TemporaryFile() as err:
            feed.write(stdin)
            feed.seek(0)
            proc = subprocess.Popen([*self.base, *args], stdin=feed, stdout=subprocess.PIPE, stderr=err,
                                    cwd=self.dir, env=self.env)
            timer = threading.Timer(max(0.0, self.until - time.monotonic()), proc.kill)
            timer.start()
            out = bytearray()
            try:
                assert proc.stdout is not None
                while len(out) <= limit and (chunk := os.read(proc.stdout.fileno(), 1 << 16)):
                    out += chunk
                if len(out) > limit:
                    proc.kill()
                code = proc.wait()
            finally:
                timer.cancel()
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
                if proc.stdout is not None:
                    proc.stdout.close()
            if time.monotonic() >= self.until:
                raise SubmissionError(f"reading the repository took more than {GIT_TIMEOUT:g} s")
            if len(out) > limit:
                raise SubmissionError(f"git {args[0]} gave more than {limit} bytes for this repository")
            if code != 0:
                err.seek(0)
                why = err.read(300).decode("utf-8", "replace").strip().splitlines() or [f"status {code}"]
                raise SubmissionError(f"git {args[0]} failed on the repository: {printable(why[0].encode())}")
        return bytes(out)


def peel(git: Git, oids: list[str]) -> dict[str, str | None]:
    """Map each object id to the commit it peels to (a tag object to its commit), or None."""
    if not oids:
        return {}
    out = git.run("cat-file", "--batch-check=%(objectname) %(objecttype)",
                  stdin="".join(f"{o}^{{commit}}\n" for o in oids).encode(), limit=200 * len(oids))
    lines = [line.split() for line in out.decode("ascii", "replace").splitlines()]
    if len(lines) != len(oids):
        raise SubmissionError("git cat-file gave an unexpected answer")
    return {o: f[0] if len(f) == 2 and f[1] == "commit" and HEX.fullmatch(f[0]) else None
            for o, f in zip(oids, lines)}


def commit_times(git: Git, commits: list[str], *options: str) -> dict[str, int]:
    """Map commits (``commits`` alone, or as ``options`` say) to their committer dates, in git's order."""
    if not commits:
        return {}
    out = git.run("log", *(options or ("--no-walk=unsorted",)), "-z", "--format=%H %ct", *commits, "--")
    found: dict[str, int] = {}
    for record in out.decode("ascii", "replace").split("\0"):
        oid, _, ct = record.strip().partition(" ")
        if HEX.fullmatch(oid) and re.fullmatch(r"-?\d{1,15}", ct):
            found.setdefault(oid, int(ct))
    return found


def is_utf8(name: bytes) -> bool:
    """Whether a name from the repository is valid UTF-8."""
    return name.decode("utf-8", "replace").encode() == name  # an invalid byte comes back as U+FFFD


def printable(raw: bytes) -> str:
    """Bytes from the repository for a note: UTF-8 with other bytes as ``\\xNN``, printable, capped."""
    shown = "".join(c if c.isprintable() else "?" for c in raw.decode("utf-8", "backslashreplace"))
    return shown if len(shown) <= 200 else shown[:197] + "..."


LATEST = datetime(9999, 12, 31, 23, 59, 59, tzinfo=timezone.utc)
"""The latest date written (a commit dated later, as a student can date it, is shown, and counted, as this)."""


def utc(ct: float) -> str:
    """A committer date as ``YYYY-MM-DDTHH:MM:SSZ``, clamped to years 1970 to 9999 (both readable by the policy)."""
    try:
        when = datetime.fromtimestamp(max(ct, 0), timezone.utc)
    except (OverflowError, OSError, ValueError):
        when = LATEST
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def duration(seconds: int) -> str:
    """``2 h 10 min``, ``3 d 1 h``, ``45 s``."""
    if seconds < 60:
        return f"{seconds} s"
    d, rest = divmod(seconds // 60, 24 * 60)
    h, m = divmod(rest, 60)
    return " ".join(f"{n} {unit}" for n, unit in ((d, "d"), (h, "h"), (m, "min")) if n)
