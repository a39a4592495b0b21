"""Following a self-check's judge: the launcher that reads the feed while it waits, and `grader check`'s lines."""

from __future__ import annotations

import io
import subprocess
import sys
import textwrap
from typing import Any

import pytest
from checkout import ROOT

from grader.course.course import Course
from grader.grading import batch, follow
from grader.grading.follow import CheckProgress, judge_environment, run_followed_judge
from grader.judge.manifest import Manifest
from grader.judge.progress_feed import ENV, Counts, Ended, Event, Started

COURSE = Course(ROOT)
TITLE_1 = COURSE.assignment("value_ops").title


class Recorder:
    def __init__(self, fail_on_tick: bool = False) -> None:
        self.events: list[Event] = []
        self.ticks = 0
        self.fail_on_tick = fail_on_tick

    def event(self, event: Event) -> None:
        self.events.append(event)

    def tick(self) -> None:
        self.ticks += 1
        if self.fail_on_tick:
            raise KeyboardInterrupt


def fake_judge(monkeypatch: pytest.MonkeyPatch, script: str) -> list[subprocess.Popen[Any]]:
    """Replace the judge's command with ``python -c script`` (the environment stays the one given)."""
    started: list[subprocess.Popen[Any]] = []
    real = subprocess.Popen

    def popen(args: list[str], **kwargs: Any) -> subprocess.Popen[Any]:
        assert args[1:3] == ["-m", "grader.judge"]
        process = real([sys.executable, "-c", textwrap.dedent(script)], **kwargs)
        started.append(process)
        return process

    monkeypatch.setattr(follow.subprocess, "Popen", popen)
    return started


def test_the_follower_gets_each_event_while_the_judge_runs_and_garbage_is_dropped(tmp_path, monkeypatch):
    fake_judge(monkeypatch, f"""
        import json, os, time
        feed = os.environ[{ENV!r}]
        def put(data):
            with open(feed, "ab") as f:
                f.write(data)
        put(b'{{"event": "tests", "counts": {{"value_ops": 2}}}}\\n')
        put(b'{{"event": "start", "assignment": "value_ops", "title": "add", "limit": 10}}\\n')
        put(b'\\x1b[2J garbage\\n' + b'x' * 10000 + b'\\n[1]\\n')
        time.sleep(0.5)
        put(b'{{"event": "end", "assignment": "value_ops", "title": "add", "score": 2, "max_score": 2, '
            b'"passed": true, "seconds": 0.1, "reason": ""}}\\n{{"event": "end", "assi')
        raise SystemExit(1)
    """)
    manifest = Manifest(str(ROOT), str(tmp_path / "runtime"), ["value_ops"], False)
    recorder = Recorder()
    status = run_followed_judge(manifest, tmp_path / "manifest.json", tmp_path / "judge.log",
                                tmp_path / "feed" / "progress.jsonl", recorder)
    assert status == 1
    assert recorder.events == [Counts({"value_ops": 2}), Started("value_ops", "add", 10.0),
                               Ended("value_ops", "add", 2.0, 2.0, True, 0.1, "")]
    assert recorder.ticks >= 3  # polled while the judge slept


def test_an_interrupted_follow_kills_the_judge(tmp_path, monkeypatch):
    started = fake_judge(monkeypatch, "import time; time.sleep(60)")
    manifest = Manifest(str(ROOT), str(tmp_path / "runtime"), ["value_ops"], False)
    with pytest.raises(KeyboardInterrupt):
        run_followed_judge(manifest, tmp_path / "manifest.json", tmp_path / "judge.log", tmp_path / "feed.jsonl",
                           Recorder(fail_on_tick=True))
    assert started and started[0].poll() is not None


def test_the_followed_judge_gets_run_judges_environment_and_the_feed(tmp_path, monkeypatch):
    seen: dict[str, Any] = {}

    def run(args: list[str], **kwargs: Any) -> subprocess.CompletedProcess[bytes]:
        seen.update(kwargs["env"])
        return subprocess.CompletedProcess(args, 0)

    monkeypatch.setattr(batch.subprocess, "run", run)
    manifest = Manifest(str(ROOT), str(tmp_path / "runtime"), ["value_ops"], False)
    batch.run_judge(manifest, tmp_path / "manifest.json", tmp_path / "judge.log")
    ours = judge_environment(tmp_path / "manifest.json", tmp_path / "feed.jsonl")
    assert ours.pop(ENV) == str(tmp_path / "feed.jsonl")
    assert ours == seen  # keep follow.judge_environment in step with batch.run_judge


