"""How `grader grade` splits a class between judge processes."""

from __future__ import annotations

import pytest

from grader.batch import MAX_CHUNK, chunked


@pytest.mark.parametrize("n", [1, 2, 3, 8, 49, 200, 1001])
@pytest.mark.parametrize("jobs", [1, 2, 8])
def test_chunks_cover_the_class_in_order_largest_first(n: int, jobs: int) -> None:
    todo = list(range(n))
    chunks = chunked(todo, jobs)  # type: ignore[arg-type]
    assert [x for c in chunks for x in c] == todo
    sizes = [len(c) for c in chunks]
    assert sizes == sorted(sizes, reverse=True)
    assert max(sizes) <= MAX_CHUNK
    assert all(size >= 2 for size in sizes[:-1])


def test_the_tail_is_small_so_no_core_waits_long_on_the_last_chunk() -> None:
    sizes = [len(c) for c in chunked(list(range(200)), 2)]  # type: ignore[arg-type]
    assert sizes[0] == MAX_CHUNK
    assert max(sizes[-4:]) <= 3  # the last round of both cores: a few submissions each


def test_one_job_uses_the_largest_chunks() -> None:
    assert [len(c) for c in chunked(list(range(60)), 1)] == [25, 25, 10]  # type: ignore[arg-type]
