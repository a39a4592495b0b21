"""Which of a submission's .py files or notebooks is graded (grader.intake.candidates, through resolve()).

The folders are laid out like the student release: the template's
``micrograd/`` package and one notebook per assignment, as ``grader release``
builds them (``build_notebook`` on the template), with some of them filled
with the reference solution.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import nbformat
import pytest
from checkout import ROOT

from grader.course.course import Course
from grader.course.handouts import build_notebook, cell_code
from grader.errors import SubmissionError
from grader.intake.candidates import choose
from grader.intake.submission import read_submission, resolve

COURSE = Course(ROOT)
TEMPLATE = COURSE.template_dir
REFERENCE = ROOT / "reference" / "micrograd"
ASSIGNMENTS = {a.id: a for a in COURSE.assignments() if not a.is_concept_check}  # notebooks hold code


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def release_like(root: Path) -> Path:
    """A folder laid out like the student release: template package and untouched notebooks."""
    shutil.copytree(TEMPLATE / "micrograd", root / "micrograd", ignore=shutil.ignore_patterns("__pycache__"))
    sources = {f"micrograd/{p.name}": read(p) for p in (TEMPLATE / "micrograd").glob("*.py")}
    (root / "notebooks").mkdir()
    for a in ASSIGNMENTS.values():
        nbformat.write(build_notebook(a, sources, f"# {a.title}"), root / "notebooks" / f"{a.id}.ipynb")
    return root


def fill_notebook(path: Path, engine: str, set_mtime: float | None = None) -> None:
    """Replace the engine cell of the notebook at ``path`` by ``engine`` (as the release would put it)."""
    nb = nbformat.read(path, as_version=4)
    cell = next(c for c in nb.cells if c.cell_type == "code" and "class Value" in c.source)
    cell.source = cell_code(engine, True, "micrograd")
    nbformat.write(nb, path)
    if set_mtime is not None:
        os.utime(path, (set_mtime, set_mtime))


def choose_for(folder: Path, aid: str, template: Path | None = TEMPLATE):
    a = ASSIGNMENTS[aid]
    return choose(read_submission(folder), a.files, aid, template, own=a.own_modules, classes=a.defines)


def test_untouched_release_grades_the_template_files_without_a_note(tmp_path: Path) -> None:
    folder = release_like(tmp_path / "alice")

    for aid in ASSIGNMENTS:
        chosen = choose_for(folder, aid)
        assert chosen.sources == {f: read(TEMPLATE / f) for f in Course(ROOT).assignment(aid).files}, aid
        assert chosen.notes == [] and chosen.line_map is None, aid


def test_template_files_and_a_filled_notebook_grade_the_notebook_with_a_note(tmp_path: Path) -> None:
    folder = release_like(tmp_path / "alice")
    fill_notebook(folder / "notebooks" / "backward.ipynb", read(REFERENCE / "engine.py"))

    chosen = choose_for(folder, "backward")

    assert "def backward(self)" in chosen.sources["micrograd/engine.py"]
    assert "NotImplementedError(" not in chosen.sources["micrograd/engine.py"]
    assert chosen.line_map is not None and chosen.line_map["notebook"] == "notebooks/backward.ipynb"
    assert len(chosen.notes) == 1
    assert "graded notebooks/backward.ipynb" in chosen.notes[0]
    assert "ignored micrograd/engine.py" in chosen.notes[0] and "unchanged from the template" in chosen.notes[0]
    # value_ops has its own notebook, untouched: the (template) files, silently
    assert choose_for(folder, "value_ops").notes == []


def test_filled_files_and_untouched_notebooks_grade_the_files_without_a_note(tmp_path: Path) -> None:
    folder = release_like(tmp_path / "alice")
    shutil.copytree(REFERENCE, folder / "micrograd", dirs_exist_ok=True)

    for aid in ASSIGNMENTS:
        chosen = choose_for(folder, aid)
        assert chosen.sources == {f: read(REFERENCE.parent / f) for f in Course(ROOT).assignment(aid).files}, aid
        assert chosen.notes == [] and chosen.line_map is None, aid


def test_an_executed_and_resaved_untouched_notebook_still_counts_as_untouched(tmp_path: Path) -> None:
    folder = release_like(tmp_path / "alice")
    shutil.copytree(REFERENCE, folder / "micrograd", dirs_exist_ok=True)
    path = folder / "notebooks" / "value_ops.ipynb"
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":  # run, outputs kept, Windows line endings, trailing blanks
            cell.execution_count = 3
            cell.outputs = [nbformat.v4.new_output("stream", text="hello\n")]
            cell.source = cell.source.replace("\n", "  \r\n") + "\r\n\r\n"
    nbformat.write(nb, path)

    assert choose_for(folder, "value_ops").notes == []


def test_both_filled_the_one_with_fewer_stubs_left_is_graded(tmp_path: Path) -> None:
    folder = release_like(tmp_path / "alice")
    template_engine = read(TEMPLATE / "micrograd" / "engine.py")
    partial = template_engine.replace('raise NotImplementedError("Task 1.1', 'return self  # tried\n        raise NotImplementedError("Task 1.1', 1)
    (folder / "micrograd" / "engine.py").write_text(partial, encoding="utf-8")  # touched, stubs all left
    fill_notebook(folder / "notebooks" / "value_ops.ipynb", read(REFERENCE / "engine.py"), set_mtime=1_000_000)

    chosen = choose_for(folder, "value_ops")

    assert chosen.line_map is not None  # the notebook, although older
    stubs = len(re.findall(r"raise NotImplementedError", partial))
    assert chosen.notes == [
        "both notebooks/value_ops.ipynb and micrograd/engine.py hold work: graded notebooks/value_ops.ipynb "
        f"(fewer NotImplementedError stubs left: 0 against {stubs}); ignored micrograd/engine.py"
    ]


@pytest.mark.parametrize("newer", ["notebook", "files"])
def test_both_filled_with_as_many_stubs_the_most_recently_modified_is_graded(tmp_path: Path, newer: str) -> None:
    folder = release_like(tmp_path / "alice")
    shutil.copytree(REFERENCE, folder / "micrograd", dirs_exist_ok=True)
    notebook = folder / "notebooks" / "value_ops.ipynb"
    fill_notebook(notebook, read(REFERENCE / "engine.py") + "\n# my own copy\n")
    old, new = 1_000_000, 2_000_000
    os.utime(notebook, (new, new) if newer == "notebook" else (old, old))
    for p in (folder / "micrograd").glob("*.py"):
        os.utime(p, (new, new) if newer == "files" else (old, old))

    chosen = choose_for(folder, "value_ops")

    assert (chosen.line_map is not None) == (newer == "notebook")
    assert len(chosen.notes) == 1 and "modified more recently" in chosen.notes[0]
    graded = "notebooks/value_ops.ipynb" if newer == "notebook" else "micrograd/engine.py"
    ignored = "micrograd/engine.py" if newer == "notebook" else "notebooks/value_ops.ipynb"
    assert f"graded {graded} (" in chosen.notes[0] and chosen.notes[0].endswith(f"ignored {ignored}")


def test_a_scratch_notebook_using_the_package_is_not_an_alternative_to_the_files(tmp_path: Path) -> None:
    folder = tmp_path / "alice"
    shutil.copytree(REFERENCE, folder / "micrograd")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "from micrograd.engine import Value\nfrom micrograd.nn import MLP\nprint(MLP(2, [1])(Value(1.0)))")])
    nbformat.write(nb, folder / "playground.ipynb")
    os.utime(folder / "playground.ipynb", (4_000_000_000, 4_000_000_000))  # newer than the files

    chosen = choose_for(folder, "mlp")

    assert chosen.sources["micrograd/nn.py"] == read(REFERENCE / "nn.py")
    assert chosen.notes == [] and chosen.line_map is None


def test_the_assignments_own_notebook_is_preferred_to_the_others(tmp_path: Path) -> None:
    folder = release_like(tmp_path / "alice")
    shutil.rmtree(folder / "micrograd")
    fill_notebook(folder / "notebooks" / "mlp.ipynb", read(REFERENCE / "engine.py").replace("class Value", "class MlpValue"))

    assert "class MlpValue" in choose_for(folder, "mlp").sources["micrograd/engine.py"]
    assert "class MlpValue" not in choose_for(folder, "value_ops").sources["micrograd/engine.py"]


def test_an_unreadable_notebook_is_ignored_with_a_note_when_the_files_can_be_graded(tmp_path: Path) -> None:
    folder = release_like(tmp_path / "alice")
    (folder / "notebooks" / "value_ops.ipynb").write_text("{ not json", encoding="utf-8")

    chosen = choose_for(folder, "value_ops")

    assert chosen.line_map is None
    assert chosen.notes and chosen.notes[0].startswith("ignored notebooks/value_ops.ipynb: ")
    assert "not a valid Jupyter notebook" in chosen.notes[0]


def test_an_unreadable_notebook_alone_is_a_submission_error(tmp_path: Path) -> None:
    entry = tmp_path / "alice.ipynb"
    entry.write_text("{ not json", encoding="utf-8")

    with pytest.raises(SubmissionError, match="not a valid Jupyter notebook"):
        choose(read_submission(entry), ("micrograd/engine.py",), "value_ops", TEMPLATE)


def test_without_a_template_the_choice_falls_to_the_stubs_and_says_so(tmp_path: Path) -> None:
    folder = release_like(tmp_path / "alice")
    shutil.copytree(REFERENCE, folder / "micrograd", dirs_exist_ok=True)

    chosen = choose_for(folder, "value_ops", template=None)

    assert chosen.line_map is None  # the filled files: 0 stubs left against the notebook's
    assert "graded micrograd/engine.py (fewer NotImplementedError stubs left: 0 against" in chosen.notes[0]


def test_resolve_keeps_its_old_signature_and_result(tmp_path: Path) -> None:
    folder = release_like(tmp_path / "alice")
    fill_notebook(folder / "notebooks" / "backward.ipynb", read(REFERENCE / "engine.py"))
    sub = read_submission(folder)

    assert resolve(sub, ("micrograd/engine.py",)) == {"micrograd/engine.py": read(TEMPLATE / "micrograd" / "engine.py")}
    assert "NotImplementedError(" not in resolve(sub, ("micrograd/engine.py",), "backward", TEMPLATE)["micrograd/engine.py"]


def test_notes_cap_student_controlled_file_names(tmp_path: Path) -> None:
    folder = tmp_path / "alice"
    shutil.copytree(TEMPLATE / "micrograd", folder / "micrograd")
    long_name = "d" * 200 + "/" + "n" * 200 + ".ipynb"
    nb = build_notebook(ASSIGNMENTS["value_ops"], {"micrograd/engine.py": read(REFERENCE / "engine.py")}, "# h")
    (folder / long_name).parent.mkdir()
    nbformat.write(nb, folder / long_name)

    chosen = choose_for(folder, "value_ops")

    assert chosen.line_map is not None and len(chosen.notes) == 1
    assert len(chosen.notes[0]) < 300 and "n" * 100 not in chosen.notes[0]
    assert len(chosen.line_map["notebook"]) <= 120


def test_the_releases_template_copy_never_stands_for_a_students_missing_file(tmp_path: Path) -> None:
    """A student's copy of the release holds the course's ``student_template/`` too: with their own
    ``micrograd/forward.py`` deleted, the template's copy had been graded in its place, with no note (0 points
    for "not implemented" stubs they never saw); the file is missing, and the message says so."""
    folder = release_like(tmp_path / "alice")
    shutil.rmtree(folder / "notebooks")
    shutil.copytree(TEMPLATE / "micrograd", folder / "student_template" / "micrograd",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "micrograd" / "forward.py").unlink()
    with pytest.raises(SubmissionError, match="missing micrograd/forward.py"):
        choose_for(folder, "forward_mode")
    assert choose_for(folder, "value_ops").sources["micrograd/engine.py"] == read(folder / "micrograd" / "engine.py")
