"""Stress: a class of 100 submissions (25 hostile or broken), `kill -9` of the grader
part-way, then a re-run that finishes the class."""

from __future__ import annotations

import csv
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import hostile_submissions as H
import pytest
from checkout import ROOT
from doc_quotes import assert_quoted

from grader.cli import main

pytestmark = pytest.mark.linux_only  # the Linux backend, /proc, namespaces or Linux process semantics

EXAMPLES = ROOT / "examples" / "submissions"
HONEST = {
    "correct": lambda d: H.write(d, H.CORRECT),
    "no_pow": lambda d: H.write(d, H.NO_POW),
    "overwritten": lambda d: shutil.copytree(EXAMPLES / "bug_overwritten_grad", d),
    "recursive": lambda d: shutil.copytree(EXAMPLES / "correct_recursive", d),
    "template": lambda d: shutil.copytree(EXAMPLES / "template_unchanged", d),
}
HOSTILE = {
    "tamper": H.with_import_code(H.TAMPER), "exit_os": H.with_import_code(H.EXIT_OS),
    "protocol": H.with_import_code(H.PROTOCOL), "liar": H.with_import_code(H.LIAR),
    "segfault": H.with_pow(H.SEGFAULT), "memory": H.with_pow(H.MEMORY), "print": H.with_pow(H.BIG_PRINT),
    "daemon": H.with_import_code(H.DAEMON.format(targets=[])), "loop": H.with_pow(H.LOOP),
}


def grades(out: Path) -> dict[str, dict[str, str]]:
    with open(out / "grades.csv", encoding="utf-8") as f:
        return {row["student"]: row for row in csv.DictReader(f)}


def leftover_processes(marker: str) -> list[str]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            try:
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
                comm = Path(f"/proc/{entry}/comm").read_text().strip()
            except OSError:
                continue
            if marker.encode() in cmdline or comm == "hostiledaemon":
                found.append(f"{entry}: {comm}")
    return found


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_kill_minus_9_and_rerun_finish_the_class_with_the_scores_of_grading_alone(tmp_path):
    course = tmp_path / "course"
    for part in ("assignments", "reference", "student_template"):
        shutil.copytree(ROOT / part, course / part, ignore=shutil.ignore_patterns("__pycache__"))
    path = course / "assignments" / "value_ops" / "assignment.yaml"
    path.write_text(path.read_text().replace("test_seconds: 10", "test_seconds: 2"))
    subs = tmp_path / "class"
    kinds: dict[str, str] = {}
    for i in range(75):
        kind = list(HONEST)[i % len(HONEST)]
        HONEST[kind](subs / f"s{i:03d}_{kind}")
        kinds[f"s{i:03d}_{kind}"] = kind
    for i in range(25):
        kind = list(HOSTILE)[i % len(HOSTILE)]
        H.write(subs / f"h{i:03d}_{kind}", HOSTILE[kind])
        kinds[f"h{i:03d}_{kind}"] = "hostile"
    (subs / "h100_corrupt.zip").write_bytes(b"PK\x03\x04 this is not a zip")
    (subs / "h101_empty").mkdir()
    kinds["h100_corrupt"] = kinds["h101_empty"] = "hostile"

    alone = tmp_path / "alone"
    alone_out = tmp_path / "alone-out"
    for kind, build in HONEST.items():
        build(alone / kind)
    assert main(["--course", str(course), "grade", str(alone), "-a", "value_ops", "-o", str(alone_out)]) == 0
    alone_scores = {kind: row["value_ops"] for kind, row in grades(alone_out).items()}

    before = (snapshot(course), snapshot(subs))
    private = tmp_path / "tmp"  # the run's own temporary folder: another test's, running beside it, is not ours
    private.mkdir()
    env = dict(os.environ, TMPDIR=str(private))
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "grader", "--course", str(course), "grade", str(subs), "-a", "value_ops",
           "-o", str(out), "-j", "2"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and len(list(out.glob("value_ops/*/results.json"))) < 30:
        time.sleep(0.1)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    done_before_kill = len(list(out.glob("value_ops/*/results.json")))
    assert 30 <= done_before_kill < len(kinds), "the kill must land part-way"
    for _ in range(100):  # judges and sandboxes die with the grader
        if not leftover_processes(str(out)):
            break
        time.sleep(0.1)
    assert leftover_processes(str(out)) == []

    rerun = subprocess.run(cmd, capture_output=True, text=True, check=False, env=env)
    assert rerun.returncode == 0, rerun.stderr[-2000:]
    assert f"kept {done_before_kill} complete result(s)" in rerun.stdout
    # docs/how-to/resume.md quotes the summary; how many the kill left to grade depends on where it landed
    assert_quoted("how-to/resume.md", 0, rerun.stdout, masks=[(r"Graded \d+ ", "Graded N "), (r"kept \d+ ", "kept K ")])

    got = grades(out)
    assert set(got) == set(kinds)
    for student, kind in kinds.items():
        if kind != "hostile":
            assert got[student]["value_ops"] == alone_scores[kind], student
        else:
            assert float(got[student]["value_ops"]) <= float(alone_scores["no_pow"]), student
    assert "not a readable zip" in got["h100_corrupt"]["notes"] and "empty" in got["h101_empty"]["notes"]
    assert leftover_processes(str(out)) == []
    assert (snapshot(course), snapshot(subs)) == before
    assert [p for p in os.listdir(private) if "grader" in p] == []  # nothing left in the temporary folder
    # no work folder left: the logs, judge errors if any, and the record of what was graded (grader similarity)
    assert {p.name for p in (out / "_instructor").iterdir()} - {"judge-errors"} == {"logs", "class.json"}
