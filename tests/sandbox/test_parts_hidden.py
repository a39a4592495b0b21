"""Student code cannot read the grader's own parts in hidden grading (issue 24), and a run says where it could.

The grader's parts (``assignments/shared/parts``: a working ``Value``,
``Neuron`` and ``Layer``) are imported by an ``mlp`` worker before the
student's code. A hostile ``nn.py`` then tries every way to their source: the
``__file__`` of the loaded modules (the runtime copy), their compiled
``__pycache__``, ``inspect.getsource``, a listing of the runtime folder, and the
course's own copy (whose path it is given, as a student could guess it). Any
text it reads it raises as an exception at import, which the feedback would
show; finding nothing, it behaves like the correct reference and scores full
marks. On the portable backend, and where neither Landlock nor a mount
namespace is available, the worker can read them: the isolation report says so.

The engine's workers (``value_ops``, ``backward``) hold no part at all: a
submission that looks for a working ``Value`` in its own process finds none.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest
from checkout import ROOT

from grader.cli import main

AS_ROOT = getattr(os, "geteuid", lambda: -1)() == 0
PARTS = ROOT / "assignments" / "shared" / "parts"

SPY = '''
import glob, inspect, os, sys

def _spy():
    found = []
    modules = [m for name, m in list(sys.modules.items()) if "course_parts" in name and m is not None]
    paths = [getattr(m, "__file__", None) for m in modules] + [{course!r}]
    for path in [p for p in paths if p]:
        folder = os.path.dirname(path)
        for candidate in [path, *glob.glob(os.path.join(folder, "*")), *glob.glob(os.path.join(folder, "__pycache__", "*"))]:
            try:
                with open(candidate, "rb") as f:
                    found.append(f.read(200))
            except OSError:
                pass
    for m in modules:
        try:
            found.append(inspect.getsource(m)[:200].encode())
        except (OSError, TypeError):
            pass
    return [f for f in found if f]

_found = _spy()
if _found:
    raise RuntimeError("LEAKED " + repr(_found[0][:300]))
'''

ENGINE_SEEKER = '''
import gc, sys
def _find():
    for o in gc.get_objects():
        if isinstance(o, type) and o.__name__ == "Value" and hasattr(o, "backward") and o.__module__ != __name__:
            return o
    raise ImportError("no working Value in this process")
Value = _find()
'''


def course_copy(tmp_path: Path) -> Path:
    """A copy of the course (so the parts' path is one this test knows and can check is world-readable)."""
    course = tmp_path / "course"
    for name in ("assignments", "reference", "student_template"):
        shutil.copytree(ROOT / name, course / name, ignore=shutil.ignore_patterns("__pycache__"))
    return course


def spy_submission(dest: Path, course: Path) -> Path:
    sub = dest / "spy" / "micrograd"
    sub.mkdir(parents=True)
    (sub / "__init__.py").write_text("")
    for name in ("engine", "nn"):
        text = (ROOT / "reference" / "micrograd" / f"{name}.py").read_text()
        if name == "nn":
            text = text.replace("from .engine import Value", "from .engine import Value\n" + SPY.format(
                course=str(course / "assignments" / "shared" / "parts" / "stand_ins.py")), 1)
        (sub / f"{name}.py").write_text(text)
    return dest


def grade(course: Path, subs: Path, out: Path, *extra: str, faults: str = "") -> dict:
    before = os.environ.get("GRADER_SANDBOX_FAULTS")
    os.environ["GRADER_SANDBOX_FAULTS"] = faults
    try:
        assert main(["--course", str(course), "grade", str(subs), "-o", str(out), "-a", "mlp", *extra]) == 0
    finally:
        if before is None:
            os.environ.pop("GRADER_SANDBOX_FAULTS")
        else:
            os.environ["GRADER_SANDBOX_FAULTS"] = before
    return json.loads((out / "mlp" / "spy" / "results.json").read_text())


def leaked(doc: dict) -> bool:
    return "LEAKED" in json.dumps(doc)


@pytest.mark.linux_only
@pytest.mark.parametrize("faults", ["", "unshare"], ids=["every layer", "landlock alone"])
def test_a_submission_cannot_read_the_graders_parts(tmp_path, faults):
    course = course_copy(tmp_path)
    doc = grade(course, spy_submission(tmp_path / "subs", course), tmp_path / "out", faults=faults)
    isolation = doc["extra_data"]["grader"]["isolation"]
    assert isolation["grader's parts"].startswith("on"), isolation
    assert not leaked(doc)
    assert doc["score"] == 40.0  # it found nothing, so it is the correct reference
    shown = json.dumps(doc)
    for part in PARTS.glob("*.py"):  # text from the start of each part, which a successful read would show
        assert re.findall(r"[A-Za-z ,:]{25,}", part.read_text()[:200])[0] not in shown, part.name


@pytest.mark.linux_only
@pytest.mark.skipif(not AS_ROOT, reason="a separate user needs root")
def test_without_landlock_or_a_mount_namespace_the_report_says_the_parts_are_readable(tmp_path):
    course = course_copy(tmp_path)
    doc = grade(course, spy_submission(tmp_path / "subs", course), tmp_path / "out", faults="unshare,landlock")
    isolation = doc["extra_data"]["grader"]["isolation"]
    assert isolation["landlock"].startswith("off") and isolation["grader's parts"].startswith("off"), isolation
    assert leaked(doc)  # the course folder is readable by every user here: the report is right to say so


def test_the_portable_sandbox_says_it_cannot_hide_the_parts(tmp_path):
    course = course_copy(tmp_path)
    doc = grade(course, spy_submission(tmp_path / "subs", course), tmp_path / "out", "--sandbox", "portable")
    assert doc["extra_data"]["grader"]["isolation"]["grader's parts"].startswith("off: the portable sandbox")


@pytest.mark.linux_only
def test_an_engine_worker_holds_no_working_value_to_borrow(tmp_path):
    """The attack that scored 90 of 90 before issue 24: ``Value`` taken from the grader's own, in memory."""
    sub = tmp_path / "subs" / "borrower" / "micrograd"
    sub.mkdir(parents=True)
    (sub / "__init__.py").write_text("")
    (sub / "engine.py").write_text(ENGINE_SEEKER)
    (sub / "nn.py").write_text((ROOT / "student_template" / "micrograd" / "nn.py").read_text())
    out = tmp_path / "out"
    assert main(["--course", str(ROOT), "grade", str(tmp_path / "subs"), "-o", str(out),
                 "-a", "value_ops", "-a", "backward"]) == 0
    for aid in ("value_ops", "backward"):
        doc = json.loads((out / aid / "borrower" / "results.json").read_text())
        assert doc["score"] == 0.0 and "no working Value in this process" in json.dumps(doc), aid
