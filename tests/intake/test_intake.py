"""Tests of submission intake: grader.intake.submission and grader.intake.notebook.

Every input is built in ``tmp_path``: folders of files, zips written with
:mod:`zipfile` and notebooks written with :mod:`nbformat`.
"""

from __future__ import annotations

import json
import os
import stat
import zipfile
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from grader.errors import GraderError, SubmissionError
from grader.intake import submission
from grader.intake.notebook import notebook_code
from grader.intake.notebook_imports import OwnCode
from grader.intake.submission import discover, read_submission, resolve, stage, student_id

OWN = OwnCode("micrograd/engine.py", frozenset({"engine", "nn"}))
"""What a notebook of the course stands for: its code is staged as the engine, and nn imports it."""


ENGINE = "class Value:\n    pass\n"
NN = "from .engine import Value\n"
WANT_ENGINE = ("micrograd/engine.py",)
WANT_BOTH = ("micrograd/engine.py", "micrograd/nn.py")
NN_REEXPORT = "from . import engine as _notebook"


def write_tree(root: Path, files: dict[str, str | bytes]) -> Path:
    """Create ``root`` holding ``files`` (relative POSIX path to content)."""
    root.mkdir(parents=True, exist_ok=True)
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


def make_zip(path: Path, files: dict[str, str | bytes]) -> Path:
    """Write a zip at ``path`` whose members are ``files`` (names kept verbatim)."""
    with zipfile.ZipFile(path, "w") as zf:
        for name, content in files.items():
            zf.writestr(name, content)
    return path


def notebook_bytes(*cells: object) -> bytes:
    """A valid v4 notebook holding ``cells``, as the bytes of an ``.ipynb`` file."""
    return nbformat.writes(new_notebook(cells=list(cells))).encode("utf-8")


