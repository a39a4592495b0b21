"""Work pushed to another branch than the one graded: said where an instructor looks and in the student's feedback,
never graded silently (grader.intake.other_branches).

A repository made from a template has one commit on ``main``; a student who pushes their work to ``master`` has
``main`` graded, the template, 0 points. The evidence (a branch with commits the graded commit does not hold) goes
into the result's ``origin`` (for the gradebook's notes, the report's *needs attention* and the terminal) and the
feedback's first note, with push records and without, in a clone (``refs/remotes/origin/master``) and with a
``submit/*`` tag; a student whose graded branch holds their work is not flagged for their other branches.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import asdict
from pathlib import Path

import pytest
from checkout import ROOT
from test_git_history import DEADLINE, LATE, ON_TIME, ON_TIME_2, commit, git, make_repo, tag
from test_pushes import AFTER, BEFORE, activity, write

from grader.course.course import Course
from grader.intake import pushes as P
from grader.intake.entry import Submission
from grader.intake.git_history import read_at_deadlines
from grader.outputs.attention import attention_list, finding
from grader.outputs.class_outputs import run_summary, write_class_outputs
from grader.outputs.gradebook import grade_from_results
from grader.outputs.records import Stamp, empty_record
from grader.outputs.store import ResultStore

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

VALUE_OPS = Course(ROOT).assignment("value_ops")
TEMPLATE = "# the template: raise NotImplementedError\n"
WORK = "# the student's work\n"


def template_repo(path: Path) -> tuple[Path, str, str]:
    """A repository made from a template (one commit on main) whose student committed their work on master, with
    main checked out again: (repository, the template's commit, the work's commit)."""
    repo = make_repo(path)
    first = commit(repo, ON_TIME, {"micrograd/engine.py": TEMPLATE})
    git(repo, "checkout", "-q", "-b", "master")
    work = commit(repo, ON_TIME_2, {"micrograd/engine.py": WORK})
    git(repo, "checkout", "-q", "main")
    return repo, first, work


def read(repo: Path, record: list[dict[str, object]] | None = None) -> Submission:
    pushes = P.read_pushes(write(repo.parent / f"{repo.name}.json", record)) if record is not None else None
    return read_at_deadlines(repo, [(DEADLINE, None)], pushes)[0]


def test_work_pushed_only_to_master_is_said_to_be_there_and_main_is_still_what_is_graded(tmp_path):
    repo, first, work = template_repo(tmp_path / "alice")
    sub = read(repo, [activity("refs/heads/master", work, "2026-11-25T10:00:05Z", "branch_creation")])
    assert sub.origin is not None and sub.origin.commit == first  # main is graded: never master, silently
    assert sub.files == {"micrograd/engine.py": TEMPLATE.encode()}
    assert sub.origin.other_branch == (
        f"the graded main holds only the repository's first commit ({first[:7]}: the template, in a repository made "
        "from one), while master has 1 commit not in it (pushed 2026-11-25T10:00:05Z)")
    assert sub.notes[0] == sub.origin.other_branch_feedback
    assert sub.notes[0].startswith("Your work is on branch master; the course grades main: main holds only")
    assert "Merge master into main and push main" in sub.notes[0]
    assert any("no push of refs/heads/main" in n for n in sub.notes[1:])  # what was said before, still said


def test_a_clone_whose_master_has_the_work_says_so_without_push_records(tmp_path):
    source, first, work = template_repo(tmp_path / "origin")
    git(tmp_path, "clone", "-q", str(source), "bob")  # HEAD main; master only as refs/remotes/origin/master
    assert not (tmp_path / "bob" / ".git" / "refs" / "heads" / "master").exists()
    sub = read(tmp_path / "bob")
    assert sub.origin is not None and sub.origin.commit == first
    assert f"master has 1 commit not in it (the latest dated {ON_TIME_2})" in sub.origin.other_branch
    assert sub.notes[0].startswith("Your work is on branch master; the course grades main")


def test_a_branch_pushed_in_time_is_said_when_the_graded_branch_has_only_late_work(tmp_path):
    repo, first, work = template_repo(tmp_path / "carol")
    git(repo, "checkout", "-q", "main")
    late = commit(repo, LATE, {"micrograd/engine.py": "# pushed to main after the due date\n"})
    on_time = read(repo, [activity("refs/heads/master", work, BEFORE), activity("refs/heads/main", late, AFTER)])
    assert on_time.origin is not None and on_time.origin.commit == late and on_time.origin.late
    assert on_time.origin.other_branch == (
        f"the graded main has nothing submitted by the due date (graded main commit {late[:7]} of {AFTER}, late), "
        f"while master has 1 commit not in it (pushed {BEFORE})")
    pushed_late = read(repo, [activity("refs/heads/main", late, AFTER), activity("refs/heads/master", work, AFTER)])
    assert pushed_late.origin is not None and pushed_late.origin.late
    assert pushed_late.origin.other_branch == "" and not any("Your work is on" in n for n in pushed_late.notes)


def test_a_submit_tag_on_the_template_while_master_has_the_work(tmp_path):
    repo, first, _ = template_repo(tmp_path / "dan")
    tag(repo, "submit/1", when=ON_TIME)
    sub = read(repo)
    assert sub.origin is not None and (sub.origin.ref, sub.origin.commit) == ("submit/1", first)
    assert sub.origin.other_branch.startswith("the graded submit/* tags point only to the repository's first commit")
    assert sub.notes[0].startswith("Your work is on branch master; the course grades submit/* tags")
    assert "Put a submit/* tag on the commit that holds your work (on master)" in sub.notes[0]


def test_work_on_the_graded_branch_is_never_flagged_for_other_branches(tmp_path):
    repo, first, work = template_repo(tmp_path / "erin")
    git(repo, "merge", "-q", "--ff-only", "master")  # main holds the work; master has nothing main lacks
    git(repo, "checkout", "-q", "-b", "experiment")
    commit(repo, ON_TIME_2, {"micrograd/engine.py": "# an experiment\n"})
    git(repo, "checkout", "-q", "main")
    sub = read(repo, [activity("refs/heads/main", work, BEFORE), activity("refs/heads/experiment", work, BEFORE)])
    assert sub.origin is not None and sub.origin.commit == work and sub.origin.other_branch == ""
    assert not any("Your work is on" in n for n in sub.notes)
    only = make_repo(tmp_path / "frank")  # the template alone, and no other branch: the template, as before
    commit(only, ON_TIME, {"micrograd/engine.py": TEMPLATE})
    assert read(only).origin.other_branch == ""


def test_the_evidence_reaches_the_gradebook_notes_the_attention_list_and_the_terminal(tmp_path):
    """As batch intake stages it: the origin goes into results.json, its note and the submission's notes first."""
    repo, _, work = template_repo(tmp_path / "alice")
    sub = read(repo, [activity("refs/heads/master", work, BEFORE, "branch_creation")])
    assert sub.origin is not None
    store = ResultStore(tmp_path / "out")
    doc = empty_record()
    doc["notes"] = [sub.origin.note, *sub.notes]
    store.write(VALUE_OPS, "alice", doc, Stamp(fingerprint="f", course={}, origin=asdict(sub.origin), late=None))
    saved = json.loads((tmp_path / "out" / "value_ops" / "alice" / "results.json").read_text())
    assert saved["extra_data"]["grader"]["origin"]["other_branch"] == sub.origin.other_branch
    feedback = (tmp_path / "out" / "value_ops" / "alice" / "feedback.md").read_text()
    assert "> Note: Your work is on branch master; the course grades main" in feedback

    result = store.get("value_ops", "alice")
    assert result is not None
    found = finding(result)  # not "could not be graded": the reason is the branch
    assert found is not None and found.kind == "work on another branch" and "master has 1 commit" in found.reason
    assert [(a.kind, a.assignments) for a in attention_list({"alice": [("value_ops", found)]})] == [
        ("work on another branch", ("value_ops",))]
    notes = grade_from_results(store, [VALUE_OPS], "alice").notes
    assert notes[0] == f"value_ops: work on another branch: {sub.origin.other_branch}"
    made = write_class_outputs(store, [VALUE_OPS], ["alice"])
    assert made.other_branch == {"alice": {"value_ops"}}
    line = run_summary(made, [VALUE_OPS], store.out, graded=1, kept=0, course_changed={}, seconds=0.0, jobs=1).notes[-1]
    assert line.startswith("Work on another branch: 1 student(s) (alice) graded on a branch that holds nothing")
    assert "'Work on another branch'" in line
