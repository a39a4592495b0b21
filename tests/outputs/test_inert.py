"""Text a submission controls is inert wherever it is shown: terminal, Markdown, CSV (issue 12, F)."""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
import sys

import pytest
from checkout import ROOT

from grader.cli import main
from grader.inert import code_span, csv_cell, fence, markdown, terminal
from grader.testing import describe_error

EXAMPLES = ROOT / "examples" / "submissions"
ESCAPE = "\x1b]0;pwned\x07\x1b[2J"


def test_terminal_text_has_no_control_or_bidi_characters():
    shown = terminal(f"alice{ESCAPE}\r\u202egnp.exe\nnext\tline")
    assert "\x1b" not in shown and "\x07" not in shown and "\r" not in shown and "\u202e" not in shown
    assert "\\x1b" in shown and "\\u202e" in shown and "\nnext\tline" in shown


@pytest.mark.parametrize("cell", ["=HYPERLINK(\"http://x\")", "+1", "-2+3", "@SUM(A1)", "\tx", "\rx"])
def test_formula_cells_are_defused(cell):
    assert csv_cell(cell).startswith("'") and csv_cell("alice") == "alice"


def test_markdown_code_cannot_be_closed_by_what_it_holds():
    hostile = "x\n```\n# heading\n![img](http://x/a.png)\n``````\n<script>alert(1)</script>"
    opening, body, closing = fence(hostile)
    assert opening.startswith("```````") and closing == "```````" and body == hostile
    assert code_span("a`b``c").startswith("```") and "\n" not in code_span("a\nb")
    prose = markdown("# Title [link](http://x) <b>bold</b> ![i](y)")
    assert not prose.startswith("#") and "\\[" in prose and "\\<" in prose and "\\!" in prose


def test_a_huge_message_from_the_sandbox_is_capped_by_the_judge():
    text = describe_error({"type": "E" * 10_000, "message": "m" * 1_000_000, "during": "d" * 100_000,
                           "where": {"file": "f" * 10_000, "line": 1, "function": "g" * 10_000, "source": "s" * 10_000}})
    assert len(text) < 2_000


@pytest.fixture(scope="module")
def hostile_ids(tmp_path_factory):
    subs = tmp_path_factory.mktemp("ids") / "subs"
    for sid in (f"esc{ESCAPE}", "=HYPERLINK(1)", "@evil", "back`tick"):
        shutil.copytree(EXAMPLES / "syntax_error", subs / sid)
    out = subs.parent / "out"
    done = subprocess.run([sys.executable, "-m", "grader", "--course", str(ROOT), "grade", str(subs), "-o", str(out),
                           "-a", "value_ops"], capture_output=True, text=True, timeout=600, check=False)
    return done, out


def test_student_ids_reach_the_terminal_inert(hostile_ids):
    done, _ = hostile_ids
    assert done.returncode == 0, done.stderr[-2000:]
    assert "\x1b" not in done.stdout + done.stderr and "\x07" not in done.stdout + done.stderr
    assert "esc\\x1b" in done.stdout


def test_student_ids_reach_the_gradebook_as_text_not_formulas(hostile_ids):
    _, out = hostile_ids
    with open(out / "grades.csv", encoding="utf-8") as f:
        students = [row["student"] for row in csv.DictReader(f)]
    assert "'=HYPERLINK(1)" in students and "'@evil" in students
    assert not any(s.startswith(("=", "+", "-", "@")) for s in students)


def test_feedback_markdown_keeps_a_backtick_id_in_its_code_span(hostile_ids):
    _, out = hostile_ids
    feedback = (out / "value_ops" / "back`tick" / "feedback.md").read_text(encoding="utf-8")
    assert "Student: ``back`tick``" in feedback
    for line in feedback.splitlines():
        assert not line.startswith("#") or line.startswith(("# Assignment", "## ", "### "))


def test_a_self_checks_terminal_output_is_inert(tmp_path, capsys):
    engine = (ROOT / "reference" / "micrograd" / "engine.py").read_text()
    start, end = engine.index("    def __add__"), engine.index("    def __mul__")
    raising = f"    def __add__(self, other):\n        raise ValueError({ESCAPE!r} * 3)\n\n"
    (tmp_path / "micrograd").mkdir()
    (tmp_path / "micrograd" / "engine.py").write_text(engine[:start] + raising + engine[end:])
    assert main(["--course", str(ROOT), "check", str(tmp_path), "-a", "value_ops"]) == 1
    shown = capsys.readouterr().out
    assert "\x1b" not in shown and "\\x1b" in shown


def test_printed_output_never_reaches_the_field_students_see_at_once(tmp_path):
    """Code can print the inputs of hidden tests: the excerpt stays out of results.json's top-level output
    (Gradescope shows it before the due date) and goes to extra_data and feedback.md."""
    engine = (ROOT / "reference" / "micrograd" / "engine.py").read_text()
    start, end = engine.index("    def __mul__"), engine.index("    def __pow__")
    spying = engine[start:end].replace("        other = ", "        print('SPIED', self.data, other, flush=True)\n        other = ", 1)
    subs = tmp_path / "subs"
    (subs / "spy" / "micrograd").mkdir(parents=True)
    (subs / "spy" / "micrograd" / "engine.py").write_text(engine[:start] + spying + engine[end:])
    out = tmp_path / "out"
    assert main(["--course", str(ROOT), "grade", str(subs), "-o", str(out), "-a", "value_ops"]) == 0
    doc = json.loads((out / "value_ops" / "spy" / "results.json").read_text())
    assert "SPIED" not in doc["output"] and all("SPIED" not in t["output"] for t in doc["tests"])
    assert "SPIED" in doc["extra_data"]["grader"]["program_output"]
    assert "SPIED" in (out / "value_ops" / "spy" / "feedback.md").read_text()
