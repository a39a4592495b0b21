"""One ``grader similarity`` run: score the class, then write ``similarity.json`` and the evidence pages.

:func:`compare_class` scores every pair (:func:`grader.similarity.class_pairs.score_class`), keeps every
flagged pair and, for context, the most unusual unflagged ones of each distribution, works out their
matched regions, writes one side-by-side page per flagged pair (:mod:`grader.similarity.evidence`)
and ``OUT/similarity.json`` (:mod:`grader.similarity.similarity_json`). It reads no result and writes no score.
"""

from __future__ import annotations

import time
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path

from grader.course.course import Course
from grader.errors import GraderError
from grader.similarity import similarity_json as R
from grader.similarity.class_pairs import score_class
from grader.similarity.evidence import Evidence, write_pages
from grader.similarity.fingerprints import GUARANTEE, NOISE, Fingerprint, Region, matched_regions
from grader.similarity.normalise import blank
from grader.similarity.ranking import Settings
from grader.similarity.sources import Document

CONTEXT = 10
"""Unflagged pairs kept in ``similarity.json`` per distribution, the most unusual (for context)."""


def line_starts(text: str) -> list[int]:
    """Where each line of ``text`` starts (character offsets)."""
    return [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]


def lines_of(starts: list[int], span: tuple[int, int]) -> tuple[int, int]:
    """The 1-based lines, first and last, that the character range ``span`` covers (``starts``: :func:`line_starts`)."""
    return bisect_right(starts, span[0]), bisect_right(starts, max(span[0], span[1] - 1))


def _word(c: str) -> bool:
    return c.isalnum() or c == "_"


def snap(text: str, span: tuple[int, int]) -> tuple[int, int]:
    """``span`` of ``text`` widened on each side to whole names (copydetect's positions may fall inside one)."""
    a, b = span
    while 0 < a < len(text) and _word(text[a - 1]) and _word(text[a]):
        a -= 1
    while 0 < b < len(text) and _word(text[b - 1]) and _word(text[b]):
        b += 1
    return a, b


def blanked(doc: Document) -> str:
    """``doc``'s text as fingerprints see it: each file :func:`~grader.similarity.normalise.blank`ed (same length)."""
    bounds = [offset for offset, _ in doc.parts] + [len(doc.text)]
    return "".join(blank(doc.text[a:b]) for a, b in zip(bounds, bounds[1:]))


def trim(seen: str, span: tuple[int, int]) -> tuple[int, int]:
    """``span`` without the white space it ends with in ``seen`` (:func:`blanked`): copydetect's end of a match lies
    just before the next token, so it would take in the comments and the code that does nothing which follow it."""
    a, b = span
    while b > a + 1 and seen[b - 1].isspace():
        b -= 1
    return a, b


def regions_of(doc_a: Document, doc_b: Document, fp_a: Fingerprint, fp_b: Fingerprint,
               seen: dict[str, str] | None = None) -> list[Region]:
    """The matched regions of two documents (:func:`~grader.similarity.fingerprints.matched_regions`), as offsets
    into their texts: widened to whole names, and ending where their last code does. ``seen``: a cache of
    :func:`blanked` texts, by text."""
    seen = {} if seen is None else seen
    for doc in (doc_a, doc_b):
        if doc.text not in seen:
            seen[doc.text] = blanked(doc)
    return [Region(snap(doc_a.text, trim(seen[doc_a.text], r.a)), snap(doc_b.text, trim(seen[doc_b.text], r.b)),
                   r.fingerprints) for r in matched_regions(fp_a, fp_b)]


