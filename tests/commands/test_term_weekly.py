"""A term as a course lives it, end to end: eight assignments (the last a concept check) handed out week by week, each graded after its cut-off
into the course's one output folder, the class report made and Canvas's gradebook filled every week, and every
score, in the gradebook and in Canvas, equal to what the late policy gives, computed without the grader
(:mod:`term_simulation`; ``bench/term.py`` runs the same term with 40 students and provisional weekly grading).
"""

from __future__ import annotations

import json
import shutil

import pytest
from checkout import ROOT
from term_simulation import (
    BRANCH,
    COPIER,
    ORDER,
    Adjusted,
    Term,
    canvas_differences,
    canvas_scores,
    canvas_week,
    gradebook_differences,
    missing_evidence,
    title,
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
ADJUSTMENTS = [Adjusted(3, "s01", "mlp", 12, False, "raw", "regrade: test 3 was unfair to your recursive topological sort"),
               Adjusted(4, "s01", "forward_mode", 8, False, "final", "late penalty waived: illness"),
               Adjusted(5, "s03", "backward", 0, True, "final", "academic integrity case 2026-14")]
"""Week 3 a regrade of the first student's mlp (handed in as the template a day late: 12 raw points, the penalty still
taken), week 4 her penalty on forward_mode waived (two started days: 8 points), week 5 an integrity zero for the
student with an extension on everything; each recorded with ``grader adjust`` after that week's grading."""
HAND_EDIT = (5, "s04", "value_ops", "95")
"""The week a TA changes a Canvas cell by hand (s04's value_ops, 100 in Canvas's 100-point column) before it is
exported; the export leaves it from then on."""


def test_a_whole_term_graded_week_by_week_into_one_folder_matches_the_policy_in_the_gradebook_and_canvas(
        tmp_path, capsys):
    term = Term(tmp_path, ROOT, students=STUDENTS, provisional=False, late_template=("s01", "mlp"),
                adjustments=ADJUSTMENTS).set_up()
    course = ["--course", str(term.course)]
    carried: dict[str, dict[str, str]] = {}  # what Canvas holds: each week's import, and a TA's hand edit
    hand: dict[tuple[str, str], float] = {}
    for week in range(1, term.weeks + 1):
        term.release(week)
        term.advance(term.run_time(week))
        for aid in term.runs(week):
            assert main([*course, "grade", str(term.repos / aid), "-a", aid, "-o", str(term.out), "-j", "2",
                         "--pushes", str(term.records / aid)]) == 0
        for a in (a for a in ADJUSTMENTS if a.week == week):
            assert main([*course, "adjust", *a.args(term.roster_id(a.student, week)), "--graded", str(term.out)]) == 0
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
        if week == HAND_EDIT[0]:
            edited = term.student(HAND_EDIT[1])
            carried[edited.sis_id][title(term.course, HAND_EDIT[2])] = HAND_EDIT[3]
            hand[HAND_EDIT[1:3]] = float(HAND_EDIT[3])
        canvas = tmp_path / f"canvas-{week}.csv"
        canvas.write_text(term.canvas_export(canvas_week(week), carried), encoding="utf-8")
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
        if week >= HAND_EDIT[0]:  # the TA's edit: left, named with its three values, every week after
            assert f"hand edit: {HAND_EDIT[1]} {HAND_EDIT[2]} (line " in printed.out
            assert f": '{HAND_EDIT[3]}' in the LMS, '100' exported last time, '100' now" in printed.out
        if week == 5:  # the integrity zero moved a score Canvas had: said before the import
            assert "backward: 1 score(s) changed since the last canvas export: 0 raised, 1 lowered (-50: 1)" \
                in printed.out
        # a student with no repository: said with what can help (a re-run cannot), by grade, report and its page
        remedy = "(no repository or submission: check they accepted the assignment and are still enrolled; nothing"
        assert f"Roster: on the roster with no grades (missing): {term.never} {remedy}" in err
        assert f"On the roster with no submission in this folder: {term.never} {remedy}" in printed.out
        assert f'<span class="who">{term.never}</span>: no repository or submission' in html

        assert gradebook_differences(term, week) == []
        assert canvas_differences(term, week, filled.read_text(encoding="utf-8"), hand) == []
        carried = canvas_scores(filled.read_text(encoding="utf-8"))  # imported into Canvas
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
    # each adjustment once in the student's feedback and results.json, whose score is the gradebook's
    expected = term.expected(term.weeks)
    for a in ADJUSTMENTS:
        folder = term.out / a.assignment / term.roster_id(a.student, term.weeks)
        feedback = (folder / "feedback.md").read_text(encoding="utf-8")
        assert feedback.count("by TA Lee on ") == 1 and feedback.count(a.reason) == 1
        assert json.loads((folder / "results.json").read_text(encoding="utf-8"))["score"] == \
            expected[a.student][a.assignment]
    assert (expected["s01"]["mlp"], expected["s01"]["forward_mode"], expected["s03"]["backward"]) == (8, 40, 0)
