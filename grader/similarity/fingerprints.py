"""Code fingerprints, with copydetect (winnowing as in MOSS, over Pygments tokens).

copydetect (https://github.com/blingenf/copydetect) tokenises a document with Pygments and writes
every name as ``V``, ``F`` or ``O`` and every string as ``S``, dropping comments and white space
(:func:`copydetect.utils.filter_code`), so renaming variables, rewriting comments or re-indenting
changes nothing. Before that, :func:`blank` turns docstrings and type annotations into spaces (the
text keeps its length, so positions still point into the student's own code): rewriting a docstring,
or a signature with or without the template's annotations, changes nothing either. copydetect then
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
documents share into the regions of each text that match, paired with their counterpart in the other
(copydetect's :func:`~copydetect.utils.get_copied_slices`).
"""

from __future__ import annotations

import ast
import multiprocessing
import os
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from copydetect.utils import filter_code, get_copied_slices, get_document_fingerprints

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


def _spans(text: str) -> list[tuple[int, int]]:
    """Where ``text`` holds string statements (docstrings) and annotations, as character offsets; [] if it does not
    parse."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def at(row: int | None, col: int | None) -> int:  # ast columns count UTF-8 bytes
        if row is None or col is None or not 1 <= row <= len(lines):
            return -1
        return starts[row - 1] + len(lines[row - 1].encode("utf-8")[:col].decode("utf-8", "ignore"))

    spans = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            spans.append((at(node.lineno, node.col_offset), at(node.end_lineno, node.end_col_offset)))
        elif isinstance(node, ast.arg) and node.annotation is not None:
            spans.append((at(node.lineno, node.col_offset) + len(node.arg),
                          at(node.annotation.end_lineno, node.annotation.end_col_offset)))
        elif isinstance(node, ast.AnnAssign):
            spans.append((at(node.target.end_lineno, node.target.end_col_offset),
                          at(node.annotation.end_lineno, node.annotation.end_col_offset)))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.returns is not None:
            begin = at(node.returns.lineno, node.returns.col_offset)
            spans.append((text.rfind("->", 0, begin), at(node.returns.end_lineno, node.returns.end_col_offset)))
    return [(a, b) for a, b in spans if 0 <= a < b]


def blank(text: str) -> str:
    """``text`` with its string statements (docstrings) and type annotations turned into spaces, newlines kept.

    The text keeps its length, so copydetect's positions still point into the student's own text, but a
    docstring rewritten or dropped, or a signature with or without annotations (the template's have them), no
    longer changes a fingerprint. Code that does not parse is left as it is.
    """
    spans = _spans(text)
    if not spans:
        return text
    chars = list(text)
    for a, b in spans:
        for i in range(a, b):
            if chars[i] not in "\r\n":
                chars[i] = " "
    return "".join(chars)


def tokenise(text: str) -> Tokens:
    """copydetect's filtered Python tokens of ``text`` (:func:`blank`ed first)."""
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
    """The fingerprints winnowing keeps of ``tokens`` (all of them at ``GUARANTEE == NOISE``), boilerplate removed."""
    if len(tokens.filtered) < NOISE:
        return Fingerprint(frozenset(), {}, tokens)
    _, index = get_document_fingerprints(tokens.filtered, NOISE, GUARANTEE - NOISE + 1, boilerplate_hashes)
    hashes = np.fromiter(index, dtype=np.int64, count=len(index))
    return Fingerprint(frozenset(hashes.tolist()), index, tokens)  # numpy keys: they hash and compare as ints


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


def matched_regions(a: Fingerprint, b: Fingerprint) -> list[Region]:
    """The regions of ``a``'s text that match ``b``'s, in ``a``'s order, each with its counterpart in ``b``: the
    region of ``b`` that holds most of the same fingerprints (a region moved elsewhere is still paired)."""
    shared = list(a.hashes & b.hashes)
    if not shared:
        return []
    pos_a = np.concatenate([np.asarray(a.positions[h], dtype=np.int64) for h in shared])
    pos_b = np.concatenate([np.asarray(b.positions[h], dtype=np.int64) for h in shared])
    slices_a, slices_b = get_copied_slices(pos_a, NOISE), get_copied_slices(pos_b, NOISE)
    first_a = np.array([a.positions[h][0] for h in shared], dtype=np.int64)
    first_b = np.array([b.positions[h][0] for h in shared], dtype=np.int64)
    region_a = np.searchsorted(slices_a[0], first_a, side="right") - 1
    region_b = np.searchsorted(slices_b[0], first_b, side="right") - 1
    keys, counts = np.unique(np.stack([region_a, region_b], axis=1), axis=0, return_counts=True)
    text_a, text_b = _to_text(slices_a, a.tokens.offsets), _to_text(slices_b, b.tokens.offsets)
    best: dict[int, tuple[int, int]] = {}  # region of a: (its most common region of b, how many)
    total: Counter[int] = Counter()
    for (ia, ib), n in zip(keys.tolist(), counts.tolist()):
        total[ia] += n
        if ia not in best or n > best[ia][1]:
            best[ia] = (ib, n)
    return [Region((int(text_a[0][ia]), int(text_a[1][ia])), (int(text_b[0][ib]), int(text_b[1][ib])), total[ia])
            for ia, (ib, _) in sorted(best.items())]
