"""Work on another branch: evidence that what a student made is not on the branch the course grades.

A repository is graded on the branch its ``HEAD`` names (or at its ``submit/*`` tags: :mod:`grader.intake.git_history`).
A student who pushes to ``master`` while the repository's ``HEAD`` is ``main`` has ``main`` graded: the template's
first commit, 0 points. Grading ``master`` instead is the course's choice, never made here; what is made here is the
evidence, so that someone sees it. It is looked for only where the graded commit holds nothing of the student's:

* **late**: nothing on the graded ref at or before the due date (the commit graded is after it); the branches that
  count are those with a commit (or, in the server's records, a push) at or before the due date: work that would have
  been on time;
* **the first commit**: the graded commit is the repository's first (it has no parent), the one a template makes
  (not told in a shallow clone, whose cut-off commits have no parents either).

The branches looked at are those of the server's push records (pushes of ``refs/heads/*``, with the server's times)
and the repository's own (``refs/heads/*``, and ``refs/remotes/*/*``, where a clone keeps the branches of the
repository it was cloned from). A branch is evidence when it has commits the graded commit does not hold (or a pushed
commit missing from the clone). At most :data:`MAX_BRANCHES` branches are looked at per repository, each with one git
command on the grader's own repository (:class:`grader.intake.git_objects.Git`), and only for such windows.

The evidence is two texts: one line for the instructor (the gradebook's notes and the report's *needs attention*) and
one for the student's feedback, saying where the work is, what was graded, and what to do.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from grader.errors import SubmissionError
from grader.intake.entry import Origin
from grader.intake.git_objects import Git, commit_times, peel, printable, utc
from grader.intake.git_refs import branch_tips
from grader.intake.pushes import Push

MAX_BRANCHES = 20
"""Most branches looked at in one repository (one git command each, for each window that needs it)."""
MAX_COMMITS = 1000
"""Commits of a branch counted (past this, "over 1000")."""
SHOWN = 3
"""Branches named in one note."""
MAX_NAME = 60
"""Characters of a branch's name shown (a push record's ref can be any printable text)."""


@dataclass(frozen=True)
class Evidence:
    """That a window's work is on another branch than the one graded.

    Attributes:
        line: For the instructor, one line: ``the graded main holds only the repository's first commit (...), while
            master has 2 commits not in it (...)`` (shown after "work on another branch: ").
        feedback: For the student: where their work is, what was graded and what to do.
    """

    line: str
    feedback: str


@dataclass(frozen=True)
class _Branch:
    """A branch beside the graded one: its name as shown, and its tip (in the clone) or its pushes (oldest first)."""

    name: str
    tip: str = ""
    pushes: tuple[Push, ...] = ()


class OtherBranches:
    """The branches of one opened repository beside the graded one, read once when a window first needs them.

    Args:
        git: Git on the repository's objects.
        git_dir: The student's ``.git`` folder (its refs are read as plain data: :func:`grader.intake.git_refs.branch_tips`).
        packed: Its ``packed-refs``.
        graded: The full ref of the branch ``HEAD`` names (``refs/heads/main``), "" when ``HEAD`` names none.
        pushes: The server's push records of the repository, oldest first (None: none given).
        shallow: Whether the clone is shallow (the first-commit sign is then not used).
    """

    def __init__(self, git: Git, git_dir: Path, packed: dict[str, str], graded: str, pushes: Sequence[Push] | None,
                 shallow: bool) -> None:
        self.git, self.git_dir, self.packed, self.graded = git, git_dir, packed, graded
        self.pushes, self.shallow = pushes or (), shallow
        self.branches: list[_Branch] | None = None
        self.roots: dict[str, bool] = {}
        self.new: dict[tuple[str, str], dict[str, int] | None] = {}

    def evidence(self, origin: Origin, due: datetime) -> Evidence | None:
        """The evidence that the work graded for ``due`` as ``origin`` is on another branch, or None (the graded
        commit holds the student's work, or no other branch has any). A git command that fails (a branch pointing to
        a missing object) leaves that branch out: evidence is looked for, never required."""
        try:
            late = origin.late
            if not self._branches() or not late and (self.shallow or not self._first(origin.commit)):
                return None  # no other branch (most repositories: no git command), or the graded commit has work
            found = [said for branch in self._branches() if (said := self._said(branch, origin.commit, due, late))]
        except (SubmissionError, OSError):
            return None
        return _words(found, origin, self.graded) if found else None

    def _first(self, commit: str) -> bool:
        """Whether ``commit`` has no parent (the repository's first commit)."""
        if commit not in self.roots:
            self.roots[commit] = not self.git.run("log", "-1", "--format=%P", commit, "--", limit=4096).strip()
        return self.roots[commit]

    def _branches(self) -> list[_Branch]:
        """The branches beside the graded one: those pushed (by the server's records), then the clone's own."""
        if self.branches is None:
            pushed: dict[str, list[Push]] = {}
            for p in self.pushes:
                if p.ref.startswith("refs/heads/") and p.ref != self.graded:
                    pushed.setdefault(p.ref, []).append(p)
            found = [_Branch(printable(ref.removeprefix("refs/heads/").encode())[:MAX_NAME], pushes=tuple(ps))
                     for ref, ps in pushed.items()]
            graded = self.graded.removeprefix("refs/heads/")
            seen = {ref.removeprefix("refs/heads/") for ref in pushed}
            tips: dict[str, str] = {}
            for name, oid in branch_tips(self.git_dir, self.packed).items():
                if name != graded and name not in seen and oid not in tips.values():
                    tips[name] = oid
            found += [_Branch(name, tip=oid) for name, oid in tips.items()]
            self.branches = found[:MAX_BRANCHES]
        return self.branches

    def _said(self, branch: _Branch, graded: str, due: datetime, late: bool) -> tuple[str, str] | None:
        """(name, what it holds) when ``branch`` is evidence for the commit ``graded`` at ``due``, else None."""
        limit = math.floor(due.timestamp())
        if branch.pushes:
            push = next((p for p in reversed(branch.pushes) if p.time <= due), branch.pushes[-1])
            if late and push.time > due:
                return None
            when = f"pushed {utc(push.time.timestamp())}"
            if peel(self.git, [push.after]).get(push.after) is None:
                return branch.name, (f"{branch.name} was {when} (commit {push.after[:7]}, which is not in this clone: "
                                     "fetch it again)")
            new = self._new(push.after, graded)
        else:
            new = self._new(branch.tip, graded)
            if new and late and min(new.values()) > limit:
                return None
            when = f"the latest dated {utc(max(new.values()))}" if new else ""
        if not new:
            return None
        count = f"over {MAX_COMMITS} commits" if len(new) > MAX_COMMITS else \
            f"{len(new)} commit{'s' if len(new) > 1 else ''}"
        return branch.name, f"{branch.name} has {count} not in it ({when})"

    def _new(self, tip: str, graded: str) -> dict[str, int] | None:
        """The commits of ``tip`` that ``graded`` does not hold, to their committer dates (None: git cannot say)."""
        if (tip, graded) not in self.new:
            try:
                self.new[(tip, graded)] = commit_times(self.git, [tip, f"^{graded}"], f"--max-count={MAX_COMMITS + 1}")
            except SubmissionError:
                self.new[(tip, graded)] = None
        return self.new[(tip, graded)]


def _words(found: list[tuple[str, str]], origin: Origin, graded_ref: str) -> Evidence:
    """The two texts of the evidence: ``found`` is (branch name, what it holds) per branch, ``graded_ref`` the full
    ref of the branch graded ("" when ``HEAD`` names none)."""
    names = [name for name, _ in found]
    items = "; ".join(text for _, text in found[:SHOWN]) + (f"; and {len(found) - SHOWN} more branch(es)"
                                                            if len(found) > SHOWN else "")
    tag = origin.ref.startswith("submit/")
    branch = printable(graded_ref.removeprefix("refs/heads/").encode())[:MAX_NAME] if graded_ref else "HEAD"
    graded = "submit/* tags" if tag else branch
    if origin.late:
        what = printable(origin.ref.encode()) if tag else f"{branch} commit {origin.commit[:7]}"
        state = f"{'have' if tag else 'has'} nothing submitted by the due date (graded {what} of {origin.time}, late)"
    else:
        state = (f"{'point only to' if tag else 'holds only'} the repository's first commit ({origin.commit[:7]}: the "
                 "template, in a repository made from one)")
    if tag:
        todo = f"Put a submit/* tag on the commit that holds your work (on {names[0]}), or ask your instructor."
    elif graded_ref:
        todo = (f"Merge {names[0]} into {branch} and push {branch} (work that reaches {branch} after the due date is "
                "late), or ask your instructor.")
    else:
        todo = "Ask your instructor."
    where = ", ".join(names[:SHOWN]) + (", ..." if len(names) > SHOWN else "")
    return Evidence(line=f"the graded {graded} {state}, while {items}",
                    feedback=f"Your work is on branch{'es' if len(names) > 1 else ''} {where}; the course grades "
                             f"{graded}: {graded} {state}, so that is what was graded, while {items}. {todo}")
