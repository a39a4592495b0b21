"""Reading a student's git repository as it was at a deadline (``grader grade --deadline``), or for several windows.

A window is a due date and an optional cut-off for late work; a deadline is a window without a cut-off. Its
graded commit is the latest ``submit/*`` tag at or before the due date (on time), else the latest at or before
the cut-off, else the latest submit tag (these two marked late); without submit tags, the same with the
commits reachable from ``HEAD``, the last resort being ``HEAD`` itself. Times are *committer dates*: the
student's machine writes them and a student can fake them. The grader uses them as Classroom 50 does (its
result's datetime is the graded commit's committer date). For times a student cannot fake, give the server's push
records (:mod:`grader.intake.pushes`): the graded commit is then the one the ref pointed to after the last push
the server received at or before the due date (else the cut-off, else the last push: late), dated by the
server's clock, with ``submit/*`` tag pushes preferred to pushes of the branch ``HEAD`` names, as above. Another
branch is never graded; when the graded commit holds nothing of the student's while one has commits, the submission
says so (:mod:`grader.intake.other_branches`).

Student repositories are untrusted. Nothing is checked out and git never opens the student's repository: its refs
(``HEAD``, ``refs/tags/submit/*``, ``packed-refs``) are read here as bounded plain data, and git runs on a fresh
temporary bare repository that borrows the student's objects (``objects/info/alternates``), with no system, global
or repository configuration, no hooks, pager, replace objects, commit-graph or terminal, and one time limit for all
its git commands. A repository is opened once for all its windows and each graded commit's files are read once from
its tree, under the rules and caps of a folder (:mod:`grader.intake.submission`).
"""

from __future__ import annotations

import math
import os
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime
from pathlib import Path

from grader.errors import SubmissionError
from grader.intake import submission as S
from grader.intake.entry import Origin, Submission
from grader.intake.git_objects import Git, commit_times, duration, is_utf8, peel, printable, utc
from grader.intake.git_refs import HEX, packed_refs, read_small, resolve, submit_tags
from grader.intake.other_branches import OtherBranches
from grader.intake.pushes import Push
from grader.intake.submission import student_id


def is_repository(entry: Path) -> bool:
    """Whether ``entry`` is a folder holding a ``.git`` folder (not a symbolic link, not a ``.git`` file); False
    when that cannot be told (a folder whose permissions forbid looking in: reading it says why)."""
    git = entry / ".git"
    try:
        return entry.is_dir() and git.is_dir() and not git.is_symlink()
    except OSError:
        return False


def read_at_deadline(entry: Path, deadline: datetime) -> Submission:
    """Read the commit of the repository ``entry`` graded at ``deadline``: :func:`read_at_deadlines` for one window.

    Raises:
        GraderError: If git is not installed on this machine.
    """
    return read_at_deadlines(entry, [(deadline, None)])[0]


def read_at_deadlines(entry: Path, windows: Sequence[tuple[datetime, datetime | None]],
                      pushes: Sequence[Push] | None = None) -> list[Submission]:
    """Read the repository ``entry`` once for each of its windows (see the module docstring).

    Args:
        entry: The student's folder, holding ``.git``.
        windows: ``(due, cutoff)``, aware datetimes; ``cutoff`` None for no cut-off, else not before ``due``.
        pushes: The server's record of the pushes to this repository (None: none given, so committer dates are
            used; a record with no push of the branch or of a ``submit/*`` tag also falls back to them, with a note).

    Returns:
        One submission per window, in order; ``Submission.origin`` says which commit was graded and whether it
        is late (after ``due``), and, when it holds nothing of the student's while another branch has commits, says
        so (:mod:`grader.intake.other_branches`: a first note tells the student too). A problem with one commit's
        files is the ``Submission.error`` of the windows grading it; any other problem with the repository, every
        window's.

    Raises:
        GraderError: If git is not installed on this machine. A pushed commit that is not in the clone (force-pushed
            away, or a clone older than the record) is the error of the windows that grade it: the student's, never
            the class's.
    """
    def choose(repo: _Repo) -> list[Origin | SubmissionError]:
        pushed = repo.pushed(pushes) if pushes is not None else []
        beside = repo.others(pushes)
        picked: list[Origin | SubmissionError] = []
        for due, cutoff in windows:
            try:
                origin = repo.pick_pushed(pushed, due, cutoff) if pushed else repo.pick(due, cutoff)
            except SubmissionError as exc:  # this window's pushed commit is gone: this window's error, no other's
                picked.append(exc)
                continue
            found = beside.evidence(origin, due)
            picked.append(origin if found is None else
                          replace(origin, other_branch=found.line, other_branch_feedback=found.feedback))
        return picked

    return _read(entry, choose, len(windows))


