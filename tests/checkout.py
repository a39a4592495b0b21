"""The course the suite tests: this checkout as shipped, whatever term an instructor has set up in it.

An instructor runs a term in their checkout (docs/how-to/term.md): ``assignments/course.yaml`` (time zone, roster,
extensions) and ``due``, ``late`` and ``released`` in each ``assignment.yaml``. The suite's expectations are those of
the course as shipped (the examples' scores, every assignment out, no roster), so when the checkout holds term
settings, :data:`ROOT` is a copy of it without them, made once per test process; otherwise it is the checkout itself.
Every test module takes ``ROOT`` from here (``from checkout import ROOT``), never from its own path.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path

import yaml

CHECKOUT = Path(__file__).resolve().parents[1]
"""The folder this suite was checked out in."""
TERM_KEYS = ("due", "late", "released")
"""The keys of an ``assignment.yaml`` that belong to a term, not to the course as shipped."""
COURSE_FILE = "course.yaml"
LEFT_OUT = (".git", ".venv", "venv", "*.egg-info", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache",
            "site", "grading-output")
"""What the copy leaves out: version control, environments, caches and outputs."""


def term_files(root: Path) -> list[Path]:
    """The files of ``root`` that hold term settings: ``assignments/course.yaml`` and every ``assignment.yaml`` with a
    term key."""
    found = [root / "assignments" / COURSE_FILE] if (root / "assignments" / COURSE_FILE).exists() else []
    for path in sorted((root / "assignments").glob("*/assignment.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        if isinstance(data, dict) and any(key in data for key in TERM_KEYS):
            found.append(path)
    return found


def without_term(root: Path, dest: Path) -> Path:
    """Copy the checkout ``root`` to ``dest`` with its term settings removed (:func:`term_files`)."""
    shutil.copytree(root, dest, ignore=shutil.ignore_patterns(*LEFT_OUT), symlinks=True)
    for path in term_files(dest):
        if path.name == COURSE_FILE:
            path.unlink()
            continue
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        path.write_text(yaml.safe_dump({k: v for k, v in data.items() if k not in TERM_KEYS}, sort_keys=False),
                        encoding="utf-8")
    return dest


def _root() -> Path:
    if not term_files(CHECKOUT):
        return CHECKOUT
    base = Path(tempfile.mkdtemp(prefix="grader-suite-course-"))
    atexit.register(shutil.rmtree, base, ignore_errors=True)
    return without_term(CHECKOUT, base / CHECKOUT.name)


ROOT = _root()
"""The course the suite tests: the checkout, or a copy of it without its term settings."""
