"""The batch survives every submission's names and shapes (issue 12, E): each becomes a noted result
for that submission alone, and the class is graded with exit status 0."""

from __future__ import annotations

import csv
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest
from checkout import ROOT
from conftest import zip_folder

from grader.cli import main
from grader.files import remove_tree
from grader.intake.notebook_imports import OwnCode
from grader.intake.submission import discover, read_submission, student_id

OWN = OwnCode("micrograd/engine.py", frozenset({"engine", "nn"}))
"""What a notebook of the course stands for: its code is staged as the engine, and nn imports it."""


EXAMPLES = ROOT / "examples" / "submissions"
CORRECT = EXAMPLES / "correct_recursive"
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
NOBODY = 65534


def grades(out: Path) -> dict[str, dict[str, str]]:
    with open(out / "grades.csv", encoding="utf-8") as f:
        return {row["student"]: row for row in csv.DictReader(f)}


def test_a_folder_and_a_zip_with_one_name_are_both_graded_under_their_own_names(tmp_path, capsys):
    subs = tmp_path / "subs"
    shutil.copytree(CORRECT, subs / "dup")
    zip_folder(EXAMPLES / "template_unchanged", subs / "dup.zip")
    shutil.copy(EXAMPLES / "notebook.ipynb", subs / "dup.ipynb")
    assert sorted(student_id(e) for e in discover(subs)) == ["dup", "dup.ipynb", "dup.zip"]
    assert main(["--course", str(ROOT), "grade", str(subs), "-o", str(tmp_path / "out"), "-a", "value_ops"]) == 0
    got = grades(tmp_path / "out")
    assert got["dup"]["value_ops"] == "40" and got["dup.zip"]["value_ops"] == "0"
    assert got["dup.ipynb"]["value_ops"] == "40"


@pytest.mark.skipif(sys.platform in ("win32", "darwin"), reason="needs file names that are arbitrary bytes")
def test_names_that_are_not_utf8_are_graded_and_shown_escaped(tmp_path, capsys):
    subs = tmp_path / "subs"
    subs.mkdir()
    student = os.fsdecode(b"caf\xe9")  # Latin-1 bytes: not UTF-8
    shutil.copytree(CORRECT, subs / student)
    (subs / student / os.fsdecode(b"notes-\xff.py")).write_text("x = 1\n")
    assert main(["--course", str(ROOT), "grade", str(subs), "-o", str(tmp_path / "out"), "-a", "value_ops"]) == 0
    assert grades(tmp_path / "out")["caf\\xe9"]["value_ops"] == "40"
    feedback = (tmp_path / "out" / "value_ops" / "caf\\xe9" / "feedback.md").read_text(encoding="utf-8")
    assert "> Note: ignored a file whose name is not UTF-8: notes-\\\\xff.py" in feedback  # Markdown-escaped
    capsys.readouterr()


