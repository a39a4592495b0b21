"""Instructors' downloads (grader.intake.layouts): a Canvas bulk download and a Gradescope export are read as one
submission per student, graded end to end under the ids the layout gives, dated by what the platform recorded, and
every hostile name or metadata file is a note or one clear error."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import textwrap
import zipfile
from datetime import datetime, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from checkout import ROOT

from grader.cli import main
from grader.course.course import Course
from grader.course.due_dates import DueDate
from grader.course.late_policy import LatePolicy
from grader.errors import GraderError
from grader.grading.due_work import read_due_work, submitted_at
from grader.intake.layouts import (
    GRADESCOPE_TIME,
    MAX_ID_CHARS,
    LayoutEntry,
    _timestamp,
    canvas_name,
    safe_id,
)
from grader.intake.metadata_yaml import MAX_METADATA_VALUES
from grader.intake.submission import discover, read_submission, student_id
from grader.similarity.sources import read_folder

ENGINE = (ROOT / "reference" / "micrograd" / "engine.py").read_text(encoding="utf-8")
BROKEN = "this is not Python (\n"
PARIS = ZoneInfo("Europe/Paris")
DUE = datetime(2026, 11, 30, 23, 59, tzinfo=PARIS)


def grades(out: Path) -> dict[str, dict[str, str]]:
    with open(out / "grades.csv", encoding="utf-8") as f:
        return {row["student"]: row for row in csv.DictReader(f)}


def write(folder: Path, files: dict[str, str | bytes]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    return folder


def canvas_class(folder: Path) -> Path:
    """Three students as Canvas's download names them: one on time, one LATE, one who uploaded engine.py twice
    (the first upload broken; Canvas named the second engine-1.py), and a stray README that is no one's."""
    write(folder, {
        "smithjane_101_9001_engine.py": ENGINE,
        "doejohn_LATE_102_9002_engine.py": ENGINE,
        "leeann_103_9003_engine.py": BROKEN,
        "leeann_103_9010_engine-1.py": ENGINE,
        "leeann_103_9011_report.pdf": b"%PDF-1.4\n",
        "README.txt": "downloaded from Canvas\n",
    })
    os.utime(folder / "leeann_103_9003_engine.py", (2_000_000_000, 2_000_000_000))  # newer on disk, uploaded first
    return folder


METADATA = """\
submission_111:
  :submitters:
  - :name: Jane Smith
    :sid: '100'
    :email: jane@example.edu
  :created_at: 2026-11-30 14:00:00.123456000 -08:00
  :score: 40.0
  :status: processed
  :history: []
submission_222:
  :submitters:
  - :name: John Doe
    :sid: 200
    :email: john@example.edu
  - :name: Ann Lee
    :sid: '201'
    :email: ann@example.edu
  :created_at: 2026-11-30 22:30:00.000000000 +00:00
  :score: 0.0
"""


def gradescope_export(folder: Path, metadata: str | bytes = METADATA) -> Path:
    """An ``assignment_<id>_export`` folder: two submissions (one flat, one in package layout, a group of two)."""
    export = folder / "assignment_4242_export"
    write(export, {"submission_111/engine.py": ENGINE, "submission_222/micrograd/engine.py": ENGINE,
                   "submission_metadata.yml": metadata})
    return export


# Canvas -------------------------------------------------------------------------------------------------------------


def test_canvas_file_names_are_read_as_canvas_writes_them():
    late = canvas_name("smithjane_LATE_12345_67890_engine-1.py")
    assert late is not None and (late.student, late.name, late.late, late.file_id) == ("12345", "smithjane", True, 67890)
    assert (late.original, late.attempt, late.unsafe) == ("engine.py", 1, "")
    anonymous = canvas_name("LATE_anon_Ab3xQ_555_value_ops-2.ipynb")
    assert anonymous is not None and (anonymous.student, anonymous.late) == ("anon_Ab3xQ", True)
    assert (anonymous.original, anonymous.attempt) == ("value_ops.ipynb", 2)
    text = canvas_name("smithjane_12345_text.html")
    assert text is not None and (text.student, text.file_id, text.original) == ("12345", -1, "")
    assert canvas_name("smithjane_12345_67890_my.engine-1.py").original == "my.engine.py"  # type: ignore[union-attr]
    assert canvas_name("README.txt") is None and canvas_name("alice") is None


