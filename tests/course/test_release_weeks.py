"""`grader release` mid-term: only what is out (``released:`` at the moment of the run, or named with ``-a``), the
rest named with the reason; and next week's release only adds to this week's, so a student's copy pulls it cleanly.

The leak check itself (:mod:`grader.course.leaks`) is tested on a full release in ``test_release_leaks.py``; here it
is only recorded, to show it covers the folders this release writes."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest
from doc_quotes import assert_quoted

import grader.commands.release as release_command
from grader.cli import main
from grader.course.course import Course
from grader.course.handed_out import hand_out, withheld_modules
from grader.course.pins import grader_lock
from grader.course.student_release import build_release
from grader.errors import GraderError

LATER = ("forward_mode", "graph", "classifier", "gradcheck", "modules", "checkpointing")
"""Assignments 4 to 10 but the concept check: out on a future date."""
NOT_YET = ("mlp", "checkpoint")
"""Not out at all (``released: false``): mlp's own module is ``nn.py``, checkpoint is a concept check."""
FUTURE = "2099-12-07T09:00-05:00"


def set_released(course: Path, when: dict[str, str]) -> None:
    for aid, value in when.items():
        yaml = course / "assignments" / aid / "assignment.yaml"
        yaml.write_text(yaml.read_text(encoding="utf-8") + f"released: {value}\n", encoding="utf-8")


@pytest.fixture
def week_two(course_copy: Path) -> Path:
    """The course in week 2: value_ops and backward out, the rest not (a date to come, or ``released: false``); the
    concept check's questions still being written (not YAML yet)."""
    set_released(course_copy, {**dict.fromkeys(LATER, FUTURE), **dict.fromkeys(NOT_YET, "false")})
    (course_copy / "assignments" / "checkpoint" / "questions.yaml").write_text("- id: [unfinished\n")
    return course_copy


