"""`grader validate`: the suite's strength, measured on the real course and on broken catalogues."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import yaml
from checkout import ROOT

from grader.cli import main
from grader.course.catalogue import load_bugs
from grader.course.course import Course
from grader.course.stubs import missing_method_mutants
from grader.errors import ConfigError
from grader.grading import validation
from grader.grading.batch import JudgePool
from grader.grading.judge_failure import judges_failed
from grader.grading.one import autograde
from grader.grading.task_order import task_order_misses
from grader.grading.validation import MissingOutcome, Report, format_report

MISSING_ASSERTED = ("value_ops", "backward", "mlp")
"""The assignments whose "method missing" mutants' cascades the test below asserts."""


@pytest.mark.parametrize("assignment", ["value_ops", "backward", "mlp", "forward_mode", "graph", "classifier",
                                        "gradcheck", "modules", "checkpointing"])
def test_the_real_course_validates_with_no_miss(assignment, capsys, monkeypatch):
    """Reference full marks, template 0, every correct variant full marks, every catalogued bug caught (one
    assignment a test, so that the suite's workers share the work).

    The "method missing" mutants (a method left as its stub) make no miss: they are graded where their cascades are
    asserted below (the engine's and the network's assignments); elsewhere they would only be printed (43% of the
    classifier's grading)."""
    if assignment not in MISSING_ASSERTED:
        monkeypatch.setattr(validation, "missing_method_mutants", lambda *args: [])
    status = main(["--course", str(ROOT), "validate", "-a", assignment])
    out = capsys.readouterr().out
    assert status == 0, out[-4000:]
    assert "No misses" in out
    # fault isolation in the engine's assignments: a method left as its stub costs nothing outside its own tests
    if assignment in ("value_ops", "backward"):
        missing = re.findall(rf"^(Value\.\w+)\s+{assignment}\s+([\d.]+)\s+([\d.]+)\s", out, re.M)
        assert len(missing) >= 16, out
        assert [m for m in missing if float(m[2]) > 0] == []
    # and in the network's: an engine method costs at most the one point of the XOR test on the student's engine,
    # a network method nothing outside its own tests (and the network's integration tests, about every method)
    if assignment == "mlp":
        network = re.findall(r"^((?:Value|Module|Neuron|Layer|MLP)\.\w+)\s+mlp\s+([\d.]+)\s+([\d.]+)\s", out, re.M)
        assert len(network) >= 16 + 10, out
        assert [m for m in network if float(m[2]) > (1 if m[0].startswith("Value.") else 0)] == []
        assert [m for m in network if not m[0].startswith("Value.") and float(m[1]) == 0] == []
    # catalogued bugs: no cascade anywhere
    bugs = re.findall(r"^(\w+/\w+)\s+\S+\s+.*?\s([\d.]+)\s+([\d.]+)\s+(?:yes|no)\s+yes$", out, re.M)
    assert len(bugs) >= 5 and [b for b in bugs if float(b[2]) > 0 and not b[0].startswith("backward/")] == [], bugs
    # a student's `grader check` (public tests only) reveals at least 90% of the engine's and network's bugs
    if assignment in ("value_ops", "backward", "mlp"):
        rates = dict(re.findall(r"(\w+) (\d+)%", out.split("Public kill rate")[1].splitlines()[0]))
        assert int(rates[assignment]) >= 90, rates


def test_the_catalogue_is_large_and_covers_every_assignment():
    course = Course(ROOT)
    bugs = {a.id: load_bugs(a, course.reference_dir) for a in course.assignments()
            if not a.is_concept_check}  # a concept check's catalogue is made from its key (test_concept_check_flow)
    assert sum(len(b) for b in bugs.values()) >= 45
    assert all(len(b) >= 8 for b in bugs.values())
    assert len(list((ROOT / "reference" / "variants").glob("*/micrograd/engine.py"))) >= 6


@pytest.fixture
def small_course(tmp_path):
    course = tmp_path / "course"
    for part in ("assignments", "reference", "student_template"):
        shutil.copytree(ROOT / part, course / part, ignore=shutil.ignore_patterns("__pycache__", "variants"))
    for bugs in (course / "assignments").glob("*/bugs.yaml"):
        bugs.unlink()
    return course


def write_bugs(course: Path, entries: list[dict]) -> None:
    (course / "assignments" / "value_ops" / "bugs.yaml").write_text(yaml.safe_dump(entries, sort_keys=False))


