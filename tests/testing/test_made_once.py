"""Seeded cases built once per judge: every student gets a copy equal to a fresh build, its own to change."""

from __future__ import annotations

import random

import pytest

from grader.testing import made_once

BUILDS: list[str] = []


@made_once
def cases(seed: str, n: int = 3) -> list[tuple[random.Random, list[float]]]:
    BUILDS.append(seed)
    rng = random.Random(seed)
    return [(rng, [rng.random() for _ in range(n)])]


def test_each_call_gets_what_a_fresh_build_gives_and_its_own_copy() -> None:
    first = cases("a")
    fresh = cases.__wrapped__("a")  # type: ignore[attr-defined]
    assert first[0][1] == fresh[0][1]
    # the first student's test draws from its generator and changes its list ...
    first[0][0].random()
    first[0][1].append(99.0)
    second = cases("a")
    # ... the second student's copy starts where the first one did
    assert second[0][1] == fresh[0][1] and second[0][0].random() == fresh[0][0].random()
    assert BUILDS.count("a") == 2  # built once by the decorator (and once above, undecorated)


def test_other_arguments_are_other_cases() -> None:
    assert cases("b")[0][1] != cases("c")[0][1]
    assert len(cases("b", n=2)[0][1]) == 2 and len(cases("b")[0][1]) == 3
    cases("b", n=2)
    assert BUILDS.count("b") == 2  # ("b",) and ("b", n=2), each built once


def test_an_unhashable_argument_is_refused() -> None:
    with pytest.raises(TypeError):
        cases(["not", "hashable"])  # type: ignore[arg-type]
