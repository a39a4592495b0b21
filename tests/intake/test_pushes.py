"""Dates a student cannot forge: the git server's push records decide what is graded at a due date and how late.

A commit's committer date is written by the student's machine: ``GIT_COMMITTER_DATE`` (or a wrong clock) makes
work finished after the due date look on time. With GitHub's repository activity list (``grader grade
--pushes``) the grader grades what the server had received at the due date, dated by the server's clock.
"""

from __future__ import annotations

import json
import shutil
from datetime import timedelta
from pathlib import Path

import pytest
from checkout import ROOT
from doc_quotes import assert_quoted
from test_git_history import DEADLINE, LATE, ON_TIME, commit, git, make_repo, tag

from grader.cli import main
from grader.errors import ConfigError
from grader.intake import pushes as P
from grader.intake.git_history import read_at_deadlines

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

CORRECT = (ROOT / "reference" / "micrograd" / "engine.py").read_text(encoding="utf-8")
BEFORE, AFTER = "2026-11-30T20:00:00Z", "2026-12-01T09:30:00Z"  # around DEADLINE (2026-11-30T23:59:00Z)


def activity(ref: str, after: str, when: str, kind: str = "push") -> dict[str, object]:
    """One record as GitHub's ``GET /repos/{owner}/{repo}/activity`` returns it (the fields the grader reads)."""
    return {"id": 1, "node_id": "RA_x", "before": "0" * 40, "after": after, "ref": ref, "timestamp": when,
            "activity_type": kind, "actor": {"login": "student"}}


@pytest.fixture
def backdated(tmp_path: Path) -> tuple[Path, str, str]:
    """A repository whose second commit was made after the due date but dated before it (GIT_COMMITTER_DATE)."""
    repo = make_repo(tmp_path / "alice")
    honest = commit(repo, ON_TIME, {"micrograd/engine.py": "# on time\n"})
    forged = commit(repo, BEFORE, {"micrograd/engine.py": "# finished after the due date\n"})
    return repo, honest, forged


def test_a_backdated_commit_pushed_after_the_due_date_is_not_graded_as_on_time(backdated):
    repo, honest, forged = backdated
    plain = read_at_deadlines(repo, [(DEADLINE, None)])[0]
    assert plain.origin.commit == forged and not plain.origin.late  # the forgery works on committer dates alone
    record = [activity("refs/heads/main", honest, "2026-11-20T22:05:00Z"), activity("refs/heads/main", forged, AFTER)]
    sub = read_at_deadlines(repo, [(DEADLINE, None)], P.read_pushes(write(repo.parent / "alice.json", record)))[0]
    assert sub.origin.commit == honest and not sub.origin.late
    assert sub.files["micrograd/engine.py"] == b"# on time\n"
    assert "as pushed at 2026-11-20T22:05:00Z" in sub.origin.note
    late = read_at_deadlines(repo, [(DEADLINE - timedelta(days=30), None)], P.read_pushes(repo.parent / "alice.json"))[0]
    assert late.origin.late and late.origin.time == "2026-12-01T09:30:00Z"  # nothing pushed before: the last push
    assert late.origin.evidence.startswith("the time the server received the push")


def test_a_submit_tag_pushed_after_the_due_date_is_late_whatever_its_dates(tmp_path):
    repo = make_repo(tmp_path / "bob")
    old = commit(repo, ON_TIME, {"micrograd/engine.py": "x = 1\n"})
    tag(repo, "submit/final", annotated=True, when=ON_TIME)  # tagger date forged too
    tag_object = (repo / ".git" / "refs" / "tags" / "submit" / "final").read_text().strip()
    record = [activity("refs/heads/main", old, "2026-11-20T22:05:00Z"),
              activity("refs/tags/submit/final", tag_object, AFTER, "branch_creation")]
    sub = read_at_deadlines(repo, [(DEADLINE, None)], P.read_pushes(write(tmp_path / "bob.json", record)))[0]
    assert sub.origin.commit == old and sub.origin.late and sub.origin.ref == "submit/final"


