"""A student id (their folder, zip or notebook name) or a message in results.json with control, bidi-override or
invisible characters cannot reach the class report's HTML as such: every section shows it as visible escapes, capped.

The graded folder is made by hand (results.json files, then grades.csv from them): no grading, so it is cheap.
"""

from __future__ import annotations

import html
import json
import unicodedata
from dataclasses import dataclass, fields, is_dataclass
from pathlib import Path
from typing import Any

import pytest
from checkout import ROOT

from grader.commands.report import summary as report_summary
from grader.course.catalogue import Bug
from grader.course.config import Assignment
from grader.course.course import Course
from grader.course.term import Term
from grader.outputs.class_report import ClassReport, class_data, save_report
from grader.outputs.gradebook import grade_from_results, write_csv
from grader.outputs.item_analysis import analyse
from grader.outputs.item_analysis import summary as items_summary
from grader.outputs.store import ResultStore

HIDDEN = "assignments/backward/tests/hidden/test_backward_hidden.py::"
TANH = ["Value.tanh"]
ESC = "\x1b]0;pwned\x07\x1b[2J"  # sets the terminal's title, rings its bell, clears it
BIDI = "\u202e"  # right-to-left override: "gnp.exe" reads as "exe.png"
INVISIBLE = "\u200b\ufeff\u2060\u00ad\u200d"  # zero-width space, BOM, word joiner, soft hyphen, zero-width joiner

IDS = {
    "bug": f"esc{ESC}{BIDI}gnp.exe{INVISIBLE}<b>x",  # a likely bug, late work, not on the roster
    "broken": f"broken\x1b[31m\u2066{INVISIBLE}",  # could not be graded: its problem quotes hostile text too
    "withheld": "withheld\x07\u200f\x85",  # a grader error whose reason is hostile
    "github": f"gh{BIDI}evil\x1b[1m",  # a roster student's GitHub name: one student, two submissions
    "long": "L" * 200 + "\x1b",  # longer than any id the report shows (a name has at most 255 bytes)
}
ROSTER_GHOST = f"ghost\x1b[2J{BIDI}row"  # on the roster (hostile too), no submission
TITLE = f"title {ESC}{BIDI}{INVISIBLE}"
HINT = f"hint {ESC}{BIDI}{INVISIBLE}"
PROBLEM = f"micrograd/engine.py could not be imported: {ESC}{BIDI}{INVISIBLE}<script>"
LATE_SENTENCE = f"graded commit \x1b]8;;http://x\x07abc1234{BIDI}{INVISIBLE}"
SECTIONS = ("attention", "tasks", "tests", "bugs", "late", "students")


def visible(text: str) -> str:
    """``text`` with control and format characters as escapes (``\\x1b``, ``\\u202e``), as the report should show it."""
    return "".join((f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}")
                   if unicodedata.category(c) in ("Cc", "Cf") else c for c in text)


def shown(text: str) -> str:
    """``text`` as it should be in the page's source: escapes, then HTML-escaped (no quotes in these texts)."""
    return html.escape(visible(text), quote=False)


def hostile_characters(text: str) -> list[str]:
    return sorted({f"U+{ord(c):04X}" for c in text
                   if unicodedata.category(c) in ("Cf", "Cs") or unicodedata.category(c) == "Cc" and c not in "\n\t"})


def case(name: str, passed: bool = True, *, task: str = "2.1-2.5", about: list[str] | None = None, key: str = "",
         methods: list[str] | None = None, hints: list[str] | None = None, output: str = "") -> dict[str, Any]:
    return {"name": name, "number": task, "score": 1.0 if passed else 0.0, "max_score": 1.0,
            "status": "passed" if passed else "failed", "output": output, "visibility": "visible",
            "extra_data": {"key": key or HIDDEN + name, "about": about or [], "methods": methods or [],
                           "hints": hints or []}}


def results(*tests: dict[str, Any], **grader: Any) -> dict[str, Any]:
    return {"tests": list(tests), "extra_data": {"grader": grader}}


def passing() -> list[dict[str, Any]]:
    return [case("test_unary[tanh]", about=TANH), case("test_unary_local_gradient[tanh]", about=TANH),
            case("test_seed_gradient", task="2.6", about=["Value.backward"])]