@pytest.mark.skipif(os.open not in os.supports_dir_fd, reason="builds the chain relative to each folder")
def test_a_submission_1100_folders_deep_is_read_with_a_note(tmp_path):
    entry = tmp_path / "subs" / "deep"
    shutil.copytree(CORRECT, entry)
    fd = os.open(entry, os.O_RDONLY)
    for _ in range(1100):
        os.mkdir("d", dir_fd=fd)
        child = os.open("d", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = child
    os.close(fd)
    try:
        sub = read_submission(entry)
    finally:
        # pytest's own clean-up of old temporary folders recurses and fails on 1100 levels, which
        # leaves an unclosed scandir iterator that -W error turns into a failed session later
        assert remove_tree(entry) == []
    assert sub.error == "" and "micrograd/engine.py" in sub.files
    assert any("levels deep" in note for note in sub.notes)


@pytest.mark.timeout(60)  # linear: well under a second; the quadratic scan took minutes
@pytest.mark.parametrize("cell, removed", [
    ("%matplotlib inline\n" * 20_000, 20_000),       # 20,000 magic lines
    ("x = (\n" + "%  2\n" * 20_000 + ")\n", 0),       # one bracket left open for 20,000 lines: kept as Python
    ("import os\n" * 20_000, 0),                      # 20,000 imports, each looked at by the import rewriter
])
def test_a_cell_of_twenty_thousand_lines_is_read_in_linear_time(cell, removed):
    from grader.intake.notebook import strip_ipython
    from grader.intake.notebook_imports import rewrite_imports

    stripped = strip_ipython(cell)
    assert stripped.count("removed by the grader") == removed
    assert len(rewrite_imports(stripped.split("\n"), OWN).lines) == len(stripped.split("\n"))


def test_magics_inside_and_after_an_open_statement_are_told_apart():
    from grader.intake.notebook import strip_ipython

    assert strip_ipython("y = [1,\n% 3]\n%time x\n").splitlines()[1:] == [
        "% 3]", "pass  # removed by the grader: %time x"]


def run_child(code: str, seconds: float = 20, memory_mb: int = 1024, as_nobody: bool = False) -> object:
    """The JSON ``code`` prints last, run in a fresh interpreter with ``memory_mb`` of address space, killed after
    ``seconds`` (a read that blocks or eats memory fails the test, never the suite). ``as_nobody``: when this is
    root, the code after the line ``DROP`` runs as user 65534 (root reads any file, whatever its mode)."""
    drop = (f"os.setgroups([]); os.setgid({NOBODY}); os.setuid({NOBODY})" if IS_ROOT and as_nobody else "pass")
    prelude = (f"import json, os, resource, sys\nresource.setrlimit(resource.RLIMIT_AS, ({memory_mb << 20}, "
               f"{memory_mb << 20}))\nsys.path.insert(0, {str(ROOT)!r})\n")
    body = textwrap.dedent(code).replace("DROP\n", f"try:\n    {drop}\nexcept OSError as exc:\n"
                                          f"    print(json.dumps({{'skip': str(exc)}})); sys.exit(0)\n")
    try:
        done = subprocess.run([sys.executable, "-c", prelude + body], cwd=ROOT, capture_output=True, text=True,
                              timeout=seconds, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        pytest.fail(f"reading the submissions took more than {seconds} s (a read that blocks)")
    assert done.returncode == 0, done.stderr[-1500:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    if isinstance(found, dict) and "skip" in found:
        pytest.skip(f"cannot read as another user than root: {found['skip']}")
    return found


READ_ALL = """
    from pathlib import Path
    from grader.intake.submission import discover, read_submission
    subs = [read_submission(e) for e in discover(Path({folder!r}))]
    print(json.dumps({{s.id: s.error for s in subs}}))
"""


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_named_like_a_zip_or_notebook_does_not_hang_grading(tmp_path):
    # opening a FIFO for reading waits for a writer: without one, forever (the whole class's run with it)
    subs = tmp_path / "subs"
    shutil.copytree(CORRECT, subs / "alice")
    os.mkfifo(subs / "pipe.zip")
    os.mkfifo(subs / "pipe2.ipynb")
    os.mkfifo(subs / "alice" / "micrograd" / "extra.py")
    errors = run_child(READ_ALL.format(folder=str(subs)), seconds=10)
    assert errors["alice"] == ""
    for student, name in (("pipe", "pipe.zip"), ("pipe2", "pipe2.ipynb")):
        assert errors[student] == f"{name} is a named pipe (FIFO), not a regular file: not read (submit the file " \
                                  f"itself)"


@pytest.mark.skipif(not os.path.exists("/dev/zero") or sys.platform == "win32", reason="needs /dev/zero")
def test_a_device_named_like_a_zip_is_never_read_to_its_end(tmp_path):
    # /dev/zero never ends: read whole (a zip's end record search did), it takes all the memory there is
    subs = tmp_path / "subs"
    shutil.copytree(CORRECT, subs / "alice")
    (tmp_path / "zero.zip").symlink_to("/dev/zero")  # given directly (grader check zero.zip), a link is followed
    if IS_ROOT:  # as a tar extracted as root makes it
        os.mknod(subs / "dev.zip", stat.S_IFCHR | 0o644, os.makedev(1, 5))
        os.mknod(subs / "dev2.ipynb", stat.S_IFCHR | 0o644, os.makedev(1, 5))
    code = READ_ALL.format(folder=str(subs)).replace("print(json.dumps({s.id: s.error for s in subs}))", """
    subs.append(read_submission(Path({zero!r})))
    print(json.dumps({{s.id: s.error for s in subs}}))""".format(zero=str(tmp_path / "zero.zip")))
    errors = run_child(code, seconds=20, memory_mb=512)
    assert errors.pop("alice") == ""
    assert errors == {student: f"{student}.{suffix} is a character device, not a regular file: not read (submit the "
                               f"file itself)"
                      for student, suffix in [("zero", "zip"), *([("dev", "zip"), ("dev2", "ipynb")] if IS_ROOT else [])]}


@pytest.mark.skipif(sys.platform == "win32", reason="needs POSIX permissions")
def test_an_unreadable_file_or_folder_is_that_submissions_error_naming_it_not_a_crash():
    # unzip keeps a member's mode 000 from the student's zip; one such file stopped the whole class's `grader grade`
    base = Path(tempfile.mkdtemp(prefix="unreadable-", dir="/tmp"))  # where user 65534 can look in
    try:
        base.chmod(0o755)
        shutil.copytree(CORRECT, base / "alice")
        (base / "alice" / "micrograd" / "nn.py").chmod(0)
        shutil.copytree(CORRECT, base / "locked")
        (base / "locked").chmod(0)
        errors = run_child(f"""
            from pathlib import Path
            from grader.grading.due_work import read_due_work
            import codecs; codecs.lookup("utf-8-sig")  # imported while this interpreter's files can be read
            DROP
            found = {{}}
            for name in ("alice", "locked"):
                try:
                    work = read_due_work(Path({str(base)!r}) / name, {{"value_ops": None, "mlp": None}}, None)
                    found[name] = work["mlp"].submission.error
                except Exception as exc:
                    found[name] = f"RAISED {{type(exc).__name__}}: {{exc}}"
            print(json.dumps(found))
        """, as_nobody=True)
    finally:
        (base / "locked").chmod(0o755)
        (base / "alice" / "micrograd" / "nn.py").chmod(0o644)
        shutil.rmtree(base, ignore_errors=True)
    fix = "make it readable (unzip keeps a member's permissions from the zip: chmod -R a+rX fixes them) and grade again"
    assert errors == {"alice": f"micrograd/nn.py could not be read (Permission denied): {fix}",
                      "locked": f"locked could not be read (Permission denied): {fix}"}
