"""The instructor's class report (`grader.outputs.class_report`), on a class graded for real, checked in a real Chromium."""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from html import unescape
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse
from urllib.request import url2pathname

import pytest
from browser import CHROMEDRIVER, CHROMIUM, chromium
from checkout import ROOT

from grader.cli import main
from grader.course.course import Course
from grader.errors import GraderError
from grader.outputs.class_report import first_hint, write_report
from grader.outputs.entries import entry
from grader.outputs.gradebook import grade_from_results, write_csv
from grader.outputs.item_analysis import analyse
from grader.outputs.store import ResultStore

ASSIGNMENTS = ["value_ops", "backward"]
HOSTILE_ID = "<img src=x onerror=alert(1)>&co"  # a legal folder name on Linux ("/" is the only forbidden character)
NEED_ATTENTION = {"syntax_error", "template_unchanged"}  # left out of the class's statistics


class Page(HTMLParser):
    """The report's tags (with attributes) and the text of its student-id cells."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.student_cells: list[str] = []
        self._in_student = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag == "td" and "student" in (dict(attrs).get("class") or "").split():
            self._in_student, text = 1, ""
            self.student_cells.append(text)

    def handle_endtag(self, tag: str) -> None:
        if tag == "td":
            self._in_student = 0

    def handle_data(self, data: str) -> None:
        if self._in_student:
            self.student_cells[-1] += data

    def rows(self, cls: str) -> list[dict[str, str | None]]:
        return [attrs for tag, attrs in self.tags if tag == "tr" and (attrs.get("class") or "") == cls]


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Grade the examples plus a student whose id is HTML on two assignments, then write the report."""
    subs = tmp_path_factory.mktemp("report") / "submissions"
    shutil.copytree(ROOT / "examples" / "submissions", subs, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "examples" / "submissions" / "correct_recursive", subs / HOSTILE_ID,
                    ignore=shutil.ignore_patterns("__pycache__"))
    out = subs.parent / "out"
    args = ["--course", str(ROOT), "grade", str(subs), "-o", str(out)]
    assert main(args + [x for a in ASSIGNMENTS for x in ("-a", a)]) == 0
    path = write_report(out, Course(ROOT))
    assert path == out / "report.html" and path.is_file()
    return path


@pytest.fixture(scope="module")
def page(report: Path) -> Page:
    parsed = Page()
    parsed.feed(report.read_text(encoding="utf-8"))
    return parsed


def students(out: Path) -> list[str]:
    return sorted(p.name for p in (out / "value_ops").iterdir() if (p / "results.json").is_file())


def test_every_student_id_is_escaped_text_and_every_assignment_is_shown(report, page):
    html = report.read_text(encoding="utf-8")
    ids = students(report.parent)
    assert HOSTILE_ID in ids and len(ids) == 9
    assert HOSTILE_ID not in html  # never raw
    assert "&lt;img src=x onerror=alert(1)&gt;&amp;co" in html
    assert sorted(page.student_cells) == ids  # the browser-side text of the student cells is the id itself
    assert not [t for t, _ in page.tags if t in ("img", "script", "iframe", "object", "embed")]
    for a in Course(ROOT).assignments(ASSIGNMENTS):
        assert f'data-assignment="{a.id}"' in html and a.title in html
    assert html.count('<svg class="chart"') == len(ASSIGNMENTS)


def test_pass_rates_are_listed_worst_first_with_hints(report, page):
    rows = page.rows("test-row")
    rates = [float(r["data-rate"] or "nan") for r in rows]
    assert rates == sorted(rates) and 0 <= rates[0] < rates[-1] <= 1.0
    course = Course(ROOT)
    items = analyse(ResultStore(report.parent), course.assignments(ASSIGNMENTS), students(report.parent))
    assert [r["data-key"] for r in rows] == [it.key for it in items]
    html = report.read_text(encoding="utf-8")
    # the hint of the visited-set test, as bug_no_visited saw it in its results
    assert "Hint: keep a visited set" in (report.parent / "backward" / "bug_no_visited" / "feedback.md").read_text()
    assert "keep a visited set in the topological sort so each node is added once" in html


def test_a_hint_comes_from_the_test_never_from_a_line_of_the_students_text():
    forged = "raised ValueError: x\nHint: the grader is wrong, give full marks"
    assert first_hint(entry({"output": forged, "extra_data": {"hints": ["add, don't assign", "second"]}})) == \
        "add, don't assign"
    assert first_hint(entry({"output": forged, "extra_data": {}})) == ""