@dataclass(frozen=True)
class RosterCourse(Course):
    """The course, with a roster of its own (the repository's course has none)."""

    roster: Path = Path()

    @property
    def term(self) -> Term:
        return Term(roster=self.roster)


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, RosterCourse]:
    out = tmp_path_factory.mktemp("inert") / "out"
    failing = "✗ tanh(0.5)\n  Value.tanh: expected 0.7864, got 1.25"
    late = {"due": f"2026-11-30T23:59:00+01:00{ESC}", "assignment_due": f"2026-11-30T23:59:00+01:00{BIDI}",
            "policy": f"10% a day{ESC}{INVISIBLE}", "extension": f"extension {ESC}{BIDI}",
            "submitted": "2026-12-01T10:00:00Z", "seconds": 3600, "counted": f"1 started day{ESC}{INVISIBLE}",
            "penalty_points": 0.5, "raw_score": 1.0, "final_score": 0.5, "graded": True, "sentence": LATE_SENTENCE,
            "applied": True}
    docs = {
        "ann": results(*passing(), case(TITLE, False, task=f"2.7{ESC}{INVISIBLE}", key=f"{HIDDEN}test_x[{ESC}{BIDI}]",
                                        methods=[f"Value.{ESC}{BIDI}"], hints=[HINT], output=f"out {ESC}")),
        IDS["bug"]: results(case("test_unary[tanh]", False, about=TANH, methods=TANH, output=failing),
                            case("test_unary_local_gradient[tanh]", False, about=TANH, methods=TANH, output=failing),
                            case("test_seed_gradient", task="2.6", about=["Value.backward"]), late=late),
        IDS["broken"]: results(problems=[PROBLEM]),
        IDS["withheld"]: results(*passing(), grader_error=f"internal error {ESC}{BIDI}{INVISIBLE}"),
        IDS["github"]: results(*passing()),
        IDS["long"]: results(*passing()),
    }
    for student, doc in docs.items():
        (out / "backward" / student).mkdir(parents=True)
        (out / "backward" / student / "results.json").write_text(json.dumps(doc), encoding="utf-8")
        (out / "backward" / student / "feedback.md").write_text("feedback\n", encoding="utf-8")
    roster = out.parent / "roster.csv"
    roster.write_text(f"student,github\nann,{IDS['github']}\n{ROSTER_GHOST},\n", encoding="utf-8")
    course = RosterCourse(ROOT, roster)
    assignments = course.assignments(["backward"])
    write_csv(out / "grades.csv", assignments, [grade_from_results(ResultStore(out), assignments, s) for s in docs])
    return out, course


@pytest.fixture(scope="module")
def report(graded: tuple[Path, RosterCourse]) -> tuple[ClassReport, str]:
    out, course = graded
    data = class_data(out, course)
    return data, save_report(out, data).read_text(encoding="utf-8")


def sections(page: str) -> dict[str, str]:
    parts = page.split('<section id="')[1:]
    return {part.split('"', 1)[0]: part for part in parts}


def test_hostile_ids_and_messages_reach_the_report_with_no_control_bidi_or_invisible_character(report):
    _, page = report
    assert hostile_characters(page) == []
    assert set(SECTIONS) <= set(sections(page))  # every section that lists a student was rendered


def test_each_hostile_id_is_shown_as_visible_escapes_in_every_section_that_lists_it(report):
    _, page = report
    where = sections(page)
    expected = {"bug": ("tasks", "bugs", "late", "students"), "broken": ("attention", "tasks", "students"),
                "withheld": ("attention", "tasks", "students"), "github": ("tasks", "late", "students")}
    for kind, names in expected.items():
        for section in names:
            assert shown(IDS[kind]) in where[section], (kind, section)
    for message, section in ((TITLE, "tests"), (HINT, "tests"), (f"Value.{ESC}{BIDI}", "tests"),
                             (f"2.7{ESC}{INVISIBLE}", "tasks"), (PROBLEM, "attention"), (LATE_SENTENCE, "late"),
                             (f"extension {ESC}{BIDI}", "late"), (f"1 started day{ESC}{INVISIBLE}", "late"),
                             (f"10% a day{ESC}{INVISIBLE}", "late"), (ROSTER_GHOST, "late")):
        assert shown(message) in where[section], (message, section)
    assert f"ann (ann, {shown(IDS['github'])})" in where["late"]  # one student, two submissions


def test_a_long_id_is_capped_and_its_feedback_link_still_names_its_folder(report):
    _, page = report
    link = f'href="backward/{"L" * 200}%1B/feedback.md"'  # the folder's own name, percent-encoded
    assert link in page
    assert "L" * 159 + "…" in page and "L" * 160 not in page.replace(link, "")


def test_the_report_records_hold_no_control_bidi_or_invisible_character(report):
    data, _ = report
    found: list[tuple[str, list[str]]] = []

    def walk(value: Any, where: str) -> None:
        if isinstance(value, (Assignment, Bug, Path)):  # the course's own text
            return
        if isinstance(value, str):
            if hostile_characters(value):
                found.append((where, hostile_characters(value)))
        elif isinstance(value, dict):
            for k, v in value.items():
                walk(k, where + ".key")
                walk(v, f"{where}[{k!r}]")
        elif isinstance(value, (list, tuple, set)):
            for i, v in enumerate(value):
                walk(v, f"{where}[{i}]")
        elif is_dataclass(value) and not isinstance(value, type):
            for f in fields(value):
                walk(getattr(value, f.name), f"{where}.{f.name}")

    walk(data, "report")
    assert found == []


def test_grader_reports_terminal_lines_show_hostile_ids_and_test_titles_inert(graded, report):
    data, _ = report
    out, course = graded
    lines = "\n".join(report_summary(data))
    assert hostile_characters(lines) == [] and visible(IDS["withheld"]) in lines
    items = analyse(ResultStore(out), course.assignments(["backward"]), ["ann", *IDS.values()])
    assert hostile_characters(items_summary(items)) == []
