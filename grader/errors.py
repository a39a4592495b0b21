"""The grader's exception hierarchy.

Library code raises these; only :mod:`grader.cli` turns them into messages
and exit codes. Two families:

* :class:`GraderError`: a problem the *instructor* must fix (bad arguments,
  a broken ``assignment.yaml``, a missing course directory). The CLI exits
  2; for :class:`WithheldError` (the grader's own machinery failed, so a
  score is withheld rather than charged) it exits 3.
* :class:`SubmissionError`: a problem with one *student's* submission
  (missing file, not UTF-8, corrupt zip). It costs that submission its
  points, with the reason in its feedback; the batch goes on.
"""

from __future__ import annotations


class GraderError(Exception):
    """An error the instructor must fix; the CLI prints it and exits 2."""


class ConfigError(GraderError):
    """An invalid course or assignment configuration.

    Args:
        path: The file at fault.
        key: The dotted key at fault (``limits.memory_mb``), or "" for the whole file.
        message: What is wrong and what is expected.
    """

    def __init__(self, path: object, key: str, message: str) -> None:
        self.path = str(path)
        self.key = key
        self.message = message
        where = f"{self.path}: {key}" if key else self.path
        super().__init__(f"{where}: {message}")


class WithheldError(GraderError):
    """The grader's own machinery failed (not the student's code): the score is withheld; the CLI exits 3."""


class SubmissionError(Exception):
    """A submission that cannot be graded; the message is shown to the student."""
