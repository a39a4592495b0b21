"""The checkpoint (``kind: questions``) lived as a course lives it: graded with a class, self-checked in the release,
shipped without its key, validated, zipped for Gradescope.

Every expected answer here is computed independently of the grader: the hand formulas and central differences of
plain float functions, never the answer key or the reference solution.
"""

from __future__ import annotations

import json
import math
import shutil
import zipfile
from pathlib import Path

import nbformat
import pytest
import yaml
from checkout import ROOT
from concept_answers import KEY, QUESTIONS, numbers, right_answers, write
from course_runs import run

from grader.judge.reference import load_answers_module
from grader.questions.questions import key_value, load_key
from grader.questions.sheet import answers_template


def test_each_students_expected_answer_is_the_independent_one(tmp_path):
    """The key (its formulas and its reference module's backward()) against hand formulas and central differences,
    for sixty students' numbers, within the questions' own tolerance."""
    questions = list(QUESTIONS.values())
    key = load_key(ROOT / "reference" / "answers" / "checkpoint.yaml", questions)
    module = load_answers_module(ROOT / "reference", "micrograd", ROOT / "reference" / "answers" / "checkpoint.py")
    drawn = set()
    for i in range(60):
        student = f"student{i:02d}"
        want = right_answers(student)
        for qid in ("chain_rule", "sanity_check", "hand_gradient"):
            got = key_value(key[qid], numbers(qid, student), module)
            assert math.isclose(got, want[qid], rel_tol=1e-6, abs_tol=1e-6), (student, qid, got, want[qid])
        drawn.add(tuple(numbers("sanity_check", student).values()))
    assert len(drawn) >= 15  # the students' numbers are spread over the 20 pairs the question allows


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A class graded on the checkpoint: right, copied, partly right, missing, hostile and escape-laden answers."""
    subs = tmp_path_factory.mktemp("checkpoint") / "subs"
    write(subs / "alice", right_answers("alice"))
    write(subs / "bob", right_answers("alice"))  # alice's answers, handed in by bob
    carol = {**right_answers("carol"), "why_accumulate": ["a", "c", "d"], "forward_builds": "a"}
    write(subs / "carol", carol, name="checkpoint.yaml")  # flat layout
    (subs / "dave" / "micrograd").mkdir(parents=True)
    (subs / "dave" / "micrograd" / "engine.py").write_text("class Value:\n    pass\n", encoding="utf-8")
    write(subs / "eve", "a: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b]\n")  # aliases: refused before they expand
    write(subs / "frank", {**right_answers("frank"), "dtanh": "\x1b[2J\x1b]0;owned\x07 <script>x</script>",
                           "student": "\x1b[31mfrank"})
    template = answers_template(list(QUESTIONS.values()))
    nbformat.write(answers_notebook(yaml.safe_dump(right_answers("gina"))), subs / "gina.ipynb")  # Colab: the notebook
    write(subs / "hank", template)  # the release's blank file, and the notebook's cell filled in
    (subs / "hank" / "notebooks").mkdir()
    nbformat.write(answers_notebook(yaml.safe_dump(right_answers("hank"))), subs / "hank" / "notebooks" / "checkpoint.ipynb")
    write(subs / "ivy", right_answers("ivy"))  # both filled in: the file is graded
    (subs / "ivy" / "notebooks").mkdir()
    nbformat.write(answers_notebook("forward_builds: a\n"), subs / "ivy" / "notebooks" / "checkpoint.ipynb")
    write(subs / "jack", "forward_builds: b\n" + "# padding\n" * 8000)  # 80 KB: refused at intake, unread
    write(subs / "kim", yaml.safe_dump(right_answers("kim")) + "zero_grad: a\x1b[2J\n")  # ESC: YAML refuses the file
    mia = {**right_answers("mia"), "chain_rule": "0x" + "f" * 5000, "hand_gradient": ".nan", "dtanh": "2020-13-45",
           "dsigmoid": "!!python/object/apply:os.system ['true']"}
    write(subs / "mia", "".join(f"{k}: {v}\n" for k, v in mia.items() if isinstance(v, str)) +
          yaml.safe_dump({k: v for k, v in mia.items() if not isinstance(v, str)}))
    status, printed = run("--course", str(ROOT), "grade", str(subs), "-a", "checkpoint", "-o", str(subs.parent / "out"))
    assert status == 0, printed
    assert "\x1b" not in printed
    return subs.parent / "out"


def answers_notebook(text: str) -> nbformat.NotebookNode:
    """A notebook answering in its %%writefile cell, as the release's does, with code around it that never runs."""
    return nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("# Checkpoint"),
        nbformat.v4.new_code_cell("import os\nos.system('echo never run')"),
        nbformat.v4.new_code_cell(f"%%writefile checkpoint.yaml\n{text}"),
    ])


