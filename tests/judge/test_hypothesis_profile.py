"""A judge imports hypothesis only when its course tests do, and its profile holds from that moment
(:mod:`grader.judge.hypothesis_profile`)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap

from checkout import ROOT

EXAMPLES = ROOT / "examples" / "submissions"


def test_the_profile_is_loaded_the_moment_hypothesis_is_first_imported():
    code = textwrap.dedent("""
        import sys
        from grader.judge import hypothesis_profile, plugin
        hypothesis_profile.use_when_imported()
        hypothesis_profile.use_when_imported()  # once
        assert "hypothesis" not in sys.modules and not hypothesis_profile.in_test()
        from hypothesis import settings, strategies
        from hypothesis.internal.conjecture import providers
        assert not any(isinstance(f, hypothesis_profile._OnImport) for f in sys.meta_path)
        made_here = settings(max_examples=7)  # what a course's test module makes as it is imported
        print(settings.get_current_profile_name(), made_here.derandomize, made_here.database, made_here.deadline,
              made_here.max_examples, providers._get_local_constants().integers)
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["grader", "True", "None", "None", "7", "set()"]


REPORTER = """
import atexit, os, sys

def _report():
    if sys.argv and sys.argv[0].endswith(os.path.join("judge", "__main__.py")):  # a judge, not `grader` itself
        with open(os.environ["JUDGE_IMPORTS"], "a", encoding="utf-8") as f:
            f.write(("hypothesis" if "hypothesis" in sys.modules else "none") + "\\n")

atexit.register(_report)
"""


def test_a_judge_imports_hypothesis_only_for_tests_that_use_it(tmp_path):
    """value_ops's tests draw nothing at random: its judge neither imports hypothesis nor has its plugin import it at
    the end (0.2-0.3 s of every such judge's start); backward's random graphs do, under the grader's profile."""
    subs = tmp_path / "subs"
    shutil.copytree(EXAMPLES / "correct_recursive", subs / "correct", ignore=shutil.ignore_patterns("__pycache__"))
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(REPORTER, encoding="utf-8")  # each judge says what it imported, at its end
    for aid, imported in (("value_ops", "none"), ("backward", "hypothesis")):
        report = tmp_path / f"{aid}.txt"
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")]),
                   JUDGE_IMPORTS=str(report))
        done = subprocess.run([sys.executable, "-m", "grader", "--course", str(ROOT), "grade", str(subs), "-a", aid,
                               "-o", str(tmp_path / aid), "-j", "1"], capture_output=True, text=True, env=env,
                              check=False)
        assert done.returncode == 0, done.stderr[-2000:]
        assert report.read_text(encoding="utf-8").split() == [imported], aid
        assert (tmp_path / aid / "grades.csv").read_text(encoding="utf-8").splitlines()[1].startswith(
            "correct,40," if aid == "value_ops" else "correct,50,")