def test_a_commit_dated_in_the_year_10000_is_late_not_undated(tmp_path):
    """Without push records: a date past any due date is after the cut-off, never 'no time recorded'."""
    repo = make_repo(tmp_path / "carol")
    commit(repo, LATE, {"micrograd/engine.py": "x = 1\n"})
    (repo / "far").write_text("")
    import subprocess

    env = {"GIT_COMMITTER_DATE": "@253402300800 +0000", "GIT_AUTHOR_DATE": "@253402300800 +0000",
           "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1", "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=s", "-c", "user.email=s@x", "add", "-A"], env=env,
                   check=True)
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=s", "-c", "user.email=s@x", "-c", "commit.gpgSign=false",
                    "commit", "-qm", "year 10000"], env=env, check=True)
    sub = read_at_deadlines(repo, [(DEADLINE, None)])[0]
    assert sub.origin.late and sub.origin.time == "9999-12-31T23:59:59Z"
    from grader.grading.due_work import submitted_at

    when, evidence = submitted_at(sub, None)
    assert when is not None and when.year == 9999 and "committer date" in evidence


def test_a_pushed_commit_missing_from_the_clone_is_that_windows_error_never_another_commit(backdated):
    """Force-pushed away: the window the push decides cannot be graded (the student's error, saying what to do); a
    window decided by a push whose commit is there is graded as usual."""
    repo, honest, _ = backdated
    record = [activity("refs/heads/main", honest, "2026-11-20T22:05:00Z"),
              activity("refs/heads/main", "ab" * 20, "2026-11-29T22:05:00Z")]
    early, due = read_at_deadlines(repo, [(DEADLINE - timedelta(days=5), None), (DEADLINE, None)],
                                   P.read_pushes(write(repo.parent / "alice.json", record)))
    assert early.origin.commit == honest and not early.error
    assert due.origin is None and not due.files
    assert "commit abababababab pushed to main" in due.error and "force-pushed away" in due.error
    assert "Fetch the repository again" in due.error


def test_a_record_without_the_branch_falls_back_to_committer_dates_and_says_so(backdated):
    repo, _, forged = backdated
    record = [activity("refs/heads/other", forged, AFTER)]
    sub = read_at_deadlines(repo, [(DEADLINE, None)], P.read_pushes(write(repo.parent / "alice.json", record)))[0]
    assert sub.origin.commit == forged and any("no push of refs/heads/main" in n for n in sub.notes)


def write(path: Path, record: object, text: str | None = None) -> Path:
    path.write_text(text if text is not None else json.dumps(record), encoding="utf-8")
    return path


def test_gh_paginate_output_slurp_output_and_deletions_are_read(tmp_path):
    one, two = activity("refs/heads/main", "a" * 40, BEFORE), activity("refs/heads/main", "b" * 40, AFTER)
    gone = activity("refs/heads/main", "0" * 40, AFTER, "branch_deletion")
    pages = write(tmp_path / "p.json", None, json.dumps([two]) + "\n" + json.dumps([one, gone]))
    slurped = write(tmp_path / "s.json", [[two], [one]])
    for path in (pages, slurped):
        assert [p.after[0] for p in P.read_pushes(path)] == ["a", "b"]  # oldest first, the deletion left out


@pytest.mark.parametrize(("text", "says"), [
    ('{"message": "Not Found", "documentation_url": "..."}', "GitHub answered: 'Not Found'"),
    ('[{"ref": "refs/heads/main", "after": "zz", "timestamp": "2026-11-30T20:00:00Z"}]', "record 1: 'after'"),
    ('[{"ref": "main", "after": "' + "a" * 40 + '", "timestamp": "2026-11-30T20:00:00Z"}]', "record 1: 'ref'"),
    ('[{"ref": "refs/heads/main", "after": "' + "a" * 40 + '", "timestamp": "2026-11-30 20:00"}]', "no time zone"),
    ('[1]', "record 1: not an object"),
    ("[" * 100_000, "not JSON"),
    ("\xff\xfe", "not UTF-8"),
])
def test_a_broken_push_record_is_one_error_naming_the_file_and_record(tmp_path, text, says):
    path = tmp_path / "alice.json"
    path.write_bytes(text.encode("latin-1") if text == "\xff\xfe" else text.encode())
    with pytest.raises(ConfigError, match="alice.json") as raised:
        P.read_pushes(path)
    assert says in str(raised.value)