def test_answers_in_a_notebooks_cell_are_read_never_run_and_a_blank_file_gives_way(graded):
    assert result(graded, "gina")["score"] == result(graded, "hank")["score"] == result(graded, "ivy")["score"] == 12
    notes = {s: json.dumps(result(graded, s)) for s in ("gina", "hank", "ivy")}
    assert "graded gina.ipynb, cell 3" in notes["gina"]
    assert "graded notebooks/checkpoint.ipynb, cell 3" in notes["hank"]
    assert "graded answers/checkpoint.yaml (the answers cell of notebooks/checkpoint.ipynb, cell 3 was not graded)" \
        in notes["ivy"]


def result(out: Path, student: str) -> dict:
    return json.loads((out / "checkpoint" / student / "results.json").read_text(encoding="utf-8"))


def by_question(out: Path, student: str) -> dict[str, float]:
    return {t["name"].split()[-1]: t["score"] for t in result(out, student)["tests"] if t["max_score"]}


def test_two_students_numbers_differ_and_each_is_marked_at_their_own(graded):
    assert numbers("chain_rule", "alice") != numbers("chain_rule", "bob")
    assert numbers("sanity_check", "alice") != numbers("sanity_check", "bob")
    assert result(graded, "alice")["score"] == 12
    copied = by_question(graded, "bob")
    assert copied["chain_rule"] == copied["sanity_check"] == copied["hand_gradient"] == 0
    assert result(graded, "bob")["score"] == 12 - 2 - 2 - 1  # the questions without numbers are the same for all


def test_a_wrong_choice_shows_the_keys_feedback_and_several_right_earn_shares(graded):
    carol = by_question(graded, "carol")
    assert carol["forward_builds"] == 0 and carol["why_accumulate"] == 0.5  # [a, c] right, d wrong: (2 - 1)/2
    assert result(graded, "carol")["score"] == 10.5
    feedback = (graded / "checkpoint" / "carol" / "feedback.md").read_text(encoding="utf-8")
    assert KEY["forward_builds"]["feedback"]["a"] in feedback and KEY["why_accumulate"]["feedback"]["d"] in feedback
    assert "graded checkpoint.yaml" in feedback


def test_no_answers_or_an_unreadable_file_is_that_students_zero_with_the_reason(graded):
    dave, eve = result(graded, "dave"), result(graded, "eve")
    assert dave["score"] == 0 and "missing answers/checkpoint.yaml" in json.dumps(dave)
    assert eve["score"] == 0 and "alias" in (graded / "checkpoint" / "eve" / "feedback.md").read_text(encoding="utf-8")
    jack = result(graded, "jack")
    assert jack["score"] == 0 and "more than the 65536 answers may be" in json.dumps(jack)
    assert result(graded, "alice")["score"] == 12  # one submission's failure is its own


def test_a_hostile_answers_file_fails_the_file_or_its_questions_with_a_reason_and_withholds_nothing(graded):
    """A control character made PyYAML's reader raise out of the judge, and the score was withheld as the grader's
    fault; a number too large to print did the same from the student: line."""
    kim = result(graded, "kim")
    assert kim["score"] == 0 and "control character U+001B on line" in json.dumps(kim), json.dumps(kim)[:2000]
    mia = by_question(graded, "mia")
    assert mia["chain_rule"] == mia["hand_gradient"] == mia["dtanh"] == mia["dsigmoid"] == 0, mia
    assert result(graded, "mia")["score"] == 12 - 2 - 1 - 1 - 1
    notes = json.dumps(result(graded, "mia"))
    assert "too large" in notes and "not a finite number" in notes and "could not determine a constructor" in notes
    grades = (graded / "grades.csv").read_text(encoding="utf-8")
    assert "withheld" not in grades and "internal error" not in grades


def test_text_a_student_wrote_reaches_no_output_live(graded):
    frank = by_question(graded, "frank")
    assert frank["dtanh"] == 0 and sum(frank.values()) == 11
    for path in [*(graded / "checkpoint" / "frank").iterdir(), graded / "grades.csv", graded / "report.html"]:
        if path.is_file():
            text = path.read_text(encoding="utf-8")
            assert "\x1b" not in text and "\x07" not in text, path
            if path.suffix in (".html", ".csv"):  # feedback.md shows it in a code block (no HTML), results.json as text
                assert "<script>x" not in text, path
    feedback = (graded / "checkpoint" / "frank" / "feedback.md").read_text(encoding="utf-8")
    at = [i for i in range(len(feedback)) if feedback.startswith("<script>x", i)]
    assert at and all(feedback[:i].count("```") % 2 == 1 for i in at)  # each inside a fenced code block


@pytest.fixture(scope="module")
def checkpoint_release(release: Path) -> Path:
    return release


