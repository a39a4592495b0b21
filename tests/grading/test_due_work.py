"""When a submission that is not a git repository was submitted: a zip's own dates (in the course's time zone), a
folder's modification times, and no time at all, each said in the feedback's sentence."""

from __future__ import annotations

import os
import zipfile
from datetime import datetime, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

from grader.course.due_dates import DueDate
from grader.course.late_policy import LatePolicy
from grader.grading.due_work import read_due_work, submitted_at
from grader.intake.submission import read_submission

PARIS = ZoneInfo("Europe/Paris")
DUE = datetime(2026, 11, 30, 23, 59, tzinfo=PARIS)


def zipped(path: Path, date_time: tuple[int, int, int, int, int, int]) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(zipfile.ZipInfo("micrograd/engine.py", date_time=date_time), "class Value: pass\n")
    return path


def test_a_zips_dates_are_read_in_the_courses_time_zone_to_the_second(tmp_path):
    # 23:59:00 and 23:59:02 on the student's clock (a zip keeps even seconds): on time, then 2 s late in Paris,
    # which is 22:59 UTC: read as UTC it would be an hour early
    on_time = read_submission(zipped(tmp_path / "alice.zip", (2026, 11, 30, 23, 59, 0)))
    assert submitted_at(on_time, PARIS) == (DUE, "the latest date recorded in the zip for its files")
    late = read_due_work(zipped(tmp_path / "bob.zip", (2026, 11, 30, 23, 59, 2)),
                         {"value_ops": DueDate(DUE, DUE, LatePolicy(penalty=0.1))}, PARIS)["value_ops"].late
    assert late is not None and late["seconds"] == 2 and late["counted"] == "1 started day"
    assert "from the latest date recorded in the zip for its files" in late["sentence"]


def test_a_zip_without_dates_and_a_folder_say_where_the_time_came_from(tmp_path):
    dateless = read_due_work(zipped(tmp_path / "carol.zip", (1980, 1, 1, 0, 0, 0)),
                             {"value_ops": DueDate(DUE, DUE, LatePolicy())}, PARIS)["value_ops"].late
    assert dateless is not None and dateless["submitted"] == "" and dateless["seconds"] == 0
    assert "No submission time is recorded for this work (the zip records no dates)" in dateless["sentence"]
    folder = tmp_path / "dave" / "micrograd"
    folder.mkdir(parents=True)
    (folder / "engine.py").write_text("class Value: pass\n")
    os.utime(folder / "engine.py", (DUE.timestamp() + 3600, DUE.timestamp() + 3600))
    when, source = submitted_at(read_submission(tmp_path / "dave"), PARIS)
    assert when == datetime(2026, 11, 30, 23, 59, tzinfo=timezone.utc) and "modification time" in source


def test_answering_a_concept_check_late_never_makes_the_code_late_and_the_reverse(tmp_path):
    """A folder's code is dated by its code files, a concept check by its answers file alone."""
    folder = tmp_path / "erin"
    (folder / "micrograd").mkdir(parents=True)
    (folder / "answers").mkdir()
    (folder / "micrograd" / "engine.py").write_text("class Value: pass\n")
    (folder / "answers" / "checkpoint.yaml").write_text("student: erin\n")
    os.utime(folder / "micrograd" / "engine.py", (DUE.timestamp() - 60,) * 2)  # a minute early
    os.utime(folder / "answers" / "checkpoint.yaml", (DUE.timestamp() + 7200,) * 2)  # two hours late
    due = DueDate(DUE, DUE, LatePolicy())
    work = read_due_work(folder, {"value_ops": due, "checkpoint": due}, PARIS,
                         answers={"checkpoint": "answers/checkpoint.yaml"})
    assert work["value_ops"].late is not None and work["value_ops"].late["seconds"] == 0
    assert work["checkpoint"].late is not None and work["checkpoint"].late["seconds"] == 7200


def test_a_concept_check_answered_in_a_notebook_is_dated_by_the_notebook(tmp_path):
    folder = tmp_path / "gina" / "notebooks"
    folder.mkdir(parents=True)
    (folder / "checkpoint.ipynb").write_text('{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}')
    os.utime(folder / "checkpoint.ipynb", (DUE.timestamp() + 60,) * 2)
    late = read_due_work(tmp_path / "gina", {"checkpoint": DueDate(DUE, DUE, LatePolicy())}, PARIS,
                         answers={"checkpoint": "answers/checkpoint.yaml"})["checkpoint"].late
    assert late is not None and late["seconds"] == 60