MUL_FIND = "            self.grad += other.data * out.grad\n"


def test_an_uncaught_or_misattributed_bug_is_a_miss(small_course, capsys):
    write_bugs(small_course, [
        {"id": "harmless", "method": "Value.__mul__", "description": "a comment only",
         "file": "micrograd/engine.py", "find": MUL_FIND, "replace": MUL_FIND.rstrip("\n") + "  # note\n",
         "caught_by": ["test_reuse"]},
        {"id": "mul_overwrites", "method": "Value.__mul__", "description": "= instead of +=",
         "file": "micrograd/engine.py", "find": MUL_FIND, "replace": MUL_FIND.replace("+=", "="),
         "caught_by": ["test_plain_numbers_both_sides"]},
    ])
    assert main(["--course", str(small_course), "validate", "-a", "value_ops"]) == 1
    out = capsys.readouterr().out
    assert "harmless: not caught" in out
    assert "mul_overwrites: expected test_plain_numbers_both_sides to catch it; caught by" in out
    assert "test_reuse" in out.split("mul_overwrites: expected")[1]


def test_a_find_text_that_is_not_in_the_reference_names_the_entry(small_course):
    write_bugs(small_course, [{"id": "ghost", "method": "Value.__mul__", "description": "x", "file": "micrograd/engine.py",
                               "find": "not in the file", "replace": "y", "caught_by": ["test_reuse"]}])
    course = Course(small_course)
    with pytest.raises(ConfigError, match=r"bugs.yaml: \[0\] \(ghost\).find: occurs 0 times"):
        load_bugs(course.assignment("value_ops"), course.reference_dir)


INIT_FIND = "        self.grad = 0.0\n"


def test_a_cascade_above_the_catalogues_limit_is_a_miss(small_course, capsys):
    """A bug in Value.__init__ (the grad starts at 1) shows in every test: its cascade is measured against max_cascade."""
    entry = {"id": "grad_one", "method": "Value.__init__", "description": "grad starts at 1",
             "file": "micrograd/engine.py", "find": INIT_FIND, "replace": INIT_FIND.replace("0.0", "1.0"),
             "caught_by": ["test_add"]}
    write_bugs(small_course, [entry])
    assert main(["--course", str(small_course), "validate", "-a", "value_ops"]) == 1
    out = capsys.readouterr().out
    assert re.search(r"grad_one: loses [\d.]+ points outside the tests about Value.__init__ .*\(max_cascade 1\)", out)
    assert "Cascades (points lost outside the tests about the method at fault)" in out
    # the catalogue may state a larger limit, for the assignment or for one entry
    (small_course / "assignments" / "value_ops" / "bugs.yaml").write_text(
        yaml.safe_dump({"max_cascade": 40, "bugs": [entry]}, sort_keys=False))
    main(["--course", str(small_course), "validate", "-a", "value_ops"])
    out = capsys.readouterr().out
    assert "grad_one  " in out and "grad_one: loses" not in out, out


def test_max_cascade_must_be_a_number_of_points(small_course):
    entry = {"id": "x", "method": "Value.__mul__", "description": "x", "file": "micrograd/engine.py",
             "find": MUL_FIND, "replace": MUL_FIND, "caught_by": ["test_reuse"], "max_cascade": "lots"}
    write_bugs(small_course, [entry])
    course = Course(small_course)
    with pytest.raises(ConfigError, match=r"\[0\] \(x\).max_cascade: expected a number of points >= 0"):
        load_bugs(course.assignment("value_ops"), course.reference_dir)
    (small_course / "assignments" / "value_ops" / "bugs.yaml").write_text(yaml.safe_dump({"max_cascad": 1, "bugs": []}))
    with pytest.raises(ConfigError, match="max_cascad: unknown key"):
        load_bugs(course.assignment("value_ops"), course.reference_dir)


def test_each_stubbed_method_gets_a_missing_method_mutant(tmp_path):
    course = Course(ROOT)
    mutants = {m.method: m for m in missing_method_mutants(course.reference_dir, course.template_dir,
                                                             ["micrograd/engine.py", "micrograd/nn.py"])}
    assert {"Value.__add__", "Value.tanh", "Value.backward", "Module.zero_grad", "MLP.__call__"} <= set(mutants)
    assert "Value.__init__" not in mutants and "Value.__repr__" not in mutants  # given code, not a task
    tanh = mutants["Value.tanh"]
    assert 'raise NotImplementedError("Task 2.1' in tanh.replace and "math.tanh" in tanh.find


