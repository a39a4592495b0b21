"""Code fingerprints, with copydetect (winnowing as in MOSS, over Pygments tokens).

copydetect (https://github.com/blingenf/copydetect) tokenises a document with Pygments and writes
every name as ``V``, ``F`` or ``O`` and every string as ``S``, dropping comments and white space
(:func:`copydetect.utils.filter_code`), so renaming variables, rewriting comments or re-indenting
changes nothing. Before that, :func:`~grader.similarity.normalise.blank` turns docstrings, type annotations and
code that does nothing (``pass``, ``...``, dead code, ``if True:``, redundant parentheses...) into spaces (the text
keeps its length, so positions still point into the student's own code): rewriting a docstring, a signature with or
without the template's annotations, or a ``pass`` after every statement, changes nothing either. copydetect then
hashes every ``NOISE``-character substring (a k-gram) of the filtered code and keeps those winnowing
selects (:func:`copydetect.utils.get_document_fingerprints`), minus the *boilerplate*: here every
k-gram of the release's template (its ``.py`` files and the code cells of its notebook), so the
signatures and stubs every student was given match nothing.

``GUARANTEE == NOISE`` (copydetect's own default) keeps every k-gram. copydetect's hashes are
Python's string hashes, which differ from one process to the next, and winnowing's choice would
differ with them; keeping every k-gram makes a pair's score the same on every run. It is affordable:
:func:`shared_counts` compares a class's fingerprint sets all at once.

Tokenising is most of the work (a few milliseconds per file); :func:`tokenise_all` spreads it over
processes, and only tokens cross a process boundary. :func:`matched_regions` turns the fingerprints two
documents share into the regions of each text that match (copydetect's :func:`~copydetect.utils.get_copied_slices`
over every position of every shared fingerprint, on both sides), each paired with its counterpart in the other.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from copydetect.utils import filter_code, get_copied_slices, get_document_fingerprints, hashed_kgrams, winnow

from grader.similarity.normalise import blank

NOISE = 12
"""copydetect's noise threshold: characters of filtered code in one fingerprint (a k-gram; about one short
statement, ``self.V+=V.V``). Chosen with ``bench/similarity.py`` (12 to 15 separate copies from honest pairs best)."""
GUARANTEE = NOISE
"""copydetect's guarantee threshold: a match this long is always found; the winnowing window is
``GUARANTEE - NOISE + 1`` k-grams, here 1 (every k-gram, so that scores do not depend on the process)."""
PARALLEL_FROM = 48
"""Documents from which tokenising is spread over processes (below it, starting them costs more than it saves)."""


@dataclass(frozen=True)
class Tokens:
    """A document after copydetect's filter: what fingerprints are taken from.

    Attributes:
        filtered: The filtered code (names as ``V``/``F``/``O``, strings as ``S``, no comments or spaces).
        offsets: copydetect's map from positions in ``filtered`` back to the original text.
    """

    filtered: str
    offsets: Any  # numpy array of (filtered position, characters removed before it)


@dataclass
class Fingerprint:
    """A document's fingerprints, boilerplate removed.

    Attributes:
        hashes: The fingerprints (Python integers).
        positions: Each fingerprint's positions in the filtered code.
        tokens: The filtered code they were taken from.
    """

    hashes: frozenset[int]
    positions: dict[int, list[int]] = field(repr=False)
    tokens: Tokens = field(repr=False)

    def __len__(self) -> int:
        return len(self.hashes)


@dataclass(frozen=True)
class Region:
    """A stretch of code that matches between two documents.

    Attributes:
        a: ``(start, end)`` character offsets in the first document's text.
        b: ``(start, end)`` of its counterpart in the second document's text (where most of its fingerprints are).
        fingerprints: How many shared fingerprints it holds.
    """

    a: tuple[int, int]
    b: tuple[int, int]
    fingerprints: int


def tokenise(text: str) -> Tokens:
    """copydetect's filtered Python tokens of ``text`` (:func:`~grader.similarity.normalise.blank`ed first)."""
    filtered, offsets = filter_code(blank(text), "submission.py", "python")
    return Tokens(filtered, offsets)


def join(parts: Sequence[tuple[int, Tokens]]) -> Tokens:
    """The tokens of texts one after the other, from each text's length and tokens (positions shifted to match)."""
    if len(parts) == 1:
        return parts[0][1]
    filtered, offsets, raw, done = [], [], 0, 0
    for length, tokens in parts:
        filtered.append(tokens.filtered)
        if len(tokens.offsets):
            offsets.append(np.asarray(tokens.offsets, dtype=np.int64) + np.array([done, raw - done], dtype=np.int64))
        raw, done = raw + length, done + len(tokens.filtered)
    return Tokens("".join(filtered), np.concatenate(offsets) if offsets else np.zeros((0, 2), dtype=np.int64))


