"""Make the README's picture of the class report (``docs/images/report.png``) from a class graded for real.

    python tests/report_image.py docs/images/report.png

A copy of the course gets a due date and a late policy on each of its seven assignments (one due date for all:
the end of term) and a time zone. A class of twelve students is made from the reference solution with a few
catalogued bugs each (``bugs.yaml``: the same mutants ``grader validate`` checks), one whose ``forward.py`` cannot
be imported, and the template handed in unchanged (an example). Each submission's files are dated around the due
date (a folder is submitted at its files' latest modification time), so some are late: one within the grace
period, one penalised, one after the cut-off. The class is graded with ``grader grade`` (two jobs, about half a
minute on two cores), its report written with ``grader report``, and the top of the page (the header, *Needs
attention* and the seven score distributions) saved at 1280 px wide from a real headless Chromium
(``tests/browser.py``; ``apt-get install -y chromium chromium-driver``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from browser import chromium, open_at_width
from checkout import CHECKOUT, ROOT

from grader.cli import main
from grader.course.catalogue import load_bugs
from grader.course.course import Course

DUE = datetime(2026, 12, 11, 23, 59, tzinfo=ZoneInfo("America/New_York"))
LATE = "{grace: 15m, penalty: 10%, per: day, cap: 50%, cutoff: 3d}"
WIDTH = 1280

CLASS: dict[str, tuple[list[str], timedelta]] = {
    "ada": ([], timedelta(days=-2)),
    "ben": (["mul_overwrites_grad", "layer_drops_kwargs"], timedelta(hours=-5)),
    "cleo": (["tanh_grad_from_input", "mul_product_rule_one_term"], timedelta(days=-1)),
    "dev": (["relu_grad_passes_negative", "softmax_no_max_shift"], timedelta(hours=30)),
    "eli": (["neuron_parameters_missing_bias", "trace_no_visited_check"], timedelta(hours=-20)),
    "fay": (["add_overwrites_grad", "numgrad_divides_by_h"], timedelta(minutes=10)),
    "gus": (["escape_quote_not_escaped", "ce_missing_minus"], timedelta(days=-3)),
    "hana": (["zero_grad_rebinds", "gradcheck_h_too_large", "neg_keeps_tangent"], timedelta(hours=-1)),
    "ivan": (["tanh_overflow_formula"], timedelta(days=4)),
    "june": (["sub_adds_tangents", "trace_edges_reversed"], timedelta(hours=-30)),
    "kim": (["examples/template_unchanged"], timedelta(days=-4)),
    "lee": (["syntax_error"], timedelta(hours=-3)),
}
"""Each student: the catalogued bugs in their copy of the reference (or the example they handed in), and when they
submitted it, relative to the due date."""


def course_with_due_dates(dest: Path) -> Path:
    """A copy of the course whose every assignment is due at :data:`DUE` under the late policy :data:`LATE`."""
    for name in ("assignments", "reference", "student_template"):
        shutil.copytree(ROOT / name, dest / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", dest / "pyproject.toml")
    (dest / "assignments" / "course.yaml").write_text(f"time_zone: {DUE.tzinfo}\n", encoding="utf-8")
    for yaml in sorted((dest / "assignments").glob("*/assignment.yaml")):
        with yaml.open("a", encoding="utf-8") as f:
            f.write(f"due: {DUE:%Y-%m-%dT%H:%M}\nlate: {LATE}\n")
    return dest


def submissions(course: Course, dest: Path) -> Path:
    """The class of :data:`CLASS`, each submission's files dated when the student submitted it."""
    bugs = {b.id: b for a in course.assignments() for b in load_bugs(a, course.reference_dir)}
    for student, (changes, late_by) in CLASS.items():
        folder = dest / student
        example = next((c.split("/", 1)[1] for c in changes if c.startswith("examples/")), None)
        source = ROOT / "examples" / "submissions" / example if example else course.reference_dir
        shutil.copytree(source, folder, ignore=shutil.ignore_patterns("__pycache__"))
        for bug in (bugs[c] for c in changes if c in bugs):
            target = folder / bug.file
            text = target.read_text(encoding="utf-8")
            assert text.count(bug.find) == 1, bug.id
            target.write_text(text.replace(bug.find, bug.replace, 1), encoding="utf-8")
        if "syntax_error" in changes:  # a colon forgotten: forward.py cannot be imported
            target = folder / "micrograd" / "forward.py"
            text = target.read_text(encoding="utf-8")
            target.write_text(text.replace("\nclass Dual:", "\nclass Dual", 1), encoding="utf-8")
        when = (DUE + late_by).timestamp()
        for path in folder.rglob("*"):
            os.utime(path, (when, when))
    return dest


def screenshot(report: Path, png: Path, work: Path) -> None:
    """Save the top of ``report`` (down to the scores per task) as ``png``, :data:`WIDTH` px wide, without the
    window's scroll bar."""
    with chromium(work) as driver:
        driver.execute_cdp_cmd("Emulation.setScrollbarsHidden", {"hidden": True})
        open_at_width(driver, report.as_uri(), WIDTH)
        bottom = driver.execute_script("return document.getElementById('tasks').getBoundingClientRect().top")
        open_at_width(driver, report.as_uri(), WIDTH, int(bottom) - 12)
        assert driver.execute_script("return document.documentElement.scrollWidth") <= WIDTH
        assert driver.save_screenshot(str(png))


def make(png: Path) -> None:
    """Grade the class of :data:`CLASS` for real and save the top of its report as ``png``."""
    with tempfile.TemporaryDirectory(prefix="report-image-") as tmp:
        work = Path(tmp)
        course_root = course_with_due_dates(work / "course")
        subs = submissions(Course(course_root), work / "submissions")
        out = work / "out"
        assert main(["--course", str(course_root), "grade", str(subs), "-o", str(out), "-j", "2"]) == 0
        assert main(["--course", str(course_root), "report", str(out)]) == 0
        screenshot(out / "report.html", png.resolve(), work)
    print(f"wrote {png}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("png", type=Path, nargs="?", default=CHECKOUT / "docs" / "images" / "report.png")
    make(parser.parse_args(sys.argv[1:]).png)
