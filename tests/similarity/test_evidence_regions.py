"""The side-by-side evidence shows every matched region on both sides (``matched_regions``, ``evidence.render``).

A submission can hold a classmate's code twice, or repeat a fragment of it to collide with the classmate's
fingerprints (so that the classmate is the one who looks like a copier). A person can only see that for what it is
if every place the shared code occurs is highlighted, on both sides; and a file that repeats one fingerprint a
hundred thousand times must still give a small page, quickly.
"""

from __future__ import annotations

import time

import numpy as np
import pytest
from checkout import ROOT
from evidence_pages import Page

from grader.course.course import Course
from grader.similarity import fingerprints
from grader.similarity.class_pairs import template_texts
from grader.similarity.evidence import Evidence, render
from grader.similarity.fingerprints import (
    NOISE,
    Fingerprint,
    Region,
    Tokens,
    boilerplate,
    fingerprint,
    matched_regions,
    tokenise,
)
from grader.similarity.similarity_json import PairRecord, RegionRecord, Side
from grader.similarity.sources import Document

VARIANTS = ROOT / "reference" / "variants"


def engine(name: str) -> str:
    return (VARIANTS / name / "micrograd" / "engine.py").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def template() -> object:
    """What the release gives for ``value_ops``: subtracted as in a real run (its removal is what lost positions)."""
    course = Course(ROOT)
    return boilerplate(template_texts(course, course.assignments(["value_ops"])[0]))


def covered(spans: list[tuple[int, int]], start: int, end: int) -> float:
    """The share of the characters ``start``..``end`` that ``spans`` cover."""
    marked = np.zeros(end - start, dtype=bool)
    for a, b in spans:
        marked[max(a, start) - start: max(min(b, end) - start, 0)] = True
    return float(marked.mean())


def page(text_a: str, text_b: str, regions: list[Region]) -> str:
    """The evidence page of two documents and their regions (line ranges in the record are not checked here)."""
    record = PairRecord("value_ops", "class", Side("class", "mia", "micrograd/engine.py"),
                        Side("class", "zed", "micrograd/engine.py"), 0.9, 0.9, 0.9, 10.0, 99.0, True,
                        [RegionRecord((1, 1), (1, 1), r.fingerprints) for r in regions])
    docs = [Document("class", who, "micrograd/engine.py", text, ((0, "micrograd/engine.py"),))
            for who, text in (("mia", text_a), ("zed", text_b))]
    return render(Evidence(record, docs[0], docs[1], regions), None)


def test_boilerplate_removal_keeps_every_position_of_a_fingerprint_found_twice(template):
    # copydetect removes boilerplate with intersect1d(assume_unique=True) on repeating hashes: a fingerprint found
    # twice kept only its last position, so the first copy of pasted code matched nothing
    victim = engine("kahn_list")
    body = victim[victim.index("class Value"):]
    tokens = tokenise(victim + "\n\n" + body.replace("class Value", "class _Backup", 1))
    found = fingerprint(tokens, template)
    every = [hash(tokens.filtered[i: i + NOISE]) for i in range(len(tokens.filtered) - NOISE + 1)]
    expected: dict[int, list[int]] = {}
    for i, h in enumerate(every):
        if not np.isin(h, template):
            expected.setdefault(h, []).append(i)
    assert found.positions == expected
    assert found.hashes == frozenset(expected)  # the set scores are computed from is what it was


@pytest.mark.parametrize("zed_first", [False, True], ids=["mia-zed", "zed-mia"])
def test_a_classmates_code_pasted_twice_is_highlighted_in_both_copies_and_in_the_original(template, zed_first):
    victim = engine("kahn_list")
    body = victim[victim.index("class Value"):]
    zed = victim + "\n\n" + body.replace("class Value", "class _Backup", 1)
    first, second = (victim.index("class Value"), len(victim)), (len(victim) + 2, len(zed))
    mia_fp, zed_fp = fingerprint(tokenise(victim), template), fingerprint(tokenise(zed), template)
    if zed_first:
        regions = matched_regions(zed_fp, mia_fp)
        zed_spans, mia_spans = [r.a for r in regions], [r.b for r in regions]
    else:
        regions = matched_regions(mia_fp, zed_fp)
        zed_spans, mia_spans = [r.b for r in regions], [r.a for r in regions]
    assert covered(zed_spans, *first) > 0.9 and covered(zed_spans, *second) > 0.9, (first, second, regions)
    assert covered(mia_spans, victim.index("class Value"), len(victim)) > 0.9
    text_a, text_b = (zed, victim) if zed_first else (victim, zed)
    marked = Page(page(text_a, text_b, regions)).marked
    assert marked["a" if zed_first else "b"] >= 1.8 * marked["b" if zed_first else "a"], marked


def test_a_fragment_repeated_to_collide_with_a_classmate_is_highlighted_every_time_on_both_sides(template):
    # a collision: the classmate's __mul__ repeated between unrelated functions, to share their fingerprints
    honest = engine("kahn_list")
    start = honest.index("    def __mul__")
    fragment = honest[start: honest.index("\n    def ", start + 1) + 1]
    junk = [f"\n\ndef unrelated_{n}(x):\n    return [x] * {n} + list(range({n}))\n\nclass Holder{n}:\n" for n in range(6)]
    attack = "".join(j + fragment for j in junk)
    copies = [attack.index(j) + len(j) for j in junk]
    regions = matched_regions(fingerprint(tokenise(honest), template), fingerprint(tokenise(attack), template))
    on_attack = [r.b for r in regions]
    shares = [covered(on_attack, c, c + len(fragment)) for c in copies]
    assert min(shares) > 0.8, shares
    assert covered([r.a for r in regions], start, start + len(fragment)) > 0.8


def test_one_fingerprint_repeated_100000_times_gives_a_bounded_page_quickly_that_says_it_is_capped():
    # a pathological file: one shared fingerprint 100,000 times, each time apart (so each is its own region)
    cap = fingerprints.MAX_REGIONS
    repeats, gap = 100_000, 2 * NOISE
    size = repeats * gap
    a = Fingerprint(frozenset({7}), {7: [0]}, Tokens("x" * NOISE, np.zeros((0, 2), dtype=np.int64)))
    b = Fingerprint(frozenset({7, 8}), {7: list(range(0, size, gap)), 8: list(range(NOISE, size, gap))},
                    Tokens("y" * size, np.zeros((0, 2), dtype=np.int64)))
    started = time.monotonic()
    regions = matched_regions(a, b)
    both_ways = matched_regions(b, b)  # every region of both sides repeats: still linear
    seconds = time.monotonic() - started
    assert len(regions) == cap and len(both_ways) == cap, (len(regions), len(both_ways))
    assert seconds < 5, f"{seconds:.1f} s for 100,000 repeats"
    assert all(r.a == (0, NOISE) and r.fingerprints == 1 for r in regions)
    text = "v.grad += w.data\n" * cap
    shown = page(text, text, [Region((i * 17, i * 17 + 10), (i * 17, i * 17 + 10), 1) for i in range(cap)])
    assert "Not every match is shown" in shown and f"the {cap} matched regions" in shown
    assert "Not every match is shown" not in page(text, text, regions[:3])
