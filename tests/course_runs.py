"""What the course's whole-flow tests share: the command line run in this process with its output kept, and a
reference module as a student would hand it in."""

from __future__ import annotations

import contextlib
import io

from checkout import ROOT

from grader.cli import main


def run(*argv: str) -> tuple[int, str]:
    """``grader *argv`` in this process: its exit status and what it printed (stdout and stderr together)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        status = main(list(argv))
    return status, out.getvalue()


def reference_code(name: str) -> str:
    """``reference/micrograd/<name>`` without its solution markers: a correct submission's file."""
    return "".join(line for line in (ROOT / "reference" / "micrograd" / name).read_text().splitlines(True)
                   if "# BEGIN SOLUTION" not in line and "# END SOLUTION" not in line)