def read_at_commits(entry: Path, commits: Sequence[str]) -> list[Submission]:
    """Read the repository ``entry`` at each of ``commits`` (the commits a graded class's results record, so that
    ``grader similarity`` compares the code that was graded), opened once; one submission per commit, its error
    saying so when the commit is not in the repository any more.

    Raises:
        GraderError: If git is not installed on this machine.
    """
    return _read(entry, lambda repo: [repo.at(commit) for commit in commits], len(commits))


def _read(entry: Path, choose: Callable[[_Repo], Sequence[Origin | SubmissionError]], count: int) -> list[Submission]:
    """One submission per commit ``choose`` picks in the opened repository (``count`` of them; a window it could not
    pick a commit for has its error)."""
    subs = [Submission(student_id(entry), entry) for _ in range(count)]
    notes: list[str] = []
    try:
        with tempfile.TemporaryDirectory(prefix="grader-git-") as tmp:
            repo = _Repo(entry, Path(tmp) / "borrow.git", notes)
            for sub, origin in zip(subs, choose(repo)):
                if isinstance(origin, SubmissionError):
                    sub.error = str(origin)
                    continue
                tree = repo.files(origin.commit)  # copied: windows grading one commit share nothing
                sub.origin, sub.error, sub.notes = origin, tree.error, tree.notes.copy()
                sub.files, sub.mtimes = tree.files.copy(), tree.mtimes.copy()
    except (SubmissionError, OSError) as exc:
        for sub in subs:
            sub.error = _why(exc)
    for sub in subs:
        # work on another branch first, then the repository's notes (ignored tags)
        sub.notes[:0] = [*([sub.origin.other_branch_feedback] if sub.origin and sub.origin.other_branch_feedback else []),
                         *notes]
        if not sub.error and not sub.files and sub.origin:
            sub.error = f"the submission is empty (commit {sub.origin.commit[:7]} has no .py, .ipynb or .yaml file)"
    return subs


def _why(exc: SubmissionError | OSError) -> str:
    return str(exc) if isinstance(exc, SubmissionError) else f"the repository could not be read ({exc.strerror or exc})"