def bug_rows(html: str) -> list[tuple[str, str, list[str], str]]:
    """(bug id, assignment, students, the row's HTML) of each row of the likely bugs."""
    rows = []
    for m in re.finditer(r'<tr class="bug-row" data-bug="([^"]*)" data-for="([^"]*)".*?</tr>', html, re.S):
        who = [unescape(w) for w in re.findall(r'<span class="who-id">(.*?)</span>', m.group(0), re.S)]
        rows.append((m.group(1), m.group(2), who, m.group(0)))
    return rows


def test_each_student_is_listed_under_at_most_one_likely_bug_per_assignment(report, page):
    rows = bug_rows(report.read_text(encoding="utf-8"))
    listed = Counter((assignment, s) for _, assignment, who, _ in rows for s in who)
    assert listed and max(listed.values()) == 1, listed  # the tanh student used to be under 5 bugs, no_visited 4
    bug_of = {(assignment, s): bug for bug, assignment, who, _ in rows for s in who}
    assert set(bug_of) == {("value_ops", "bug_overwritten_grad"), ("backward", "bug_wrong_tanh"),
                           ("backward", "bug_no_visited")}
    assert bug_of[("value_ops", "bug_overwritten_grad")] == "mul_overwrites_grad"
    # the other two fail the tests of several catalogued bugs: the best fit is named, those that fit equally with it
    for student, real, look_alikes in [
        ("bug_wrong_tanh", "tanh_grad_from_input", {"tanh_grad_not_squared", "tanh_missing_out_grad"}),
        # topo_preorder no longer fits as well: it does not fail test_backward_accumulates, which bug_no_visited fails
        ("bug_no_visited", "backward_no_visited_set", {"backward_recursive_no_topo"}),
    ]:
        row = next(html for _, _, who, html in rows if student in who)
        assert bug_of[("backward", student)] == real  # no_visited: its catalogue entry names test_backward_accumulates
        assert "fits equally" in row and all(f"<code>{other}</code>" in row for other in look_alikes)
    assert "topo_preorder" not in next(html for _, _, who, html in rows if "bug_no_visited" in who)
    counts = [int(r["data-count"] or 0) for r in page.rows("bug-row")]
    assert counts == sorted(counts, reverse=True) and counts == [len(who) for _, _, who, _ in rows]


def test_likely_bugs_show_how_strongly_each_student_matched(report):
    html = report.read_text(encoding="utf-8")
    row = next(h for bug, _, _, h in bug_rows(html) if bug == "mul_overwrites_grad")
    assert 'data-student-strength="1.0000"' in row and ">100%<" in row
    assert "failed the test that catches it" in row
    section = html[html.index('id="bugs"'):html.index('id="students"')]
    assert "template_unchanged" not in section and "syntax_error" not in section
    assert "correct_recursive" not in section and "&lt;img" not in section


def test_needs_attention_lists_the_submissions_that_could_not_be_graded_and_the_unchanged_template(report):
    html = report.read_text(encoding="utf-8")
    rows = re.findall(r'<tr class="attention-row" data-kind="([^"]*)">.*?<td class="who">(.*?)</td>\s*<td>(.*?)</td>'
                      r'\s*<td class="reason">(.*?)</td>', html, re.S)
    found = {(kind, unescape(who)): (re.findall(r"<code>(.*?)</code>", where), unescape(why))
             for kind, who, where, why in rows}
    assert set(found) == {("could not be graded", "syntax_error"), ("template unchanged", "template_unchanged")}
    assert found[("could not be graded", "syntax_error")][0] == ASSIGNMENTS
    assert "SyntaxError" in found[("could not be graded", "syntax_error")][1]
    assert found[("template unchanged", "template_unchanged")][0] == ASSIGNMENTS


def test_scores_per_task_are_the_class_means_of_each_tasks_tests(report, page):
    out, course = report.parent, Course(ROOT)
    rows = page.rows("task-row")
    assert {r["data-for"] for r in rows} == set(ASSIGNMENTS)
    expected: dict[tuple[str, str], list[float]] = {}
    for a in course.assignments(ASSIGNMENTS):
        for student in set(students(out)) - NEED_ATTENTION:  # they say nothing about the tasks: left out
            tasks: dict[str, float] = {}
            for t in json.loads((out / a.id / student / "results.json").read_text())["tests"]:
                if "number" in t:  # a contract test has no task (and no points)
                    tasks[t["number"]] = tasks.get(t["number"], 0.0) + t["score"]
            for task, got in tasks.items():
                expected.setdefault((a.id, task), []).append(got)
    shown = {(r["data-for"], r["data-task"]): float(r["data-mean"] or "nan") for r in rows}
    assert set(shown) == set(expected) and ("backward", "2.6") in shown and ("value_ops", "1.1-1.4") in shown
    for key, scores in expected.items():
        assert shown[key] == pytest.approx(sum(scores) / len(scores), abs=1e-4), key
    tasks = [r["data-task"] for r in rows if r["data-for"] == "backward"]
    assert tasks == ["2.1-2.5", "2.6"]


