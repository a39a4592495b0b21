"""``grader new-assignment ID [--module NAME] [--title TEXT]``: scaffold a new assignment's folder."""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from grader.commands import CourseArgs, ExitCode, course_of
from grader.course.config import KINDS
from grader.course.scaffold import scaffold

NAME = "new-assignment"
HELP = ("scaffold a new assignment: assignment.yaml, handout, probes, tests, bug catalogue (and a reference "
        "module)")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("id", metavar="ID", help="the assignment's id (its folder under assignments/), e.g. forward_mode")
    p.add_argument("--module", metavar="NAME", help="the student's module, PACKAGE/NAME.py (default: the id)")
    p.add_argument("--title", metavar="TEXT", help="the assignment's title")
    p.add_argument("--kind", choices=KINDS, default="code",
                   help="code (the default) or questions: a concept check answered in answers/ID.yaml")


@dataclass(frozen=True)
class Args(CourseArgs):
    """``grader new-assignment``'s arguments: the id, the student's module (None: the id), the title."""

    id: str
    module: str | None
    title: str | None
    kind: str


def run(args: Args) -> ExitCode:
    """``grader new-assignment ID``: write the folder, then say what to do next."""
    course = course_of(args)
    written = scaffold(course, args.id, args.module, args.title, args.kind)
    for path in written:
        print(f"wrote {path.relative_to(course.root)}")
    if args.kind == "questions":
        print(f"next: write the questions and the key, then run `grader validate -a {args.id}` and "
              f"`grader sheet {args.id} --student SOMEONE` (see docs/how-to/write-a-concept-check.md)")
        return ExitCode.OK
    print(f"next: edit the handout, probes.py and the tests, add bugs to bugs.yaml, then run `grader template` "
          f"and `grader validate -a {args.id}` (see docs/how-to/write-an-assignment.md)")
    return ExitCode.OK
