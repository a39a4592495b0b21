"""A batch's judge processes that failed (not a submission's fault): the error that says so, and where its logs are.

A judge that refused the course's own tests (pytest's usage error: a test with no ``@pytest.mark.points``, tests
whose points do not add up to the assignment's ``points:``) says which file and key are wrong on its ``ERROR:``
lines: the error leads with them, as the configuration error it is, rather than with the judge's status. Either way
it names the log of the first judge that failed, and the logs' folder (:attr:`JudgesFailed.logs`) can be copied
somewhere that outlives a temporary output folder (:meth:`JudgesFailed.kept`), as ``grader validate`` does.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path

from grader.errors import GraderError

USAGE_ERROR = 4
"""pytest's exit status when it refuses a session (``pytest.UsageError``): the judge refused the course's tests."""
TAIL_LINES = 5
"""How many of the log's last lines the message shows."""
COLLECTING = re.compile(r"^_+ ERROR collecting (\S+) _+$")
"""pytest's heading of a test module it could not collect."""
MAX_LOG_CHARS = 1_000_000
"""How much of a log is read for its ``ERROR:`` lines."""


class JudgesFailed(GraderError):
    """Judge processes of a batch failed.

    Attributes:
        failed: How many failed.
        status: The first failed judge's exit status.
        log: Its log.
        tail: The last lines of that log.
        errors: What the judge said on its ``ERROR:`` lines when it refused the course's tests (status
            :data:`USAGE_ERROR`), else nothing.
    """

    def __init__(self, failed: int, status: int, log: Path, tail: str, errors: Sequence[str] = ()) -> None:
        self.failed, self.status, self.log, self.tail, self.errors = failed, status, log, tail, tuple(errors)
        if self.errors:
            message = "\n".join(self.errors) + f"\n(the judge refused the course's tests and graded nothing; see {log})"
        else:
            message = f"{failed} judge process(es) failed (status {status}); see {log}:\n{tail}"
        super().__init__(message)

    @property
    def logs(self) -> Path:
        """The folder of the batch's judge logs."""
        return self.log.parent

    def kept(self, prefix: str) -> JudgesFailed:
        """The same error, its logs copied to a new folder of the temporary directory (named ``prefix`` and a random
        part) that nothing removes, and its message naming the copy.

        Raises:
            OSError: If the logs cannot be copied.
        """
        folder = Path(tempfile.mkdtemp(prefix=prefix))
        shutil.copytree(self.logs, folder, dirs_exist_ok=True)
        return JudgesFailed(self.failed, self.status, folder / self.log.name, self.tail, self.errors)


def judges_failed(failed: Sequence[tuple[int, int]], logs: Path) -> JudgesFailed:
    """The error for the judges ``failed`` (each ``(number, status)``; the first's log is ``logs/judge-<number>.log``)."""
    number, status = failed[0]
    log = logs / f"judge-{number}.log"
    try:
        with log.open(encoding="utf-8", errors="replace") as f:
            text = f.read(MAX_LOG_CHARS)
    except OSError as exc:
        text = f"(its log cannot be read: {exc})"
    tail = "\n".join(text.strip().splitlines()[-TAIL_LINES:])
    errors = [*collection_errors(text), *(line.removeprefix("ERROR: ") for line in text.splitlines()
                                          if line.startswith("ERROR: "))] if status == USAGE_ERROR else []
    return JudgesFailed(len(failed), status, log, tail, list(dict.fromkeys(errors)))


def collection_errors(log: str) -> list[str]:
    """Each test module pytest could not collect, with its error's first line, from a judge's ``log``: such a module's
    tests are left out of the points the judge adds up, so the points it reports are a consequence."""
    found: list[str] = []
    module = ""
    for line in log.splitlines():
        heading = COLLECTING.match(line)
        if heading:
            module = heading.group(1)
        elif module and line.startswith("E   "):
            found.append(f"{module}: could not be collected: {line[4:].strip()}")
            module = ""
    return found
