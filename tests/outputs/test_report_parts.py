"""The class report's parts on hand-made results: bug attribution, the "needs attention" list, points per task."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from checkout import ROOT

from grader.course.catalogue import Bug
from grader.course.course import Course
from grader.course.due_dates import DueDate
from grader.course.late_policy import LatePolicy
from grader.grading.staging import stale_assignments
from grader.outputs.attention import (
    KINDS,
    MAX_REASON,
    REMEDIES,
    ClassAttention,
    Finding,
    attention_list,
    class_attention,
    finding,
)
from grader.outputs.breakdown import task_key, task_table
from grader.outputs.entries import TestEntry, entries, is_public
from grader.outputs.likely_bugs import THRESHOLD, attribute, match
from grader.outputs.records import ATTENTION, GradedTest, Stamp, empty_record
from grader.outputs.store import Result, ResultStore, parse

PUBLIC = "assignments/backward/tests/public/test_backward_public.py::"
HIDDEN = "assignments/backward/tests/hidden/test_backward_hidden.py::"


def bug(bug_id: str, method: str, *caught_by: str) -> Bug:
    return Bug(bug_id, "backward", method, "a bug", "micrograd/engine.py", "find", "replace", caught_by)


def graded(name: str, *, passed: bool = False, about: tuple[str, ...] = (), output: str = "✗ wrong gradient",
         grader_error: str = "", task: str = "2.1", public: bool = False, score: float = 0.0,
         max_score: float = 1.0) -> TestEntry:
    key = (PUBLIC if public else HIDDEN) + name
    return TestEntry(key, name, task, max_score if passed else score, max_score, passed, public,
                     "" if passed else output, (), about, grader_error)


TANH = ("Value.tanh",)
CATALOGUE = [
    bug("tanh_overwrites_grad", "Value.tanh", "test_unary_local_gradient[tanh]"),
    bug("tanh_grad_from_input", "Value.tanh", "test_unary[tanh]", "test_unary_local_gradient[tanh]"),
    bug("tanh_grad_not_squared", "Value.tanh", "test_unary[tanh]", "test_unary_local_gradient[tanh]"),
    bug("tanh_overflow_formula", "Value.tanh", "test_no_overflow"),
    bug("relu_overwrites_grad", "Value.relu", "test_unary_local_gradient[relu]"),
    bug("exp_overwrites_grad", "Value.exp", "test_unary_local_gradient[exp]"),
    bug("grad_init_one", "Value.__init__", "test_backward_small_expression", "test_seed_gradient",
        "test_unary_local_gradient"),
    bug("backward_no_visited_set", "Value.backward", "test_each_node_visited_once", "test_accumulation_traps"),
]


def tanh_student() -> list[TestEntry]:
    """The results of a student whose only bug is tanh's gradient computed from its input."""
    return [graded("test_unary[tanh]", about=TANH), graded("test_unary_local_gradient[tanh]", about=TANH),
            graded("test_no_overflow", about=("Value.exp", "Value.sigmoid", "Value.tanh"), score=0.5),
            graded("test_unary[relu]", passed=True, about=("Value.relu",)),
            graded("test_unary_local_gradient[relu]", passed=True, about=("Value.relu",)),
            graded("test_seed_gradient", passed=True, about=("Value.__init__", "Value.backward")),
            graded("test_each_node_visited_once", passed=True, about=("Value.backward",))]


def test_a_student_with_one_bug_is_attributed_that_one_bug_with_full_strength_and_its_look_alikes_named():
    found = attribute(CATALOGUE, {"ann": tanh_student()})
    assert list(found) == ["ann"]  # one attribution, though four tanh bugs share some of its failed tests
    at = found["ann"]
    assert at.bug.id == "tanh_grad_from_input" and at.strength == 1.0
    assert [b.id for b in at.ties] == ["tanh_grad_not_squared"]  # same tests failed: cannot be told apart
    assert at.match.hits == ("test_unary[tanh]", "test_unary_local_gradient[tanh]")
    assert at.match.evidence == "failed all 2 tests that catch it"


