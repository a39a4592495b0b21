"""A concept check's answers file in a submission (``answers/<id>.yaml``): found and read at intake, as text.

The text goes into the judge's manifest (:attr:`grader.judge.manifest.Part.answers`), so the judge never opens a file
of the submission, and is parsed there as bounded data (:mod:`grader.questions.answer_sheet`). Nothing of it is run.
"""

from __future__ import annotations

from grader.errors import SubmissionError
from grader.intake.candidates import decode, find_files
from grader.intake.entry import Submission
from grader.intake.notebook import cap

MAX_BYTES = 64 * 1024
"""The largest answers file graded, in bytes (a filled-in file of a few dozen questions is 1-4 KiB)."""


def answers_text(sub: Submission, wanted: str) -> tuple[str, str]:
    """The text of ``sub``'s answers file ``wanted`` (``answers/checkpoint.yaml``, found in an ``answers/`` folder at
    any depth, else as ``checkpoint.yaml``, shallowest first), and the path it was read from.

    Raises:
        SubmissionError: If the submission could not be read, holds no such file or two at the same depth, or the
            file is larger than :data:`MAX_BYTES` or not UTF-8.
    """
    if sub.error:
        raise SubmissionError(sub.error)
    found = find_files(sub, (wanted,)).get(wanted)
    if found is None:
        name = wanted.rsplit("/", 1)[-1]
        raise SubmissionError(f"missing {wanted} (looked for {name} in an {wanted.split('/', 1)[0]}/ folder or at the "
                              f"top level): your answers go in the release's {wanted}")
    data = sub.files[found]
    if len(data) > MAX_BYTES:
        raise SubmissionError(f"{cap(found, 80)} is {len(data)} bytes, more than the {MAX_BYTES} an answers file may be")
    return decode(data, found), found