def test_hostile_canvas_names_are_refused():
    assert canvas_name("../x_1_2_engine.py") is None  # a path, not a file name of the download
    assert canvas_name("x_1_2_../engine.py") is None
    dots = canvas_name("x_1_2_..")
    assert dots is not None and "names a folder" in dots.unsafe
    backslash = canvas_name("x_1_2_..\\engine.py")
    assert backslash is not None and "path separator" in backslash.unsafe


def test_a_canvas_download_is_one_submission_per_student(tmp_path):
    folder = canvas_class(tmp_path / "canvas")
    entries = discover(folder)
    assert [student_id(e) for e in entries] == ["doejohn", "leeann", "smithjane"]
    assert all(isinstance(e, LayoutEntry) for e in entries)
    john, ann, jane = (read_submission(e) for e in entries)
    assert jane.files == {"engine.py": ENGINE.encode()} and not jane.error and jane.notes == []
    assert ann.files == {"engine.py": ENGINE.encode()}  # the last upload (higher file id), not the newer file on disk
    assert "engine.py: graded the last upload, leeann_103_9010_engine-1.py, not leeann_103_9003_engine.py" in ann.notes
    assert any("Canvas marked this submission LATE" in n for n in john.notes)


def test_a_canvas_download_is_graded_end_to_end(tmp_path):
    folder = canvas_class(tmp_path / "canvas")
    out = tmp_path / "out"
    assert main(["--course", str(ROOT), "grade", str(folder), "-a", "value_ops", "-o", str(out)]) == 0
    got = grades(out)
    assert sorted(got) == ["doejohn", "leeann", "smithjane"]
    assert [got[s]["value_ops"] for s in sorted(got)] == ["40", "40", "40"]
    feedback = (out / "value_ops" / "doejohn" / "feedback.md").read_text(encoding="utf-8")
    assert "Canvas marked this submission LATE" in feedback


def test_a_canvas_download_records_no_time_and_says_whether_canvas_marked_it_late(tmp_path):
    entries = {student_id(e): e for e in discover(canvas_class(tmp_path / "canvas"))}
    due = {"value_ops": DueDate(DUE, DUE, LatePolicy(penalty=0.1))}
    late = read_due_work(entries["doejohn"], due, PARIS)["value_ops"].late
    assert late is not None and late["submitted"] == "" and late["seconds"] == 0
    assert "No submission time is recorded for this work (Canvas's download records no submission time; Canvas " \
           "marked it LATE)" in late["sentence"]
    assert submitted_at(read_submission(entries["smithjane"]), PARIS) == (
        None, "Canvas's download records no submission time; Canvas did not mark it late")


def test_students_who_share_a_canvas_name_are_told_apart_by_user_id_and_a_zip_upload_is_read(tmp_path):
    work = tmp_path / "work"
    write(work, {"micrograd/engine.py": ENGINE})
    folder = tmp_path / "canvas"
    folder.mkdir()
    with zipfile.ZipFile(folder / "smithjane_101_9001_work.zip", "w") as zf:
        zf.write(work / "micrograd" / "engine.py", "micrograd/engine.py")
    write(folder, {"smithjane_202_9002_engine.py": ENGINE, "smithjane_202_9003_notes.txt": "x"})
    entries = discover(folder)
    assert [student_id(e) for e in entries] == ["smithjane_101", "smithjane_202"]
    assert read_submission(entries[0]).files == {"work/micrograd/engine.py": ENGINE.encode()}


def test_a_canvas_student_whose_id_a_folder_has_is_graded_under_their_user_id(tmp_path):
    folder = canvas_class(tmp_path / "canvas")
    write(folder / "doejohn", {"engine.py": ENGINE})
    entries = {student_id(e): e for e in discover(folder)}
    assert sorted(entries) == ["doejohn", "doejohn_102", "leeann", "smithjane"]
    assert not isinstance(entries["doejohn"], LayoutEntry)
    assert "graded as doejohn_102: doejohn is another submission's id too" in read_submission(
        entries["doejohn_102"]).notes


