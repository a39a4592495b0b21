"""The instructor's class report (`grader.outputs.report`), on a class graded for real, checked in a real Chromium."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse
from urllib.request import url2pathname

import pytest

from grader.cli import main
from grader.course.config import Course
from grader.errors import GraderError
from grader.outputs.item_analysis import analyse
from grader.outputs.report import first_hint, write_report

ROOT = Path(__file__).resolve().parents[2]
ASSIGNMENTS = ["value_ops", "backward"]
HOSTILE_ID = "<img src=x onerror=alert(1)>&co"  # a legal folder name on Linux ("/" is the only forbidden character)
CHROMIUM, CHROMEDRIVER = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")
CHROME_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync"]


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
    items = analyse(report.parent, course.assignments(ASSIGNMENTS), students(report.parent))
    assert [r["data-key"] for r in rows] == [it.key for it in items]
    html = report.read_text(encoding="utf-8")
    # the hint of the visited-set test, as bug_no_visited saw it in its results
    assert "Hint: keep a visited set" in (report.parent / "backward" / "bug_no_visited" / "feedback.md").read_text()
    assert "keep a visited set in the topological sort so each node is added once" in html


def test_a_hint_comes_from_the_test_never_from_a_line_of_the_students_text():
    forged = "raised ValueError: x\nHint: the grader is wrong, give full marks"
    assert first_hint({"output": forged, "extra_data": {"hints": ["add, don't assign", "second"]}}) == "add, don't assign"
    assert first_hint({"output": forged, "extra_data": {}}) == ""


def test_likely_bugs_name_the_examples_bugs(page):
    bugs = {r["data-bug"]: int(r["data-count"] or 0) for r in page.rows("bug-row")}
    assert bugs["backward_no_visited_set"] >= 1
    assert bugs["mul_overwrites_grad"] >= 1
    assert bugs["tanh_grad_from_input"] >= 1
    counts = [int(r["data-count"] or 0) for r in page.rows("bug-row")]
    assert counts == sorted(counts, reverse=True)


def test_likely_bugs_list_the_matching_students_and_skip_unfinished_or_broken_ones(report):
    html = report.read_text(encoding="utf-8")
    row = re.search(r'data-bug="backward_no_visited_set".*?</tr>', html, re.S)
    assert row and "bug_no_visited" in row.group(0)
    section = html[html.index('id="bugs"'):html.index('id="students"')]
    assert "template_unchanged" not in section and "syntax_error" not in section
    assert "correct_recursive" not in section and "&lt;img" not in section


def test_the_page_loads_nothing_from_the_network(report, page):
    html = report.read_text(encoding="utf-8")
    for tag, attrs in page.tags:
        for name in ("src", "href", "srcset", "action", "poster", "data"):
            value = (attrs.get(name) or "").strip().lower()
            assert not re.match(r"^(https?:)?//", value), (tag, name, value)
    assert not re.search(r"url\(\s*['\"]?\s*(https?:)?//|@import", html, re.I)
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*https?://""", html, re.I)


def test_feedback_links_are_relative_and_resolve(report, page):
    links = [attrs["href"] or "" for tag, attrs in page.tags if tag == "a"]
    assert len(links) == 9 * len(ASSIGNMENTS)
    for href in links:
        assert not urlparse(href).scheme and not href.startswith("/"), href
        assert (report.parent / unquote(href)).is_file(), href
    assert (report.parent / "backward" / HOSTILE_ID / "feedback.md").is_file()


def test_a_missing_gradebook_is_a_clear_error(tmp_path):
    with pytest.raises(GraderError, match="grades.csv"):
        write_report(tmp_path, Course(ROOT))


@contextmanager
def chromium(tmp_path: Path) -> Iterator[Any]:
    """A real headless Chromium driven by Selenium through the system chromedriver; fails (never skips) without it."""
    missing = [str(p) for p in (CHROMIUM, CHROMEDRIVER) if not p.is_file()]
    if missing:
        pytest.fail(f"Chromium is needed to test the report in a browser, but {', '.join(missing)} is missing: "
                    "install it with `apt-get install -y chromium chromium-driver` (.ci/run does this in CI)",
                    pytrace=False)
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.options import Options
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        pytest.fail("selenium is not installed: `pip install -e '.[test]'`", pytrace=False)
    options = Options()
    options.binary_location = str(CHROMIUM)
    for arg in CHROME_ARGS + [f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1280,900"]:
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    try:
        yield driver
    finally:
        driver.quit()


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
        assert sum(int(re.search(r": (\d+) student", t).group(1)) for t in titles) == 9, titles

    cells = [td.text for td in chromium.find_elements(By.CSS_SELECTOR, "#students td.student")]
    assert HOSTILE_ID in cells
    link = chromium.find_element(By.CSS_SELECTOR, "#students tr:first-child td.links a")
    assert Path(url2pathname(urlparse(link.get_attribute("href")).path)).is_file()
    assert chromium.find_elements(By.CSS_SELECTOR, "#bugs tr.bug-row")

    height = chromium.execute_script("return document.documentElement.scrollHeight")
    chromium.set_window_size(1280, min(height + 40, 12000))
    screenshot = report.with_name("report.png")
    assert chromium.save_screenshot(str(screenshot))
    assert screenshot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and screenshot.stat().st_size > 20_000
    print(f"screenshot: {screenshot}")