def test_a_student_whose_failures_fit_no_single_bug_is_not_credited_with_any():
    # failing every test each of these bugs names, and each failure naming the bug's method, as the old heuristic
    # required; but the failures spread over five methods, so no single bug explains them
    spread = [graded("test_unary_local_gradient[tanh]", about=TANH),
              graded("test_unary_local_gradient[relu]", about=("Value.relu",)),
              graded("test_unary_local_gradient[exp]", about=("Value.exp",)),
              graded("test_each_node_visited_once", about=("Value.backward",)),
              graded("test_accumulation_traps", about=("Value.backward",)),
              graded("test_seed_gradient", about=("Value.__init__", "Value.backward"))]
    assert attribute(CATALOGUE, {"bob": spread}) == {}
    scores = {b.id: match(b, spread).score for b in CATALOGUE}
    assert max(scores.values()) < float(THRESHOLD)
    assert scores["tanh_overwrites_grad"] == 1 / 6  # 1 expected test failed; 5 failures it does not explain


def test_the_score_is_the_jaccard_similarity_and_the_threshold_is_inclusive():
    bugs = [bug("visited", "Value.backward", "test_each_node_visited_once", "test_accumulation_traps")]
    half = [graded("test_each_node_visited_once", about=("Value.backward",)),
            graded("test_accumulation_traps", passed=True, about=("Value.backward",))]
    assert match(bugs[0], half).score == 0.5 and match(bugs[0], half).missed == ("test_accumulation_traps",)
    assert attribute(bugs, {"s": half})["s"].strength == 0.5
    third = half + [graded("test_unary[relu]", about=("Value.relu",))]  # a failure the bug does not explain
    assert match(bugs[0], third).score == 1 / 3 and match(bugs[0], third).unexplained == ("test_unary[relu]",)
    assert attribute(bugs, {"s": third}) == {}


def test_failures_in_other_tests_about_the_bugs_method_count_neither_for_nor_against_it():
    bugs = [bug("visited", "Value.backward", "test_each_node_visited_once")]
    own = [graded("test_each_node_visited_once", about=("Value.backward",)),
           graded("test_random_graphs_match_reference", about=("Value.backward",))]
    assert match(bugs[0], own).score == 1.0
    other = [own[0], graded("test_unary[relu]", about=("Value.relu",))]
    assert match(bugs[0], other).score == 0.5
    mlp = bug("zero_grad_rebinds", "Module.zero_grad", "test_zero_grad")
    by_class = [graded("test_zero_grad", about=("Module.zero_grad",)), graded("test_sgd_trajectory", about=("MLP",))]
    assert match(mlp, by_class).score == 0.5  # a test about the class MLP is not about Module.zero_grad
    assert match(bug("x", "MLP.__call__", "test_zero_grad"), by_class).score == 1.0  # but is about MLP.__call__


def test_unfinished_work_and_the_graders_own_failures_are_not_evidence_of_a_bug():
    stub = "Value.tanh: your code raised NotImplementedError: Task 2.1: implement Value.tanh"
    unfinished = [graded("test_unary[tanh]", about=TANH, output=stub),
                  graded("test_unary_local_gradient[tanh]", about=TANH, output=stub)]
    assert attribute(CATALOGUE, {"s": unfinished}) == {}
    broken = [graded("test_unary_local_gradient[tanh]", about=TANH, grader_error="internal error (KeyError)")]
    assert attribute(CATALOGUE, {"s": broken}) == {}


def test_a_tie_goes_to_the_bug_the_class_clearly_has_then_to_the_catalogues_order():
    bugs = [bug("first", "Value.backward", "test_a", "test_b"), bug("second", "Value.backward", "test_a", "test_c")]
    tied = [graded("test_a")]  # half of each bug's tests: a tie
    assert attribute(bugs, {"tied": tied})["tied"].bug.id == "first"
    clear = [graded("test_a"), graded("test_c")]  # all of second's tests, one failure first does not explain
    found = attribute(bugs, {"tied": tied, "clear": clear})
    assert found["clear"].bug.id == "second" and not found["clear"].ties
    assert found["tied"].bug.id == "second" and [b.id for b in found["tied"].ties] == ["first"]


