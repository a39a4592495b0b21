"""The self-check's progress feed: what the judge writes, and the bounded reader `grader check` parses it with."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from grader.judge import progress_feed
from grader.judge.progress_feed import (
    ENV,
    MAX_LINE_BYTES,
    Counts,
    Ended,
    FeedReader,
    ProgressFeed,
    Started,
    parse_line,
    reason,
)
from grader.outputs.failures import NOT_RUN
from grader.testing.cases import CaseResult, Check
from grader.testing.outcomes import StudentFault

KNOWN = frozenset({"value_ops", "backward"})
END = {"event": "end", "assignment": "backward", "title": "backward() on a chain", "score": 1.5, "max_score": 3,
       "passed": False, "seconds": 10.01, "reason": "timeout"}


def line(doc: object) -> bytes:
    return json.dumps(doc).encode()


def test_well_formed_events_are_read():
    assert parse_line(line({"event": "tests", "counts": {"value_ops": 6, "backward": 8}}), KNOWN) == Counts(
        {"value_ops": 6, "backward": 8})
    assert parse_line(line({"event": "start", "assignment": "value_ops", "title": "add", "limit": 10}), KNOWN) == \
        Started("value_ops", "add", 10.0)
    assert parse_line(line(END), KNOWN) == Ended("backward", "backward() on a chain", 1.5, 3.0, False, 10.01,
                                                 "timeout")


@pytest.mark.parametrize("garbage", [
    b"", b"not json", b"[1, 2]", b'"a string"', b"null", b"\xff\xfe garbage", b"[" * 3000 + b"]" * 3000,
    line({"event": "explode", "assignment": "backward", "title": "x"}),
    line({**END, "assignment": "hidden_assignment"}),  # an assignment this check does not run
    line({**END, "assignment": ["backward"]}),
    line({**END, "title": ""}), line({**END, "title": 3}),
    line({**END, "score": True}), line({**END, "score": -1}), line({**END, "score": "3"}), line({**END, "score": 1e300}),
    b'{"event": "end", "assignment": "backward", "title": "t", "score": NaN, "max_score": 3, "passed": false, '
    b'"seconds": 1, "reason": ""}',
    line({**END, "passed": 1}), line({**END, "reason": "exploded"}), line({**END, "seconds": None}),
    line({"event": "start", "assignment": "backward", "title": "t", "limit": "10"}),
    line({"event": "tests", "counts": [1, 2]}),
])
def test_garbage_is_dropped(garbage):
    assert parse_line(garbage, KNOWN) is None


def test_counts_keep_only_known_assignments_and_sane_numbers():
    event = parse_line(line({"event": "tests", "counts": {"value_ops": 6, "nope": 3, "backward": -1}}), KNOWN)
    assert event == Counts({"value_ops": 6})


def test_a_long_title_is_cut_and_an_overlong_line_dropped():
    event = parse_line(line({**END, "title": "t" * 1000}), KNOWN)
    assert isinstance(event, Ended) and len(event.title) == progress_feed.MAX_TITLE
    assert parse_line(line({**END, "title": "t" * (MAX_LINE_BYTES + 10)}), KNOWN) is None


def test_the_reader_keeps_a_partial_line_until_it_ends_and_skips_garbage(tmp_path):
    feed = tmp_path / "feed.jsonl"
    feed.write_bytes(b"")
    reader = FeedReader(feed, KNOWN)
    assert reader.read() == []
    whole = line(END) + b"\n"
    with open(feed, "ab") as f:
        f.write(b"garbage\n" + whole[:20])
    assert reader.read() == []  # half a line: nothing yet
    with open(feed, "ab") as f:
        f.write(whole[20:] + b'{"event": "start"}\n' + line(END))  # the last line has no newline yet
    assert [type(e) for e in reader.read()] == [Ended]
    with open(feed, "ab") as f:
        f.write(b"\n")
    assert [type(e) for e in reader.read()] == [Ended]


def test_the_reader_drops_a_line_too_long_to_keep_even_across_reads(tmp_path):
    feed = tmp_path / "feed.jsonl"
    feed.write_bytes(b"")
    reader = FeedReader(feed, KNOWN)
    with open(feed, "ab") as f:
        f.write(b'{"event": "end", "title": "' + b"x" * (MAX_LINE_BYTES + 100))
    assert reader.read() == [] and len(reader.pending) <= MAX_LINE_BYTES
    with open(feed, "ab") as f:  # the rest of that line, which alone would parse, then a good line
        f.write(b"y" * 10 + b"\n" + b'{"event": "tests", "counts": {}}\n' + line(END) + b"\n")
    assert [type(e) for e in reader.read()] == [Counts, Ended]


def test_the_reader_stops_at_its_byte_budget(tmp_path, monkeypatch):
    monkeypatch.setattr(progress_feed, "MAX_FEED_BYTES", 1000)
    feed = tmp_path / "feed.jsonl"
    feed.write_bytes((line(END) + b"\n") * 100)
    events = reader_events(FeedReader(feed, KNOWN))
    assert len(events) == 1000 // (len(line(END)) + 1)  # the whole lines within the first 1000 bytes


def reader_events(reader: FeedReader) -> list[object]:
    events: list[object] = []
    for _ in range(5):
        events += reader.read()
    return events


def test_a_missing_feed_reads_as_nothing(tmp_path):
    assert FeedReader(tmp_path / "gone.jsonl", KNOWN).read() == []


def state(include_hidden: bool) -> SimpleNamespace:
    return SimpleNamespace(manifest=SimpleNamespace(include_hidden=include_hidden))


def test_only_a_self_check_whose_parent_made_the_file_writes_a_feed(tmp_path, monkeypatch):
    feed = tmp_path / "feed.jsonl"
    monkeypatch.delenv(ENV, raising=False)
    assert ProgressFeed.requested(state(False), str, max) is None  # type: ignore[arg-type]
    monkeypatch.setenv(ENV, str(feed))
    assert ProgressFeed.requested(state(False), str, max) is None  # type: ignore[arg-type]  # no file: nobody reads it
    feed.write_bytes(b"")
    assert ProgressFeed.requested(state(True), str, max) is None  # type: ignore[arg-type]  # hidden tests: never
    writer = ProgressFeed.requested(state(False), str, max)  # type: ignore[arg-type]
    assert writer is not None
    writer.write({"event": "tests", "counts": {"backward": 2}})
    assert FeedReader(feed, KNOWN).read() == [Counts({"backward": 2})]


def test_a_writer_whose_file_went_away_stays_quiet(tmp_path):
    writer = ProgressFeed(tmp_path / "gone" / "feed.jsonl", state(False), str, max)  # type: ignore[arg-type]
    writer.write({"event": "tests", "counts": {}})
    assert writer.path is None
    writer.write({"event": "tests", "counts": {}})
    assert not (tmp_path / "gone").exists()


def test_the_judge_never_writes_a_line_longer_than_the_reader_takes(tmp_path):
    feed = tmp_path / "feed.jsonl"
    feed.write_bytes(b"")
    writer = ProgressFeed(feed, state(False), str, max)  # type: ignore[arg-type]
    writer.write({"event": "tests", "junk": "x" * MAX_LINE_BYTES})
    writer.write({"event": "end", "score": float("nan")})  # never raises into the judge
    assert feed.read_bytes() == b""


def test_why_a_test_failed_comes_from_its_result_its_cases_and_the_fault_that_ended_it():
    def result(**changes: object) -> dict[str, object]:
        return {"status": "failed", "grader_error": "", "output": "0 of 1 case(s) passed.", **changes}

    hung = StudentFault("timeout", "your code did not finish within this test's time limit (2 s)")
    raised = StudentFault("raised", "your code raised ValueError")
    assert reason(result(status="passed"), None, None) == ""  # type: ignore[arg-type]
    assert reason(result(grader_error="the sandbox could not start"), None, None) == "grader"  # type: ignore[arg-type]
    assert reason(result(output=NOT_RUN), None, None) == "not_run"  # type: ignore[arg-type]
    assert reason(result(), Check([CaseResult("a", raised), CaseResult("b", hung)]), None) == "timeout"  # type: ignore[arg-type]
    assert reason(result(), None, hung) == "timeout"  # type: ignore[arg-type]
    assert reason(result(), Check([CaseResult("a", raised)]), raised) == ""  # type: ignore[arg-type]