def write_notebook(path: Path, *cells: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(new_notebook(cells=list(cells)), str(path))
    return path


def code_lines(*sources: str) -> list[str]:
    """The lines of ``notebook_code`` for a notebook of one code cell per source."""
    return notebook_code(notebook_bytes(*(new_code_cell(s) for s in sources)), "nb.ipynb", OWN).splitlines()


# discover() ------------------------------------------------------------------


def test_discover_counts_folders_zips_and_notebooks(tmp_path: Path) -> None:
    write_tree(tmp_path / "alice", {"engine.py": ENGINE})
    make_zip(tmp_path / "bob.zip", {"engine.py": ENGINE})
    write_notebook(tmp_path / "carol.ipynb", new_code_cell(ENGINE))

    assert discover(tmp_path) == [tmp_path / "alice", tmp_path / "bob.zip", tmp_path / "carol.ipynb"]


def test_discover_skips_hidden_entries_and_other_files(tmp_path: Path) -> None:
    write_tree(tmp_path / "alice", {"engine.py": ENGINE})
    write_tree(tmp_path / ".hidden", {"engine.py": ENGINE})
    write_tree(tmp_path / "__MACOSX", {"engine.py": ENGINE})
    make_zip(tmp_path / ".secret.zip", {"engine.py": ENGINE})
    (tmp_path / ".DS_Store").write_bytes(b"\0")
    (tmp_path / "README.md").write_text("# submissions\n", encoding="utf-8")
    (tmp_path / "grades.csv").write_text("id,score\n", encoding="utf-8")
    (tmp_path / "solution.py").write_text(ENGINE, encoding="utf-8")

    assert discover(tmp_path) == [tmp_path / "alice"]


def test_discover_skips_symlinked_entries(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    write_tree(outside / "real", {"engine.py": ENGINE})
    make_zip(outside / "real.zip", {"engine.py": ENGINE})
    subs = tmp_path / "subs"
    write_tree(subs / "alice", {"engine.py": ENGINE})
    os.symlink(outside / "real", subs / "bob")
    os.symlink(outside / "real.zip", subs / "carol.zip")

    assert discover(subs) == [subs / "alice"]


def test_discover_student_id_is_name_without_extension(tmp_path: Path) -> None:
    write_tree(tmp_path / "alice", {"engine.py": ENGINE})
    make_zip(tmp_path / "bob.zip", {"engine.py": ENGINE})
    write_notebook(tmp_path / "carol.ipynb", new_code_cell(ENGINE))

    ids = [read_submission(entry).id for entry in discover(tmp_path)]

    assert ids == ["alice", "bob", "carol"]
    assert submission.student_id(tmp_path / "bob.zip") == "bob"


def test_discover_keeps_two_entries_with_one_name_under_distinct_ids(tmp_path: Path) -> None:
    write_tree(tmp_path / "alice", {"engine.py": ENGINE})
    make_zip(tmp_path / "alice.zip", {"engine.py": ENGINE})

    assert [student_id(e) for e in discover(tmp_path)] == ["alice", "alice.zip"]


def test_discover_rejects_a_file_instead_of_a_folder(tmp_path: Path) -> None:
    not_a_folder = tmp_path / "subs.txt"
    not_a_folder.write_text("", encoding="utf-8")

    with pytest.raises(GraderError, match="not a folder"):
        discover(not_a_folder)


def test_discover_rejects_a_missing_folder(tmp_path: Path) -> None:
    with pytest.raises(GraderError):
        discover(tmp_path / "nope")


# read_submission() + resolve(): layouts --------------------------------------


def test_package_layout_is_resolved(tmp_path: Path) -> None:
    entry = write_tree(tmp_path / "alice", {"micrograd/engine.py": ENGINE, "micrograd/nn.py": NN})

    assert resolve(read_submission(entry), WANT_BOTH) == {"micrograd/engine.py": ENGINE, "micrograd/nn.py": NN}


def test_flat_layout_is_resolved(tmp_path: Path) -> None:
    entry = write_tree(tmp_path / "alice", {"engine.py": ENGINE, "nn.py": NN})

    assert resolve(read_submission(entry), WANT_BOTH) == {"micrograd/engine.py": ENGINE, "micrograd/nn.py": NN}


def test_zip_with_one_folder_deeper_is_resolved(tmp_path: Path) -> None:
    entry = make_zip(tmp_path / "alice.zip", {"alice/micrograd/engine.py": ENGINE, "alice/micrograd/nn.py": NN})

    sub = read_submission(entry)

    assert sub.id == "alice"
    assert resolve(sub, WANT_BOTH) == {"micrograd/engine.py": ENGINE, "micrograd/nn.py": NN}


def test_package_layout_is_preferred_over_flat_layout(tmp_path: Path) -> None:
    entry = write_tree(tmp_path / "alice", {"engine.py": "FLAT = 1\n", "project/micrograd/engine.py": ENGINE})

    assert resolve(read_submission(entry), WANT_ENGINE) == {"micrograd/engine.py": ENGINE}


def test_shallowest_match_is_preferred(tmp_path: Path) -> None:
    entry = write_tree(
        tmp_path / "alice",
        {"micrograd/engine.py": ENGINE, "old/attempt/micrograd/engine.py": "OLD = 1\n"},
    )

    assert resolve(read_submission(entry), WANT_ENGINE) == {"micrograd/engine.py": ENGINE}


def test_two_candidates_at_the_same_depth_are_ambiguous(tmp_path: Path) -> None:
    entry = write_tree(tmp_path / "alice", {"v1/micrograd/engine.py": ENGINE, "v2/micrograd/engine.py": ENGINE})

    with pytest.raises(SubmissionError) as info:
        resolve(read_submission(entry), WANT_ENGINE)

    assert "v1/micrograd/engine.py" in str(info.value)
    assert "v2/micrograd/engine.py" in str(info.value)


def test_two_flat_candidates_at_the_same_depth_are_ambiguous(tmp_path: Path) -> None:
    entry = write_tree(tmp_path / "alice", {"a/engine.py": ENGINE, "b/engine.py": ENGINE})

    with pytest.raises(SubmissionError, match="a/engine.py, b/engine.py"):
        resolve(read_submission(entry), WANT_ENGINE)


def test_missing_file_is_named(tmp_path: Path) -> None:
    entry = write_tree(tmp_path / "alice", {"micrograd/engine.py": ENGINE})

    with pytest.raises(SubmissionError) as info:
        resolve(read_submission(entry), WANT_BOTH)

    message = str(info.value)
    assert "missing micrograd/nn.py" in message
    assert "micrograd/engine.py" in message  # what was found is listed too


def test_non_utf8_file_is_reported(tmp_path: Path) -> None:
    entry = write_tree(tmp_path / "alice", {"micrograd/engine.py": "name = 'Zoë'\n".encode("latin-1")})

    with pytest.raises(SubmissionError, match="UTF-8") as info:
        resolve(read_submission(entry), WANT_ENGINE)

    assert "micrograd/engine.py" in str(info.value)


def test_utf8_byte_order_mark_is_accepted(tmp_path: Path) -> None:
    entry = write_tree(tmp_path / "alice", {"engine.py": b"\xef\xbb\xbf" + ENGINE.encode()})

    assert resolve(read_submission(entry), WANT_ENGINE) == {"micrograd/engine.py": ENGINE}


def test_empty_folder_is_an_error(tmp_path: Path) -> None:
    entry = tmp_path / "alice"
    entry.mkdir()

    sub = read_submission(entry)

    assert "empty" in sub.error
    with pytest.raises(SubmissionError, match="empty"):
        resolve(sub, WANT_ENGINE)


def test_folder_without_source_files_is_empty(tmp_path: Path) -> None:
    entry = write_tree(tmp_path / "alice", {"README.md": "hi\n", "engine.txt": ENGINE})

    assert "empty" in read_submission(entry).error


# read_submission(): what is skipped --------------------------------------------


def test_pycache_macosx_and_git_contents_are_ignored_in_a_folder(tmp_path: Path) -> None:
    entry = write_tree(
        tmp_path / "alice",
        {
            "project/micrograd/engine.py": ENGINE,
            "__pycache__/micrograd/engine.py": "PYCACHE = 1\n",
            "__MACOSX/micrograd/engine.py": "MACOSX = 1\n",
            ".git/micrograd/engine.py": "GIT = 1\n",
        },
    )

    sub = read_submission(entry)

    assert list(sub.files) == ["project/micrograd/engine.py"]
    assert resolve(sub, WANT_ENGINE) == {"micrograd/engine.py": ENGINE}


def test_pycache_macosx_and_git_contents_are_ignored_in_a_zip(tmp_path: Path) -> None:
    entry = make_zip(
        tmp_path / "alice.zip",
        {
            "alice/micrograd/engine.py": ENGINE,
            "__MACOSX/micrograd/engine.py": "MACOSX = 1\n",
            "__pycache__/engine.py": "PYCACHE = 1\n",
            ".git/micrograd/engine.py": "GIT = 1\n",
        },
    )

    sub = read_submission(entry)

    assert list(sub.files) == ["alice/micrograd/engine.py"]
    assert resolve(sub, WANT_ENGINE) == {"micrograd/engine.py": ENGINE}


def test_symlinked_file_inside_a_folder_is_ignored_and_noted(tmp_path: Path) -> None:
    secret = tmp_path / "secret.py"
    secret.write_text("SECRET = 1\n", encoding="utf-8")
    entry = write_tree(tmp_path / "alice", {"micrograd/nn.py": NN})
    os.symlink(secret, entry / "micrograd" / "engine.py")

    sub = read_submission(entry)

    assert list(sub.files) == ["micrograd/nn.py"]
    assert any("symbolic link" in note and "micrograd/engine.py" in note for note in sub.notes)


def test_symlinked_folder_inside_a_folder_is_not_followed(tmp_path: Path) -> None:
    write_tree(tmp_path / "elsewhere", {"engine.py": "ELSEWHERE = 1\n"})
    entry = write_tree(tmp_path / "alice", {"nn.py": NN})
    os.symlink(tmp_path / "elsewhere", entry / "micrograd")

    assert list(read_submission(entry).files) == ["nn.py"]


def test_symlinked_folder_inside_a_folder_is_noted(tmp_path: Path) -> None:
    write_tree(tmp_path / "elsewhere", {"engine.py": "ELSEWHERE = 1\n"})
    entry = write_tree(tmp_path / "alice", {"nn.py": NN})
    os.symlink(tmp_path / "elsewhere", entry / "micrograd")

    assert any("symbolic link" in note and "micrograd" in note for note in read_submission(entry).notes)


@pytest.mark.parametrize("unsafe", ["/micrograd/engine.py", "../micrograd/engine.py", "a/../../engine.py"])
def test_unsafe_zip_entry_is_not_read_and_is_noted(tmp_path: Path, unsafe: str) -> None:
    entry = make_zip(tmp_path / "alice.zip", {unsafe: "EVIL = 1\n", "micrograd/nn.py": NN})

    sub = read_submission(entry)

    assert list(sub.files) == ["micrograd/nn.py"]
    assert any("unsafe" in note and unsafe in note for note in sub.notes)


def test_symlink_entry_in_a_zip_is_ignored_and_noted(tmp_path: Path) -> None:
    entry = tmp_path / "alice.zip"
    with zipfile.ZipFile(entry, "w") as zf:
        link = zipfile.ZipInfo("micrograd/engine.py")
        link.create_system = 3  # Unix, so external_attr holds a mode
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        zf.writestr(link, "/etc/passwd")
        zf.writestr("micrograd/nn.py", NN)

    sub = read_submission(entry)

    assert list(sub.files) == ["micrograd/nn.py"]
    assert any("symbolic link" in note for note in sub.notes)
    with pytest.raises(SubmissionError, match="missing micrograd/engine.py"):
        resolve(sub, WANT_BOTH)


def test_corrupt_zip_is_a_clear_error(tmp_path: Path) -> None:
    entry = tmp_path / "alice.zip"
    entry.write_bytes(bytes(range(256)) * 8)

    sub = read_submission(entry)

    assert "alice.zip is not a readable zip file" in sub.error
    with pytest.raises(SubmissionError, match="not a readable zip file"):
        resolve(sub, WANT_ENGINE)


def test_oversized_zip_member_is_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(submission, "MAX_FILE_BYTES", 64)
    entry = make_zip(tmp_path / "alice.zip", {"micrograd/engine.py": "x = 1\n" * 100})

    sub = read_submission(entry)

    assert "micrograd/engine.py" in sub.error
    assert "larger than 64 bytes" in sub.error
    assert sub.files == {}


def test_oversized_file_in_a_folder_is_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(submission, "MAX_FILE_BYTES", 64)
    entry = write_tree(tmp_path / "alice", {"micrograd/engine.py": "x = 1\n" * 100})

    sub = read_submission(entry)

    assert "engine.py" in sub.error
    assert "64" in sub.error


def test_total_size_of_a_folder_is_capped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(submission, "MAX_TOTAL_BYTES", 100)
    entry = write_tree(tmp_path / "alice", {f"file{i}.py": "x = 1\n" * 10 for i in range(3)})

    assert "exceed 100 bytes" in read_submission(entry).error


# notebooks as submissions ------------------------------------------------------


def test_folder_with_one_notebook_is_read_as_that_notebook(tmp_path: Path) -> None:
    entry = tmp_path / "alice"
    write_notebook(entry / "work.ipynb", new_markdown_cell("# my work"), new_code_cell(ENGINE))
    write_notebook(entry / ".ipynb_checkpoints" / "work-checkpoint.ipynb", new_code_cell("OLD = 1"))

    sources = resolve(read_submission(entry), WANT_BOTH)

    assert "class Value:" in sources["micrograd/engine.py"]
    assert "OLD" not in sources["micrograd/engine.py"]
    assert sources["micrograd/nn.py"].startswith(NN_REEXPORT)
    compile(sources["micrograd/engine.py"], "engine.py", "exec")


def test_notebook_entry_is_read_as_engine(tmp_path: Path) -> None:
    entry = write_notebook(tmp_path / "alice.ipynb", new_code_cell(ENGINE))

    sub = read_submission(entry)
    sources = resolve(sub, WANT_ENGINE)

    assert sub.id == "alice"
    assert list(sources) == ["micrograd/engine.py"]
    assert "class Value:" in sources["micrograd/engine.py"]


def test_two_notebooks_are_not_guessed_between(tmp_path: Path) -> None:
    entry = tmp_path / "alice"
    write_notebook(entry / "a.ipynb", new_code_cell(ENGINE))
    write_notebook(entry / "b.ipynb", new_code_cell(ENGINE))

    with pytest.raises(SubmissionError, match="missing micrograd/engine.py"):
        resolve(read_submission(entry), WANT_ENGINE)


# stage() ---------------------------------------------------------------------


def test_stage_writes_an_empty_init_and_exactly_the_resolved_files(tmp_path: Path) -> None:
    entry = write_tree(tmp_path / "alice", {"engine.py": ENGINE, "nn.py": NN, "helpers.py": "H = 1\n"})
    code_dir = tmp_path / "code"

    stage(resolve(read_submission(entry), WANT_ENGINE), code_dir)

    package = code_dir / "micrograd"
    assert sorted(p.name for p in code_dir.iterdir()) == ["micrograd"]
    assert sorted(p.name for p in package.iterdir()) == ["__init__.py", "engine.py"]
    assert (package / "__init__.py").read_text(encoding="utf-8") == ""
    assert (package / "engine.py").read_text(encoding="utf-8") == ENGINE


def test_stage_writes_both_modules_when_both_are_wanted(tmp_path: Path) -> None:
    stage({"micrograd/engine.py": ENGINE, "micrograd/nn.py": NN}, tmp_path)

    assert sorted(p.name for p in (tmp_path / "micrograd").iterdir()) == ["__init__.py", "engine.py", "nn.py"]
    assert (tmp_path / "micrograd" / "nn.py").read_text(encoding="utf-8") == NN


# notebook_code() ---------------------------------------------------------------


def test_notebook_code_joins_code_cells_in_order_and_skips_markdown() -> None:
    raw = notebook_bytes(
        new_code_cell("a = 1"),
        new_markdown_cell("MARKDOWN_TEXT = 99"),
        new_code_cell("b = a + 1"),
        new_code_cell("c = b * 10"),
    )

    code = notebook_code(raw, "nb.ipynb", OWN)
    namespace: dict[str, object] = {}
    exec(compile(code, "nb.py", "exec"), namespace)

    assert "MARKDOWN_TEXT" not in code
    assert code.index("a = 1") < code.index("b = a + 1") < code.index("c = b * 10")
    assert namespace["c"] == 20


@pytest.mark.parametrize(
    "ipython_line",
    ["%matplotlib inline", "!pip install x", "x = !ls", "files=%sx ls", "obj?", "np.array??", "?obj", "%time y = 1"],
)
def test_notebook_code_replaces_ipython_lines_by_pass(ipython_line: str) -> None:
    lines = code_lines(f"a = 1\n{ipython_line}\nb = 2")

    assert lines[1:] == ["a = 1", lines[2], "b = 2"]  # same number of lines
    assert lines[2].startswith("pass")
    namespace: dict[str, object] = {}
    exec(compile("\n".join(lines), "nb.py", "exec"), namespace)
    assert (namespace["a"], namespace["b"]) == (1, 2)


def test_notebook_code_keeps_indentation_of_a_replaced_magic() -> None:
    source = "def f():\n    %time x = 1\n    return 2\n"

    lines = code_lines(source)
    code = "\n".join(lines)

    assert lines[2].startswith("    pass")
    namespace: dict[str, object] = {}
    exec(compile(code, "nb.py", "exec"), namespace)
    assert namespace["f"]() == 2  # type: ignore[operator]


def test_notebook_code_drops_a_cell_magic_cell_entirely() -> None:
    code = "\n".join(code_lines("a = 1", "%%bash\necho hello\nrm -rf build", "b = 2"))

    assert "echo" not in code
    assert "rm -rf" not in code
    assert "a = 1" in code and "b = 2" in code
    compile(code, "nb.py", "exec")


@pytest.mark.parametrize("line", ["s = a  # ok?", 'print("why?")', "ratio = a % 3", "same = a != 2"])
def test_notebook_code_keeps_python_lines_that_look_like_ipython(line: str) -> None:
    assert line in code_lines(f"a = 1\n{line}")


@pytest.mark.parametrize(
    "source",
    [
        pytest.param('msg = (\n    "loss %.4f"\n    % 0.5\n)\n', id="percent-operator"),
        pytest.param("ok = (\n    1\n    != 2\n)\n", id="not-equal-operator"),
    ],
)
def test_notebook_code_keeps_continuation_lines_starting_with_an_operator(source: str) -> None:
    compile(source, "plain.py", "exec")  # valid Python, as black formats it

    code = "\n".join(code_lines(source))

    compile(code, "nb.py", "exec")


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param(b"this is not json", id="not-json"),
        pytest.param(b'{"cells": [', id="truncated-json"),
        pytest.param(
            json.dumps(
                {
                    "nbformat": 4,
                    "nbformat_minor": 5,
                    "metadata": {},
                    "cells": [{"id": "c1", "cell_type": "bogus", "metadata": {}, "source": "x = 1"}],
                }
            ).encode(),
            id="fails-validation",
        ),
    ],
)
def test_notebook_code_rejects_an_invalid_notebook(raw: bytes) -> None:
    with pytest.raises(SubmissionError, match="nb.ipynb is not a valid Jupyter notebook"):
        notebook_code(raw, "nb.ipynb", OWN)


def test_notebook_code_rejects_non_utf8_bytes() -> None:
    raw = notebook_bytes(new_code_cell("name = 'Zoe'")).replace(b"Zoe", b"Zo\xeb")

    with pytest.raises(SubmissionError, match="UTF-8"):
        notebook_code(raw, "nb.ipynb", OWN)


def test_invalid_notebook_submission_gives_a_submission_error(tmp_path: Path) -> None:
    entry = tmp_path / "alice.ipynb"
    entry.write_text("{ not json", encoding="utf-8")

    with pytest.raises(SubmissionError, match="not a valid Jupyter notebook"):
        resolve(read_submission(entry), WANT_ENGINE)