def test_more_expected_tests_failed_beats_a_smaller_signature_with_the_same_score():
    bugs = [bug("one", "Value.tanh", "test_unary[tanh]"), bug("two", "Value.tanh", "test_unary[tanh]",
                                                                  "test_unary_local_gradient[tanh]")]
    both = [graded("test_unary[tanh]", about=TANH), graded("test_unary_local_gradient[tanh]", about=TANH)]
    at = attribute(bugs, {"s": both})["s"]
    assert at.bug.id == "two" and at.ties == ()
    assert match(bugs[0], both).score == 1.0  # "one" fits too, but explains less


def results(tests: list[dict], **grader: object) -> Result:
    parsed = parse({"tests": tests, "extra_data": {"grader": {"problems": [], **grader}}})
    assert parsed is not None
    return parsed


def raw(name: str, status: str, output: str = "", **extra: object) -> dict:
    return {"name": name, "score": 0.0 if status == "failed" else 1.0, "max_score": 1.0, "status": status,
            "output": output, "number": "2.1", "extra_data": {"key": HIDDEN + name, **extra}}


def test_needs_attention_names_grader_errors_ungraded_submissions_and_unchanged_templates():
    stub = "raised NotImplementedError: Task 2.1: implement Value.tanh"
    assert finding(None).kind == "results missing"  # a folder without a readable results.json
    assert finding(None, submitted=False).kind == "no submission"  # not even a folder
    # as results.json records it: the test's own error, and the reason for the whole submission
    withheld = results([raw("test_a", "failed", grader_error="internal error (KeyError)")],
                       grader_error="internal error (KeyError)")
    assert finding(withheld) == Finding("grader error", "score withheld: internal error (KeyError)")
    assert finding(results([], grader_error="the judge process ended with status 9")).kind == "grader error"
    assert finding(results([], problems=["no micrograd/engine.py in the submission"])) == Finding(
        "could not be graded", "no micrograd/engine.py in the submission")
    assert finding(results([])).kind == "no test ran"
    assert finding(results([raw("test_a", "failed", stub), raw("test_b", "failed", stub)])).kind == "template unchanged"
    assert finding(results([raw("test_a", "failed", stub), raw("test_b", "passed")])) is None  # partly done
    assert finding(results([raw("test_a", "failed", stub), raw("test_b", "failed", "raised ValueError")])) is None


def stub_test(name: str, passed: bool = False) -> GradedTest:
    return GradedTest(key=HIDDEN + name, name=name, task="2.1", max_score=1.0, score=float(passed),
                      status="passed" if passed else "failed", visibility="visible", public=False,
                      output="" if passed else "Value.tanh: your code raised NotImplementedError",
                      methods=[], about=[], hints=[], internal_error="", grader_error="", duration=0.1,
                      slowest_call=None)


RERUN = "run `grader grade` again"