def compare_class(course: Course, out: Path, submissions: Path, *, deadline: datetime | None = None,
                  commits: Mapping[str, Mapping[str, str]] | None = None,
                  corpora: Sequence[Path] = (), assignment_ids: list[str] | None = None,
                  settings: Settings | None = None, jobs: int = 1) -> R.SimilarityReport:
    """Compare the class in ``submissions`` within itself and against ``corpora``; write the evidence into ``out``.

    Args:
        course: The course (assignments, and the template subtracted as boilerplate).
        out: The graded folder: ``similarity.json`` and ``similarity/pair-NNNN.html`` go there.
        submissions: The class's submissions folder (the one ``grader grade`` graded).
        deadline: Read git repositories at their last submission before it, as ``grader grade --deadline`` did.
        commits: Student id to assignment id to the commit its result records: git repositories are read at the
            commits graded (:func:`grader.similarity.sources.read_folder`).
        corpora: Folders of other code (last term's submissions, a public engine).
        assignment_ids: The assignments to compare (default: all).
        settings: When a pair is flagged (default: :class:`~grader.similarity.ranking.Settings`).
        jobs: Processes that tokenise.

    Raises:
        GraderError: If ``out`` or a folder is missing, an assignment is unknown, or there is no submission.
    """
    started = time.monotonic()
    settings = settings or Settings()
    if not Path(out).is_dir():
        raise GraderError(f"{out} is not a folder (give the output folder of `grader grade`)")
    scored = score_class(course, submissions, deadline=deadline, commits=commits, corpora=corpora,
                         assignment_ids=assignment_ids,
                         settings=settings, jobs=jobs)
    pairs: list[R.PairRecord] = []
    stats: list[R.DistributionRecord] = []
    evidence: list[Evidence] = []
    starts: dict[str, list[int]] = {}
    seen: dict[str, str] = {}
    for dist in scored.distributions:
        s = dist.stats
        stats.append(R.DistributionRecord(dist.assignment.id, dist.against, dist.documents, s.pairs, round(s.median, 4),
                                          round(s.mad, 4), round(s.scale, 4), round(s.cutoff, 4), s.counts, s.flagged))
        ordered = sorted(dist.pairs, key=lambda p: (-p.score, -p.similarity))
        kept = [p for p in ordered if p.flagged] + [p for p in ordered if not p.flagged][:CONTEXT]
        for p in kept:
            doc_a, doc_b = dist.mine[p.a], dist.others[p.b]
            regions = regions_of(doc_a, doc_b, *dist.fingerprints(p), seen)
            for doc in (doc_a, doc_b):
                if doc.text not in starts:
                    starts[doc.text] = line_starts(doc.text)
            record = R.PairRecord(
                dist.assignment.id, dist.against, R.Side(doc_a.origin, doc_a.owner, doc_a.label),
                R.Side(doc_b.origin, doc_b.owner, doc_b.label), round(p.similarity, 4), round(p.share_a, 4),
                round(p.share_b, 4), round(p.score, 2), round(p.percentile, 3), p.flagged,
                [R.RegionRecord(lines_of(starts[doc_a.text], r.a), lines_of(starts[doc_b.text], r.b), r.fingerprints)
                 for r in regions])
            pairs.append(record)
            if p.flagged:
                evidence.append(Evidence(record, doc_a, doc_b, regions))

    links = write_pages(Path(out), evidence, {(s.assignment, s.against): s for s in stats})
    pairs = [_linked(p, links.get(id(p), "")) for p in pairs]
    pairs.sort(key=lambda p: (not p.flagged, -p.score, -p.similarity))
    notes = list(dict.fromkeys(R.NoteRecord(n.origin, n.owner, n.assignment, n.note) for n in scored.notes))
    report = R.SimilarityReport(
        generated=datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        submissions=str(Path(submissions).resolve()), corpora=[c.name for c in scored.corpora],
        assignments=list(dict.fromkeys(d.assignment.id for d in scored.distributions)),
        settings=R.Settings(settings.threshold, settings.floor, settings.identical, settings.min_fingerprints, NOISE,
                            GUARANTEE),
        distributions=stats, pairs=pairs, notes=notes, seconds=round(time.monotonic() - started, 2))
    R.save(Path(out), report)
    return report


def _linked(record: R.PairRecord, link: str) -> R.PairRecord:
    """``record`` with its evidence page's link (as it was, without one)."""
    if not link:
        return record
    return R.PairRecord(record.assignment, record.against, record.a, record.b, record.similarity, record.share_a,
                        record.share_b, record.score, record.percentile, record.flagged, record.regions, link)
