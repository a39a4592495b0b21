"""A term as a course lives it, end to end: eight assignments (the last a concept check) handed out week by week, each graded after its cut-off
into the course's one output folder, the class report made and Canvas's gradebook filled every week, and every
score, in the gradebook and in Canvas, equal to what the late policy gives, computed without the grader
(:mod:`term_simulation`; ``bench/term.py`` runs the same term with 40 students and provisional weekly grading).
"""

from __future__ import annotations

import shutil

import pytest
from checkout import ROOT
from term_simulation import (
    BRANCH,
    COPIER,
    ORDER,
    Term,
    canvas_differences,
    canvas_week,
    gradebook_differences,
    missing_evidence,
)

from grader.cli import main
from grader.course.course import Course
from grader.outputs.class_report import class_data

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
STUDENTS = 7
"""Two students who rotate through every behaviour over the eight weeks (on time, within the grace period, one and two
started days late, after the cut-off, the template, a backdated commit pushed late), and five with one story each:
an extension on everything, one extension given by GitHub name, no push record, a folder copied without its times,
never handed in; the first's course id changes before the fourth week; the second pushes one assignment to another
branch and hands in the fourth's concept-check answers file. Half the repositories are named by GitHub user."""


def test_a_whole_term_graded_week_by_week_into_one_folder_matches_the_policy_in_the_gradebook_and_canvas(
        tmp_path, capsys):
    term = Term(tmp_path, ROOT, students=STUDENTS, provisional=False).set_up()
    course = ["--course", str(term.course)]
    for week in range(1, term.weeks + 1):
        term.release(week)
        term.advance(term.run_time(week))
        for aid in term.runs(week):
            assert main([*course, "grade", str(term.repos / aid), "-a", aid, "-o", str(term.out), "-j", "2",
                         "--pushes", str(term.records / aid)]) == 0
        err = capsys.readouterr().err
        old, new, when = term.renamed
        if week == when:  # her course id changed: her earlier results are hers under the new id, one row
            assert f"Roster: {old}'s results ({', '.join(sorted(ORDER[:when - 1]))}) are {new}'s now: {old} is a previous " \
                   "id on the roster" in err
        copied, unrecorded = term.student(term.copied), term.student(term.unrecorded)
        assert "Due dates not applied to the late work of 1 submission(s)" in err and copied.repo in err
        assert f"Push records: no record in {term.records / ORDER[week - 1]} for 1 repository(ies) " \
               f"({unrecorded.repo})" in err

        # the report: every assignment handed out so far, nothing of those to come
        assert main([*course, "report", str(term.out)]) == 0
        html = (term.out / "report.html").read_text(encoding="utf-8")
        assert all(f'"{aid}"' in html or f">{aid}<" in html for aid in ORDER[:week])
        assert not any(f">{aid}<" in html for aid in ORDER[week:])

        # Canvas holds the assignments created there so far: the newest is skipped with a note, the rest filled
        canvas = tmp_path / f"canvas-{week}.csv"
        canvas.write_text(term.canvas_export(canvas_week(week)), encoding="utf-8")
        filled = tmp_path / f"filled-{week}.csv"
        assert main([*course, "export", "canvas", str(filled), "--canvas", str(canvas), "--graded", str(term.out)]) == 0
        printed = capsys.readouterr()
        if canvas_week(week) < week:
            assert "skipped, no Canvas column yet: " + ORDER[week - 1] in printed.err
        if week == 1:
            assert "value_ops: scaled from 40 points to the Canvas column's 100" not in printed.out  # no column yet
        else:
            assert "value_ops: scaled from 40 points to the Canvas column's 100" in printed.out
        assert f"on the roster with no grades (missing): {term.never}" in printed.err
        # a student with no repository: said with what can help (a re-run cannot), by grade, report and its page
        remedy = "(no repository or submission: check they accepted the assignment and are still enrolled; nothing"
        assert f"Roster: on the roster with no grades (missing): {term.never} {remedy}" in err
        assert f"On the roster with no submission in this folder: {term.never} {remedy}" in printed.out
        assert f'<span class="who">{term.never}</span>: no repository or submission' in html

        assert gradebook_differences(term, week) == []
        assert canvas_differences(term, week, filled.read_text(encoding="utf-8")) == []
        assert missing_evidence(term, week) == []
        attention = {(x.kind, x.student, x.assignments) for x in class_data(term.out, Course(term.course)).attention}
        if ORDER.index(BRANCH[1]) < week:  # the report names what the gradebook's notes say
            assert ("work on another branch", BRANCH[0], (BRANCH[1],)) in attention
        if ORDER.index("checkpoint") < week:
            assert ("look at this", COPIER[0], ("checkpoint",)) in attention

    # the last week: every assignment in one gradebook, every late decision counted with its evidence
    rows = (term.out / "grades.csv").read_text(encoding="utf-8").splitlines()
    assert rows[0].startswith("student," + ",".join(ORDER) + ",total")
    assert len(rows) == 1 + STUDENTS - 1  # everyone but the student who never handed anything in