def test_each_kind_of_attention_carries_the_remedy_that_fits_it(tmp_path):
    """A cell with no submission is not fixed by a re-run (it said "run `grader grade` again"); each kind's remedy
    says what does fix it, and "run again" only where the next run does grade the cell again."""
    (backward,) = Course(ROOT).assignments(["backward"])
    due = datetime(2026, 11, 30, 23, 59, tzinfo=ZoneInfo("Europe/Paris"))
    late = DueDate(due, due, LatePolicy(penalty=0.1, cutoff=3 * 86400)).terms(due + timedelta(days=4), "a push")
    assert not late["graded"]
    store = ResultStore(tmp_path)

    elsewhere = "the graded main holds only the repository's first commit, while master has 1 commit not in it"

    def write(student: str, **record: object) -> None:
        store.write(backward, student, {**empty_record(), **record},  # type: ignore[typeddict-item]
                    Stamp(fingerprint="f", course={}, origin={"other_branch": elsewhere} if student == "branch" else {},
                          late=late if student == "late" else None))

    write("withheld", grader_error="the judge process ended with status 9")
    (tmp_path / "backward" / "stopped").mkdir()  # a run stopped before its results.json was written
    (tmp_path / "backward" / "stopped" / "feedback.md").write_text("# partial\n")
    write("late", error=late["sentence"])  # as the batch writes work after the cut-off: never staged
    write("missing", error="missing micrograd/engine.py (looked for engine.py in a micrograd/ folder)")
    write("empty")
    write("template", tests=[stub_test("test_a"), stub_test("test_b")])
    write("branch", tests=[stub_test("test_a"), stub_test("test_b")])  # the template, graded on main
    write("copied", tests=[stub_test("test_a", passed=True)], notes=[f"{ATTENTION}the answers file names bob"])
    students = ["absent", "withheld", "stopped", "late", "missing", "empty", "template", "branch", "copied"]

    found = class_attention(store, [backward], students)
    kinds = {s: found.of(s, "backward").kind for s in students}
    assert kinds == {"absent": "no submission", "withheld": "grader error", "stopped": "results missing",
                     "late": "after the cut-off", "missing": "could not be graded", "empty": "no test ran",
                     "template": "template unchanged", "branch": "work on another branch", "copied": "look at this"}
    assert [s for s in students if found.left_out(s, "backward")] == students[:-1]  # a copied file is still graded
    assert set(REMEDIES) == set(KINDS) == set(kinds.values())
    absent = found.of("absent", "backward")
    assert f"{absent.reason}: {absent.remedy}" == ("nothing of this student was graded on it in this folder: no repository "
                                                   "or submission: check they accepted the assignment and are still "
                                                   "enrolled; nothing to grade")
    assert "extension" in found.of("late", "backward").remedy
    assert "ask the student" in found.of("template", "backward").remedy
    assert "merge it into the graded branch" in found.of("branch", "backward").remedy
    assert "evidence for a person, not a verdict" in found.of("copied", "backward").remedy
    # "run again" is said exactly where the next `grader grade` grades the cell again; elsewhere it would change nothing
    again = stale_assignments(store, [backward], "x", {"backward": "f"}, {"backward": {}})
    regraded = {s for s in students[1:] if stale_assignments(store, [backward], s, {"backward": "f"}, {"backward": {}})}
    assert again == {"backward": "new"} and regraded == {"withheld", "stopped"}
    assert {s for s in students if RERUN in found.of(s, "backward").remedy} == regraded
    lines = {x.kind: x.remedy for x in found.lines()}  # each line of the list carries its kind's remedy
    assert lines == {kind: REMEDIES[kind] for kind in KINDS}


def test_the_count_is_of_cells_though_the_list_groups_a_students_cells_with_one_reason():
    broken, stubs = Finding("could not be graded", "syntax error"), Finding("template unchanged", "stubs")
    found = ClassAttention(cells=9, findings={"zed": [("value_ops", broken), ("backward", broken)],
                                              "amy": [("backward", stubs)]})
    assert len(found.lines()) == 2 and found.count == 3  # zed's two cells are one line
    assert found.headline() == ("Needs attention: 3 of the 9 gradebook cell(s) (a student on an assignment): "
                                "2 could not be graded, 1 template unchanged.")
    assert ClassAttention(cells=9).headline() == "Nothing needs attention: all 9 gradebook cell(s) were graded normally."


def test_reasons_quote_the_submission_capped_and_inert():
    hostile = "engine.py could not be imported: \u202eevil\x1b[31m <script>x</script>" + "A" * 1000
    reason = finding(results([], problems=[hostile])).reason
    assert len(reason) == MAX_REASON and reason.endswith("…")
    assert "\u202e" not in reason and "\x1b" not in reason and "\\u202e" in reason and "\\x1b" in reason


