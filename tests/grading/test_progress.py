"""Progress output of `grader grade`: a bar on a terminal, plain lines in logs."""

from __future__ import annotations

import io

from grader.grading.progress import Progress


def test_plain_lines_when_not_on_a_terminal():
    stream = io.StringIO()
    with Progress(stream, interactive=False) as progress:
        for done in range(1, 6):
            progress(done, 5, f"s{done}")
    lines = stream.getvalue().splitlines()
    assert lines[0].startswith("[1/5] graded s1 (20%")
    assert lines[-1].startswith("[5/5] graded s5 (100%") and "s elapsed" in lines[-1] and "left" in lines[-1]
    assert "\r" not in stream.getvalue()


def test_a_bar_with_an_eta_on_a_terminal():
    stream = io.StringIO()
    with Progress(stream, interactive=True) as progress:
        for done in range(1, 4):
            progress(done, 3, f"student{done}")
    drawn = stream.getvalue()
    assert "3/3" in drawn and "submission" in drawn and "<" in drawn  # tqdm's elapsed<remaining
    assert "\r" in drawn
