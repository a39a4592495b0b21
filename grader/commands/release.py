"""``grader release -o OUT [--classroom50 DIR] [-a ID]``: what students receive, and the teacher's Classroom 50
autograders, of the assignments released at the moment of the run and those named with ``-a``
(:mod:`grader.course.handed_out`); it names those it leaves out, and why."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

from grader.commands import CourseArgs, ExitCode, course_of
from grader.course.classroom50_autograders import build_classroom50
from grader.course.config import QUESTIONS
from grader.course.course import Course
from grader.course.handed_out import hand_out, notes
from grader.course.leaks import bodies_in
from grader.course.pins import grader_lock
from grader.course.student_release import WORKFLOW_NAME, build_release
from grader.errors import GraderError
from grader.files import remove_tree, require_new_folder
from grader.grading.one import time_public_probes
from grader.judge.probe_seconds import FILE as PROBE_SECONDS
from grader.questions.questions import load_questions
from grader.questions.sheet import answers_template

NAME = "release"
HELP = "build what students receive (template, notebooks, handouts, public tests)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("-o", "--output", required=True, metavar="OUT", help="new folder for the release")
    p.add_argument("--classroom50", metavar="DIR", help="new folder for the Classroom 50 autograders of the "
                   "teacher's config repository (default: OUT-classroom50)")
    p.add_argument("-a", "--assignment", action="append", metavar="ID",
                   help="hand out this assignment too, released or not (repeatable; default: the assignments "
                   "released at this moment, by released: in each assignment.yaml). A release holds every assignment "
                   "out so far: students pull each week's over the last")


@dataclass(frozen=True)
class Args(CourseArgs):
    """``grader release``'s arguments: the release folder, the Classroom 50 folder (None: OUT-classroom50) and the
    assignments handed out besides the released ones (None: none)."""

    output: str
    classroom50: str | None
    assignment: list[str] | None


def run(args: Args) -> ExitCode:
    """``grader release -o OUT``: the student release in OUT, the Classroom 50 autograders in DIR (OUT-classroom50)."""
    course = course_of(args)
    out = Path(args.output)
    teacher = Path(args.classroom50) if args.classroom50 else out.with_name(out.name + "-classroom50")
    require_new_folder(out, "the release")  # both checked first: an error never leaves half a release behind
    require_new_folder(teacher, "the Classroom 50 autograders (or choose one with --classroom50 DIR)")
    handed = hand_out(course, args.assignment or ())
    templates = {a.files[0]: answers_template(load_questions(a.root / QUESTIONS))
                 for a in handed.assignments if a.is_concept_check}  # those of the checks not out are not read
    lock = grader_lock()  # one lock: the release's self-check and the Classroom 50 autograders install the same
    files = build_release(course, out, lock, templates, handed.assignments)
    bundle = build_classroom50(course, teacher, lock, handed.assignments)
    try:  # the reference's time per probe of the public tests: the self-check's probe limits (timings, no answer)
        time_public_probes(Course(out), course.reference_dir, out / "assignments" / PROBE_SECONDS)
    except GraderError:
        remove_tree(out)
        remove_tree(teacher)
        raise
    leaks = [f"{hit} ({folder})" for folder in (out, teacher) for hit in bodies_in(folder, course.reference_dir)]
    if leaks:  # e.g. a solution pasted into a handout's example or a public test: students must never get it
        remove_tree(out)
        remove_tree(teacher)
        raise GraderError(f"the release would hold the reference's own code: {'; '.join(leaks[:5])}"
                          f"{f' and {len(leaks) - 5} more' if len(leaks) > 5 else ''}; nothing was written")
    print(f"wrote the student release to {out} ({len(files)} files): {course.package}/ template, notebooks/, "
          f"assignments/<id>/ (handout, public tests), assignments/{PROBE_SECONDS}, grader/, README.md, "
          f".github/workflows/{WORKFLOW_NAME}")
    print(f"wrote the Classroom 50 autograders to {teacher}: autograders/<slug>/ for "
          f"{', '.join(bundle.slugs.values())} and runtime.json (Python {bundle.lock.python_minor}); "
          f"copy them into your classroom50 config repository (see {teacher / 'README.md'})")
    for line in notes(handed):
        print(line)
    return ExitCode.OK