def test_the_attention_list_groups_assignments_with_the_same_reason_most_urgent_first():
    broken = Finding("could not be graded", "syntax error")
    lines = attention_list({
        "zed": [("value_ops", broken), ("backward", broken), ("mlp", Finding("could not be graded", "other"))],
        "amy": [("backward", Finding("template unchanged", "stubs"))],
        "bo": [("mlp", Finding("grader error", "judge died"))],
    })
    assert [(a.student, a.kind, a.assignments) for a in lines] == [
        ("bo", "grader error", ("mlp",)),
        ("zed", "could not be graded", ("value_ops", "backward")),
        ("zed", "could not be graded", ("mlp",)),
        ("amy", "template unchanged", ("backward",)),
    ]


def test_tasks_are_ordered_by_the_last_task_they_cover():
    labels = ["3.1-3.4", "3.1", "", "3.1-3.3", "3.2", "3.3", "3.4", "2.6", "2.1-2.5", "1.10", "1.2"]
    assert sorted(labels, key=task_key) == ["1.2", "1.10", "2.1-2.5", "2.6", "3.1", "3.2", "3.3", "3.1-3.3", "3.4",
                                            "3.1-3.4", ""]


def test_points_per_task_and_public_against_hidden_leave_withheld_scores_out():
    (assignment,) = Course(ROOT).assignments(["backward"])
    full = [graded("test_unary[tanh]", passed=True, public=True, task="2.1-2.5"),
            graded("test_unary_local_gradient[tanh]", passed=True, task="2.1-2.5", max_score=3.0),
            graded("test_seed_gradient", passed=True, task="2.6", max_score=3.0)]
    half = [graded("test_unary[tanh]", public=True, task="2.1-2.5"),
            graded("test_unary_local_gradient[tanh]", task="2.1-2.5", max_score=3.0, score=1.5),
            graded("test_seed_gradient", passed=True, task="2.6", max_score=3.0)]
    table = task_table(assignment, {"full": full, "half": half, "died": "withheld", "gone": "no results",
                                    "empty": []})
    assert [(c.task, c.tests, c.public_tests, c.max_score, c.public_max) for c in table.columns] == [
        ("2.1-2.5", 2, 1, 4.0, 1.0), ("2.6", 1, 0, 3.0, 0.0)]
    rows = {r.student: r for r in table.rows}
    assert rows["half"].tasks["2.1-2.5"].score == 1.5 and rows["half"].tasks["2.6"].score == 3.0
    assert (rows["half"].public.score, rows["half"].public.max_score) == (0.0, 1.0)
    assert (rows["half"].hidden.score, rows["half"].hidden.max_score) == (4.5, 6.0)
    assert rows["died"].status == "withheld" and rows["gone"].status == "no results" and not rows["died"].tasks
    assert rows["empty"].tasks["2.6"].score == 0.0 and rows["empty"].hidden.max_score == 6.0  # nothing ran: 0
    assert [c.scores for c in table.columns] == [[4.0, 1.5, 0.0], [3.0, 3.0, 0.0]]  # the withheld one left out
    assert table.columns[0].mean == 5.5 / 3
    assert (table.public_mean.score, table.public_mean.max_score) == (1 / 3, 1.0)
    assert (table.hidden_mean.score, table.hidden_mean.max_score) == ((6.0 + 4.5) / 3, 6.0)


def test_entries_read_results_json_tolerating_bad_values_and_know_the_public_tests():
    doc = {"tests": [{"name": "t", "score": "lots", "max_score": True, "status": "passed", "number": None,
                      "extra_data": {"key": PUBLIC + "test_x", "methods": "Value.tanh", "about": ["Value.exp"]}},
                     "not a test"]}
    (e,) = entries(doc)
    assert (e.score, e.max_score, e.task, e.methods, e.about, e.public) == (0.0, 0.0, "", (), ("Value.exp",), True)
    assert entries(None) == [] and entries({"tests": "x"}) == []
    assert not is_public(HIDDEN + "test_x", {}) and is_public(HIDDEN + "test_x", {"public": True})
    assert not is_public("tests/publicity/test_x.py::test_x", {})
