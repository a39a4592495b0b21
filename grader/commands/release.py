"""``grader release -o OUT``: build what students receive."""

from __future__ import annotations

import argparse
from pathlib import Path

from grader.commands import course_of
from grader.course.release import build_release


def run(args: argparse.Namespace) -> int:
    """``grader release -o OUT``."""
    course = course_of(args)
    files = build_release(course, Path(args.output))
    print(f"wrote the student release to {args.output} ({len(files)} files): micrograd/ template, notebooks/, "
          "assignments/<id>/ (handout, public tests), grader/, README.md, .github/workflows/classroom.yml")
    return 0