def test_a_folder_of_student_folders_with_one_stray_canvas_like_file_is_read_as_before(tmp_path):
    write(tmp_path / "alice", {"engine.py": ENGINE})
    write(tmp_path, {"notes_2024_01_minutes.txt": "not a submission\n"})
    assert discover(tmp_path) == [tmp_path / "alice"] and not isinstance(discover(tmp_path)[0], LayoutEntry)


@pytest.mark.skipif(sys.platform == "win32", reason="needs a backslash in a file name, and symbolic links")
def test_canvas_files_with_unsafe_names_and_links_are_ignored_with_a_note(tmp_path):
    folder = write(tmp_path / "canvas", {"x_1_2_engine.py": ENGINE, "x_1_3_..\\engine.py": BROKEN,
                                         "y_4_5_engine.py": ENGINE})
    (folder / "x_1_6_nn.py").symlink_to(folder / "y_4_5_engine.py")
    sub = read_submission(discover(folder)[0])
    assert sub.id == "x" and sub.files == {"engine.py": ENGINE.encode()} and not sub.error
    assert "ignored x_1_3_..\\engine.py: its original name is not a safe file name (it holds a path separator or " \
           "a control character)" in sub.notes
    assert "ignored symbolic link x_1_6_nn.py" in sub.notes


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_among_a_canvas_students_files_is_a_note_never_opened(tmp_path):
    folder = write(tmp_path / "canvas", {"x_1_2_engine.py": ENGINE, "y_4_5_engine.py": ENGINE})
    os.mkfifo(folder / "x_1_6_nn.py")  # opened, it would wait for a writer forever
    sub = read_submission(discover(folder)[0])
    assert sub.id == "x" and sub.files == {"engine.py": ENGINE.encode()} and not sub.error
    assert "ignored x_1_6_nn.py: not a regular file (a FIFO or a device)" in sub.notes


def test_a_canvas_text_entry_is_a_student_with_nothing_to_grade(tmp_path):
    folder = write(tmp_path / "canvas", {"smithjane_101_9001_engine.py": ENGINE, "doejohn_LATE_102_text.html": "<p>"})
    john, jane = (read_submission(e) for e in discover(folder))
    assert (john.id, jane.id, jane.error) == ("doejohn", "smithjane", "")
    assert john.error == "the submission is empty (no .py, .ipynb or .yaml file found)" and not john.files
    assert "Canvas holds a text entry or a link for this submission: only uploaded files are graded" in john.notes


# Gradescope ---------------------------------------------------------------------------------------------------------


def test_a_gradescope_export_is_one_submission_per_folder_named_by_its_sid(tmp_path):
    export = gradescope_export(tmp_path / "class")
    for folder in (tmp_path / "class", export):  # the folder holding the export, or the export itself
        entries = discover(folder)
        assert [student_id(e) for e in entries] == ["100", "200"]
        jane, group = (read_submission(e) for e in entries)
        assert jane.files == {"engine.py": ENGINE.encode()} and group.files == {"micrograd/engine.py": ENGINE.encode()}
        assert group.notes == ["a group submission of 2 students, graded under the first; the others: 201"]
        when, evidence = submitted_at(jane, PARIS)
        assert when == datetime(2026, 11, 30, 22, 0, 0, 123456, tzinfo=timezone.utc) and evidence == GRADESCOPE_TIME


def test_a_gradescope_export_is_graded_end_to_end(tmp_path):
    gradescope_export(tmp_path / "class")
    out = tmp_path / "out"
    assert main(["--course", str(ROOT), "grade", str(tmp_path / "class"), "-a", "value_ops", "-o", str(out)]) == 0
    assert {s: row["value_ops"] for s, row in grades(out).items()} == {"100": "40", "200": "40"}


def test_the_submission_time_gradescope_recorded_decides_lateness(tmp_path):
    entries = discover(gradescope_export(tmp_path / "class"))  # submitted at 22:00:00.12 and 22:30:00 UTC
    due_at = datetime(2026, 11, 30, 23, 15, tzinfo=PARIS)  # 22:15 UTC
    due = {"value_ops": DueDate(due_at, due_at, LatePolicy(penalty=0.1))}
    on_time = read_due_work(entries[0], due, PARIS)["value_ops"].late
    late = read_due_work(entries[1], due, PARIS)["value_ops"].late
    assert on_time is not None and on_time["seconds"] == 0
    assert "from the submission time Gradescope recorded" in on_time["sentence"]
    assert late is not None and late["submitted"] == "2026-11-30T22:30:00Z" and late["seconds"] == 15 * 60
    assert "from the submission time Gradescope recorded" in late["sentence"]


