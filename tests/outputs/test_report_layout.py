"""The class report's layout at a real course's size (ten assignments, 300 students, due dates and a late policy),
measured in a real Chromium: nothing scrolls sideways at 1280 px, no row is absurdly tall, the late policy is
readable and the late-work table's header whole, and no two labels of a histogram overlap.

The class is made cheaply: the examples graded once on every assignment (the session's ``graded_class``), and their
results.json and feedback.md copied under 300 student ids, each student taking each assignment's results from one
of the examples (mostly graded work, now and then one that needs attention), with a late block made by the
course's own due-date code (:meth:`grader.course.due_dates.DueDate.terms`, :func:`grader.course.due_dates.final_score`);
``grades.csv`` is then rebuilt from those results as ``grader grade`` does.
"""

from __future__ import annotations

import json
import os
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from browser import chromium, open_at_width
from checkout import ROOT

from grader.course.course import Course
from grader.course.due_dates import DueDate, final_score
from grader.course.late_policy import LatePolicy
from grader.outputs.attention import finding
from grader.outputs.class_outputs import write_class_outputs
from grader.outputs.class_report import write_report
from grader.outputs.store import ResultStore

STUDENTS = 300
POLICY = LatePolicy(grace=15 * 60, penalty=0.1, per="day", cap=0.5, cutoff=3 * 86400)
FIRST_DUE = datetime(2026, 9, 14, 23, 59, tzinfo=ZoneInfo("America/New_York"))
LATE_BY = [timedelta(hours=-20), timedelta(minutes=9), timedelta(hours=30), timedelta(days=4), None]
"""The lateness of the students who are not on time: early, within the grace period, penalised, after the cut-off,
and no recorded time."""


def student(i: int) -> str:
    """The id of the ``i``-th student: mostly short, a few as long as a GitHub user name can be (39 characters)."""
    return f"student-{i:03d}" if i % 60 else f"a-rather-long-github-username-{i:03d}-abcde"