def tokenise_all(texts: Sequence[str], jobs: int = 1) -> list[Tokens]:
    """:func:`tokenise` each text, in ``jobs`` processes when there are many (results in order)."""
    if jobs <= 1 or len(texts) < PARALLEL_FROM:
        return [tokenise(t) for t in texts]
    # spawn: a fresh interpreter everywhere (fork in a threaded process is unsafe, and absent on Windows)
    context = multiprocessing.get_context("spawn")
    try:
        with ProcessPoolExecutor(max_workers=min(jobs, os.cpu_count() or 1), mp_context=context) as pool:
            return list(pool.map(tokenise, texts, chunksize=max(1, len(texts) // (jobs * 4))))
    except (BrokenProcessPool, OSError):  # a worker died (out of memory, killed): the work is done here instead
        return [tokenise(t) for t in texts]


def boilerplate(documents: Sequence[Sequence[str]]) -> Any:
    """Every fingerprint (no winnowing) of ``documents``, each the texts of its files: what to subtract, as a sorted
    array without repeats."""
    found: list[Any] = []
    for texts in documents:
        tokens = join([(len(text), tokenise(text)) for text in texts])
        hashes, _ = get_document_fingerprints(tokens.filtered, NOISE, 1)
        found.extend(hashes)
    return np.unique(np.array(found, dtype=np.int64))


def fingerprint(tokens: Tokens, boilerplate_hashes: Any) -> Fingerprint:
    """The fingerprints winnowing keeps of ``tokens`` (all of them at ``GUARANTEE == NOISE``), boilerplate removed,
    each with every position it has.

    copydetect's :func:`~copydetect.utils.get_document_fingerprints` finds the same set, but removes boilerplate
    with ``np.intersect1d(..., assume_unique=True)`` on hashes that repeat: a fingerprint found several times keeps
    only its last position there, so code pasted twice would be matched in one place only. The boilerplate is
    removed here by value (:func:`numpy.isin`), which keeps every position.
    """
    if len(tokens.filtered) < NOISE:
        return Fingerprint(frozenset(), {}, tokens)
    hashes, where = winnow(hashed_kgrams(tokens.filtered, NOISE), GUARANTEE - NOISE + 1, remove_duplicates=False)
    hashes, where = np.asarray(hashes, dtype=np.int64), np.asarray(where, dtype=np.int64)
    if len(boilerplate_hashes):
        keep = ~np.isin(hashes, np.asarray(boilerplate_hashes, dtype=np.int64))
        hashes, where = hashes[keep], where[keep]
    index: dict[int, list[int]] = {}
    for h, i in zip(hashes.tolist(), where.tolist()):
        index.setdefault(h, []).append(i)
    return Fingerprint(frozenset(index), index, tokens)


BLOCK = 8192
"""Fingerprints per block of the matrices :func:`shared_counts` multiplies (their memory: documents x BLOCK x 4 bytes)."""


def shared_counts(rows: Sequence[Fingerprint], columns: Sequence[Fingerprint] | None = None) -> Any:
    """How many fingerprints each of ``rows`` shares with each of ``columns`` (default: each other one of ``rows``:
    the diagonal is meaningless), as a matrix.

    The set intersections of every pair at once: a fingerprint found in one document only cannot be shared, so
    only those found in two or more are counted, as the columns of a 0/1 matrix per side; the product of the two
    counts, for each pair, the fingerprints both hold (whole numbers well below 2**24, exact in float32). The
    columns are taken :data:`BLOCK` at a time, so memory stays small however large the class.
    """
    sides = [list(rows)] + ([list(columns)] if columns is not None else [])
    arrays = [np.fromiter(fp.hashes, dtype=np.int64, count=len(fp.hashes)) for side in sides for fp in side]
    values, counts = np.unique(np.concatenate(arrays) if arrays else np.zeros(0, np.int64), return_counts=True)
    common = values[counts > 1]
    if not len(common):  # no fingerprint is in two documents (e.g. one submission holds this assignment's code)
        return np.zeros((len(sides[0]), len(sides[-1])), dtype=np.int64)
    where = []  # each document's columns, sorted
    for a in arrays:
        at = np.searchsorted(common, a)
        where.append(np.sort(at[(at < len(common)) & (common[np.minimum(at, len(common) - 1)] == a)]))
    left_cols = where[: len(sides[0])]
    right_cols = left_cols if columns is None else where[len(sides[0]):]
    out = np.zeros((len(left_cols), len(right_cols)), dtype=np.int64)

    def block(cols: list[Any], lo: int, hi: int) -> Any:
        m = np.zeros((len(cols), hi - lo), dtype=np.float32)
        for i, c in enumerate(cols):
            m[i, c[np.searchsorted(c, lo): np.searchsorted(c, hi)] - lo] = 1.0
        return m

    for lo in range(0, len(common), BLOCK):
        hi = min(lo + BLOCK, len(common))
        left = block(left_cols, lo, hi)
        right = left if columns is None else block(right_cols, lo, hi)
        out += np.rint(left @ right.T).astype(np.int64)
    return out


def _to_text(slices: Any, offsets: Any) -> Any:
    """copydetect's mapping of filtered positions to positions in the original text (as in ``compare_files``)."""
    slices = np.array(slices, dtype=np.int64)
    if len(offsets) > 0 and slices.size:
        slices = slices + offsets[:, 1][np.clip(np.searchsorted(offsets[:, 0], slices), 0, offsets.shape[0] - 1)]
    return slices


MAX_REGIONS = 500
"""Matched regions :func:`matched_regions` returns at most (the ones holding the most fingerprints): a file built to
repeat one fingerprint a hundred thousand times still gives a page and a record of bounded size."""


def _occurrences(fp: Fingerprint, shared: Sequence[int]) -> tuple[Any, Any, Any]:
    """Every position in ``fp`` of the ``shared`` fingerprints, the index in ``shared`` of each one's fingerprint, and
    each fingerprint's first position."""
    arrays = [np.asarray(fp.positions[h], dtype=np.int64) for h in shared]
    sizes = np.fromiter((len(x) for x in arrays), dtype=np.int64, count=len(arrays))
    positions = np.concatenate(arrays)
    first = np.minimum.reduceat(positions, np.concatenate([[0], np.cumsum(sizes)[:-1]]))
    return positions, np.repeat(np.arange(len(shared), dtype=np.int64), sizes), first


def _most_common(region: Any, other: Any, regions: int, others: int) -> Any:
    """For each of ``regions`` regions, the value of ``other`` most often paired with it in (``region``, ``other``)
    (ties: the lowest, i.e. the first in the text); -1 for a region without any."""
    codes, counts = np.unique(region * others + other, return_counts=True)
    order = np.lexsort((-counts, codes // others))  # by region, then most common first (stable: lowest other first)
    best = np.full(regions, -1, dtype=np.int64)
    picked = codes[order]
    first = np.concatenate([[True], picked[1:] // others != picked[:-1] // others])
    best[picked[first] // others] = picked[first] % others
    return best


def matched_regions(a: Fingerprint, b: Fingerprint, limit: int = MAX_REGIONS) -> list[Region]:
    """The regions of ``a``'s and ``b``'s texts that match, each paired with a counterpart on the other side, in
    ``a``'s order; at most ``limit`` of them (those holding the most fingerprints).

    Every position of every shared fingerprint is in a region, on both sides: code pasted twice, or a fingerprint
    repeated to collide with a classmate's, is shown every time it occurs. Each region of either side is paired
    with the region of the other that holds most of its fingerprints (where they first occur there), so a region
    moved elsewhere is still paired, and one region may be the counterpart of several. ``fingerprints`` counts the
    shared fingerprints both regions of a pair hold. The work is linear in the positions, however often a
    fingerprint repeats.
    """
    shared = list(a.hashes & b.hashes)
    if not shared:
        return []
    pos_a, hid_a, first_a = _occurrences(a, shared)
    pos_b, hid_b, first_b = _occurrences(b, shared)
    slices_a, slices_b = get_copied_slices(pos_a, NOISE), get_copied_slices(pos_b, NOISE)
    n_a, n_b, n_h = slices_a.shape[1], slices_b.shape[1], len(shared)
    # each side's (region, fingerprint), once each, as sorted codes region * n_h + fingerprint
    held_a = np.unique((np.searchsorted(slices_a[0], pos_a, side="right") - 1) * n_h + hid_a)
    held_b = np.unique((np.searchsorted(slices_b[0], pos_b, side="right") - 1) * n_h + hid_b)
    home_a = np.searchsorted(slices_a[0], first_a, side="right") - 1  # each fingerprint's first region
    home_b = np.searchsorted(slices_b[0], first_b, side="right") - 1
    reg_a, fp_a = held_a // n_h, held_a % n_h
    reg_b, fp_b = held_b // n_h, held_b % n_h
    to_b = _most_common(reg_a, home_b[fp_a], n_a, n_b)  # each region of a's counterpart in b
    to_a = _most_common(reg_b, home_a[fp_b], n_b, n_a)

    def both(held_other: Any, region: Any, fps: Any, counterpart: Any, regions: int) -> Any:
        """For each region of one side, how many of its fingerprints its counterpart holds too."""
        code = counterpart[region] * n_h + fps
        at = np.minimum(np.searchsorted(held_other, code), len(held_other) - 1)
        return np.bincount(region, weights=(held_other[at] == code), minlength=regions).astype(np.int64)

    # the pairs, each region of either side with its counterpart (a pair found from both sides once), as codes
    codes = np.concatenate([np.arange(n_a, dtype=np.int64) * n_b + to_b, to_a * n_b + np.arange(n_b, dtype=np.int64)])
    counts = np.concatenate([both(held_b, reg_a, fp_a, to_b, n_a), both(held_a, reg_b, fp_b, to_a, n_b)])
    codes, at = np.unique(codes, return_index=True)  # the same pair found from both sides holds the same count
    counts = counts[at]
    kept = np.sort(np.lexsort((codes, -counts))[:limit])  # the most fingerprints first; then back in a's order
    text_a, text_b = _to_text(slices_a, a.tokens.offsets), _to_text(slices_b, b.tokens.offsets)
    return [Region((int(text_a[0][ia]), int(text_a[1][ia])), (int(text_b[0][ib]), int(text_b[1][ib])), int(n))
            for ia, ib, n in zip((codes[kept] // n_b).tolist(), (codes[kept] % n_b).tolist(), counts[kept].tolist())]
