"""A test's own ``time_limit(seconds)``: below the assignment's limit, so a hang on a millisecond test costs seconds."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from grader.judge.plugin import test_seconds as limit_of


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

