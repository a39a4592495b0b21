"""Attacks on the inputs that come from outside a submission's sandbox: similarity, corpus folders, term files, git
due dates and LMS layouts.

Written by reading the code after a term's worth of new features, to find what the suite did not try yet; each
test is named for the harm it prevents, and each that failed then has its fix (no xfail: a failure is an attack
that gets through). Everything runs at library level or through ``grader.cli.main`` on small inputs; no
class is graded. Attacks that could hang or exhaust memory (a FIFO, a device file, a YAML bomb) run in a child
process with a time limit and an address-space limit, so a failure costs seconds, never the machine.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import textwrap
import time
from datetime import datetime, timezone
from pathlib import Path

import nbformat
import pytest
from checkout import ROOT
from evidence_pages import Page, package

from grader.cli import main
from grader.commands.similarity import summary
from grader.course.course import Course
from grader.course.due_dates import DueDate
from grader.course.late_policy import LatePolicy
from grader.course.roster import read_roster
from grader.errors import ConfigError, GraderError
from grader.grading.due_work import read_due_work
from grader.intake.git_history import read_at_deadline
from grader.outputs.lms_export import Gradebook, fill_canvas
from grader.similarity.similarity_json import load
from grader.similarity.sources import read_folder

VARIANTS = ROOT / "reference" / "variants"
HAS_GIT = shutil.which("git") is not None
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
HONEST = ["factory_ops", "int_data_tuple", "local_grads"]
HOSTILE_ID = "mallory\u202e\x1b[2J\x07"
HOSTILE_CORPUS = "last\x1b]0;pwned\x07\u202eterm"
SCRIPT_LINE = "# </script><script>alert(1)</script> &lt;b&gt; \x00 \x1b[31m red \u202e evil \r\n"
CONTROLS = ("\x00", "\x07", "\x1b", "\u202e")


def variant(name: str, module: str) -> str:
    return (VARIANTS / name / "micrograd" / module).read_text(encoding="utf-8")


def run_child(code: str, seconds: float, memory_mb: int = 1024) -> subprocess.CompletedProcess[str]:
    """``code`` in a fresh interpreter (cwd: the course) with ``memory_mb`` of address space; TimeoutExpired after
    ``seconds``."""
    prelude = (f"import resource\nresource.setrlimit(resource.RLIMIT_AS, ({memory_mb << 20}, {memory_mb << 20}))\n"
               f"import sys\nsys.path.insert(0, {str(ROOT)!r})\n")
    return subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(code)], cwd=ROOT, capture_output=True,
                          text=True, timeout=seconds, stdin=subprocess.DEVNULL)


# --- 1. similarity: hostile names and code in the evidence, copies, huge inputs --------------------------------------

@pytest.fixture(scope="module")
def compared(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, object]:
    """A small class (three honest engines; ``mia``; ``zed``, who pasted mia's class twice; ``yan``, who swapped
    its halves; a copy under a hostile id) compared with a hostile corpus folder; the report written. ~1 s."""
    base = tmp_path_factory.mktemp("fresh_similarity")
    subs, out, corpus = base / "subs", base / "out", base / HOSTILE_CORPUS
    for name in HONEST:
        package(subs / name, variant(name, "engine.py"), variant(name, "nn.py"))
    victim, nn = variant("kahn_list", "engine.py"), variant("kahn_list", "nn.py")
    package(subs / "mia", victim, nn)
    body = victim[victim.index("class Value"):]
    package(subs / "zed", victim + "\n\n" + body.replace("class Value", "class _Backup", 1), nn)
    head, cut = victim.index("class Value"), victim.index("    def __neg__")
    package(subs / "yan", victim[:head] + "class Value:\n" + victim[cut:] + "\n" + victim[victim.index("\n", head) + 1:cut],
            nn)
    package(subs / HOSTILE_ID, variant("factory_ops", "engine.py"), variant("factory_ops", "nn.py"))
    corpus.mkdir()
    (corpus / "<script>alert('name')&amp;.py").write_text(SCRIPT_LINE + variant("int_data_tuple", "engine.py"),
                                                           encoding="utf-8", newline="")
    (corpus / os.fsdecode(b"\xff\x1b[31mred.py")).write_text(variant("local_grads", "engine.py"), encoding="utf-8")
    (corpus / "passwd.py").symlink_to("/etc/passwd")
    (corpus / "solution.py").symlink_to(ROOT / "reference" / "micrograd" / "engine.py")
    (corpus / "linked_reference").symlink_to(ROOT / "reference", target_is_directory=True)
    (corpus / "old").mkdir()
    (corpus / "old" / "micrograd").mkdir()
    (corpus / "old" / "micrograd" / "engine.py").symlink_to(ROOT / "reference" / "micrograd" / "engine.py")
    out.mkdir()
    (out / "grades.csv").write_text("student,value_ops,total,notes\nmia,1,1,\n")
    from grader.outputs.class_report import write_report
    from grader.similarity.run import compare_class

    course = Course(ROOT)
    report = compare_class(course, out, subs, corpora=[corpus], assignment_ids=["value_ops"])
    write_report(out, course)
    return out, report


def _page(out: Path, a: str, b: str) -> tuple[str, object]:
    pair = next(p for p in load(out).pairs if p.flagged and {p.a.id, p.b.id} == {a, b})
    return (out / pair.evidence).read_text(encoding="utf-8"), pair


def test_script_entities_nul_ansi_and_bidi_in_corpus_names_and_code_stay_inert_text_in_the_evidence_page(compared):
    out, _ = compared
    owner = "<script>alert('name')&amp;.py"
    raw, pair = _page(out, "int_data_tuple", owner)
    page = Page(raw)
    assert not {"script", "iframe", "img"} & set(page.tag_names)
    assert not [c for c in CONTROLS if c in raw], "a control or bidi character reached the page raw"
    assert owner in page.text  # the name, as text: &amp; shown as the five characters it is
    assert "</script><script>alert(1)</script> &lt;b&gt;" in page.text
    assert "\\x00" in page.text and "\\x1b[31m" in page.text and "\\u202e" in page.text


def test_a_bidi_override_or_terminal_escape_in_an_id_or_corpus_name_does_not_reach_the_reports_similar_pairs(compared):
    out, _ = compared
    html = (out / "report.html").read_text(encoding="utf-8")
    start = html.index('<section id="similarity">')
    section = html[start: html.index("</section>", start)]
    assert "mallory" in section and "last" in section
    found = sorted({repr(c) for c in CONTROLS if c in section})
    assert not found, f"report.html's similar-pairs section holds raw {found} (the evidence page escapes them)"


def test_the_terminal_summary_shows_ids_and_corpus_names_with_visible_escapes(compared):
    _, report = compared
    text = "\n".join(summary(report))
    assert "mallory" in text and "last" in text
    assert not [c for c in CONTROLS if c in text]


def test_a_non_utf8_corpus_file_name_is_compared_under_an_escaped_name(compared):
    out, _ = compared
    ids = {p.b.id for p in load(out).pairs if p.against != "class"}
    shown = [i for i in ids if i.startswith("\\xff")]
    assert shown and not [c for c in CONTROLS if c in shown[0]]


def test_links_in_a_corpus_never_bring_in_etc_passwd_or_the_reference_solution(compared):
    out, _ = compared
    corpus = out.parent / HOSTILE_CORPUS
    source = read_folder(corpus, "c", Course(ROOT).assignments(["value_ops"]), None)
    reference = (ROOT / "reference" / "micrograd" / "engine.py").read_text(encoding="utf-8")
    texts = [d.text for d in source.documents["value_ops"]]
    assert not [t for t in texts if "root:x:0:0" in t or t.strip() == reference.strip()]
    owners = {d.owner for d in source.documents["value_ops"]}
    assert not owners & {"passwd.py", "solution.py", "linked_reference"}
    ids = {i for p in load(out).pairs for i in (p.a.id, p.b.id)}
    assert not ids & {"passwd.py", "solution.py", "linked_reference"}


def test_a_copy_with_its_halves_swapped_is_highlighted_in_both_submissions(compared):
    out, _ = compared
    raw, _ = _page(out, "mia", "yan")
    marked = Page(raw).marked
    assert min(marked.values()) > 1000 and min(marked.values()) >= 0.9 * max(marked.values()), marked


def test_code_pasted_twice_is_highlighted_both_times_in_the_evidence(compared):
    # zed's engine is mia's, then mia's class again under another name: both copies match mia's code
    out, _ = compared
    raw, pair = _page(out, "mia", "zed")
    marked = Page(raw).marked
    zed = marked["a" if pair.a.id == "zed" else "b"]
    mia = marked["a" if pair.a.id == "mia" else "b"]
    assert zed >= 1.8 * mia, f"only {zed} of zed's characters are highlighted against mia's {mia}: the second copy " \
                             "is matched code the page does not show"


def test_a_50_mb_file_and_notebooks_of_100000_cells_or_one_20_mb_cell_are_notes_quickly(tmp_path):
    subs = tmp_path / "subs"
    package(subs / "huge", "", "")
    with open(subs / "huge" / "micrograd" / "engine.py", "wb") as f:
        f.truncate(50 << 20)  # sparse: nothing is written
    cell = '{"cell_type":"code","execution_count":null,"metadata":{},"outputs":[],"source":"x=1"}'
    (subs / "cells.ipynb").write_text('{"cells":[' + ",".join([cell] * 100_000)
                                      + '],"metadata":{},"nbformat":4,"nbformat_minor":4}')
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = '" + "y" * (19 << 20) + "'")]),
                   str(subs / "bigcell.ipynb"))
    started = time.monotonic()
    source = read_folder(subs, "class", Course(ROOT).assignments(["value_ops"]), None)
    assert time.monotonic() - started < 5
    notes = {n.owner: n.note for n in source.notes}
    assert set(notes) == {"huge", "cells", "bigcell"} and not source.documents["value_ops"]
    assert "more than the 1048576 allowed" in notes["huge"]
    assert "more than 10000 cells" in notes["cells"] and "code cells alone" in notes["bigcell"]


# --- 2. corpus folders: FIFOs, device files, unreadable files -------------------------------------------------------

@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_named_like_a_notebook_or_zip_in_a_corpus_does_not_hang_the_run(tmp_path):
    # ~5 s when it gets through (the child is killed at the time limit)
    corpus = tmp_path / "corpus"
    package(corpus / "old_student", variant("kahn_list", "engine.py"), variant("kahn_list", "nn.py"))
    os.mkfifo(corpus / "pipe.ipynb")
    os.mkfifo(corpus / "pipe2.zip")
    code = f"""
        from pathlib import Path
        from grader.course.course import Course
        from grader.similarity.sources import read_folder
        source = read_folder(Path({str(corpus)!r}), "c", Course(Path({str(ROOT)!r})).assignments(["value_ops"]), None)
        print(len(source.documents["value_ops"]), [n.owner for n in source.notes])
    """
    try:
        done = run_child(code, seconds=5)
    except subprocess.TimeoutExpired:
        pytest.fail("reading a corpus holding a FIFO named pipe.ipynb blocked for more than 5 s "
                    "(grader/intake/submission.py read_submission opens it)")
    assert done.returncode == 0, done.stderr[-800:]


@pytest.mark.skipif(not IS_ROOT, reason="mknod needs root")
def test_a_device_file_named_zip_in_a_corpus_is_not_read_without_end(tmp_path):
    corpus = tmp_path / "corpus"
    package(corpus / "old_student", variant("kahn_list", "engine.py"), variant("kahn_list", "nn.py"))
    os.mknod(corpus / "zero.zip", stat.S_IFCHR | 0o644, os.makedev(1, 5))  # /dev/zero, as a tar extracted as root makes
    os.mknod(corpus / "zero.ipynb", stat.S_IFCHR | 0o644, os.makedev(1, 5))
    code = f"""
        from pathlib import Path
        from grader.course.course import Course
        from grader.similarity.sources import read_folder
        source = read_folder(Path({str(corpus)!r}), "c", Course(Path({str(ROOT)!r})).assignments(["value_ops"]), None)
        print(len(source.documents["value_ops"]), [n.owner for n in source.notes])
    """
    try:
        done = run_child(code, seconds=10, memory_mb=1024)
    except subprocess.TimeoutExpired:
        pytest.fail("reading a corpus holding /dev/zero named zero.zip ran for more than 10 s")
    assert done.returncode == 0, done.stderr[-800:]
    assert done.stdout.startswith("1 ")


def test_an_unreadable_file_or_folder_is_that_submissions_note_not_a_crash(tmp_path):
    # As root, chmod 000 stops no read: the child reads with the effective user id of nobody (65534) instead.
    base = Path(tempfile.mkdtemp(prefix="fresh-unreadable-", dir="/tmp"))
    try:
        base.chmod(0o755)
        package(base / "alice", variant("kahn_list", "engine.py"), variant("kahn_list", "nn.py"))
        (base / "alice" / "micrograd" / "nn.py").chmod(0)  # as `unzip` leaves a member whose mode is 000
        package(base / "locked", variant("kahn_list", "engine.py"), variant("kahn_list", "nn.py"))
        (base / "locked").chmod(0)
        for p in [base / "alice", *(base / "alice").rglob("*")]:
            if p.name != "nn.py":
                p.chmod(0o755 if p.is_dir() else 0o644)
        drop = "import os; os.setegid(65534); os.seteuid(65534)" if IS_ROOT else "pass"
        code = f"""
            import json
            from pathlib import Path
            from grader.course.course import Course
            from grader.grading.due_work import read_due_work
            from grader.similarity.sources import read_folder
            assignments = Course(Path({str(ROOT)!r})).assignments(["value_ops", "mlp"])
            {drop}
            found = {{}}
            try:
                work = read_due_work(Path({str(base)!r}) / "alice", {{"mlp": None}}, None)
                found["grade"] = work["mlp"].submission.error
            except Exception as exc:
                found["grade"] = f"RAISED {{type(exc).__name__}}: {{exc}}"
            try:
                source = read_folder(Path({str(base)!r}), "last-term", assignments, None)
                found["similarity"] = [n.owner + ": " + n.note for n in source.notes]
            except Exception as exc:
                found["similarity"] = f"RAISED {{type(exc).__name__}}: {{exc}}"
            print(json.dumps(found))
        """
        done = run_child(code, seconds=20)
        assert done.returncode == 0, done.stderr[-800:]
        found = json.loads(done.stdout)
        problems = []
        if str(found["grade"]).startswith("RAISED") or not found["grade"]:
            problems.append(f"grader grade's intake (read_due_work -> read_submission) on alice, whose nn.py cannot be "
                            f"opened: {found['grade'] or 'no error'}")
        if str(found["similarity"]).startswith("RAISED"):
            problems.append(f"grader similarity's read_folder on a corpus holding an unopenable folder: "
                            f"{found['similarity']}")
        elif not any(n.startswith("locked: ") for n in found["similarity"]):
            problems.append(f"the unopenable corpus folder 'locked' is skipped without a note: {found['similarity']}")
        assert not problems, "; ".join(problems)
    finally:
        for p in (base / "locked", base / "alice" / "micrograd" / "nn.py"):
            if p.exists():
                p.chmod(0o755)
        shutil.rmtree(base, ignore_errors=True)


# --- 3. term files: the roster, the Canvas gradebook, exports --------------------------------------------------------

ROSTER = ("student,github,email,sis_id,section,name\n"
          "alice,alice-gh,alice@example.edu,2026001,A,Alice\n"
          "bob,bob-gh,bob@example.edu,2026002,B,Bob\n"
          "carol,,carol@example.edu,2026003,A,Carol\n")
GRADES = "student,value_ops,backward,total,notes\nalice,40,50,90,\nbob,30,20,50,\ncarol,10,5,15,\n"
CANVAS = ("Student,ID,SIS User ID,SIS Login ID,Section,Value operations (1201),Backward (1202),Current Score\r\n"
          "    Points Possible,,,,,40,50,(read only)\r\n"
          "Alice,101,2026001,alice@example.edu,A,,,88\r\n"
          "Bob,102,2026002,bob@example.edu,B,,,20\r\n"
          "Carol,103,2026003,carol@example.edu,A,,,90\r\n"
          '"Student, Test",105,,,A,,,\r\n')


def _files(tmp_path: Path, canvas: str = CANVAS) -> tuple[Path, Path, Path]:
    graded = tmp_path / "graded"
    graded.mkdir()
    (graded / "grades.csv").write_text(GRADES, newline="")
    roster = tmp_path / "roster.csv"
    roster.write_text(ROSTER, newline="")
    source = tmp_path / "canvas.csv"
    source.write_bytes(canvas.encode("utf-8"))
    return graded, roster, source


def _fingerprint(path: Path) -> tuple[bytes, int]:
    return path.read_bytes(), path.stat().st_mtime_ns


def _canvas_rows(path: Path) -> dict[str, list[str]]:
    import csv
    import io
    rows = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8-sig"), newline="")))
    return {r[0]: r for r in rows[1:] if r}


def test_a_blank_line_in_the_canvas_file_does_not_move_scores_to_the_next_student(tmp_path, capsys):
    lines = CANVAS.split("\r\n")
    blank = "\r\n".join(lines[:2] + [""] + lines[2:])  # a blank line after Points Possible, as a hand edit leaves
    graded, roster, source = _files(tmp_path, blank)
    before = _fingerprint(source)
    out = tmp_path / "filled.csv"
    assert main(["--course", str(ROOT), "export", "canvas", str(out), "--roster", str(roster), "--graded", str(graded),
                 "--canvas", str(source), "--column", "value_ops=Value operations", "--column", "backward=1202"]) == 0
    rows = _canvas_rows(out)
    got = {name: rows[name][5:7] for name in ("Alice", "Bob", "Carol", "Student, Test")}
    assert got == {"Alice": ["40", "50"], "Bob": ["30", "20"], "Carol": ["10", "5"], "Student, Test": ["", ""]}, got
    assert _fingerprint(source) == before


@pytest.mark.parametrize("what", ["missing", "folder"])
def test_a_canvas_file_that_is_missing_or_a_folder_is_one_error_naming_it_not_a_traceback(tmp_path, what, capsys):
    graded, roster, _ = _files(tmp_path)
    source = tmp_path / "canvas-export.csv"
    if what == "folder":
        source.mkdir()
    try:
        status = main(["--course", str(ROOT), "export", "canvas", str(tmp_path / "o.csv"), "--roster", str(roster),
                       "--graded", str(graded), "--canvas", str(source)])
    except OSError as exc:
        pytest.fail(f"grader export canvas --canvas <{what}> ends in a traceback: {type(exc).__name__}: {exc}")
    assert status == 2 and str(source) in capsys.readouterr().err


def test_two_canvas_columns_with_the_assignments_title_are_an_error_not_a_guess(tmp_path):
    # an assignment duplicated in Canvas: same title, two ids; the grader must not pick one silently
    text = CANVAS.replace("Current Score", "Value operations (1299)")
    graded, roster, _ = _files(tmp_path)
    book = Gradebook(["value_ops"], {"alice": {"value_ops": "40"}})
    with pytest.raises(GraderError, match="1201|1299"):
        fill_canvas(text, book, read_roster(roster), {"value_ops": ["Value operations"]})


@pytest.mark.parametrize("target", ["roster", "gradebook"])
def test_grader_export_never_overwrites_the_roster_or_the_gradebook_it_reads(tmp_path, target, capsys):
    graded, roster, _ = _files(tmp_path)
    victim = roster if target == "roster" else graded / "grades.csv"
    before = _fingerprint(victim)
    status = main(["--course", str(ROOT), "export", "csv", str(victim), "--roster", str(roster), "--graded",
                   str(graded)])
    assert _fingerprint(victim) == before, f"grader export csv {victim.name} replaced the {target} it read"
    assert status == 2


def test_a_canvas_file_with_cr_only_line_ends_and_quoted_names_is_filled_cell_by_cell(tmp_path, capsys):
    text = CANVAS.replace("\r\n", "\r").replace("Alice,101", '"Alice ""=1+1"",\rSmith",101')
    graded, roster, source = _files(tmp_path, text)
    out = tmp_path / "filled.csv"
    assert main(["--course", str(ROOT), "export", "canvas", str(out), "--roster", str(roster), "--graded", str(graded),
                 "--canvas", str(source), "--column", "value_ops=Value operations", "--column", "backward=1202"]) == 0
    expected = text.replace("alice@example.edu,A,,", "alice@example.edu,A,40,50").replace(
        "bob@example.edu,B,,", "bob@example.edu,B,30,20").replace("carol@example.edu,A,,", "carol@example.edu,A,10,5")
    with open(out, encoding="utf-8", newline="") as f:
        assert f.read() == expected


def test_a_github_name_that_is_another_students_id_is_refused_not_matched_to_the_wrong_student(tmp_path):
    # bob's GitHub name is "alice": bob's repository, named "alice", would take alice's row (and extension)
    path = tmp_path / "roster.csv"
    path.write_text("student,github,email\nalice,alice-gh,alice@example.edu\nbob,Alice,bob@example.edu\n")
    before = _fingerprint(path)
    with pytest.raises(ConfigError) as caught:
        read_roster(path)
    assert caught.value.path == str(path) and "alice" in caught.value.message.lower()
    assert _fingerprint(path) == before


@pytest.mark.parametrize("cell", ["+1+cmd|' /C calc'!A0", "@SUM(1+1)", "\t=1+1", "\"\r=1+1\"", "-2+3", " =HYPERLINK(x)"])
def test_a_roster_cell_a_spreadsheet_would_run_is_one_error_naming_the_file(tmp_path, cell):
    path = tmp_path / "roster.csv"
    path.write_text(f"student,name\nalice,{cell}\n", newline="")
    before = _fingerprint(path)
    with pytest.raises(ConfigError) as caught:
        read_roster(path)
    assert caught.value.path == str(path) and "formula" in caught.value.message
    assert _fingerprint(path) == before


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_a_roster_saved_as_utf16_without_a_byte_order_mark_says_so(tmp_path, codec):
    path = tmp_path / "roster.csv"
    path.write_bytes("student,name\nalice,Alice\n".encode(codec))
    with pytest.raises(ConfigError) as caught:
        read_roster(path)
    assert caught.value.path == str(path)
    assert "UTF-16" in caught.value.message, f"the message is {caught.value.message!r}"


def test_a_100_mb_roster_one_9_mb_line_or_a_100_mb_canvas_file_is_one_quick_error_naming_the_file(tmp_path, capsys):
    big = tmp_path / "big.csv"
    with open(big, "wb") as f:
        f.write(b"student,name\n")
        f.truncate(100 << 20)  # sparse
    started = time.monotonic()
    with pytest.raises(ConfigError) as caught:
        read_roster(big)
    assert caught.value.path == str(big) and "more than the" in caught.value.message
    line = tmp_path / "line.csv"
    line.write_text("student,name\nalice," + "x" * (9 << 20) + "\n")
    with pytest.raises(ConfigError) as caught:
        read_roster(line)
    assert caught.value.path == str(line)
    graded, roster, _ = _files(tmp_path)
    before = _fingerprint(big)
    status = main(["--course", str(ROOT), "export", "canvas", str(tmp_path / "o.csv"), "--roster", str(roster),
                   "--graded", str(graded), "--canvas", str(big)])
    assert status == 2 and str(big) in capsys.readouterr().err
    assert _fingerprint(big) == before and not (tmp_path / "o.csv").exists()
    assert time.monotonic() - started < 5


# --- 4. git due dates ------------------------------------------------------------------------------------------------

def _git(repo: Path, *args: str, when: int = 1_795_000_000) -> str:
    env = {"PATH": os.environ["PATH"], "HOME": str(repo.parent), "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_CONFIG_GLOBAL": os.devnull, "LC_ALL": "C", "GIT_AUTHOR_DATE": f"@{when} +0000",
           "GIT_COMMITTER_DATE": f"@{when} +0000"}
    config = ["-c", "user.name=S", "-c", "user.email=s@example.org", "-c", "init.defaultBranch=main",
              "-c", "commit.gpgSign=false", "-c", "tag.gpgSign=false", "-c", "core.hooksPath=/nonexistent"]
    return subprocess.run(["git", *config, "-C", str(repo), *args], env=env, check=True, capture_output=True,
                          stdin=subprocess.DEVNULL).stdout.decode().strip()


def _repo(path: Path, commits: list[int]) -> list[str]:
    path.mkdir(parents=True)
    _git(path, "init", "-q")
    shas = []
    for n, when in enumerate(commits):
        (path / "micrograd").mkdir(exist_ok=True)
        (path / "micrograd" / "engine.py").write_text(f"# version {n}\nclass Value:\n    pass\n")
        _git(path, "add", "-A", when=when)
        _git(path, "commit", "-q", "-m", f"v{n}", when=when)
        shas.append(_git(path, "rev-parse", "HEAD"))
    return shas


DUE = datetime(2026, 11, 30, 23, 59, tzinfo=timezone.utc)
DUE_TS = int(DUE.timestamp())
POLICY = LatePolicy(grace=0, penalty=0.1, per="day", cap=0.5, cutoff=3 * 86400)


@pytest.mark.skipif(not HAS_GIT, reason="needs git")
def test_a_commit_dated_after_the_year_9999_is_still_late_and_past_the_cutoff(tmp_path):
    repo = tmp_path / "late"
    _repo(repo, [253_402_300_800])  # 10000-01-01: git takes it, Python's datetime cannot show it
    work = read_due_work(repo, {"value_ops": DueDate(DUE, DUE, POLICY)}, None)["value_ops"]
    assert work.submission.origin is not None and work.submission.origin.late
    terms = work.late
    assert terms is not None and terms["graded"] is False, (
        f"work dated 2.9 million days late is graded with penalty {terms['penalty']}: {terms['sentence']}")


@pytest.mark.skipif(not HAS_GIT, reason="needs git")
def test_a_submit_tag_with_a_forged_early_tagger_date_on_a_late_commit_is_graded_late(tmp_path):
    repo = tmp_path / "tagger"
    shas = _repo(repo, [DUE_TS - 86400, DUE_TS + 86400])
    _git(repo, "tag", "-a", "-m", "final", "submit/final", shas[1], when=DUE_TS - 7 * 86400)  # tagger date forged
    _git(repo, "tag", "submit/light", shas[1], when=DUE_TS - 7 * 86400)
    sub = read_at_deadline(repo, DUE)
    assert sub.origin is not None and sub.origin.commit == shas[1] and sub.origin.late


@pytest.mark.skipif(not HAS_GIT, reason="needs git")
def test_100000_packed_submit_tags_are_one_quick_error(tmp_path):
    repo = tmp_path / "tags"
    shas = _repo(repo, [DUE_TS - 3600])
    lines = "".join(f"{shas[0]} refs/tags/submit/t{i}\n" for i in range(100_000))
    (repo / ".git" / "packed-refs").write_text("# pack-refs with: peeled fully-peeled sorted\n" + lines)
    started = time.monotonic()
    sub = read_at_deadline(repo, DUE)
    assert time.monotonic() - started < 5
    assert sub.error and ("packed-refs" in sub.error or "submit tags" in sub.error), sub.error


@pytest.mark.skipif(not HAS_GIT, reason="needs git")
def test_tag_names_with_control_characters_and_linked_refs_never_reach_a_note_or_etc_passwd(tmp_path):
    repo = tmp_path / "names"
    shas = _repo(repo, [DUE_TS - 7200, DUE_TS - 3600])
    (repo / ".git" / "packed-refs").write_text(f"{shas[0]} refs/tags/submit/\x1b[2Jclear\n"
                                               f"{shas[0]} refs/tags/submit/ok\u202egnp\n")
    tags = repo / ".git" / "refs" / "tags" / "submit"
    tags.mkdir(parents=True)
    (tags / "\x1b]0;title\x07").write_text(shas[0] + "\n")
    (tags / "passwd").symlink_to("/etc/passwd")
    sub = read_at_deadline(repo, DUE)
    assert sub.error == "" and sub.origin is not None
    shown = " ".join([sub.origin.ref, sub.origin.note, *sub.notes])
    assert not [c for c in CONTROLS if c in shown], shown
    assert "root:" not in shown and any("passwd" in n and "symbolic link" in n for n in sub.notes)


@pytest.mark.skipif(not HAS_GIT, reason="needs git")
def test_repository_configured_commands_filters_and_hooks_path_never_run(tmp_path):
    repo = tmp_path / "cfg"
    shas = _repo(repo, [DUE_TS - 3600])
    marker = tmp_path / "marker"
    touch = f"touch '{marker}'"
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    for name in ("post-checkout", "post-index-change", "reference-transaction", "pre-auto-gc"):
        (hooks / name).write_text(f"#!/bin/sh\n{touch}\n")
        (hooks / name).chmod(0o755)
    with open(repo / ".git" / "config", "a") as f:
        f.write(f"[core]\n\thooksPath = {hooks}\n\talternateRefsCommand = {touch}\n\tfsmonitor = {touch}\n"
                f"[filter \"x\"]\n\tsmudge = {touch}; cat\n\tclean = {touch}; cat\n\tprocess = {touch}\n"
                f"[diff \"x\"]\n\ttextconv = {touch}; cat\n[uploadpack]\n\tpackObjectsHook = {touch}\n"
                f"[gc]\n\tauto = 1\n[include]\n\tpath = {tmp_path / 'more.cfg'}\n")
    (tmp_path / "more.cfg").write_text(f"[core]\n\tpager = {touch}; cat\n")
    (repo / ".git" / "info").mkdir(exist_ok=True)
    (repo / ".git" / "info" / "attributes").write_text("* filter=x diff=x\n")
    (repo / ".gitattributes").write_text("* filter=x diff=x\n")
    _git(repo, "tag", "submit/one", shas[0])
    sub = read_at_deadline(repo, DUE)
    assert sub.error == "" and sub.origin is not None and sub.origin.commit == shas[0]
    assert not marker.exists()


# --- 5. LMS layouts: Gradescope metadata ---------------------------------------------------------------------------

@pytest.mark.parametrize("field", ["created_at", "submitters_and_ids"])
def test_a_yaml_bomb_in_gradescope_metadata_is_refused_quickly(tmp_path, field):
    # ~5 s when it gets through (str() of the expanded alias runs into the child's memory or time limit)
    export = tmp_path / "export"
    (export / "submission_1" / "micrograd").mkdir(parents=True)
    (export / "submission_1" / "micrograd" / "engine.py").write_text("x = 1\n")
    bomb, previous = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n', "a"
    for name in "bcdefghi":
        bomb += f"{name}: &{name} [" + ",".join([f"*{previous}"] * 9) + "]\n"
        previous = name
    if field == "created_at":
        bomb += "submission_1:\n  :submitters:\n  - :sid: s1\n  :created_at: *i\n"
    else:
        bomb += "submission_1:\n  :submitters: *i\nsubmission_2:\n  :submitters:\n  - :sid: *i\n    :email: *i\n"
    (export / "submission_metadata.yml").write_text(bomb)
    code = f"""
        from pathlib import Path
        from grader.errors import GraderError
        from grader.intake.submission import discover, read_submission
        try:
            entries = discover(Path({str(export)!r}))
            print("ok", [read_submission(e).id for e in entries])
        except GraderError as exc:
            print("error", str(exc)[:200])
    """
    try:
        done = run_child(code, seconds=5, memory_mb=768)
    except subprocess.TimeoutExpired:
        pytest.fail("discover() ran for more than 5 s on a 1 KB submission_metadata.yml (a billion-laughs alias "
                    "in :created_at:)")
    assert done.returncode == 0, done.stderr[-600:]
    assert done.stdout.startswith(("ok", "error"))
