"""``grader new-assignment ID [--module NAME] [--title TEXT]``: scaffold a new assignment's folder."""

from __future__ import annotations

import argparse

from grader.commands import course_of
from grader.course.scaffold import scaffold


def run(args: argparse.Namespace) -> int:
    """``grader new-assignment ID``: write the folder, then say what to do next."""
    course = course_of(args)
    written = scaffold(course, args.id, args.module, args.title)
    for path in written:
        print(f"wrote {path.relative_to(course.root)}")
    print(f"next: edit the handout, probes.py and the tests, add bugs to bugs.yaml, then run `grader template` "
          f"and `grader validate -a {args.id}` (see docs/writing-an-assignment.md)")
    return 0