@pytest.fixture
def leak_checked(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The folders ``grader release`` runs its leak check on (recorded, not searched: see the module's note)."""
    folders: list[Path] = []
    monkeypatch.setattr(release_command, "bodies_in", lambda folder, reference: folders.append(folder) or [])
    return folders


def names(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir()} if folder.is_dir() else set()


def test_a_release_holds_only_the_assignments_out_and_names_the_others_with_why(week_two, tmp_path, capsys,
                                                                               leak_checked):
    out, teacher = tmp_path / "week2", tmp_path / "week2-classroom50"

    assert main(["--course", str(week_two), "release", "-o", str(out)]) == 0

    printed = capsys.readouterr().out
    assert names(out / "assignments") == {"shared", "value_ops", "backward", "probe_seconds.json"}
    assert names(out / "notebooks") == {"value_ops.ipynb", "backward.ipynb"}
    assert not (out / "answers").exists()  # the concept check's answers template
    for package in (out / "micrograd", out / "student_template" / "micrograd",
                    teacher / "autograders" / "backward" / "dist" / "course" / "student_template" / "micrograd"):
        assert names(package) == {"__init__.py", "engine.py"}, package  # no forward.py, nn.py, graph.py...
    assert names(teacher / "autograders") == {"value-ops", "backward"}
    readme, bundle_readme = (out / "README.md").read_text(), (teacher / "README.md").read_text()
    for aid in (*LATER, *NOT_YET):
        assert f"`{aid}`" not in readme and f"{aid}.ipynb" not in readme and aid.replace("_", "-") not in bundle_readme
    assert "python -m micrograd.nn" not in readme and "`python -m micrograd.engine`" in readme  # no nn.py to run
    said = next(line for line in printed.splitlines() if line.startswith("Not released yet, so not in the release: "))
    assert "mlp, checkpoint (released: false)" in said
    assert f"{', '.join(LATER)} (released 2099-12-07T09:00:00-05:00)" in said and "-a ID" in said
    assert leak_checked == [out, teacher]
    # docs/how-to/term.md quotes it, with a release date in the term (this one stays in the future: 2099)
    assert_quoted("how-to/term.md", "Not released yet, so not in the release", printed, masks=[(r"\(released \d{4}-", "(released YYYY-")])


def test_a_named_assignment_is_handed_out_before_its_date_and_keeps_it(week_two, tmp_path, capsys, leak_checked):
    out, teacher = tmp_path / "week2", tmp_path / "week2-classroom50"

    assert main(["--course", str(week_two), "release", "-o", str(out), "-a", "forward_mode"]) == 0

    printed = capsys.readouterr().out
    assert names(out / "assignments") == {"shared", "value_ops", "backward", "forward_mode", "probe_seconds.json"}
    assert names(out / "micrograd") == {"__init__.py", "engine.py", "forward.py"}
    assert (out / "notebooks" / "forward_mode.ipynb").is_file() and (teacher / "autograders" / "forward-mode").is_dir()
    assert (out / "assignments" / "forward_mode" / "assignment.yaml").read_text() == (
        week_two / "assignments" / "forward_mode" / "assignment.yaml").read_text()  # students' check: same dates
    assert "Handed out before it is released (-a): forward_mode (released 2099-12-07T09:00:00-05:00)" in printed
    assert "not in the release: mlp, checkpoint (released: false); graph," in printed


def test_next_weeks_release_only_adds_to_this_weeks(course_copy, tmp_path):
    """Every file of week 1's release but its README (whose index grows) is in week 2's, byte for byte: a student who
    pulls (or copies) week 2's over their own copy changes none of the files they work in (the stubs, notebooks)."""
    set_released(course_copy, {aid: "2026-12-07T09:00-05:00" for aid in ("backward", "mlp")} | {
        aid: "false" for aid in (*LATER, "checkpoint")})
    course, lock = Course(course_copy), grader_lock()
    weeks = {}
    for week, day in ((1, 1), (2, 8)):
        handed = hand_out(course, now=datetime(2026, 12, day, 12, tzinfo=timezone.utc)).assignments
        weeks[week] = tmp_path / f"week{week}"
        build_release(course, weeks[week], lock, {}, handed)

    files = {week: {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}
             for week, folder in weeks.items()}
    changed = sorted(path for path, data in files[1].items() if files[2].get(path) != data)
    assert changed == ["README.md"]
    added = {path for path in set(files[2]) - set(files[1]) if not path.startswith("assignments/")}
    assert added == {"micrograd/nn.py", "student_template/micrograd/nn.py", "notebooks/backward.ipynb",
                     "notebooks/mlp.ipynb"}


def test_a_module_handed_out_brings_the_modules_it_imports(course_copy):
    """A module out imports another that only an assignment not out names: the copy holds it, or it would not
    import."""
    classifier = course_copy / "student_template" / "micrograd" / "classifier.py"
    classifier.write_text(classifier.read_text(encoding="utf-8") + "\nfrom .nn import MLP\n", encoding="utf-8")
    set_released(course_copy, dict.fromkeys(("mlp", *LATER), "false"))
    course = Course(course_copy)

    assert "nn.py" in withheld_modules(course, hand_out(course).assignments)
    handed = hand_out(course, ["classifier"]).assignments

    assert [a.id for a in handed] == ["value_ops", "backward", "classifier", "checkpoint"]
    assert withheld_modules(course, handed) == {"forward.py", "graph.py", "gradcheck.py", "modules.py",
                                                "checkpointing.py"}


def test_a_release_before_anything_is_out_asks_for_an_assignment(course_copy):
    set_released(course_copy, {aid: "false" for aid in Course(course_copy).assignment_ids()})

    with pytest.raises(GraderError, match="no assignment is released yet.*-a ID"):
        hand_out(Course(course_copy))
    assert [a.id for a in hand_out(Course(course_copy), ["value_ops"]).assignments] == ["value_ops"]
