"""The judge decides the sandbox, the worker only answers (issue 53, 1): student code that writes on the worker's
channel the messages only the sandbox sends before any student code (a set-up failure, an isolation report, the
launcher's pids) is not obeyed, at import or later. The layers were settled before any student code ran in the
judge; such a message is that submission's protocol fault (its tests fail and say why, nothing is withheld), and
an honest student graded after the attackers in the same judge has every layer the first one had.

Run as root here and in CI; ``tests/sandbox/test_normal_user.py`` runs the setup-failure attack as a normal user.
"""

from __future__ import annotations

import csv
import json

import hostile_submissions as H
import pytest
from checkout import ROOT

from grader.cli import main

pytestmark = pytest.mark.linux_only  # the Linux backend's layers; the portable backend has none to turn off

KINDS = ("setup_failed", "isolation", "launcher")
FORGE = H.FORGED_CONTROL.split("_FORGED = ")[0]  # the channel finder alone, for the attack from a method


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """value_ops graded at -j 1 (one judge, in name order): an honest submission, the attackers, an honest one."""
    base = tmp_path_factory.mktemp("forged-control")
    subs, out = base / "subs", base / "out"
    H.write(subs / "a_honest", H.NO_POW)
    for kind in KINDS:
        H.write(subs / f"b_forged_{kind}", H.with_import_code(H.FORGED_CONTROL.format(kind=kind)))
    later = H.with_pow('_send({"setup_failed": {"layer": "namespaces", "reason": "forged"}})\nreturn 0')
    H.write(subs / "c_forged_later", H.with_import_code(FORGE, later))
    H.write(subs / "z_honest", H.NO_POW)
    status = main(["--course", str(ROOT), "grade", str(subs), "-o", str(out), "-a", "value_ops", "-j", "1"])
    with open(out / "grades.csv", encoding="utf-8") as f:
        grades = {row["student"]: row for row in csv.DictReader(f)}

    def results(student: str) -> dict:
        return json.loads((out / "value_ops" / student / "results.json").read_text(encoding="utf-8"))

    return status, grades, results, out


def test_nothing_is_withheld_and_the_honest_students_keep_their_score(graded):
    status, grades, _, _ = graded
    assert status == 0, "a withheld score would make grading exit with status 3"
    assert grades["a_honest"]["value_ops"] == grades["z_honest"]["value_ops"] != "0"


def test_an_honest_student_graded_after_the_attackers_keeps_every_layer(graded):
    _, _, results, _ = graded
    first = results("a_honest")["extra_data"]["grader"]["isolation"]
    last = results("z_honest")["extra_data"]["grader"]["isolation"]
    assert last == first
    if H.os.geteuid() == 0:  # as root on this host every layer holds: namespaces, Landlock, a user of its own
        assert all(not text.startswith("off") for layer, text in last.items()
                   if layer in ("pid namespace", "mount namespace", "landlock", "separate user")), last


@pytest.mark.parametrize("kind", KINDS)
def test_a_control_message_written_at_import_fails_that_submission_and_says_why(graded, kind):
    _, grades, results, out = graded
    doc = results(f"b_forged_{kind}")
    assert doc["score"] == 0 and not doc["extra_data"]["grader"].get("grader_error")
    assert grades[f"b_forged_{kind}"]["value_ops"] == "0"
    feedback = (out / "value_ops" / f"b_forged_{kind}" / "feedback.md").read_text(encoding="utf-8")
    assert f"your code wrote a '{kind}' message on the grader's channel" in feedback
    assert "not obeyed" in feedback


def test_a_set_up_failure_written_later_is_an_invalid_answer_of_the_method_that_wrote_it(graded):
    _, grades, results, _ = graded
    doc = results("c_forged_later")
    assert not doc["extra_data"]["grader"].get("grader_error")
    honest = {t["name"]: t["status"] for t in results("a_honest")["tests"]}
    assert {t["name"]: t["status"] for t in doc["tests"]} == honest  # NO_POW's failures: the ** tests, no more


def test_on_the_portable_backend_a_forged_set_up_failure_is_the_submissions_fault_not_withheld(tmp_path):
    """The portable backend has no layer to turn off, so a set-up failure used to withhold the score: a student could
    turn a low score into a grader error. It is now that submission's fault, like any answer that is no answer."""
    subs, out = tmp_path / "subs", tmp_path / "out"
    H.write(subs / "forger", H.with_import_code(H.FORGED_CONTROL.format(kind="setup_failed")))
    status = main(["--course", str(ROOT), "grade", str(subs), "-o", str(out), "-a", "value_ops", "--sandbox",
                   "portable"])
    doc = json.loads((out / "value_ops" / "forger" / "results.json").read_text(encoding="utf-8"))
    assert status == 0 and doc["score"] == 0 and not doc["extra_data"]["grader"].get("grader_error")
    assert "not obeyed" in (out / "value_ops" / "forger" / "feedback.md").read_text(encoding="utf-8")
