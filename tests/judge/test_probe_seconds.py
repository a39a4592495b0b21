"""The reference's times shipped with a release (issue 56): read with bounds, looked up by a self-check only."""

from __future__ import annotations

import json

import pytest
from checkout import ROOT

from grader.judge import probe_seconds
from grader.judge.deadlines import request_key
from grader.judge.manifest import Manifest
from grader.judge.probe_seconds import FILE, hashed, read, write
from grader.judge.state import GradingState

SPEC = {"leaves": [3.0], "nodes": [["pow", 0, {"const": 2}]], "mode": "local", "seed": 1.0}
KEY = request_key("graph", [SPEC])


def test_what_is_written_is_read_back_hashed_and_without_the_probes_that_failed(tmp_path):
    path = tmp_path / FILE
    assert write(path, {KEY: 0.0012345678, request_key("graph", []): None}) == 1
    assert read(path) == {hashed(KEY): 0.001235}
    text = path.read_text()
    assert "graph" not in text and "pow" not in text  # the call is a hash: neither the probe nor its arguments
    assert set(json.loads(text)) == {"about", "seconds"}


def good(value: object = 0.5) -> dict:
    return {"about": "", "seconds": {hashed(KEY): 0.25, hashed("other"): value}}


@pytest.mark.parametrize("doc", [
    good(-1.0), good(float("nan")), good(float("inf")), good(True), good("0.5"), good(None), good([0.5]),
    good(probe_seconds.MAX_SECONDS * 2), {"seconds": {"not a hash": 0.5}}, {"seconds": {hashed(KEY).upper(): 0.5}},
    {"seconds": [0.5]}, [0.5], "text", {"other": {}},
], ids=lambda doc: json.dumps(doc)[:40])
def test_a_hand_edited_table_is_no_table(tmp_path, doc):
    """One entry that is not a time (negative, not finite, not a number, too large) or a key that is not a hash: the
    file was edited, and no entry of it is trusted."""
    path = tmp_path / FILE
    path.write_text(json.dumps(doc))  # json writes NaN and Infinity as Python reads them
    assert read(path) == {}
    assert read(tmp_path / "good.json") == {}  # no file
    (tmp_path / "good.json").write_text(json.dumps(good()))
    assert read(tmp_path / "good.json") == {hashed(KEY): 0.25, hashed("other"): 0.5}


def test_a_table_too_large_or_not_json_is_no_table(tmp_path, monkeypatch):
    path = tmp_path / FILE
    for text in ("{", "\x00\xff", "[" * 100_000 + "]" * 100_000, '{"seconds": {"' + "a" * 64 + '": 1' + "0" * 5000 + "}}"):
        path.write_text(text)
        assert read(path) == {}
    monkeypatch.setattr(probe_seconds, "MAX_ENTRIES", 1)
    path.write_text(json.dumps(good()))
    assert read(path) == {}
    monkeypatch.setattr(probe_seconds, "MAX_BYTES", 10)
    path.write_text(json.dumps({"seconds": {}}) + " " * 10)
    assert read(path) == {}
    (tmp_path / "folder.json").mkdir()
    assert read(tmp_path / "folder.json") == {}


def self_check_state(course) -> GradingState:
    return GradingState(Manifest(course=str(course), assignments=["value_ops"], jobs=[], runtime=str(course), out="",
                                 include_hidden=False))


def test_a_self_check_reads_the_release_s_table_and_a_broken_one_gives_no_limit(tmp_path):
    """Without the reference, a probe's time comes from ``assignments/probe_seconds.json`` (a probe it does not
    hold: None, the test's limit holds); a broken file is no table, never an error."""
    release = tmp_path / "release"
    (release / "assignments").mkdir(parents=True)
    for entry in (ROOT / "assignments").iterdir():  # the course's assignments, and the table beside them
        (release / "assignments" / entry.name).symlink_to(entry)
    write(release / "assignments" / FILE, {KEY: 0.004})
    state = self_check_state(release)
    assert state.reference_seconds("graph", [SPEC]) == 0.004
    assert state.reference_seconds("graph", [{**SPEC, "seed": 2.0}]) is None
    assert self_check_state(ROOT).reference_seconds("graph", [SPEC]) is None  # the instructor's course: no table
    (release / "assignments" / FILE).write_text(json.dumps({"seconds": {hashed(KEY): -1}}))
    assert self_check_state(release).reference_seconds("graph", [SPEC]) is None
