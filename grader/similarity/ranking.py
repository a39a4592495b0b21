"""How alike two documents are, and how unusual that is within the class and assignment.

*Similarity* is the share of the smaller document's fingerprints that the other holds too
(``|A ∩ B| / min(|A|, |B|)``): code pasted into a larger file, or padded with dead code, still counts
in full. Honest engines share much (everyone follows the same handout), so the number that matters is
how far a pair stands above the class: its *score* is a robust z-score,
``(similarity - median) / (1.4826 × MAD)`` over every pair of the same distribution (the class's
pairs of one assignment, or the class against one corpus folder), with the scale never below
:data:`MIN_SCALE`; its *percentile* is the share of those pairs that are less alike. A pair is
*flagged* when its score reaches the threshold and its similarity the absolute floor, or when it is
near-identical (:data:`IDENTICAL`: in a small or very uniform class no score can stand out, but code
copied whole still must): evidence for a person to review, not a verdict.

Documents with fewer than ``min_fingerprints`` fingerprints of their own (an untouched template, a
few lines) are left out of every pair, with a note: tiny documents match anything.
"""

from __future__ import annotations

import statistics
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the command line reads this module's defaults without loading copydetect
    from grader.similarity.fingerprints import Fingerprint

THRESHOLD = 4.0
"""Default score (robust z) from which a pair is flagged; chosen with ``bench/similarity.py`` (see bench/README.md)."""
FLOOR = 0.5
"""Default similarity below which no pair is flagged, however unusual (the class may be very diverse)."""
IDENTICAL = 0.95
"""Default similarity from which a pair is flagged whatever its score (near-identical code)."""
MIN_FINGERPRINTS = 20
"""Fewest fingerprints of its own (boilerplate removed) a document needs to be compared."""
MIN_SCALE = 0.02
"""Smallest scale of the score (a class whose pairs are all equally alike has a MAD of 0)."""
MAD_TO_SD = 1.4826
"""The MAD of a normal distribution times this is its standard deviation."""
BINS = 20
"""Bins of the class distribution's histogram, from 0 to 100% similarity."""


@dataclass(frozen=True)
class Settings:
    """When a pair is flagged.

    Attributes:
        threshold: The lowest score (robust z) flagged.
        floor: The lowest similarity flagged.
        identical: The similarity from which a pair is flagged whatever its score.
        min_fingerprints: Fewest fingerprints a document needs to be compared at all.
    """

    threshold: float = THRESHOLD
    floor: float = FLOOR
    identical: float = IDENTICAL
    min_fingerprints: int = MIN_FINGERPRINTS


@dataclass(slots=True)
class Pair:
    """Two documents compared.

    Attributes:
        a: The first document's index.
        b: The second's (in the other list, for a corpus).
        shared: Fingerprints they share.
        similarity: ``shared`` over the smaller document's fingerprints.
        share_a: ``shared`` over ``a``'s fingerprints.
        share_b: ``shared`` over ``b``'s fingerprints.
        score: The robust z-score within its distribution.
        percentile: The share of its distribution's pairs less alike, in percent.
        flagged: Whether it reached the threshold and the floor, or the similarity ``identical``.
    """

    a: int
    b: int
    shared: int
    similarity: float
    share_a: float
    share_b: float
    score: float = 0.0
    percentile: float = 0.0
    flagged: bool = False


@dataclass(frozen=True)
class Stats:
    """One distribution of pairs (an assignment's class pairs, or the class against one corpus folder).

    Attributes:
        pairs: How many pairs.
        median: Their median similarity.
        mad: The median absolute deviation of their similarity.
        scale: What a score of 1 is, in similarity (``1.4826 × MAD``, at least :data:`MIN_SCALE`).
        cutoff: The lowest similarity flagged (the threshold's, or the floor, whichever is higher, and never above
            ``identical``).
        counts: Pairs per histogram bin (:data:`BINS` equal bins from 0 to 1).
        flagged: How many pairs were flagged.
    """

    pairs: int
    median: float
    mad: float
    scale: float
    cutoff: float
    counts: list[int]
    flagged: int


def _pairs(rows: list[tuple[int, Fingerprint]], columns: list[tuple[int, Fingerprint]], upper: bool) -> list[Pair]:
    from grader.similarity.fingerprints import shared_counts  # numpy: not when the command line only reads defaults

    if not rows or not columns:
        return []
    shared = shared_counts([p for _, p in rows], None if upper else [p for _, p in columns])
    pairs = []
    for r, (i, fa) in enumerate(rows):
        la = len(fa)
        for c in range(r + 1 if upper else 0, len(columns)):
            j, fb = columns[c]
            n, lb = int(shared[r, c]), len(fb)
            pairs.append(Pair(i, j, n, n / min(la, lb), n / la, n / lb))
    return pairs


def within(prints: Sequence[Fingerprint | None]) -> list[Pair]:
    """Every pair of the documents that have fingerprints (None: left out)."""
    kept = [(i, p) for i, p in enumerate(prints) if p is not None and len(p)]
    return _pairs(kept, kept, upper=True)


def across(prints: Sequence[Fingerprint | None], others: Sequence[Fingerprint | None]) -> list[Pair]:
    """Every document of ``prints`` against every one of ``others`` (None: left out)."""
    return _pairs([(i, p) for i, p in enumerate(prints) if p is not None and len(p)],
                  [(j, p) for j, p in enumerate(others) if p is not None and len(p)], upper=False)


def rank(pairs: list[Pair], settings: Settings) -> Stats:
    """Score, rank and flag ``pairs`` (one distribution) in place; return the distribution's statistics."""
    sims = sorted(p.similarity for p in pairs)
    counts = [0] * BINS
    for s in sims:
        counts[min(int(s * BINS), BINS - 1)] += 1
    if not sims:
        return Stats(0, 0.0, 0.0, MIN_SCALE, 1.0, counts, 0)
    median = statistics.median(sims)
    mad = statistics.median(abs(s - median) for s in sims)
    scale = max(MAD_TO_SD * mad, MIN_SCALE)
    cutoff = min(max(settings.floor, median + settings.threshold * scale), settings.identical)
    flagged = 0
    for p in pairs:
        p.score = (p.similarity - median) / scale
        p.percentile = 100.0 * bisect_left(sims, p.similarity) / len(sims)
        p.flagged = (p.score >= settings.threshold and p.similarity >= settings.floor) or \
            p.similarity >= settings.identical
        flagged += p.flagged
    return Stats(len(sims), median, mad, scale, cutoff, counts, flagged)
