"""``grader template [--check]``: generate ``student_template/`` from the reference's solution markers."""

from __future__ import annotations

import argparse
import sys

from grader.commands import course_of
from grader.course import template


def run(args: argparse.Namespace) -> int:
    """``grader template [--check]``."""
    course = course_of(args)
    generated = template.generate(course.reference_dir)
    if args.check:
        stale = template.differences(generated, course.template_dir)
        if stale:
            print(
                f"student_template/ is out of date with reference/ ({', '.join(stale)}); "
                "run `grader template` to regenerate it",
                file=sys.stderr,
            )
            return 1
        print("student_template/ matches the reference's solution markers")
        return 0
    template.write(generated, course.template_dir)
    print(f"wrote {len(generated)} file(s) to {course.template_dir / 'micrograd'}")
    return 0