@pytest.mark.parametrize(("metadata", "says"), [
    (b"# padding\n" * (1 << 20), "bytes, more than the 8388608 read"),
    ("- submission_111\n- submission_222\n", "is not a mapping of submission folders to their submitters"),
    ("submission_111: [unclosed\n", "is not YAML Gradescope writes"),
    (b"submission_111:\n  :sid: caf\xe9\n", "is not UTF-8 text"),
    ("[" * 5000 + "]" * 5000 + "\n", "is not"),
])
def test_gradescope_metadata_that_cannot_be_read_is_one_clear_error(tmp_path, metadata, says):
    gradescope_export(tmp_path / "class", metadata)
    with pytest.raises(GraderError, match="submission_metadata.yml") as caught:
        discover(tmp_path / "class")
    assert says in str(caught.value) and "fix it, or remove it" in str(caught.value)


@pytest.mark.skipif(sys.platform == "win32", reason="needs symbolic links")
def test_a_linked_gradescope_metadata_file_is_never_followed(tmp_path):
    export = gradescope_export(tmp_path / "class")
    (tmp_path / "elsewhere.yml").write_text(METADATA)
    (export / "submission_metadata.yml").unlink()
    (export / "submission_metadata.yml").symlink_to(tmp_path / "elsewhere.yml")
    with pytest.raises(GraderError, match="a symbolic link is never followed"):
        discover(export)


def test_gradescope_records_unlike_gradescopes_are_notes_and_ids_are_made_safe(tmp_path):
    metadata = """\
submission_1: not a record
submission_2:
  :submitters:
  - :name: No Id
    :email: noid@example.edu
  :created_at: yesterday
submission_3:
  :submitters:
  - :sid: ../../etc/passwd
submission_4:
  :submitters:
  - :sid: '100'
submission_5:
  :submitters:
  - :sid: '100'
"""
    export = write(tmp_path / "export", {f"submission_{k}/engine.py": ENGINE for k in range(1, 7)})
    (export / "submission_metadata.yml").write_text(metadata)
    subs = {s.id: s for s in map(read_submission, discover(export))}
    assert sorted(subs) == ["100", "_.._etc_passwd", "noid@example.edu", "submission_1", "submission_5",
                            "submission_6"]
    assert "submission_metadata.yml's record of submission_1 names no submitter: graded under the folder's name" \
           in subs["submission_1"].notes
    assert "submission_metadata.yml has no record of submission_6: graded under the folder's name" \
           in subs["submission_6"].notes
    assert "graded as submission_5: 100 is another submission's id too" in subs["submission_5"].notes
    assert "submission_metadata.yml's :created_at: for submission_2 is not a date and time" \
           in subs["noid@example.edu"].notes
    assert submitted_at(subs["noid@example.edu"], PARIS) == (None, "Gradescope's recorded submission time could not "
                                                                   "be read")
    assert all(not s.error and s.files for s in subs.values())


def laughs(levels: int) -> str:
    """YAML whose last anchor, ``l<levels>``, stands for 9 ** levels strings through nine aliases of the one before."""
    text = 'l0: &l0 "lol"\n'
    for k in range(1, levels + 1):
        text += f"l{k}: &l{k} [" + ", ".join([f"*l{k - 1}"] * 9) + "]\n"
    return text


def read_in_child(export: Path) -> list[object]:
    """``["read", ids]`` or ``["refused", message]``: the export read in a fresh interpreter with 768 MB of address
    space, killed after 10 s (metadata that expands without end fails the test, never the suite or the machine)."""
    code = f"""
        import json, resource, sys
        resource.setrlimit(resource.RLIMIT_AS, (768 << 20, 768 << 20))
        sys.path.insert(0, {str(ROOT)!r})
        from pathlib import Path
        from grader.errors import GraderError
        from grader.intake.submission import discover, read_submission
        try:
            print(json.dumps(["read", [read_submission(e).id for e in discover(Path({str(export)!r}))]]))
        except GraderError as exc:
            print(json.dumps(["refused", str(exc)]))
    """
    try:
        done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT, capture_output=True, text=True,
                              timeout=10, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        pytest.fail("reading a 1 KB submission_metadata.yml took more than 10 s")
    assert done.returncode == 0, done.stderr[-1500:]
    found: list[object] = json.loads(done.stdout)
    return found


