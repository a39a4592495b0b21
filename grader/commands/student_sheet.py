"""``grader sheet ID [--student S] [-o FILE]``: a concept check's questions with one student's own numbers."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

from grader.commands import CourseArgs, ExitCode, course_of
from grader.course.config import QUESTIONS
from grader.course.course import Course
from grader.course.roster import identify, read_roster
from grader.errors import GraderError
from grader.files import write_atomic
from grader.inert import terminal
from grader.intake.entry import MAX_ANSWERS_BYTES as MAX_BYTES
from grader.questions.answer_sheet import AnswersError, read_answers
from grader.questions.questions import load_questions
from grader.questions.sheet import question_sheet

NAME = "sheet"
HELP = "a concept check's questions with your own numbers (Markdown)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("assignment", metavar="ID", help="the concept check (an assignment of kind: questions)")
    p.add_argument("--student", metavar="ID", help="whose numbers (default: student: in answers/<ID>.yaml)")
    p.add_argument("-o", "--output", metavar="FILE", help="write the sheet here (default: print it)")


@dataclass(frozen=True)
class Args(CourseArgs):
    """``grader sheet``'s arguments: the concept check, the student (None: the answers file's), the output file."""

    assignment: str
    student: str | None
    output: str | None


def run(args: Args) -> ExitCode:
    """``grader sheet ID``: print (or write) the questions with the student's own numbers."""
    course = course_of(args)
    assignment = course.assignment(args.assignment)
    if not assignment.is_concept_check:
        raise GraderError(f"{assignment.id} is not a concept check (assignment.yaml has no kind: questions)")
    student = args.student
    if student is None:
        student = _written_id(course.root / assignment.files[0])
    student = _numbers_from(course, student)
    sheet = question_sheet(assignment.title, load_questions(assignment.root / QUESTIONS), assignment.id, student)
    if args.output:
        write_atomic(Path(args.output), sheet)
        print(f"wrote {assignment.id}'s questions for {student or 'no student (no numbers)'} to {args.output}")
    else:
        print(sheet, end="")
    return ExitCode.OK


def _numbers_from(course: Course, student: str) -> str:
    """Whose numbers ``student``'s are: with the course's roster (an instructor's copy of the course), the id the
    student's answers are marked at (the roster's id of the row the name names, or the student's first id when it
    changed: :func:`grader.course.roster.identify`), said on stderr when it is not the name given; else the name."""
    path = course.term.roster
    if path is None or not path.is_file():
        return student
    known = identify([student], read_roster(path))[0][student]
    numbers = known.numbers_from or known.student
    if numbers != student:
        print(terminal(f"{student} is {known.student} on the roster: the sheet has the numbers of {numbers}, which "
                       "grading marks this student's answers at", keep=""), file=sys.stderr)
    return numbers


def _written_id(path: Path) -> str:
    """The ``student:`` of the answers file at ``path``.

    Raises:
        GraderError: If there is none to read: the numbers are each student's own, so they are never guessed.
    """
    try:
        with path.open("rb") as f:
            written = read_answers(f.read(MAX_BYTES + 1)).student
    except (OSError, AnswersError) as exc:
        raise GraderError(f"give --student ID, or write student: ID in {path} ({exc})") from None
    if not written:
        raise GraderError(f"give --student ID, or write student: ID in {path}: your numbers are drawn from it")
    return written