FRACTIONS = Path(__file__).resolve().parents[1] / "courses" / "fractions"
"""The second course (small: one assignment of three tasks), for validate's cheap tests on a scratch copy."""


@pytest.fixture
def fractions(tmp_path: Path) -> Path:
    """A scratch copy of the second course, with its student template written."""
    course = tmp_path / "fractions"
    shutil.copytree(FRACTIONS, course, ignore=shutil.ignore_patterns("__pycache__"))
    assert main(["--course", str(course), "template"]) == 0
    return course.resolve()


def test_a_concept_checks_points_that_do_not_add_up_are_a_configuration_error_before_any_judge(
        fractions, tmp_path, capsys, monkeypatch):
    """Issue 58: the scaffold's `points: 3` against questions worth 5 is said as the configuration error it is (file,
    key, both totals) by validate and by grade, with the instructor's exit status, and no judge starts."""
    assert main(["--course", str(fractions), "new-assignment", "quiz1", "--kind", "questions"]) == 0
    questions = fractions / "assignments" / "quiz1" / "questions.yaml"
    questions.write_text(questions.read_text(encoding="utf-8").replace("points: 1", "points: 3", 1), encoding="utf-8")
    monkeypatch.setattr(JudgePool, "run", lambda *args: pytest.fail("a judge ran"))
    capsys.readouterr()
    said = (f"{fractions / 'assignments' / 'quiz1' / 'assignment.yaml'}: points: 3, but its questions' points add up "
            "to 5 (questions.yaml)")

    assert main(["--course", str(fractions), "validate", "-a", "quiz1"]) == 2
    err = capsys.readouterr().err
    assert said in err and "judge" not in err, err

    subs = tmp_path / "subs"
    (subs / "alice" / "answers").mkdir(parents=True)
    (subs / "alice" / "answers" / "quiz1.yaml").write_text("add_local: a\n", encoding="utf-8")
    assert main(["--course", str(fractions), "grade", str(subs), "-a", "quiz1", "-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert said in err and "judge" not in err, err
    with pytest.raises(ConfigError) as raised:  # Gradescope's run (`grader autograde`) too
        autograde(Course(fractions), subs / "alice", "quiz1", tmp_path / "results.json")
    assert str(raised.value) == said


def test_a_code_assignments_points_that_do_not_add_up_are_said_with_a_log_that_outlives_validate(fractions, capsys):
    """The judge finds a code assignment's total (its tests' markers, once collected): validate says what it found,
    file and key first, not "judge process(es) failed", and the log it points to still exists when it returns."""
    assert main(["--course", str(fractions), "new-assignment", "squares"]) == 0
    assert main(["--course", str(fractions), "template"]) == 0
    config = fractions / "assignments" / "squares" / "assignment.yaml"
    config.write_text(re.sub(r"(?m)^points: 2 ", "points: 7 ", config.read_text(encoding="utf-8")), encoding="utf-8")
    capsys.readouterr()

    assert main(["--course", str(fractions), "validate", "-a", "squares"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"grader: error: {config}: points: declares 7 but the tests' @pytest.mark.points add up "
                          "to 2\n"), err
    assert "judge process(es) failed" not in err
    log = Path(re.findall(r"see (\S+judge-\d+\.log)", err)[0])
    try:
        assert log.parent.name.startswith("grader-validate-logs-")
        assert "add up to 2" in log.read_text(encoding="utf-8")
    finally:
        shutil.rmtree(log.parent, ignore_errors=True)


def test_a_failed_judges_log_is_kept_and_its_message_names_the_copy(tmp_path):
    """Any other judge failure: the status and the log's end, and a copy of the logs that nothing removes."""
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "judge-3.log").write_text("one\ntwo\nINTERNALERROR> boom\n", encoding="utf-8")
    failed = judges_failed([(3, 3)], logs)
    assert str(failed) == f"1 judge process(es) failed (status 3); see {logs / 'judge-3.log'}:\none\ntwo\nINTERNALERROR> boom"
    kept = failed.kept("grader-validate-logs-")
    try:
        assert kept.log.read_text(encoding="utf-8") == "one\ntwo\nINTERNALERROR> boom\n"
        assert f"see {kept.log}:" in str(kept) and kept.log.parent.name.startswith("grader-validate-logs-")
    finally:
        shutil.rmtree(kept.log.parent)


def test_a_concept_checks_summary_says_what_was_validated_and_no_bug_table(fractions, capsys):
    """Issue 58: validating a concept check alone prints no empty bug table and no "0 catalogued bugs ... 100% caught":
    it says what was graded and what held."""
    assert main(["--course", str(fractions), "new-assignment", "quiz1", "--kind", "questions"]) == 0
    capsys.readouterr()

    assert main(["--course", str(fractions), "validate", "-a", "quiz1"]) == 0
    out = capsys.readouterr().out
    assert "catalogued bugs" not in out and "caught by" not in out and "Cascades" not in out, out
    assert out.startswith("Concept check quiz1: 9 answer sets made from its key graded"), out
    assert "No misses: each key's answers score full marks, a wrong answer costs its question only" in out
    assert "the reference scores full marks" not in out


def test_code_with_no_catalogued_bug_shows_no_empty_bug_table():
    report = Report(code=["squares"], missing=[MissingOutcome("square", "squares", 2.0, 0.0, 1.0)])
    text = format_report(report)
    assert text.startswith("method missing (template stub)"), text
    assert "No catalogued bugs in squares: add the bugs students make" in text
    assert "No misses: the reference scores full marks" in text and "key's answers" not in text


def test_a_task_of_another_order_is_a_miss(fractions, capsys):
    """Issue 58: the assignment with `order: N` has tasks N.x, in its tests' markers and in its reference files'
    solution markers; a file that several assignments list may hold tasks of any of their orders. Static: no grading
    is needed to say it."""
    assert main(["--course", str(fractions), "new-assignment", "squares"]) == 0
    assert main(["--course", str(fractions), "template"]) == 0
    folder = fractions / "assignments" / "squares"
    config = folder / "assignment.yaml"
    config.write_text(config.read_text(encoding="utf-8").replace("files: [ratlab/squares.py]",
                                                                 "files: [ratlab/squares.py, ratlab/fraction.py]"),
                      encoding="utf-8")  # fraction.py (tasks 1.x), listed by fractions (order 1) too: no miss
    course = Course(fractions)
    assert course.assignment("squares").order == 2
    assert task_order_misses(course, course.assignments()) == []
    reference = fractions / "reference" / "ratlab" / "squares.py"
    reference.write_text(reference.read_text(encoding="utf-8").replace("Task 2.1", "Task 8.2"), encoding="utf-8")
    hidden = folder / "tests" / "hidden" / "test_squares_hidden.py"
    hidden.write_text(hidden.read_text(encoding="utf-8").replace('task("2.1")', 'task("8.2")'), encoding="utf-8")
    public = folder / "tests" / "public" / "test_squares_public.py"
    public.write_text(public.read_text(encoding="utf-8").replace('task("2.1")', 'task("2.1-8.3")'), encoding="utf-8")
    fraction = fractions / "reference" / "ratlab" / "fraction.py"
    fraction.write_text(fraction.read_text(encoding="utf-8").replace("Task 1.3", "Task 3.3"), encoding="utf-8")
    capsys.readouterr()

    assert main(["--course", str(fractions), "validate", "-a", "squares"]) == 1
    out = capsys.readouterr().out
    for miss in ("squares: reference/ratlab/squares.py holds Task 8.2, but the assignment's order is 2 (its tasks are "
                 "2.x)",
                 "squares: test_square_on_random_inputs is task 8.2, but the assignment's order is 2 (its tasks are "
                 "2.x), in tests/hidden/test_squares_hidden.py",
                 "squares: test_square is task 2.1-8.3, but the assignment's order is 2 (its tasks are 2.x), in "
                 "tests/public/test_squares_public.py",
                 "squares: reference/ratlab/fraction.py holds Task 3.3, but the orders of the assignments that list it "
                 "are 1, 2 (their tasks are 1.x, 2.x)"):
        assert f"  - {miss}\n" in out, out
    assert "4 miss(es)" in out, out


@pytest.mark.parametrize("root", [ROOT, FRACTIONS], ids=["this course", "fractions"])
def test_every_assignment_of_both_courses_numbers_its_tasks_by_its_order(root):
    course = Course(root)
    assert task_order_misses(course, course.assignments()) == []
