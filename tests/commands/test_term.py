"""A whole term: due dates and a late policy in assignment.yaml, a course time zone, extensions and a roster, applied
by `grader grade` to git repositories around the due date, to the second and across a daylight-saving change."""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
from datetime import datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from checkout import ROOT
from doc_quotes import assert_quoted

from grader.cli import main
from grader.course.course import Course
from grader.outputs.class_report import class_data

CORRECT = ROOT / "examples" / "submissions" / "correct_recursive" / "micrograd"
pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

# Saturday 2026-10-31 23:59 in New York; the clocks fall back at 02:00 on Sunday, so that day has 25 hours
DUE = datetime(2026, 10, 31, 23, 59, tzinfo=ZoneInfo("America/New_York")).astimezone(timezone.utc)  # elapsed time
S, MIN, H, D = (timedelta(seconds=n) for n in (1, 60, 3600, 86400))
POLICY = """
due: 2026-10-31T23:59
late:
  grace: 15m
  penalty: 10%
  per: day
  cap: 50%
  cutoff: 3d
"""


def commit_at(repo: Path, when: datetime, tag: str = "") -> None:
    """A repository holding the correct engine, committed (and tagged) at ``when``."""
    stamp = f"@{int(when.timestamp())} +0000"
    env = {"PATH": os.environ["PATH"], "HOME": str(repo.parent), "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_CONFIG_GLOBAL": os.devnull, "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}

    def git(*args: str) -> None:
        subprocess.run(["git", "-c", "user.name=S", "-c", "user.email=s@example.org", "-c", "commit.gpgSign=false",
                        "-C", str(repo), *args], env=env, check=True, capture_output=True)
    if not repo.exists():
        shutil.copytree(CORRECT, repo / "micrograd")
        git("init", "-q", "-b", "main")
    else:
        (repo / "micrograd" / "notes.py").write_text(f"# {when}\n")
    git("add", "-A")
    git("commit", "-q", "-m", "work")
    if tag:
        git("tag", tag)


@pytest.fixture(scope="module")
def term(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A course whose value_ops is due on DUE with a late policy, a roster and extensions, and a class of
    repositories committed around the due date."""
    top = tmp_path_factory.mktemp("term")
    course = top / "course"
    for name in ("assignments", "reference", "student_template"):
        shutil.copytree(ROOT / name, course / name, ignore=shutil.ignore_patterns("__pycache__"))
    yaml = course / "assignments" / "value_ops" / "assignment.yaml"
    yaml.write_text(yaml.read_text() + POLICY)
    (course / "assignments" / "course.yaml").write_text(
        "time_zone: America/New_York\nroster: term/roster.csv\nextensions: term/extensions.csv\n")
    (course / "term").mkdir()
    (course / "term" / "roster.csv").write_text(
        "student,github,email,name\n"
        + "".join(f"{s},,{s}@example.edu,{s}\n" for s in ("at_due", "one_second", "grace_end", "past_grace",
                                                         "day_25h", "day_25h_1s", "at_cutoff", "past_cutoff",
                                                         "tagged"))
        + "s-ext,ext-gh,ext@example.edu,Extended\nghost,,ghost@example.edu,Ghost\n")
    (course / "term" / "extensions.csv").write_text(
        "student,assignment,due,extra,reason\ns-ext,value_ops,,2d,accommodation letter\n")
    repos = top / "repos"
    for name, when in {"at_due": DUE, "one_second": DUE + S, "grace_end": DUE + 15 * MIN,
                       "past_grace": DUE + 15 * MIN + S, "day_25h": DUE + 25 * H, "day_25h_1s": DUE + 25 * H + S,
                       "at_cutoff": DUE + 3 * D, "past_cutoff": DUE + 3 * D + S, "ext-gh": DUE + 2 * D, "stranger": DUE - H}.items():
        commit_at(repos / name, when)
    commit_at(repos / "tagged", DUE - H, tag="submit/first")  # on time, then a late tag that is not graded
    commit_at(repos / "tagged", DUE + 2 * H, tag="submit/second")
    return course, repos


def test_every_boundary_is_applied_to_the_second_in_the_gradebook_and_results(term, tmp_path, capsys):
    course, repos = term
    out = tmp_path / "out"
    assert main(["--course", str(course), "grade", str(repos), "-a", "value_ops", "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "Due: value_ops 2026-10-31T23:59:00-04:00 (2026-11-01T03:59:00Z, assignment.yaml)" in err
    assert "Roster: graded but not on the roster: stranger" in err
    assert "Roster: on the roster with no grades (missing): ghost" in err
    # docs/how-to/term.md quotes what it prints, at the due date of the page's own example (2026-11-30)
    assert_quoted("how-to/term.md", "Due: value_ops", err,
                  masks=[(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:[-+]\d\d:\d\d|Z)", "<time>")])
    assert_quoted("how-to/term.md", "Late work:", err)
    assert_quoted("how-to/term.md", "Roster: on the roster", err)
    with open(out / "grades.csv", encoding="utf-8") as f:
        rows = {row["student"]: row for row in csv.DictReader(f)}
    expect = {  # student: (final score, raw, late seconds, as the policy counts it, points taken)
        "at_due": ("40", "40", "0", "on time", "0"),
        "one_second": ("40", "40", "1", "within the grace period", "0"),
        "grace_end": ("40", "40", "900", "within the grace period", "0"),
        "past_grace": ("36", "40", "901", "1 started day", "4"),
        "day_25h": ("36", "40", str(25 * 3600), "1 started day", "4"),  # the 25-hour Sunday is one day
        "day_25h_1s": ("32", "40", str(25 * 3600 + 1), "2 started days", "8"),
        "at_cutoff": ("28", "40", str(3 * 86400), "3 started days", "12"),  # 72 h: the third day ends at 73 h
        "past_cutoff": ("0", "0", str(3 * 86400 + 1), "after the cut-off", "0"),
        "s-ext": ("40", "40", "0", "on time", "0"),  # two days late, with two days' extension: the repository ext-gh
        # is the roster's GitHub name of s-ext, graded as s-ext
        "tagged": ("40", "40", "0", "on time", "0"),  # the tag before the due date is graded
        "stranger": ("40", "40", "0", "on time", "0"),
    }
    got = {s: (r["value_ops"], r["value_ops.raw"], r["value_ops.late_seconds"], r["value_ops.late"],
               r["value_ops.penalty"]) for s, r in rows.items()}
    assert got == expect
    assert "late (1 started day, 4 points taken)" in rows["past_grace"]["notes"]

    late = json.loads((out / "value_ops" / "past_grace" / "results.json").read_text())
    assert late["score"] == 36 and sum(t["score"] for t in late["tests"]) == 40
    block = late["extra_data"]["grader"]["late"]
    assert (block["raw_score"], block["penalty_points"], block["final_score"], block["applied"]) == (40, 4, 36, True)
    assert block["due"] == "2026-10-31T23:59:00-04:00" and block["submitted"] == "2026-11-01T04:14:01Z"
    feedback = (out / "value_ops" / "past_grace" / "feedback.md").read_text()
    assert "**36 / 40 points**" in feedback
    assert "1 started day(s), 10% of the points taken" in feedback and "Score after the penalty: 36 / 40" in feedback
    assert "late work loses 10% of the points per started day" in feedback
    assert "Roster: 1 submission(s) found by the roster's GitHub name, graded as the roster's id: ext-gh as s-ext" in err
    extended = (out / "value_ops" / "s-ext" / "feedback.md").read_text()
    assert "Extension: 2 d more, due 2026-11-02T23:59:00-05:00 instead of 2026-10-31T23:59:00-04:00" in extended
    assert "accommodation" not in extended  # the reason stays with the instructor
    cut = (out / "value_ops" / "past_cutoff" / "feedback.md").read_text()
    assert "after the cut-off: not graded" in cut

    # the class report shows the policy, the outcomes and the roster's mismatches
    assert main(["--course", str(course), "report", str(out)]) == 0
    html = (out / "report.html").read_text()
    assert 'id="late"' in html and "2026-10-31T23:59:00-04:00" in html
    assert 'data-kind="penalised">4<' in html and 'data-kind="after the cut-off">1<' in html
    assert "Missing (on the roster, no submission): ghost" in html and "Not on the roster: stranger" in html
    # work after the cut-off needs attention as such: a re-run grades it the same, an extension would change it
    attention = [(r.kind, r.student) for r in class_data(out, Course(course)).attention]
    assert attention == [("after the cut-off", "past_cutoff")]

    # the roster of course.yaml matches the export too: the final scores go to the LMS, every mismatch is listed
    exported = tmp_path / "scores.csv"
    assert main(["--course", str(course), "export", "csv", str(exported), "--graded", str(out)]) == 0
    with open(exported, encoding="utf-8") as f:
        scores = {r["student"]: r["value_ops"] for r in csv.DictReader(f)}
    assert scores["past_grace"] == "36" and scores["s-ext"] == "40" and scores["ghost"] == ""
    assert "graded but not on the roster: stranger" in capsys.readouterr().err

    # a run with nothing changed keeps every result; a new extension re-grades that student only
    capsys.readouterr()
    assert main(["--course", str(course), "grade", str(repos), "-a", "value_ops", "-o", str(out)]) == 0
    assert "Graded 0 submission(s)" in capsys.readouterr().out
    extensions = tmp_path / "more.csv"
    extensions.write_text("student,assignment,due,extra,reason\ns-ext,value_ops,,2d,\npast_grace,*,,1h,\n")
    assert main(["--course", str(course), "grade", str(repos), "-a", "value_ops", "-o", str(out),
                 "--extensions", str(extensions)]) == 0
    assert "Graded 1 submission(s)" in capsys.readouterr().out
    with open(out / "grades.csv", encoding="utf-8") as f:
        assert {r["student"]: r["value_ops"] for r in csv.DictReader(f)}["past_grace"] == "40"


def test_a_wrong_late_policy_or_extensions_file_grades_nothing_and_names_the_file_line_and_key(term, tmp_path,
                                                                                               capsys):
    course, repos = term
    broken = tmp_path / "course"
    shutil.copytree(course, broken)
    yaml = broken / "assignments" / "value_ops" / "assignment.yaml"
    yaml.write_text(yaml.read_text().replace("penalty: 10%", "penalty: ten"))
    out = tmp_path / "out"
    assert main(["--course", str(broken), "grade", str(repos), "-a", "value_ops", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "value_ops/assignment.yaml: late.penalty: 'ten': expected a percentage" in err
    assert not out.exists()

    bad = tmp_path / "extensions.csv"
    bad.write_text("student,assignment,due,extra,reason\nalice,value_ops,,2 days,\n")
    assert main(["--course", str(course), "grade", str(repos), "-a", "value_ops", "-o", str(out),
                 "--extensions", str(bad)]) == 2
    err = capsys.readouterr().err
    assert f"{bad}: line 2, extra" in err and "2 days" in err
    assert not out.exists()


def test_an_override_moves_the_due_date_for_one_run(term, tmp_path, capsys):
    course, repos = term
    out = tmp_path / "out"
    late = (DUE + 3 * D).astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert main(["--course", str(course), "grade", str(repos), "-a", "value_ops", "-o", str(out),
                 "--deadline", late]) == 0
    with open(out / "grades.csv", encoding="utf-8") as f:
        rows = {r["student"]: r for r in csv.DictReader(f)}
    assert rows["past_cutoff"]["value_ops.late_seconds"] == "1" and rows["past_cutoff"]["value_ops"] == "40"
    assert rows["tagged"]["value_ops.late"] == "on time"


def test_grading_without_the_terms_rules_applies_no_due_date(term, tmp_path):
    """What `grader validate` and the benchmarks do: the reference and correct variants, copied today, after the
    course's due date, are never late."""
    from grader.course.course import Course
    from grader.grading.batch import grade

    course, _ = term
    subs = tmp_path / "subs"
    shutil.copytree(CORRECT, subs / "today" / "micrograd")
    run = grade(Course(course), subs, ["value_ops"], tmp_path / "out", jobs=1)
    assert run.store is not None
    result = run.store.get("value_ops", "today")
    assert result is not None and result.late is None and result.score == 40
