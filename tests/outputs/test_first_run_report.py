"""What a newcomer sees on a first run over the examples: statistics that leave out the submissions that need
attention, the likely bug of each example, the gradebook's notes, a resumed run's summary and the notes' width."""

from __future__ import annotations

import csv
import json
import re
import shutil
import statistics
from pathlib import Path

import pytest
from checkout import ROOT

from grader.cli import main
from grader.course.course import Course
from grader.outputs.class_report import ClassReport, class_data, render_report
from grader.outputs.entries import entries
from grader.outputs.gradebook import StudentGrade, table, write_csv
from grader.outputs.item_analysis import analyse, summary
from grader.outputs.item_analysis import write_csv as write_items
from grader.outputs.store import ResultStore

EXAMPLES = ROOT / "examples" / "submissions"
FIRST = ["value_ops", "backward", "mlp"]  # the assignments whose files the examples hold
LEFT_OUT = {"syntax_error", "template_unchanged"}  # on FIRST: cannot be imported; the template as handed out


def rows(path: Path) -> list[dict[str, str]]:
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def results(out: Path, assignment: str) -> dict[str, dict]:
    """Student id to their results.json document on ``assignment``."""
    return {p.parent.name: json.loads(p.read_text(encoding="utf-8")) for p in (out / assignment).glob("*/results.json")}


@pytest.fixture(scope="module")
def report(graded_class: Path) -> ClassReport:
    return class_data(graded_class, Course(ROOT))


def test_the_left_out_submissions_are_the_import_error_and_the_unchanged_template(graded_class):
    for assignment in FIRST:
        docs = results(graded_class, assignment)
        assert "SyntaxError" in " ".join(docs["syntax_error"]["extra_data"]["grader"]["problems"])
        stubs = [t for t in docs["template_unchanged"]["tests"] if t["max_score"]]
        assert stubs and all(t["status"] == "failed" and "NotImplementedError" in t["output"] for t in stubs)


def test_item_analysis_pass_rates_leave_out_the_ungradable_submission_and_the_template(graded_class):
    items = {(r["assignment"], r["test"]): r for r in rows(graded_class / "item_analysis.csv")}
    for assignment in FIRST:
        docs = results(graded_class, assignment)
        counted = {s: d for s, d in docs.items() if s not in LEFT_OUT}
        assert len(docs) == 10 and len(counted) == 8
        for test in docs["reference_solution"]["tests"]:
            name = test["extra_data"]["key"].rsplit("::", 1)[-1]
            passed = sum(next(t for t in d["tests"] if t["extra_data"]["key"] == test["extra_data"]["key"])["status"]
                         == "passed" for d in counted.values())
            row = items[(assignment, name)]
            assert (row["students"], row["left_out"], row["passed"]) == ("8", "2", str(passed)), (assignment, name)
            assert float(row["pass_rate"]) == pytest.approx(passed / 8, abs=1e-3)
    # by hand: of the 8 counted, only bug_no_visited fails the visited-set test (7 of 8, not 7 of 10)
    assert items[("backward", "test_each_node_visited_once")]["pass_rate"] == "0.875"
    for r in items.values():  # every assignment's rows add up to the class
        assert int(r["students"]) + int(r["left_out"]) == 10


def test_the_report_leaves_them_out_of_its_statistics_and_says_how_many(report, graded_class):
    grades = {r["student"]: r for r in rows(graded_class / "grades.csv")}
    assert {"syntax_error", "template_unchanged"} <= set(grades)  # still in the gradebook
    for assignment in FIRST:
        assert report.left_out[assignment] == 2
        dist = next(d for d in report.distributions if d.assignment.id == assignment)
        kept = [float(r[assignment]) for s, r in grades.items() if s not in LEFT_OUT]
        assert dist.left_out == 2 and sorted(dist.scores) == sorted(kept)
        assert dist.mean == pytest.approx(statistics.fmean(kept)) and dist.median == statistics.median(kept)
        tasks = next(t for t in report.tasks if t.assignment.id == assignment)
        assert tasks.left_out == 2 and len(tasks.rows) == 10  # each student's row is still shown
        public = [sum(t.score for t in entries(d) if t.public)
                  for s, d in results(graded_class, assignment).items() if s not in LEFT_OUT]
        assert tasks.public_mean.score == pytest.approx(statistics.fmean(public))
    assert {x.student for x in report.attention} >= LEFT_OUT  # and under "needs attention"
    html = render_report(report)
    assert html.count('data-left-out="2">(2 left out: they need attention)') == len(FIRST)
    assert html.count('data-left-out="2">(2 students left out: they need attention)') == len(FIRST)
    total = sum(report.left_out.values())
    lead = html[html.index('id="tests"'):html.index("</p>", html.index('id="tests"'))]
    assert f'data-left-out="{total}">{total}' in lead and "<code>backward</code> 2" in lead