def test_an_oversized_push_record_is_refused_before_it_is_parsed(tmp_path, monkeypatch):
    monkeypatch.setattr(P, "MAX_BYTES", 1000)
    path = write(tmp_path / "big.json", [activity("refs/heads/main", "a" * 40, BEFORE)] * 20)
    with pytest.raises(ConfigError, match="over 0 MB"):
        P.read_pushes(path)
    monkeypatch.setattr(P, "MAX_BYTES", 10**6)
    monkeypatch.setattr(P, "MAX_RECORDS", 5)
    with pytest.raises(ConfigError, match="more than 5 records"):
        P.read_pushes(path)


def test_grade_with_pushes_grades_what_was_pushed_and_says_whose_clock_it_used(tmp_path, capsys):
    subs = tmp_path / "subs"
    subs.mkdir()
    repo = make_repo(subs / "alice")
    honest = commit(repo, ON_TIME, {"micrograd/__init__.py": "", "micrograd/engine.py": CORRECT})
    commit(repo, BEFORE, {"micrograd/engine.py": CORRECT.replace("def __add__", "def __add__x")})  # backdated
    bob = make_repo(subs / "bob")  # made from a template (one without code: no sandbox needed); his work on master
    commit(bob, ON_TIME, {"README.md": "# Assignment 1\n"})
    git(bob, "checkout", "-q", "-b", "master")
    work = commit(bob, BEFORE, {"micrograd/engine.py": CORRECT})
    git(bob, "checkout", "-q", "main")
    pushes = tmp_path / "pushes"
    pushes.mkdir()
    write(pushes / "alice.json", [activity("refs/heads/main", honest, "2026-11-20T22:05:00Z")])
    write(pushes / "bob.json", [activity("refs/heads/master", work, BEFORE, "branch_creation")])
    status = main(["--course", str(ROOT), "grade", str(subs), "-o", str(tmp_path / "out"), "-a", "value_ops",
                   "--deadline", "2026-11-30T23:59Z", "--pushes", str(pushes), "-j", "1"])
    assert status == 0
    doc = json.loads((tmp_path / "out" / "value_ops" / "alice" / "results.json").read_text())
    assert doc["score"] == 40 and doc["extra_data"]["grader"]["origin"]["commit"] == honest
    feedback = (tmp_path / "out" / "value_ops" / "alice" / "feedback.md").read_text()
    assert "the time the server received the push" in feedback
    # bob: main (the template) graded, as the course says, and said where the work is, on every output
    assert json.loads((tmp_path / "out" / "value_ops" / "bob" / "results.json").read_text())["score"] == 0
    assert "Your work is on branch master; the course grades main" in \
        (tmp_path / "out" / "value_ops" / "bob" / "feedback.md").read_text()
    book = (tmp_path / "out" / "grades.csv").read_text()
    assert "value_ops: work on another branch: the graded main holds only the repository's first commit" in book
    err = capsys.readouterr().err
    assert "Work on another branch: 1 student(s) (bob)" in err
    assert_quoted("how-to/git-repositories.md", 2, (tmp_path / "out" / "value_ops" / "bob" / "feedback.md").read_text(),
                  masks=[(r"^> Note: ", ""), (r"\b[0-9a-f]{7}\b", "<commit>")])  # its note, whatever the commit id
    assert_quoted("how-to/git-repositories.md", 3, err)
    write(pushes / "alice.json", None, "[{")
    assert main(["--course", str(ROOT), "grade", str(subs), "-o", str(tmp_path / "out2"), "-a", "value_ops",
                 "--deadline", "2026-11-30T23:59Z", "--pushes", str(pushes)]) == 2
    assert "alice.json" in capsys.readouterr().err and not (tmp_path / "out2").exists()