def progress(stream: io.TextIOBase | None = None) -> tuple[CheckProgress, io.StringIO]:
    out = io.StringIO()
    return CheckProgress(stream or out, COURSE), out  # type: ignore[arg-type]


def test_a_heading_per_assignment_then_a_line_per_test():
    shown, out = progress()
    with shown:
        shown.event(Counts({"value_ops": 3}))
        shown.event(Started("value_ops", "add", 10))
        shown.event(Ended("value_ops", "add", 2, 2, True, 0.01, ""))
        shown.event(Ended("value_ops", "a contract", 0, 0, True, 0.01, ""))
        shown.event(Ended("value_ops", "mul", 1, 2, False, 0.01, ""))
        shown.event(Ended("value_ops", "backward", 0, 4, False, 2.04, "timeout"))
        shown.event(Ended("value_ops", "backward again", 0, 2, False, 0.0, "timeout"))
        shown.event(Ended("value_ops", "pow", 0, 2, False, 0.0, "not_run"))
        shown.event(Ended("value_ops", "neg", 0, 2, False, 0.0, "grader"))
    assert out.getvalue().splitlines() == [
        f"Checking {TITLE_1}: 3 public tests",
        "  ✓ add (2 / 2)",
        "  ✓ a contract",
        "  ✗ mul (1 / 2)",
        "  ✗ backward (0 / 4, ran out of time after 2.0 s)",
        "  ✗ backward again (0 / 2, ran out of time)",
        "  ✗ pow (0 / 2, not run: your code could not be loaded)",
        "  ! neg (not graded: the grader failed here, not your code)",
        "",
    ]


def test_a_test_still_running_is_named_once(monkeypatch):
    monkeypatch.setattr(follow, "STILL_RUNNING_SECONDS", 0.0)
    shown, out = progress()
    shown.tick()  # nothing running: nothing to say
    shown.event(Started("value_ops", "backward()", 10))
    shown.tick()
    shown.tick()
    shown.event(Ended("value_ops", "backward()", 0, 3, False, 10.0, "timeout"))
    shown.tick()
    assert out.getvalue().splitlines() == [
        f"Checking {TITLE_1}",
        "  ... backward(): still running after 0 s (limit: 10 s)",
        "  ✗ backward() (0 / 3, ran out of time after 10.0 s)",
    ]


def test_titles_reach_the_terminal_inert_and_nothing_is_written_when_nothing_ran():
    shown, out = progress()
    with shown:
        pass
    assert out.getvalue() == ""
    with shown:
        shown.event(Ended("value_ops", "evil\x1b[2J\rtitle", 1, 1, True, 0.0, ""))
        shown.event(Ended("value_ops", "x ##[add-mask]secret", 1, 1, True, 0.0, ""))  # a title forged in the feed
    assert "\x1b" not in out.getvalue() and "\r" not in out.getvalue() and "evil\\x1b[2J\\x0dtitle" in out.getvalue()
    assert "  ✓ x ##\\[add-mask]secret (1 / 1)" in out.getvalue()  # no workflow command in a CI log (##[ anywhere is)


def test_a_legacy_code_page_gets_plain_marks_and_a_broken_stream_is_given_up():
    raw = io.BytesIO()
    legacy = io.TextIOWrapper(raw, encoding="cp1252", errors="strict")
    shown, _ = progress(legacy)
    shown.event(Ended("value_ops", "tanh → 0.76", 1, 1, True, 0.0, ""))
    shown.event(Ended("value_ops", "relu", 0, 1, False, 0.0, ""))
    legacy.flush()
    assert raw.getvalue().decode("cp1252").splitlines()[1:] == ["  ok tanh ? 0.76 (1 / 1)", "  x relu (0 / 1)"]
    legacy.close()
    shown.event(Ended("value_ops", "exp", 1, 1, True, 0.0, ""))  # a closed stream: no error
    assert shown.broken
