"""A pytest or hypothesis plugin installed beside the grader stays out of the judge's session.

Colab ships pytest plugins (anyio's, typeguard's), a student may have ``pytest-randomly``, and trio (a
dependency of the browser tests' selenium) registers a hypothesis entry point. Installed plugins load into every
pytest session by default, where one can reorder, deselect or rewrite tests: the judge loads only the plugins it
names (:data:`grader.judge.__main__.PLUGINS`).
"""

from __future__ import annotations

import csv
import shutil
import subprocess
import sys

import pytest
from checkout import ROOT

from grader.cli import main

EXAMPLES = ROOT / "examples" / "submissions"

PLUGIN = '''
import os
from pathlib import Path

Path(os.environ["FOREIGN_MARK"]).joinpath("pytest").touch()


def pytest_collection_modifyitems(items):
    """Grades nothing: every test deselected."""
    items[:] = []


def hypothesis_hook():
    Path(os.environ["FOREIGN_MARK"]).joinpath("hypothesis").touch()
'''


@pytest.fixture
def installed(tmp_path, monkeypatch):
    """A plugin "installed" on ``PYTHONPATH`` (a module and its dist-info with both entry points); the folder its
    marks appear in when it is loaded."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "foreign_plugin.py").write_text(PLUGIN, encoding="utf-8")
    info = site / "foreign_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: foreign-plugin\nVersion: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(
        "[pytest11]\nforeign = foreign_plugin\n\n[hypothesis]\nforeign = foreign_plugin:hypothesis_hook\n",
        encoding="utf-8")
    marks = tmp_path / "marks"
    marks.mkdir()
    monkeypatch.setenv("PYTHONPATH", str(site))
    monkeypatch.setenv("FOREIGN_MARK", str(marks))
    return marks


def test_the_plugin_is_live_in_an_ordinary_pytest_session(installed, tmp_path):
    """Without this, the tests below could pass with a plugin that never loads anywhere."""
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "test_one.py").write_text("import hypothesis\n\ndef test_one():\n    pass\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", str(tmp_path / "t")],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path / "t")
    assert "1 deselected" in done.stdout or "no tests ran" in done.stdout, done.stdout
    assert sorted(p.name for p in installed.iterdir()) == ["hypothesis", "pytest"]


def test_a_self_check_scores_the_same_and_loads_no_installed_plugin(installed, capsys):
    status = main(["--course", str(ROOT), "check", str(EXAMPLES / "bug_wrong_tanh"), "-a", "backward"])
    out = capsys.readouterr().out
    assert status == 1 and "9 / 10 public points" in out, out
    assert list(installed.iterdir()) == []


def test_grading_scores_the_same_and_loads_no_installed_plugin(installed, tmp_path):
    subs = tmp_path / "subs"
    shutil.copytree(EXAMPLES / "correct_recursive", subs / "correct_recursive")
    out = tmp_path / "out"
    assert main(["--course", str(ROOT), "grade", str(subs), "-a", "value_ops", "-o", str(out), "-j", "1"]) == 0
    with open(out / "grades.csv", encoding="utf-8") as f:
        row = next(csv.DictReader(f))
    assert float(row["value_ops"]) == 40.0, row  # full marks: the hidden tests ran, none deselected
    assert list(installed.iterdir()) == []
