"""One module per subcommand, each thin: its options, a typed arguments record, and ``run`` over library code.

A command module declares ``NAME`` (the subcommand), ``HELP`` (its one line in ``grader --help``),
``add_arguments(parser)`` (its own options), ``Args`` (a frozen dataclass of the parsed arguments, built by
:func:`args_of`) and ``run(args) -> ExitCode``. :mod:`grader.cli` builds the parser by a loop over
:data:`COMMANDS` and turns library errors into messages and exit statuses; the work itself lives in the concern
folders (``grading/``, ``course/``, ``outputs/``, ``similarity/``).
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from dataclasses import dataclass, fields
from enum import IntEnum
from pathlib import Path
from typing import TypeVar

from grader.course.course import Course, find_course
from grader.errors import GraderError
from grader.judge.backends import CHOICES

COMMANDS = ("grade", "check", "submit_zip", "release", "merge", "report", "similarity", "export", "adjust", "gradescope",
            "autograde", "validate", "new_assignment", "template", "student_sheet")
"""The command modules, in the order ``grader --help`` lists them."""
RENAMED = {"submit_zip": "submit-zip", "new_assignment": "new-assignment", "student_sheet": "sheet"}
"""The command modules whose command (their ``NAME``) is not the module's name."""


def module_of(command: str) -> str | None:
    """The module of the command named ``command`` (its ``NAME``), or None: no such command."""
    return next((module for module in COMMANDS if RENAMED.get(module, module) == command), None)


class ExitCode(IntEnum):
    """The exit statuses of ``grader``.

    Attributes:
        OK: The command did what was asked.
        CHECK_FAILED: It ran, and found the problem it was asked to look for (``template --check`` out of date,
            a failing self-check, ``validate`` misses).
        ERROR: An instructor's or usage error (a bad option, no course, no submissions): nothing was graded
            wrongly (argparse also exits 2).
        GRADER_FAULT: The grader's own machinery failed for some submission (the sandbox could not be set up, an
            internal error): those scores are withheld, never counted.
        INTERRUPTED: Ctrl-C (128 + SIGINT).
    """

    OK = 0
    CHECK_FAILED = 1
    ERROR = 2
    GRADER_FAULT = 3
    INTERRUPTED = 130


@dataclass(frozen=True)
class CourseArgs:
    """The arguments every command has.

    Attributes:
        course: ``--course DIR`` (None: the nearest folder with ``assignments/``).
    """

    course: str | None


A = TypeVar("A", bound=CourseArgs)


def args_of(cls: type[A], namespace: argparse.Namespace) -> A:
    """The typed arguments ``cls`` (a command's ``Args``) from what argparse parsed."""
    return cls(**{f.name: getattr(namespace, f.name) for f in fields(cls)})


def course_of(args: CourseArgs) -> Course:
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


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _number(text: str, fits: Callable[[float], bool], rule: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not fits(value):
        raise argparse.ArgumentTypeError(rule)
    return value


def positive_float(text: str) -> float:
    """An argparse type: a number above 0."""
    return _number(text, lambda v: 0 < v < float("inf"), "must be a number above 0")


def percentage(text: str) -> float:
    """An argparse type: a number from 0 to 100."""
    return _number(text, lambda v: 0 <= v <= 100, "must be from 0 to 100")


def jobs_option(p: argparse.ArgumentParser, what: str) -> None:
    """``-j/--jobs N``: how many ``what`` run in parallel (default: the machine's cores)."""
    p.add_argument("-j", "--jobs", type=positive_int, default=os.cpu_count() or 1, metavar="N",
                   help=f"{what} (default: cores)")


def sandbox_option(p: argparse.ArgumentParser) -> None:
    """``--sandbox auto|linux|portable`` (:mod:`grader.judge.backends`)."""
    p.add_argument("--sandbox", choices=CHOICES, default="auto",
                   help="sandbox backend: linux (namespaces, Landlock, fork server), portable (a plain worker "
                   "process: macOS, Windows), or auto (default: linux when this host has what it needs)")
