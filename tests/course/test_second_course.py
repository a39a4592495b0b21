"""A second course, not about automatic differentiation, graded with no change to ``grader/``.

``tests/courses/fractions`` is a whole course in a few files: exact fractions (``ratlab/fraction.py``, class
``Frac``), its own handout tables (``assignments/shared/handout.yaml``: package, classes, hints), probes, public and
hidden tests, one catalogued bug and a reference solution with solution markers. An instructor's commands run on a
copy of it as they run on this course: ``template``, ``grade``, ``check``, ``validate`` and ``release`` (and the
release's own ``check``, as a student runs it). Everything the grader knows of a course comes from the course's
folder; ``test_the_grader_names_no_class_or_file_of_either_course`` checks the other half: the grader's code names
none of the two courses' classes or files.
"""

from __future__ import annotations

import ast
import io
import json
import re
import shutil
import subprocess
import sys
import tokenize
from pathlib import Path

import nbformat
import pytest
from checkout import ROOT

from grader.course.course import Course

SECOND = Path(__file__).resolve().parents[1] / "courses" / "fractions"
"""The second course as committed (no student template: ``grader template`` writes it)."""
REFERENCE = SECOND / "reference" / "ratlab" / "fraction.py"
WRONG_ADD = ("return Frac(self.num * other.den + other.num * self.den, self.den * other.den)",
             "return Frac(self.num + other.num, self.den + other.den)")
"""The catalogued bug, as a student would write it."""


def grader(course: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m grader --course COURSE ARGS``, as an instructor runs it."""
    return subprocess.run([sys.executable, "-m", "grader", "--course", str(course), *args], cwd=cwd,
                          capture_output=True, text=True, timeout=240, check=False)


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the second course with its student template written by ``grader template``."""
    root = tmp_path_factory.mktemp("second") / "fractions"
    shutil.copytree(SECOND, root)
    done = grader(root, "template")
    assert done.returncode == 0, done.stderr
    return root


def submission(folder: Path, source: str) -> Path:
    (folder / "ratlab").mkdir(parents=True)
    (folder / "ratlab" / "fraction.py").write_text(source, encoding="utf-8")
    return folder


def test_the_course_reads_as_its_own(course: Path) -> None:
    loaded = Course(course)
    assignment = loaded.assignment("fractions")

    assert loaded.package == "ratlab" and assignment.files == ("ratlab/fraction.py",)
    assert assignment.own_modules == ("fraction",) and assignment.defines == ("Frac",)
    assert loaded.handout.has("Frac.__add__") and not loaded.handout.has("Value.__add__")
    assert "raise NotImplementedError" in (course / "student_template" / "ratlab" / "fraction.py").read_text()


def test_grade_scores_each_submission_and_names_the_method_at_fault(course: Path, tmp_path: Path) -> None:
    subs = tmp_path / "subs"
    reference = REFERENCE.read_text(encoding="utf-8")
    submission(subs / "right", reference)
    submission(subs / "wrong_add", reference.replace(*WRONG_ADD))
    submission(subs / "untouched", (course / "student_template" / "ratlab" / "fraction.py").read_text())

    done = grader(course, "grade", str(subs), "-o", str(tmp_path / "out"))

    assert done.returncode == 0, done.stderr
    scores = {s: json.loads((tmp_path / "out" / "fractions" / s / "results.json").read_text())["score"]
              for s in ("right", "wrong_add", "untouched")}
    assert scores == {"right": 6, "wrong_add": 4, "untouched": 0}
    feedback = (tmp_path / "out" / "fractions" / "wrong_add" / "feedback.md").read_text(encoding="utf-8")
    start = feedback.split("## Start here", 1)[1].split("##", 1)[0]
    assert "`Frac.__add__`" in start and "got 2/5, expected 5/6" in feedback
    assert "Value" not in feedback and "micrograd" not in feedback


def test_validate_finds_no_miss(course: Path) -> None:
    done = grader(course, "validate")

    assert done.returncode == 0, done.stdout + done.stderr
    assert "No misses" in done.stdout and "fractions 100%" in done.stdout


def test_the_release_holds_no_answer_and_its_self_check_and_notebook_grade(course: Path, tmp_path: Path) -> None:
    release = tmp_path / "release"

    done = grader(course, "release", "-o", str(release))

    assert done.returncode == 0, done.stderr
    assert (release / "ratlab" / "fraction.py").is_file() and (release / "notebooks" / "fractions.ipynb").is_file()
    assert not (release / "reference").exists() and not (release / "assignments" / "fractions" / "bugs.yaml").exists()
    assert "# ratlab: exact fractions" in (release / "README.md").read_text(encoding="utf-8")
    held = "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in release.rglob("*")
                     if p.is_file() and p.suffix in {".py", ".md", ".ipynb", ".yaml"} and "grader" not in p.parts)
    assert WRONG_ADD[0] not in held and "math.gcd(num, den)\n" not in held
    untouched = subprocess.run([sys.executable, "-m", "grader", "check"], cwd=release, capture_output=True,
                               text=True, timeout=240, check=False)
    assert untouched.returncode == 1 and "0 / 3 public points" in untouched.stdout
    nb = nbformat.read(release / "notebooks" / "fractions.ipynb", as_version=4)
    first = next(c for c in nb.cells if c.cell_type == "code")
    first.source = REFERENCE.read_text(encoding="utf-8")
    nbformat.write(nb, release / "notebooks" / "fractions.ipynb")
    solved = subprocess.run([sys.executable, "-m", "grader", "check", "notebooks/fractions.ipynb", "-a", "fractions"],
                            cwd=release, capture_output=True, text=True, timeout=240, check=False)
    assert solved.returncode == 0 and "3 / 3 public points" in solved.stdout, solved.stdout + solved.stderr


def code_tokens(path: Path) -> list[tuple[int, str]]:
    """``(line, text)`` of each name and string of ``path`` that is neither a comment, a docstring nor an attribute
    of another object (``ast.Module``)."""
    source = path.read_text(encoding="utf-8")
    docs: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            docs.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    kept = (tokenize.NAME, tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", tokenize.STRING))
    tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    return [(t.start[0], t.string) for before, t in zip([None, *tokens], tokens)
            if t.type in kept and t.start[0] not in docs
            and not (t.type == tokenize.NAME and before is not None and before.string == ".")]  # ast.Module


def test_the_grader_names_no_class_or_file_of_either_course() -> None:
    """The issue's grep: no class, file or operation of a course in the grader's code (docstrings may give
    examples)."""
    names = {"tanh"}
    for root in (ROOT, SECOND):
        handout = Course(root).handout
        names |= set(handout.classes) | set(handout.files)
    word = re.compile(rf"(?<![\w.])({'|'.join(re.escape(n) for n in sorted(names))})(?!\w)")
    found = [f"{path.relative_to(ROOT)}:{line}: {text}" for path in sorted((ROOT / "grader").rglob("*.py"))
             for line, text in code_tokens(path) if word.search(text)]

    assert found == []


def test_a_new_assignment_is_scaffolded_in_the_courses_package(course: Path, tmp_path: Path) -> None:
    root = tmp_path / "fractions"
    shutil.copytree(course, root)

    assert grader(root, "new-assignment", "powers").returncode == 0
    assert grader(root, "template").returncode == 0
    done = grader(root, "validate", "-a", "powers")

    assert "files: [ratlab/powers.py]" in (root / "assignments" / "powers" / "assignment.yaml").read_text()
    assert (root / "student_template" / "ratlab" / "powers.py").is_file()
    assert done.returncode == 0 and "No misses" in done.stdout, done.stdout + done.stderr
