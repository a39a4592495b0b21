"""A class shared by several judge processes: each claims the next work unit when it is free.

``grader grade`` writes one manifest listing every submission to grade and a
queue folder. The queue's *work units* are (submission, assignment) pairs, in
the manifest's order: a submission's assignments one after another
(:func:`work_units`). Each judge runs a pytest session with a fixed number of
*slots*; when a slot's first test starts, the judge claims the next
unclaimed unit by creating its claim file with ``O_CREAT | O_EXCL`` (atomic
on a local file system), and that slot grades it. So a judge held up by a
submission that loops forever holds up only that submission's assignment:
the other judges take its other assignments and the rest of the class. No
coordinator process is needed.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

from grader.judge.manifest import Job


def work_units(jobs: list[Job]) -> list[Job]:
    """Each submission's assignments as separate jobs, in order: (s0, a1), (s0, a2), ..., (s1, a1), ...

    Every process that builds a queue from the same jobs gets the same units in the same order, so the
    claim files (named by position) mean the same to all of them.
    """
    return [replace(job, parts={aid: part}) for job in jobs for aid, part in job.parts.items()]


class ClaimQueue:
    """The work units of one run and their claim files.

    Args:
        folder: The queue folder (created if missing).
        jobs: Every submission of the run, in grading order; the queue holds their :func:`work_units`.
        claimant: Written into each claim this process makes (the judge's name).
    """

    def __init__(self, folder: Path, jobs: list[Job], claimant: str = "") -> None:
        self.folder = folder
        self.units = work_units(jobs)
        self.claimant = claimant
        self._next: dict[str | None, int] = {}  # per assignment asked for (None: any), the first unit not yet tried
        folder.mkdir(parents=True, exist_ok=True)

    def _path(self, position: int) -> Path:
        return self.folder / f"{position:06d}"

    def claim(self, assignment: str | None = None) -> Job | None:
        """Claim the next unclaimed work unit (a job with one assignment), of ``assignment`` if given; None when
        every such unit is claimed."""
        while (position := self._next.get(assignment, 0)) < len(self.units):
            self._next[assignment] = position + 1
            if assignment is not None and assignment not in self.units[position].parts:
                continue
            try:
                fd = os.open(self._path(position), os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
            except FileExistsError:
                continue
            try:
                os.write(fd, self.claimant.encode())
            finally:
                os.close(fd)
            return self.units[position]
        return None

    def unclaimed(self) -> list[Job]:
        """The work units nobody has claimed yet."""
        return [unit for i, unit in enumerate(self.units) if not self._path(i).exists()]

    def claimed_by(self, claimant: str) -> list[Job]:
        """The work units ``claimant`` claimed."""
        found = []
        for i, unit in enumerate(self.units):
            try:
                if self._path(i).read_text(encoding="utf-8") == claimant:
                    found.append(unit)
            except OSError:
                continue
        return found