def late_block(due: datetime, i: int, k: int, raw: float, points: float, applied: bool) -> dict[str, Any]:
    """The ``extra_data.grader.late`` block of student ``i`` on assignment number ``k``, as the judge writes it
    (:func:`grader.outputs.gradescope_results.gradescope_results`): one student in six is not on time."""
    late_by = LATE_BY[(i // 6 + k) % len(LATE_BY)] if i % 6 == 1 else timedelta(hours=-2)
    terms = DueDate(due, due, POLICY).terms(due + late_by if late_by is not None else None,
                                            "the latest modification time of its files")
    taken, final = final_score(terms, raw, points) if applied else (0.0, raw)
    return {**terms, "raw_score": raw, "penalty_points": taken, "final_score": final, "applied": applied}


@pytest.fixture(scope="module")
def seven(graded_class: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A graded folder of 300 students on the course's ten assignments, with due dates; its report written."""
    course = Course(ROOT)
    assignments = course.assignments()
    assert len(assignments) == 10  # the nine coding assignments and the checkpoint
    store = ResultStore(graded_class)
    examples = sorted(p.name for p in (graded_class / assignments[0].id).iterdir() if (p / "results.json").is_file())
    out = tmp_path_factory.mktemp("seven") / "out"
    ids = [student(i) for i in range(STUDENTS)]
    for k, a in enumerate(assignments):
        graded = [s for s in examples if finding(store.get(a.id, s)) is None]
        attention = [s for s in examples if finding(store.get(a.id, s)) is not None]
        assert graded and attention, a.id
        docs = {s: json.loads((graded_class / a.id / s / "results.json").read_text(encoding="utf-8")) for s in examples}
        due = FIRST_DUE + timedelta(weeks=k)
        for i, sid in enumerate(ids):
            source = attention[i % len(attention)] if i % 29 == 3 else graded[(i + 3 * k) % len(graded)]
            doc = docs[source]
            raw = round(sum(t["score"] for t in doc["tests"]), 4)
            late = late_block(due, i, k, raw, a.points, applied="score" in doc)
            own = {**doc, **({"score": late["final_score"]} if "score" in doc else {}),
                   "extra_data": {**doc["extra_data"], "grader": {**doc["extra_data"]["grader"], "late": late}}}
            folder = out / a.id / sid
            folder.mkdir(parents=True)
            (folder / "results.json").write_text(json.dumps(own), encoding="utf-8")
            os.link(graded_class / a.id / source / "feedback.md", folder / "feedback.md")
    results = ResultStore(out)
    write_class_outputs(results, assignments, ids)
    return write_report(out, course, results)


LAYOUT = """
const box = e => e.getBoundingClientRect();
const visible = e => e.getClientRects().length > 0;
const root = document.documentElement;
const rows = s => [...document.querySelectorAll(s)].filter(visible).map(r => box(r).height);
const late = document.getElementById('late');
const policy = [...late.querySelectorAll('.late-policy')].map(p => {
  const words = p.textContent.trim().split(/\\s+/).length;
  const lines = Math.round(box(p).height / parseFloat(getComputedStyle(p).lineHeight));
  return {words, lines, text: p.textContent.trim().slice(0, 80)};
});
const head = [...late.querySelectorAll('table')[0].querySelectorAll('thead th')].map(th => {
  const wrap = box(th.closest('.table-wrap')), b = box(th);
  return {text: th.textContent.trim(), clipped: th.scrollWidth > th.clientWidth + 1,
          outside: b.right > wrap.right + 1 || b.left < wrap.left - 1};
});
const overlaps = [];
for (const svg of document.querySelectorAll('svg.chart')) {
  const labels = [...svg.querySelectorAll('text')].map(t => [t.textContent, box(t)]);
  labels.forEach(([s, a], i) => labels.slice(i + 1).forEach(([t, b]) => {
    if (a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5)
      overlaps.push([svg.closest('.card').dataset.assignment, s, t]);
  }));
}
return {
  innerWidth: window.innerWidth, scrollWidth: root.scrollWidth,
  sideways: [...document.querySelectorAll('.table-wrap')].filter(w => w.scrollWidth > w.clientWidth + 1)
    .map(w => [w.closest('section').id, w.scrollWidth, w.clientWidth]),
  students: rows('#students tr.student-row'),
  tallest: [...document.querySelectorAll('main tr')].filter(visible).map(r => [box(r).height, r.closest('section').id,
    r.className]).reduce((a, b) => (b[0] > a[0] ? b : a)),
  charts: document.querySelectorAll('svg.chart').length,
  policy, head, overlaps,
};
"""
"""What the test measures of the page, in CSS pixels (rows and labels hidden in a folded <details> are left out)."""


def layout_problems(m: dict[str, Any], width: int) -> list[str]:
    """What is wrong with the layout measured at ``width`` (empty: nothing)."""
    problems = []
    if m["scrollWidth"] > m["innerWidth"]:
        problems.append(f"the page scrolls sideways: scrollWidth {m['scrollWidth']} > innerWidth {m['innerWidth']}")
    problems += [f"the table of #{s} scrolls sideways ({sw} px in {cw} px)" for s, sw, cw in m["sideways"]]
    if len(m["students"]) != STUDENTS or max(m["students"], default=0) >= 120:
        problems.append(f"{len(m['students'])} student rows, the tallest {max(m['students'], default=0):.0f} px "
                        "(< 120 wanted)")
    height, section, kind = m["tallest"]
    if height >= 400:
        problems.append(f"a row ({kind or 'a header'}) of #{section} is {height:.0f} px tall (< 400 wanted)")
    problems += [f"late-work header {h['text']!r} is cut" for h in m["head"] if h["clipped"] or h["outside"]]
    if not m["policy"]:
        problems.append("the late policy is not stated above the late-work table")
    problems += [f"the late policy runs {p['lines']} lines for {p['words']} words: {p['text']!r}" for p in m["policy"]
                 if p["words"] < 6 * p["lines"]]
    problems += [f"labels {s!r} and {t!r} of {a}'s histogram overlap" for a, s, t in m["overlaps"]]
    return [f"at {width} px: {p}" for p in problems]


def test_ten_assignments_and_300_students_read_without_sideways_scrolling(seven, tmp_path):
    html = seven.read_text(encoding="utf-8")
    assert html.count('class="student-row"') == STUDENTS and html.count('class="due-row"') == 10
    with chromium(tmp_path) as driver:
        from selenium.webdriver.common.by import By

        problems = []
        for width in (1280, 1920):
            open_at_width(driver, seven.as_uri(), width)
            measured = driver.execute_script(LAYOUT)
            assert measured["innerWidth"] == width and measured["charts"] == 10
            problems += layout_problems(measured, width)
            driver.save_screenshot(str(tmp_path / f"report-{width}.png"))
        assert not problems, "\n".join(problems)
        # a folded note is one line; opened, it shows its whole text in its cell, and the row grows to hold it
        note = driver.find_element(By.CSS_SELECTOR, "#students .note summary")
        row = driver.find_element(By.XPATH, "//details[@class='note']/ancestor::tr[1]")
        cut = "return arguments[0].scrollWidth > arguments[0].clientWidth"
        closed = (note.rect["height"], row.rect["height"])
        assert closed[0] < 24 and driver.execute_script(cut, note)
        note.click()
        assert note.rect["height"] > 2 * closed[0] and row.rect["height"] > closed[1]
        assert not driver.execute_script(cut, note)