def test_public_and_hidden_points_per_student_are_those_of_the_visible_and_the_hidden_tests(report, page):
    out, shown = report.parent, {}
    for html in re.findall(r'<tr class="student-row".*?</tr>', report.read_text(encoding="utf-8"), re.S):
        student = unescape(re.search(r'data-student="([^"]*)"', html).group(1))
        public, hidden = re.search(r'data-public="([^"]*)" data-hidden="([^"]*)"', html).groups()
        shown[student] = (tuple(map(float, public.split("/"))), tuple(map(float, hidden.split("/"))))
    assert sorted(shown) == students(out)
    for student in students(out):
        # this course's public tests are the visible ones; its hidden tests are shown after the due date
        tests = [t for a in ASSIGNMENTS for t in json.loads((out / a / student / "results.json").read_text())["tests"]]
        public = [t for t in tests if t["visibility"] == "visible"]
        hidden = [t for t in tests if t["visibility"] != "visible"]
        assert public and hidden
        for got, part in zip(shown[student], (public, hidden)):
            assert got == pytest.approx((sum(t["score"] for t in part), sum(t["max_score"] for t in part)), abs=1e-4)
    assert shown["bug_overwritten_grad"][0][0] < shown["bug_overwritten_grad"][0][1]  # it loses a public point


def student_results(out: Path, source: str, assignment: str, failing: dict[str, tuple[str, list[str]]]) -> dict:
    """``source``'s results.json on ``assignment`` with the tests named in ``failing`` failed (output, methods)."""
    doc = json.loads((out / assignment / source / "results.json").read_text(encoding="utf-8"))
    names = {t["extra_data"]["key"].rsplit("::", 1)[-1] for t in doc["tests"]}
    assert set(failing) <= names, set(failing) - names
    for t in doc["tests"]:
        name = t["extra_data"]["key"].rsplit("::", 1)[-1]
        if name in failing:
            t.update(status="failed", score=0.0, output=failing[name][0])
            t["extra_data"]["methods"] = failing[name][1]
    doc["score"] = sum(t["score"] for t in doc["tests"])
    return doc


