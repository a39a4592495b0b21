"""A test's own ``time_limit(seconds)``: below the assignment's limit, so a hang on a millisecond test costs seconds."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from grader.judge.plugin import test_seconds as limit_of

ROOT = Path(__file__).resolve().parents[2]


class Item:
    """The part of a pytest item the limit reads."""

    nodeid = "tests/hidden/test_x.py::test_paths"

    def __init__(self, *args: object) -> None:
        self.marker = SimpleNamespace(name="time_limit", args=args) if args else None

    def get_closest_marker(self, name: str) -> object:
        return self.marker if name == "time_limit" else None


def test_the_marker_lowers_the_limit_and_never_raises_it():
    assert limit_of(Item(2), 10.0) == 2.0  # type: ignore[arg-type]
    assert limit_of(Item(30), 10.0) == 10.0  # type: ignore[arg-type]
    assert limit_of(Item(), 10.0) == 10.0  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [0, -1, "2", None, True])
def test_a_limit_that_is_not_a_positive_number_is_a_usage_error(bad):
    with pytest.raises(pytest.UsageError, match="time_limit"):
        limit_of(Item(bad), 10.0)  # type: ignore[arg-type]


def test_the_2_to_the_40_paths_test_has_its_own_small_limit():
    """The reference takes milliseconds on it; an engine without a visited set never finishes it."""
    source = (ROOT / "assignments" / "backward" / "tests" / "hidden" / "test_backward_hidden.py").read_text()
    head = source[:source.index("def test_each_node_visited_once")].rsplit("\n\n", 1)[-1]
    assert "@pytest.mark.time_limit(2)" in head