def test_each_bugged_example_is_attributed_its_own_catalogued_bug(report):
    bug_of = {(at.bug.assignment, at.student): at for lb in report.bugs for at in lb.attributions}
    assert bug_of[("value_ops", "bug_overwritten_grad")].bug.id == "mul_overwrites_grad"
    assert bug_of[("backward", "bug_wrong_tanh")].bug.id == "tanh_grad_from_input"
    # test_backward_accumulates tells a missing visited set from a pre-order sort: bug_no_visited fails it
    no_visited = bug_of[("backward", "bug_no_visited")]
    assert no_visited.bug.id == "backward_no_visited_set" and no_visited.strength == 1.0
    assert [b.id for b in no_visited.ties] == ["backward_recursive_no_topo"]  # the same tests, rightly named too


def test_the_unchanged_template_is_explained_in_the_gradebook_notes(graded_class):
    grades = {r["student"]: r for r in rows(graded_class / "grades.csv")}
    note = grades["template_unchanged"]["notes"]
    code = [a.id for a in Course(ROOT).assignments() if not a.is_concept_check]
    assert note.startswith(", ".join(code) + ": template unchanged: ")
    assert "every test failed on a template stub (NotImplementedError)" in note
    assert grades["reference_solution"]["notes"] == ""


def hardest(printed: str) -> str:
    """The "hardest tests" block of what `grader grade` printed."""
    return printed[printed.index("Tests the class found hardest"):printed.index("(all tests:")]


def test_a_resumed_run_prints_the_same_hardest_tests(tmp_path, capsys):
    subs = tmp_path / "subs"
    for name in ("bug_no_visited", "bug_wrong_tanh", "template_unchanged"):
        shutil.copytree(EXAMPLES / name, subs / name, ignore=shutil.ignore_patterns("__pycache__"))
    args = ["--course", str(ROOT), "grade", str(subs), "-a", "backward", "-o", str(tmp_path / "out"), "-j", "2"]
    assert main(args) == 0
    first = capsys.readouterr().out
    assert main(args) == 0
    again = capsys.readouterr().out
    assert "Graded 0 submission(s)" in again and "kept 3 complete result(s)" in again
    assert hardest(again) == hardest(first)
    shown = re.findall(r"^ +(\d+)% of (\d+) +backward: ", hardest(first), re.M)
    assert len(shown) == 5 and shown[0] == ("50", "2")  # of the 2 counted (the template left out), one failed
    assert "(pass rates leave out the results that need attention" in hardest(first)
    assert ("Needs attention: 1 of the 3 gradebook cell(s) (a student on an assignment): 1 template unchanged. "
            f"`grader report {tmp_path / 'out'}` lists them, each with what to do.") in first


HEADLINE = re.compile(r"^(Needs attention: (\d+) of the (\d+) gradebook cell\(s\) \(a student on an assignment\): "
                      r"[^.]*\.)", re.M)