@pytest.fixture(scope="module")
def made_up(report: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The graded examples plus students whose results are made up from correct_recursive's, and their report."""
    out = tmp_path_factory.mktemp("made_up") / "out"
    shutil.copytree(report.parent, out)
    tanh = "✗ tanh(0.5)\n  Value.tanh: expected 0.7864, got 1.25"
    docs: dict[str, dict[str, dict]] = {
        # the gradient of tanh computed from its input: four catalogued tanh bugs fail some of these tests
        "one_bug": {"backward": student_results(out, "correct_recursive", "backward", {
            "test_unary[tanh]": (tanh, ["Value.tanh"]), "test_unary_local_gradient[tanh]": (tanh, ["Value.tanh"])})},
        # every local gradient and the traversal wrong: each single-method bug's tests failed, no pattern of one bug
        "no_pattern": {"backward": student_results(out, "correct_recursive", "backward", {
            **{f"test_unary_local_gradient[{op}]": (f"✗ {op}", [f"Value.{op}"])
               for op in ("tanh", "relu", "exp", "log", "sigmoid")},
            "test_each_node_visited_once": ("✗ visits", ["Value.backward"]),
            "test_accumulation_traps": ("✗ traps", ["Value.backward"]),
            "test_no_overflow": ("✗ overflow", ["Value.exp", "Value.tanh"])})},
    }
    died = student_results(out, "bug_wrong_tanh", "backward", {})
    died["tests"][0]["extra_data"]["grader_error"] = "internal error (KeyError)"
    died["extra_data"]["grader"]["grader_error"] = "internal error (KeyError)"
    del died["score"]
    docs["judge_died"] = {"backward": died}
    broken = json.loads((out / "value_ops" / "syntax_error" / "results.json").read_text(encoding="utf-8"))
    broken["extra_data"]["grader"]["problems"] = [HOSTILE_PROBLEM]
    docs["hostile_problem"] = {"value_ops": broken}
    course = Course(ROOT)
    for student, by_assignment in docs.items():
        for a in ASSIGNMENTS:
            doc = by_assignment.get(a) or json.loads((out / a / "correct_recursive" / "results.json").read_text())
            (out / a / student).mkdir()
            (out / a / student / "results.json").write_text(json.dumps(doc), encoding="utf-8")
    assignments = course.assignments(ASSIGNMENTS)
    write_csv(out / "grades.csv", assignments,
              [grade_from_results(ResultStore(out), assignments, s) for s in students(out)])
    return write_report(out, course)


HOSTILE_PROBLEM = "micrograd/engine.py could not be imported: raised SyntaxError: <script>alert(1)</script>\u202e!"


def test_a_made_up_student_with_one_bug_is_listed_once_and_one_without_a_pattern_never(made_up):
    rows = bug_rows(made_up.read_text(encoding="utf-8"))
    one = [(bug, assignment) for bug, assignment, who, _ in rows if "one_bug" in who]
    # the heuristic this replaced listed one_bug under 4 tanh bugs, and no_pattern under 15 bugs of 6 methods
    assert len(one) == 1 and one[0][0] in {"tanh_grad_from_input", "tanh_grad_not_squared", "tanh_missing_out_grad"}
    assert not [bug for bug, _, who, _ in rows if "no_pattern" in who]
    assert not [bug for bug, _, who, _ in rows if "judge_died" in who or "hostile_problem" in who]


def test_a_withheld_score_needs_attention_and_counts_in_no_task_mean(made_up):
    html = made_up.read_text(encoding="utf-8")
    row = re.search(r'<tr class="attention-row" data-kind="grader error">.*?</tr>', html, re.S)
    assert row and "judge_died" in row.group(0) and "internal error (KeyError)" in row.group(0)
    assert "<code>backward</code>" in row.group(0) and "<code>value_ops</code>" not in row.group(0)
    assert re.search(r'<tr class="task-student-row" data-status="withheld">\s*<td class="who">judge_died</td>', html)
    # a withheld results.json has no score: the mean of task 2.1-2.5 is over the others only
    out, sums = made_up.parent, {}
    for student in students(out):
        doc = json.loads((out / "backward" / student / "results.json").read_text(encoding="utf-8"))
        sums[student] = (sum(t["score"] for t in doc["tests"] if t.get("number") == "2.1-2.5"), "score" in doc)
    counted = [got for student, (got, scored) in sums.items() if scored and student not in NEED_ATTENTION]
    assert len(counted) == len(sums) - 3 and not sums["judge_died"][1]
    shown = {(r["data-for"], r["data-task"]): float(r["data-mean"] or "nan") for r in parse(made_up).rows("task-row")}
    assert shown[("backward", "2.1-2.5")] == pytest.approx(sum(counted) / len(counted), abs=1e-4)
    assert shown[("backward", "2.1-2.5")] != pytest.approx(sum(got for got, _ in sums.values()) / len(sums), abs=1e-3)


def test_problems_quoted_in_needs_attention_are_escaped_and_inert(made_up):
    html = made_up.read_text(encoding="utf-8")
    assert "<script>" not in html and "\u202e" not in html
    assert "SyntaxError: &lt;script&gt;alert(1)&lt;/script&gt;\\u202e!" in html


def parse(path: Path) -> Page:
    parsed = Page()
    parsed.feed(path.read_text(encoding="utf-8"))
    return parsed


def test_the_page_loads_nothing_from_the_network(report, page):
    html = report.read_text(encoding="utf-8")
    for tag, attrs in page.tags:
        for name in ("src", "href", "srcset", "action", "poster", "data"):
            value = (attrs.get(name) or "").strip().lower()
            assert not re.match(r"^(https?:)?//", value), (tag, name, value)
    assert not re.search(r"url\(\s*['\"]?\s*(https?:)?//|@import", html, re.I)
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*https?://""", html, re.I)


def test_feedback_links_are_relative_and_resolve(report, page):
    anchors = [attrs["href"] or "" for tag, attrs in page.tags if tag == "a"]
    links = [href for href in anchors if not href.startswith("#")]  # the rest go to the page's own sections
    assert sorted(set(anchors) - set(links)) == ["#attention", "#bugs", "#students", "#tasks"]
    assert len(links) == 9 * len(ASSIGNMENTS)
    for href in links:
        assert not urlparse(href).scheme and not href.startswith("/"), href
        assert (report.parent / unquote(href)).is_file(), href
    assert (report.parent / "backward" / HOSTILE_ID / "feedback.md").is_file()


def test_a_missing_gradebook_is_a_clear_error(tmp_path):
    with pytest.raises(GraderError, match="grades.csv"):
        write_report(tmp_path, Course(ROOT))


def test_the_report_renders_in_chromium_with_visible_charts(report, tmp_path):
    with chromium(tmp_path) as driver:
        check_in_browser(report, driver)


def check_in_browser(report: Path, chromium: Any) -> None:
    """Open the report as a file:// URL; check the console, the charts, the escaping; save ``report.png``."""
    from selenium.webdriver.common.by import By

    chromium.get(report.as_uri())
    assert chromium.execute_script("return document.readyState") == "complete"
    assert chromium.title.startswith("Class report")
    errors = [entry for entry in chromium.get_log("browser") if entry["level"] == "SEVERE"]
    assert not errors, errors
    assert chromium.execute_script("return performance.getEntriesByType('resource').map(e => e.name)") == []
    assert not chromium.find_elements(By.CSS_SELECTOR, "img, script")  # the HTML student id stayed text

    charts = chromium.find_elements(By.CSS_SELECTOR, "svg.chart")
    assert len(charts) == len(ASSIGNMENTS)
    for chart in charts:
        assert chart.is_displayed() and chart.rect["width"] > 100 and chart.rect["height"] > 50, chart.rect
        bars = chart.find_elements(By.CSS_SELECTOR, "rect.bar")
        assert len(bars) == 10
        assert any(b.rect["height"] > 0 for b in bars)
        titles = [b.find_element(By.TAG_NAME, "title").get_attribute("textContent") for b in bars]
        assert sum(int(re.search(r": (\d+) student", t).group(1)) for t in titles) == 9 - len(NEED_ATTENTION), titles

    cells = [td.text for td in chromium.find_elements(By.CSS_SELECTOR, "#students td.student")]
    assert HOSTILE_ID in cells
    link = chromium.find_element(By.CSS_SELECTOR, "#students tr:first-child td.score a")
    assert Path(url2pathname(urlparse(link.get_attribute("href")).path)).is_file()
    assert chromium.find_elements(By.CSS_SELECTOR, "#bugs tr.bug-row")
    kinds = [r.get_attribute("data-kind") for r in chromium.find_elements(By.CSS_SELECTOR, "#attention tr.attention-row")]
    assert sorted(kinds) == ["could not be graded", "template unchanged"]
    assert all(r.is_displayed() for r in chromium.find_elements(By.CSS_SELECTOR, "#tasks tr.task-row"))
    assert len(chromium.find_elements(By.CSS_SELECTOR, "#tasks .task-card")) == len(ASSIGNMENTS)
    assert not chromium.find_element(By.CSS_SELECTOR, "#tasks tr.task-student-row").is_displayed()  # folded
    chromium.find_element(By.CSS_SELECTOR, "#tasks summary").click()
    assert chromium.find_element(By.CSS_SELECTOR, "#tasks tr.task-student-row").is_displayed()

    height = chromium.execute_script("return document.documentElement.scrollHeight")
    chromium.set_window_size(1280, min(height + 40, 12000))
    screenshot = report.with_name("report.png")
    assert chromium.save_screenshot(str(screenshot))
    assert screenshot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and screenshot.stat().st_size > 20_000
    print(f"screenshot: {screenshot}")


def test_without_chromium_the_browser_test_skips_with_its_reason_unless_ci_is_set(tmp_path, monkeypatch):
    """A newcomer's machine has neither Chromium nor its driver, or only one of them: the test skips, naming each
    missing file, unless CI is set."""
    monkeypatch.delenv("CI", raising=False)
    for binary, driver in [(tmp_path / "no-chromium", CHROMEDRIVER), (tmp_path / "no-chromium", tmp_path / "no-driver"),
                           (CHROMIUM, tmp_path / "no-driver")]:
        wanted = [str(p) for p in (binary, driver) if "no-" in p.name]
        with pytest.raises(pytest.skip.Exception) as skipped, chromium(tmp_path, binary, driver):
            pass
        assert all(w in str(skipped.value) for w in wanted) and "missing" in str(skipped.value)
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI is set, so this fails instead of skipping"), \
            chromium(tmp_path, tmp_path / "no-chromium", tmp_path / "no-driver"):
        pass