class _Repo:
    """A student's repository opened once (its objects borrowed in ``tmp``, ignored tags noted in ``notes``):
    its refs read and tags dated once, then commits picked for windows and their trees read, cached."""

    def __init__(self, entry: Path, tmp: Path, notes: list[str]) -> None:
        git_dir, objects = entry / ".git", entry / ".git" / "objects"
        if git_dir.is_symlink() or (git_dir.exists() and not git_dir.is_dir()):
            raise SubmissionError(".git is a file or a symbolic link (a worktree or submodule), not a repository; "
                                  "grade a clone of the repository instead")
        if not git_dir.is_dir() or objects.is_symlink() or not objects.is_dir():
            raise SubmissionError("not a git repository (no .git/objects folder)")
        if os.path.lexists(objects / "info" / "alternates"):
            raise SubmissionError("the repository borrows objects from another one (objects/info/alternates); "
                                  "grade a clone made without --shared or --reference")
        packed = packed_refs(git_dir)
        tags: dict[str, str] = {}
        for name in submit_tags(git_dir, packed):
            try:
                if oid := resolve(git_dir, packed, name):
                    tags[name[len("refs/tags/"):]] = oid
            except SubmissionError as exc:
                notes.append(f"ignored tag {name[len('refs/tags/'):]}: {exc}")
        try:
            head, head_error = resolve(git_dir, packed, "HEAD"), "the repository has no commits"
        except SubmissionError as exc:
            head, head_error = None, str(exc)
        if not tags and head is None:
            raise SubmissionError(head_error)
        lengths = {len(oid) for oid in [*tags.values(), head] if oid}
        if len(lengths) > 1:
            raise SubmissionError("the repository's refs mix SHA-1 and SHA-256 object ids")
        self.git = git = Git(tmp, objects.resolve(), sha256=lengths == {64})
        if (shallow := read_small(git_dir, "shallow", 1 << 20)) is not None:  # a shallow clone's cut-off commits
            lines = shallow.decode("ascii", "replace").split()
            if not all(HEX.fullmatch(x) for x in lines):
                raise SubmissionError(".git/shallow is not a list of object ids")
            (tmp / "shallow").write_text("".join(x + "\n" for x in lines), encoding="ascii")
        commits = peel(git, list(tags.values()))
        notes += [f"ignored tag {t}: it does not point to a commit in the repository"
                  for t, oid in tags.items() if commits[oid] is None]
        times = commit_times(git, sorted({c for c in commits.values() if c}))
        # (date, ref, commit) of the submit tags, by committer date, then tag name
        self.tags = sorted((times[c], tag, c) for tag, oid in tags.items() if (c := commits[oid]) and c in times)
        tip = None if self.tags or head is None else peel(git, [head]).get(head)
        if not self.tags and tip is None:
            raise SubmissionError(head_error if head is None else "HEAD does not point to a commit in the repository")
        self.entry, self.tip = entry, tip or ""
        self.notes = notes
        symbolic = (read_small(git_dir, "HEAD", 4096) or b"").decode("ascii", "replace").strip()
        self.branch = symbolic[len("ref: "):] if symbolic.startswith("ref: refs/heads/") else ""
        self.git_dir, self.packed, self.shallow = git_dir, packed, shallow is not None
        self.walks: dict[int | None, tuple[int, str, str] | None] = {}
        self.dates: dict[str, int] = {}
        self.trees: dict[str, Submission] = {}

    def others(self, pushes: Sequence[Push] | None) -> OtherBranches:
        """The branches beside the graded one (:mod:`grader.intake.other_branches`: read when a window first needs
        them), with the server's ``pushes`` when given."""
        return OtherBranches(self.git, self.git_dir, self.packed, self.branch, pushes, self.shallow)

    def pick(self, due: datetime, cutoff: datetime | None) -> Origin:
        """The commit graded for the window ``(due, cutoff)`` (see the module docstring)."""
        limit, cut = math.floor(due.timestamp()), None if cutoff is None else math.floor(cutoff.timestamp())
        x, (ct, ref, commit) = next((x, got) for x in (limit, cut, None) if (got := self._latest(x)))
        what = (f"graded {ref}" if self.tags else "graded HEAD" if x is None
                else f"graded the latest commit of HEAD at the {'deadline' if x == limit else 'cut-off'}")
        self.dates[commit], stamp = ct, utc(ct)
        late = f"{duration(ct - limit)} after the deadline" if ct > limit else "on time"
        return Origin(commit, stamp, ref, ct > limit, f"{what} (commit {commit[:7]}, {stamp}), {late}")

    def pushed(self, pushes: Sequence[Push]) -> list[Push]:
        """The pushes that decide what is graded: of ``submit/*`` tags if any was pushed, else of the branch ``HEAD``
        names; none (with a note: committer dates are used) when the record holds neither."""
        tags = [p for p in pushes if p.ref.startswith("refs/tags/submit/")]
        branch = [p for p in pushes if p.ref == self.branch]
        if not tags and not branch:
            where = printable(self.branch.encode()) or "the branch HEAD names"
            self.notes.append(f"no push of {where} or of a submit/* tag is recorded for this repository: dated "
                              "by committer dates, which the student's machine writes")
        return tags or branch

    def pick_pushed(self, pushes: list[Push], due: datetime, cutoff: datetime | None) -> Origin:
        """The commit the pushed ref pointed to after the last push received at or before ``due`` (else
        ``cutoff``, else the last push), dated by the server (``pushes`` oldest first)."""
        push = pushes[-1]
        for limit in (due, cutoff):
            before = [p for p in pushes if limit is not None and p.time <= limit]
            if before:
                push = before[-1]
                break
        commit = peel(self.git, [push.after]).get(push.after)
        ref = printable(push.ref.removeprefix("refs/heads/").removeprefix("refs/tags/").encode())
        stamp, ct = utc(push.time.timestamp()), math.floor(push.time.timestamp())
        if commit is None:
            raise SubmissionError(f"commit {push.after[:12]} pushed to {ref} at {stamp} (the push graded for the due "
                                  f"date {due.isoformat(timespec='seconds')}) is not in this clone: it was force-pushed "
                                  "away, or the clone is older than the push record. Fetch the repository again (with "
                                  "its tags); if it is still missing, the history was rewritten after the push: ask the "
                                  "student for that commit")
        self.dates[commit] = ct
        late = f"{duration(ct - math.floor(due.timestamp()))} after the deadline" if push.time > due else "on time"
        return Origin(commit, stamp, ref, push.time > due, f"graded {ref} as pushed at {stamp} (commit {commit[:7]}), "
                      f"{late}", evidence=f"the time the server received the push of commit {commit[:7]}")

    def at(self, commit: str) -> Origin:
        """The commit ``commit`` itself (a full object id).

        Raises:
            SubmissionError: If it is not an object id, or not a commit of the repository.
        """
        try:
            when = commit_times(self.git, [commit], "--no-walk").get(commit) if HEX.fullmatch(commit) else None
        except SubmissionError:  # git cannot find the object
            when = None
        if when is None:
            raise SubmissionError(f"the graded commit {commit[:12]!r} is not in the repository any more")
        self.dates[commit], stamp = when, utc(when)
        return Origin(commit, stamp, "graded", False, f"the commit graded (commit {commit[:7]}, {stamp})")

    def _latest(self, limit: int | None) -> tuple[int, str, str] | None:
        """The latest submit tag (else commit of ``HEAD``) dated at or before ``limit`` (None: the latest submit
        tag, else ``HEAD``) as (date, ref, commit), or None; the walks of ``HEAD`` are cached by limit."""
        if self.tags:
            return next((t for t in reversed(self.tags) if limit is None or t[0] <= limit), None)
        if limit not in self.walks:
            if limit is None:
                self.walks[None] = (commit_times(self.git, [self.tip], "--no-walk").get(self.tip, 0), "HEAD", self.tip)
            else:  # --min-age keeps commits dated at or before the limit; the walk is roughly newest first
                before = commit_times(self.git, [self.tip], f"--min-age={limit}", "--max-count=1000")
                best = max(((t, -i, c) for i, (c, t) in enumerate(before.items()) if t <= limit), default=None)
                self.walks[limit] = (best[0], "HEAD", best[2]) if best else None
        return self.walks[limit]

    def files(self, commit: str) -> Submission:
        """The files, modification times and notes of a picked commit, or why they cannot be read; read once."""
        if commit not in self.trees:
            tree = self.trees[commit] = Submission("", self.entry)
            try:
                _read_tree(self.git, commit, self.dates[commit], tree)
            except (SubmissionError, OSError) as exc:
                tree.error = _why(exc)
        return self.trees[commit]


