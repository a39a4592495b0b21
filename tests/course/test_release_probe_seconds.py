"""The release ships the reference's time per probe of the public tests (issue 56): a student's ``grader check`` of
code that loops forever gives each call a limit of its own, as hidden grading does, and the file holds no answer and
nothing of the hidden tests."""

from __future__ import annotations

import json
import re

import hostile_submissions as H
from checkout import ROOT

from grader.cli import main
from grader.course.course import Course
from grader.grading.one import grade_one
from grader.judge.probe_seconds import FILE, read


def test_a_hanging_student_copy_s_check_names_a_limit_from_the_reference_not_the_test_s(release, capsys):
    """The first call that loops reaches a limit derived from the reference's time for that call, the next ones a
    shortened one: seconds, not the test's 10 s each."""
    submission = H.write(release.parent / "hang", H.with_pow(H.LOOP))
    capsys.readouterr()
    assert main(["--course", str(release), "check", str(submission), "-a", "value_ops", "--format", "json"]) == 1
    tests = json.loads(capsys.readouterr().out)["assignments"]["value_ops"]["tests"]
    pow_test = next(t for t in tests if "__pow__" in t["name"])
    assert re.search(r"did not finish within \d+ ms \(the reference solution needs [^;)]+ for this call\)",
                     pow_test["output"]), pow_test["output"]
    assert not any("this test's time limit" in t["output"] for t in tests)
    assert any("a shortened limit, because your code already ran out of time" in t["output"] for t in tests)


def measured(tmp_path, name, include_hidden):
    """The request keys of the probes value_ops's tests make on the reference in the instructor's course (public
    tests only, or public and hidden), as a timing run records them."""
    dest = tmp_path / f"{name}.json"
    course = Course(ROOT)
    grade_one(course, course.reference_dir, course.assignments(["value_ops"]), include_hidden=include_hidden,
              sandbox="portable", student=name, timing=(course.reference_dir, dest))
    return set(read(dest))


def test_the_table_holds_times_of_the_public_tests_calls_only_never_a_hidden_one_nor_an_answer(release, tmp_path):
    text = (release / "assignments" / FILE).read_text(encoding="utf-8")
    doc = json.loads(text)
    assert set(doc) == {"about", "seconds"}
    shipped = read(release / "assignments" / FILE)
    assert len(shipped) == len(doc["seconds"]) > 50  # every entry a hash and a time: no answer, no argument
    assert all(0 <= seconds < 5 for seconds in shipped.values())
    assert '"graph"' not in text and "leaves" not in text and "data" not in text
    public = measured(tmp_path, "public", include_hidden=False)
    hidden_only = measured(tmp_path, "hidden", include_hidden=True) - public
    assert len(hidden_only) > 10  # the hidden tests make calls of their own...
    assert hidden_only.isdisjoint(shipped)  # ...which the release never names
    assert len(public & set(shipped)) > 0.9 * len(public)  # (the release has no parts: a call or two differ)
