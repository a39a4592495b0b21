"""A class shared by several judge processes: each claims the next submission when it is free.

``grader grade`` writes one manifest listing every submission to grade and a
queue folder. Each judge runs a pytest session with a fixed number of
*slots*; when a slot's first test starts, the judge claims the next
unclaimed submission by creating its claim file with ``O_CREAT | O_EXCL``
(atomic on a local file system), and that slot grades it. So a judge held up
by a submission that loops forever holds up only that submission: the other
judges keep taking the rest of the class. No coordinator process is needed.
"""

from __future__ import annotations

import os
from pathlib import Path

from grader.grading.manifest import Job


class ClaimQueue:
    """The submissions of one run and their claim files.

    Args:
        folder: The queue folder (created if missing).
        jobs: Every submission of the run, in grading order.
        claimant: Written into each claim this process makes (the judge's name).
    """

    def __init__(self, folder: Path, jobs: list[Job], claimant: str = "") -> None:
        self.folder = folder
        self.jobs = jobs
        self.claimant = claimant
        self._next = 0
        folder.mkdir(parents=True, exist_ok=True)

    def _path(self, job: Job) -> Path:
        return self.folder / f"{job.index:06d}"

    def claim(self) -> Job | None:
        """Claim the next unclaimed submission; None when every submission is claimed."""
        while self._next < len(self.jobs):
            job = self.jobs[self._next]
            self._next += 1
            try:
                fd = os.open(self._path(job), os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
            except FileExistsError:
                continue
            try:
                os.write(fd, self.claimant.encode())
            finally:
                os.close(fd)
            return job
        return None

    def unclaimed(self) -> list[Job]:
        """The submissions nobody has claimed yet."""
        return [job for job in self.jobs if not self._path(job).exists()]

    def claimed_by(self, claimant: str) -> list[Job]:
        """The submissions ``claimant`` claimed."""
        found = []
        for job in self.jobs:
            try:
                if self._path(job).read_text(encoding="utf-8") == claimant:
                    found.append(job)
            except OSError:
                continue
        return found