def test_grade_and_report_print_one_count_of_the_cells_that_need_attention(graded_class, tmp_path, capsys):
    """`grader grade` printed 52 results needing attention and `grader report` 42 for the same folder: the first
    counted a student's cells (from the pass rates' statistics), the second the lines of its list, where a student's
    cells with one reason are one line. Both now print the one count of cells, found once."""
    subs, out = tmp_path / "submissions", tmp_path / "out"
    shutil.copytree(graded_class.parent / "submissions", subs)
    shutil.copytree(graded_class, out)
    assert main(["--course", str(ROOT), "grade", str(subs), "-o", str(out), "-j", "2"]) == 0
    graded = capsys.readouterr().out
    assert "Graded 0 submission(s)" in graded  # every result kept: the same folder
    assert main(["--course", str(ROOT), "report", str(out)]) == 0
    reported = capsys.readouterr().out
    (by_grade,), (by_report,) = HEADLINE.findall(graded), HEADLINE.findall(reported)
    assert by_grade == by_report
    line, count, cells = by_report
    report = class_data(out, Course(ROOT))
    assert int(cells) == len(report.students) * len(report.assignments)
    assert int(count) == sum(len(x.assignments) for x in report.attention) > len(report.attention)  # cells, not lines
    html = (out / "report.html").read_text(encoding="utf-8")
    assert f'data-count="{count}">{count} of {cells} gradebook cells need attention</a>' in html


LONG = "value_ops: micrograd/engine.py could not be imported: raised SyntaxError: expected ':' (line 34) " * 2


def test_a_long_note_is_cut_only_to_fit_the_terminal_and_never_in_the_csv(tmp_path, monkeypatch):
    assignments = Course(ROOT).assignments(["value_ops"])
    grades = [StudentGrade("ann", {"value_ops": (0.0, 40.0)}, [LONG.strip()]),
              StudentGrade("bob", {"value_ops": (40.0, 40.0)})]
    monkeypatch.setenv("COLUMNS", "300")
    assert LONG.strip() in table(assignments, grades)  # a wide terminal shows the whole note
    monkeypatch.setenv("COLUMNS", "80")
    line = next(x for x in table(assignments, grades).splitlines() if x.startswith("ann"))
    assert line.endswith("...") and len(line.split("  ")[-1]) == 60  # at least 60, even when narrow
    monkeypatch.setenv("COLUMNS", "120")
    line = next(x for x in table(assignments, grades).splitlines() if x.startswith("ann"))
    assert len(line) == 120 and line.endswith("...")  # the notes fill the terminal's width, no more
    write_csv(tmp_path / "grades.csv", assignments, grades)
    assert rows(tmp_path / "grades.csv")[0]["notes"] == LONG.strip()


def test_a_test_no_submission_counts_for_comes_last_with_empty_statistics(graded_class, tmp_path):
    out = tmp_path / "out"
    for student in sorted(LEFT_OUT):
        shutil.copytree(graded_class / "backward" / student, out / "backward" / student)
    items = analyse(ResultStore(out), Course(ROOT).assignments(["backward"]), sorted(LEFT_OUT))
    assert items and all((it.attempts, it.passed, it.left_out) == (0, 0, 2) and not it.methods for it in items)
    write_items(out / "item_analysis.csv", items)
    assert {(r["pass_rate"], r["mean_score"], r["students"], r["left_out"]) for r in rows(out / "item_analysis.csv")} \
        == {("", "", "0", "2")}
    assert "none: no submission was graded normally" in summary(items)


def test_the_hardest_tests_say_how_many_results_and_a_test_one_notebook_reached_does_not_lead():
    """Mid-term, one notebook graded on an assignment nobody else has: its tests at 0% of 1 no longer top the list."""
    from grader.outputs.item_analysis import Item, summary

    items = [Item("forward_mode", "f::t", "Dual.__add__", "4.1", 2, attempts=1, passed=0),
             Item("mlp", "m::t", "learns XOR", "3.4", 2, attempts=6, passed=3),
             Item("value_ops", "v::t", "Value.__mul__", "1.2", 2, attempts=6, passed=5)]
    lines = summary(sorted(items, key=lambda it: it.pass_rate), count=3).splitlines()
    assert lines[1].split() == ["50%", "of", "6", "mlp:", "learns", "XOR"]
    assert lines[2].split()[:4] == ["83%", "of", "6", "value_ops:"]
    assert lines[3].split()[:4] == ["0%", "of", "1", "forward_mode:"]