def test_the_release_holds_the_questions_and_a_template_but_no_key(checkpoint_release):
    release = checkpoint_release
    template = yaml.safe_load((release / "answers" / "checkpoint.yaml").read_text(encoding="utf-8"))
    assert set(template) == {"student", *QUESTIONS} and not any(v for k, v in template.items() if k != "student")
    assert (release / "assignments" / "checkpoint" / "questions.yaml").is_file()
    cells = nbformat.read(release / "notebooks" / "checkpoint.ipynb", as_version=4).cells
    assert any(c.source.startswith("%%writefile checkpoint.yaml\n") and "forward_builds:" in c.source for c in cells)
    assert not (release / "assignments" / "checkpoint" / "tests" / "hidden").exists()
    texts = [p.read_text(encoding="utf-8", errors="replace") for p in release.rglob("*")
             if p.is_file() and p.suffix in (".yaml", ".md", ".py", ".ipynb", ".json", ".txt")]
    secrets = [text for entry in KEY.values() if isinstance(entry, dict) for text in entry.get("feedback", {}).values()]
    secrets += ["def sanity_check", "(x + y).relu()"]  # the reference module beside the key
    for secret in secrets:
        assert not any(secret in t for t in texts), secret
    assert not list(release.rglob("reference"))


def test_the_self_check_names_form_problems_and_never_says_right_or_wrong(checkpoint_release):
    release = checkpoint_release
    wrong = {**right_answers("alice"), "forward_builds": "a", "chain_rule": 1, "dtanh": "x"}
    write(release, wrong)
    status, printed = run("--course", str(release), "check", str(release), "-a", "checkpoint")
    assert status == 0, printed
    assert "not right" not in printed and KEY["forward_builds"]["feedback"]["a"] not in printed
    write(release, {**wrong, "zero_grad": "z", "dsigmoid": "exp(-x", "chain_rule": [1, 2]})
    del_line = (release / "answers" / "checkpoint.yaml").read_text(encoding="utf-8").replace("reverse_order: b\n", "")
    (release / "answers" / "checkpoint.yaml").write_text(del_line, encoding="utf-8")
    status, printed = run("--course", str(release), "check", str(release), "-a", "checkpoint")
    assert status == 1, printed
    for said in ("reverse_order", "no answer", "zero_grad", "not one of the choices", "dsigmoid", "chain_rule",
                 "expected a number"):
        assert said in printed, (said, printed)
    assert "whether they are right is marked after the due date" in printed


def test_the_sheet_shows_a_students_own_numbers(checkpoint_release, tmp_path):
    status, printed = run("--course", str(checkpoint_release), "sheet", "checkpoint", "--student", "alice")
    p = numbers("chain_rule", "alice")
    assert status == 0 and f"a = {p['a']:g}, b = {p['b']:g}, c = {p['c']:g}" in printed.replace(".0,", ",")
    empty = tmp_path / "course"
    shutil.copytree(checkpoint_release / "assignments", empty / "assignments")
    status, printed = run("--course", str(empty), "sheet", "checkpoint")
    assert status == 2 and "--student" in printed


def test_validate_grades_the_keys_answers_and_catches_a_question_that_ignores_its_numbers(course_copy):
    status, printed = run("--course", str(ROOT), "validate", "-a", "checkpoint")
    assert status == 0 and "16 answer sets" in printed and "No misses" in printed, printed
    key = course_copy / "reference" / "answers" / "checkpoint.yaml"
    key.write_text(key.read_text(encoding="utf-8").replace('hand_gradient: "x*w"', 'hand_gradient: "2"'),
                   encoding="utf-8")
    status, printed = run("--course", str(course_copy), "validate", "-a", "checkpoint")
    assert status == 1 and "hand_gradient draws numbers per student" in printed, printed


def test_the_gradescope_zip_holds_the_key_and_grades_an_upload(tmp_path):
    archive = tmp_path / "autograder.zip"
    status, printed = run("--course", str(ROOT), "gradescope", "-a", "checkpoint", "-o", str(archive))
    assert status == 0, printed
    with zipfile.ZipFile(archive) as zf:
        names = zf.namelist()
        zf.extractall(tmp_path / "source")
    assert "reference/answers/checkpoint.yaml" in names and "reference/answers/checkpoint.py" in names
    upload = tmp_path / "submission"
    write(upload, right_answers("alice"), name="checkpoint.yaml")
    scores = []
    for sid in ("alice", "bob"):  # Gradescope's metadata names the submitter: their numbers, as in a bulk export
        users = [{"email": f"{sid}@example.edu", "sid": sid, "name": sid.title()}]
        (tmp_path / "submission_metadata.json").write_text(json.dumps({"id": 1, "users": users}), encoding="utf-8")
        status, printed = run("--course", str(tmp_path / "source"), "autograde", str(upload), "-a", "checkpoint",
                              "-o", str(tmp_path / "results.json"))
        assert status == 0, printed
        results = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
        assert math.isclose(sum(t["max_score"] for t in results["tests"]), 12)
        scores.append(results["score"])
    assert scores == [12, 7]  # alice's answers are right for alice, and wrong where bob's numbers differ
