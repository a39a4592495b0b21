"""The judge process: one pytest session grading the jobs of one manifest.

Run by :mod:`grader.grading.batch` as ``python -m grader.judge MANIFEST``. It runs the
chosen assignments' tests (public, and hidden unless it is a self-check)
with the grader plugin, independent of any pytest configuration in the
course folder, and writes one results file per submission (see
:mod:`grader.judge.submission_run`). Exit status: pytest's (0 or 1 mean the session
ran to completion, whatever the students' scores).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from grader.course.course import Course
from grader.judge.hypothesis_profile import PLUGIN as HYPOTHESIS_PLUGIN
from grader.judge.manifest import Manifest
from grader.sandbox.isolation import die_with_parent

INI = "[pytest]\naddopts =\npython_files = test_*.py\n"
PLUGINS = ("-p", "pytest_timeout", "-p", HYPOTHESIS_PLUGIN)
"""The installed pytest plugins a judge's session uses, by module (the judge's environment loads no other:
:func:`grader.grading.batch.judge_environment`): pytest-timeout for each test's backstop, hypothesis's for its
tests."""


def pytest_args(manifest_path: Path, manifest: Manifest) -> list[str]:
    """The pytest command line for a manifest."""
    course = Course(Path(manifest.course))
    paths = []
    for aid in manifest.assignments:
        assignment = course.assignment(aid)
        paths.append(str(assignment.public_tests))
        if manifest.include_hidden:
            paths.append(str(assignment.hidden_tests))
    ini = Path(manifest.runtime) / "judge.ini"
    if not ini.exists():
        ini.write_text(INI, encoding="utf-8")
    return [
        *[p for p in paths if Path(p).is_dir()],
        "-c", str(ini),
        "--rootdir", str(course.root),
        "-p", "grader.judge.plugin",
        "--grader-manifest", str(manifest_path),
        *PLUGINS,
        "-p", "no:cacheprovider",
        "-p", "no:randomly",  # (should the judge be started with plugins autoloading after all)
        "-p", "no:unraisableexception",  # student code never runs here; its gc passes cost 0.4 s a session
        "-p", "no:logging",  # no course test or grader part logs: its handlers, set up and torn down in each of a
        "-p", "no:warnings",  # test's three phases, and the warnings caught around each test, were per-test cost
        "--import-mode=importlib",
        "--assert=plain",  # course tests report through `check`; rewriting re-parsed hypothesis at every start
        "-q",
        "--tb=line",  # the feedback carries each failure; a full summary was quadratic in the failures
        "-o", "console_output_style=classic",
    ]


def main(argv: list[str] | None = None) -> int:
    """Grade the manifest named by ``argv[0]``; return pytest's exit status."""
    args = sys.argv[1:] if argv is None else argv
    parent = os.environ.get("GRADER_PARENT_PID")
    if parent and parent.isdigit():  # die with `grader grade`, so a kill -9 leaves nothing running
        die_with_parent(int(parent))
    manifest_path = Path(args[0]).resolve()
    manifest = Manifest.load(manifest_path)
    return int(pytest.main(pytest_args(manifest_path, manifest)))


if __name__ == "__main__":
    sys.exit(main())