FIX = "fix it, or remove it to grade each submission_<id> folder under its folder name"


@pytest.mark.parametrize("tail", [
    "submission_1:\n  :submitters:\n  - :sid: s1\n  :created_at: *l9\n",
    "submission_1:\n  :submitters: *l9\n",
    "submission_1:\n  :submitters:\n  - :sid: s1\n  :results: *l9\n",
])
def test_a_billion_laughs_in_gradescope_metadata_is_refused_quickly(tmp_path, tail):
    # 1 KB standing for 387 million strings: a run that expands it (str() of :created_at: did) never ends
    export = gradescope_export(tmp_path / "class", laughs(9) + tail)
    assert read_in_child(export) == ["refused", f"{export / 'submission_metadata.yml'} stands for more than "
                                     f"{MAX_METADATA_VALUES} values once its aliases (*name) are expanded, more than "
                                     f"Gradescope writes: {FIX}"]


@pytest.mark.parametrize(("metadata", "says"), [
    ("submission_111: &a\n  :submitters: [*a]\n", "holds an alias (*name) inside the value it names"),
    ("a: &a {x: 1}\n" + "".join(f"m{k}: &m{k}\n  <<: [*{'a' if k == 0 else f'm{k - 1}'}, "
                                f"*{'a' if k == 0 else f'm{k - 1}'}]\n" for k in range(40)),
     f"stands for more than {MAX_METADATA_VALUES} values"),  # merges of merges: YAML's loader copies each
])
def test_gradescope_metadata_whose_aliases_never_end_is_refused(tmp_path, metadata, says):
    export = gradescope_export(tmp_path / "class", metadata)
    found = read_in_child(export)
    assert found[0] == "refused" and says in str(found[1]) and FIX in str(found[1]), found


def test_gradescope_metadata_with_a_few_aliases_is_read(tmp_path):
    # an alias of a small value (Ruby's YAML writes one for an object seen twice) is no bomb
    metadata = METADATA.replace("  :score: 40.0", "  :score: &points 40.0").replace("  :score: 0.0",
                                                                                     "  :score: *points")
    subs = {s.id: s for s in map(read_submission, discover(gradescope_export(tmp_path / "class", metadata)))}
    assert sorted(subs) == ["100", "200"] and all(not s.error for s in subs.values())


def test_a_created_at_that_is_not_text_or_a_timestamp_is_never_made_text():
    # str() of a list an alias made of a billion strings takes more time and memory than there is
    class Loud(list[object]):
        def __str__(self) -> str:
            raise AssertionError(":created_at: was turned into text")

        __repr__ = __str__

    assert _timestamp(Loud(["2026-11-30 14:00:00"])) is None and _timestamp({"a": 1}) is None
    assert _timestamp(20261130) is None
    assert _timestamp("2026-11-30 14:00:00 -08:00") == datetime(2026, 11, 30, 22, 0, tzinfo=timezone.utc)


def test_safe_ids_are_one_plain_folder_name():
    assert safe_id("../..") == "_.." and safe_id("..") == "" and safe_id(".hidden") == "hidden"
    assert safe_id("a/b\\c\nd") == "a_b_c_d" and safe_id(12345) == "12345" and safe_id(True) == ""
    assert safe_id(None) == "" and safe_id("   ") == "" and len(safe_id("x" * 10_000)) == MAX_ID_CHARS


def test_similarity_reads_a_layout_as_grading_does(tmp_path):
    assignments = Course(ROOT).assignments(["value_ops"])
    source = read_folder(canvas_class(tmp_path / "canvas"), "class", assignments, None)
    assert [d.owner for d in source.documents["value_ops"]] == ["doejohn", "leeann", "smithjane"]
    assert source.notes == []