def _read_tree(git: Git, commit: str, ct: int, sub: Submission) -> None:
    """Read the commit's ``.py``/``.ipynb`` files into ``sub`` under the folder reader's rules and caps."""
    chosen: list[tuple[str, str, int]] = []
    count = total = 0
    budget = S.Budget()
    noted: set[str] = set()
    for record in git.run("ls-tree", "-r", "-z", "-l", "--full-tree", commit, limit=32 << 20).split(b"\0"):
        meta, tab, raw = record.partition(b"\t")
        if not record or len(fields := meta.split()) != 4 or not tab:
            if record:
                raise SubmissionError("git ls-tree gave an unexpected answer")
            continue
        mode, _, oid, size = fields
        parts = raw.split(b"/")
        if any(p in (b"", b".", b"..") for p in parts):
            sub.notes.append(f"ignored an unsafe path {printable(raw)!r}")
            continue
        bad = next((i for i, p in enumerate(parts[:-1]) if i >= S.MAX_DEPTH or p.startswith(b".")
                    or p.decode("latin-1") in S.SKIP_DIRS or not is_utf8(p)), None)
        if bad is not None:  # a folder the folder reader does not enter, with its note
            note = (f"ignored folders more than {S.MAX_DEPTH} levels deep" if bad >= S.MAX_DEPTH
                    else f"ignored a folder whose name is not UTF-8: {printable(b'/'.join(parts[: bad + 1]))}"
                    if not is_utf8(parts[bad]) else "")
            if note and note not in noted:
                noted.add(note)
                sub.notes.append(note)
            continue
        if not is_utf8(parts[-1]):
            sub.notes.append(f"ignored a file whose name is not UTF-8: {printable(raw)}")
            continue
        if (count := count + 1) > S.MAX_ENTRIES:
            raise SubmissionError(f"the submission has more than {S.MAX_ENTRIES} files")
        name, rel = parts[-1].decode(), raw.decode()
        if mode in (b"120000", b"160000"):
            sub.notes.append(f"ignored {'symbolic link' if mode == b'120000' else 'submodule'} {rel}")
        elif mode in (b"100644", b"100755", b"100664") and name.endswith(S.READ_SUFFIXES) and size.isdigit():
            budget.admit(name, int(size))
            total += int(size)
            chosen.append((rel, oid.decode("ascii", "replace"), int(size)))
    if not chosen:
        return
    out = git.run("cat-file", "--batch", stdin="".join(f"{oid}\n" for _, oid, _ in chosen).encode(),
                  limit=total + 100 * len(chosen))
    pos = 0
    for rel, blob, length in chosen:  # each answer: "<oid> blob <size>\n<content>\n"
        end = out.find(b"\n", pos)
        if end < 0 or out[pos:end].split() != [blob.encode(), b"blob", str(length).encode()]:
            raise SubmissionError(f"git could not read {rel} from the repository")
        sub.files[rel] = budget.keep(rel.rsplit("/", 1)[-1], out[end + 1 : end + 1 + length], length)
        sub.mtimes[rel] = float(ct)
        pos = end + 2 + length
