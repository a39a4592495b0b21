"""One module per subcommand: each has ``run(args) -> int`` (the exit status); :mod:`grader.cli` only
parses the arguments and imports the command it runs (so ``grader check`` never loads what grading a class needs).

``check``, ``gradescope`` and ``validate`` also hold the library code of their command (a student's
self-check, the Gradescope zip, testing the tests).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from grader.course.config import Course, find_course
from grader.errors import GraderError


def course_of(args: argparse.Namespace) -> Course:
    """The course a command works on: ``--course DIR``, else the nearest folder with ``assignments/``.

    Raises:
        GraderError: If ``--course`` names a folder without ``assignments/``.
    """
    if args.course:
        root = Path(args.course)
        if not (root / "assignments").is_dir():
            raise GraderError(f"{root} is not a course folder (it has no assignments/ folder)")
        return Course(root.resolve())
    return find_course()
