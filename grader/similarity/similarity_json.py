"""The typed records of ``OUT/similarity.json``, written by ``grader similarity`` and read by the class report.

One file per run::

    {"version": 1, "generated": "2026-11-30 12:00 UTC", "submissions": "/abs/submissions",
     "corpora": ["last-term"], "settings": {"threshold": 4.0, "floor": 0.5, "identical": 0.95, ...},
     "distributions": [{"assignment": "value_ops", "against": "class", "pairs": 44850, "median": 0.31, ...}],
     "pairs": [{"assignment": "value_ops", "against": "class",
                "a": {"origin": "class", "id": "alice", "label": "micrograd/engine.py"}, "b": {...},
                "similarity": 0.93, "share_a": 0.91, "share_b": 0.93, "score": 12.4, "percentile": 99.99,
                "flagged": true, "regions": [{"a": [12, 30], "b": [40, 58], "fingerprints": 31}],
                "evidence": "similarity/pair-0001.html"}],
     "notes": [{"origin": "class", "id": "bob", "assignment": "mlp", "note": "missing micrograd/nn.py ..."}]}

``pairs`` holds every flagged pair and the most similar unflagged ones of each distribution (for
context), most unusual first; ``distributions`` holds every pair's statistics and histogram.
Regions are line ranges (1-based, inclusive) of each side's text. Student text (ids, labels,
notes) is stored as it is: whoever shows it escapes it. :func:`load` checks every field's type, so a
damaged file is an error, never a page built from whatever it holds.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from grader.errors import GraderError
from grader.files import write_atomic

FILE = "similarity.json"
"""The run's records, in OUT."""
VERSION = 1
EVIDENCE_LINK = re.compile(r"similarity/pair-\d{4,6}\.html")
"""The only links the report makes from ``evidence`` (pages written by :mod:`grader.similarity.evidence`)."""
MAX_BYTES = 64 << 20
"""Largest ``similarity.json`` read."""


class SimilarityError(GraderError):
    """``similarity.json`` is missing, damaged, or not one this grader wrote."""


@dataclass(frozen=True)
class Side:
    """One side of a pair: a class submission or a corpus document.

    Attributes:
        origin: ``"class"`` or the corpus folder's name.
        id: The student id (the entry's name), or the corpus entry's.
        label: What was compared (file names, or a notebook's code cells).
    """

    origin: str
    id: str
    label: str


@dataclass(frozen=True)
class RegionRecord:
    """A matched region: lines ``a`` of the first side match lines ``b`` of the second (1-based, inclusive)."""

    a: tuple[int, int]
    b: tuple[int, int]
    fingerprints: int


@dataclass(frozen=True)
class PairRecord:
    """Two documents of one assignment, compared and ranked (see :mod:`grader.similarity.ranking`).

    Attributes:
        assignment: The assignment's id.
        against: The distribution it is ranked in: ``"class"``, or the corpus folder's name.
        a: The class submission.
        b: The other class submission, or the corpus document.
        similarity: Shared fingerprints over the smaller side's (0 to 1).
        share_a: Shared fingerprints over ``a``'s.
        share_b: Shared fingerprints over ``b``'s.
        score: How unusual: a robust z-score within the distribution.
        percentile: The share of the distribution's pairs less alike (percent).
        flagged: Whether it reached the threshold and the floor, or was near-identical.
        regions: The matched regions, in ``a``'s order.
        evidence: The side-by-side page, relative to OUT ("" when none was written).
    """

    assignment: str
    against: str
    a: Side
    b: Side
    similarity: float
    share_a: float
    share_b: float
    score: float
    percentile: float
    flagged: bool
    regions: list[RegionRecord] = field(default_factory=list)
    evidence: str = ""


@dataclass(frozen=True)
class DistributionRecord:
    """Every pair of one distribution (:class:`grader.similarity.ranking.Stats`, with what it is of).

    Attributes:
        assignment: The assignment's id.
        against: ``"class"`` (the class's pairs) or a corpus folder's name (the class against it).
        documents: Documents compared (class submissions, plus the corpus's for a corpus).
        pairs: Pairs compared.
        median: Median similarity.
        mad: Median absolute deviation of the similarity.
        scale: The similarity a score of 1 stands for.
        cutoff: The lowest similarity flagged.
        counts: Pairs per histogram bin (equal bins from 0 to 1).
        flagged: Pairs flagged.
    """

    assignment: str
    against: str
    documents: int
    pairs: int
    median: float
    mad: float
    scale: float
    cutoff: float
    counts: list[int]
    flagged: int


@dataclass(frozen=True)
class NoteRecord:
    """A submission not compared, or compared in part, with why (``assignment`` "" means every assignment)."""

    origin: str
    id: str
    assignment: str
    note: str


@dataclass(frozen=True)
class Settings:
    """What the run used: flags (``threshold``, ``floor``, ``identical``, ``min_fingerprints``) and copydetect's
    thresholds (``noise``, ``guarantee``)."""

    threshold: float
    floor: float
    identical: float
    min_fingerprints: int
    noise: int
    guarantee: int


@dataclass
class SimilarityReport:
    """The whole of ``similarity.json``."""

    generated: str
    submissions: str
    corpora: list[str]
    assignments: list[str]
    settings: Settings
    distributions: list[DistributionRecord]
    pairs: list[PairRecord]
    notes: list[NoteRecord]
    seconds: float = 0.0
    version: int = VERSION

    @property
    def flagged(self) -> list[PairRecord]:
        return [p for p in self.pairs if p.flagged]


def save(out: Path, report: SimilarityReport) -> Path:
    """Write ``report`` as ``out/similarity.json`` (atomically); return its path."""
    path = Path(out) / FILE
    write_atomic(path, json.dumps(asdict(report), indent=1, ensure_ascii=False) + "\n")
    return path


def _field(doc: Any, key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if not isinstance(doc, dict) or key not in doc:
        raise SimilarityError(f"{where}: '{key}' is missing")
    value = doc[key]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        raise SimilarityError(f"{where}: '{key}' has the wrong type")
    return value


_NUMBER = (int, float)


def _side(doc: Any, where: str) -> Side:
    return Side(*(_field(doc, k, str, where) for k in ("origin", "id", "label")))


def _lines(doc: Any, key: str, where: str) -> tuple[int, int]:
    value = _field(doc, key, list, where)
    if len(value) != 2 or not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        raise SimilarityError(f"{where}: '{key}' is not a range of lines")
    return (value[0], value[1])


def _pair(doc: Any, where: str) -> PairRecord:
    regions = [RegionRecord(_lines(r, "a", where), _lines(r, "b", where), _field(r, "fingerprints", int, where))
               for r in _field(doc, "regions", list, where)]
    evidence = _field(doc, "evidence", str, where)
    if evidence and not EVIDENCE_LINK.fullmatch(evidence):
        raise SimilarityError(f"{where}: 'evidence' is not a page grader similarity writes")
    number = {k: float(_field(doc, k, _NUMBER, where)) for k in ("similarity", "share_a", "share_b", "score", "percentile")}
    return PairRecord(
        _field(doc, "assignment", str, where), _field(doc, "against", str, where),
        _side(_field(doc, "a", dict, where), where), _side(_field(doc, "b", dict, where), where),
        number["similarity"], number["share_a"], number["share_b"], number["score"], number["percentile"],
        flagged=_field(doc, "flagged", bool, where), regions=regions, evidence=evidence)


def _distribution(doc: Any, where: str) -> DistributionRecord:
    counts = _field(doc, "counts", list, where)
    if not all(isinstance(c, int) and not isinstance(c, bool) for c in counts):
        raise SimilarityError(f"{where}: 'counts' are not whole numbers")
    number = {k: float(_field(doc, k, _NUMBER, where)) for k in ("median", "mad", "scale", "cutoff")}
    return DistributionRecord(
        _field(doc, "assignment", str, where), _field(doc, "against", str, where),
        _field(doc, "documents", int, where), _field(doc, "pairs", int, where),
        number["median"], number["mad"], number["scale"], number["cutoff"],
        counts=counts, flagged=_field(doc, "flagged", int, where))


def load(out: Path) -> SimilarityReport:
    """Read ``out/similarity.json``.

    Raises:
        SimilarityError: If it cannot be read, is not JSON, or a field is missing or of the wrong type.
    """
    path = Path(out) / FILE
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_BYTES + 1)
    except OSError as exc:
        raise SimilarityError(f"{path} cannot be read ({exc.strerror or exc}): run `grader similarity` first") from None
    if len(raw) > MAX_BYTES:
        raise SimilarityError(f"{path} is larger than {MAX_BYTES} bytes")
    try:
        doc = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise SimilarityError(f"{path} is not JSON ({exc})") from None
    where = str(path)
    if _field(doc, "version", int, where) != VERSION:
        raise SimilarityError(f"{path} was written by another version of grader similarity: run it again")
    settings = _field(doc, "settings", dict, where)
    return SimilarityReport(
        generated=_field(doc, "generated", str, where),
        submissions=_field(doc, "submissions", str, where),
        corpora=[str(c) for c in _field(doc, "corpora", list, where)],
        assignments=[str(a) for a in _field(doc, "assignments", list, where)],
        settings=Settings(float(_field(settings, "threshold", _NUMBER, where)),
                          float(_field(settings, "floor", _NUMBER, where)),
                          float(_field(settings, "identical", _NUMBER, where)),
                          _field(settings, "min_fingerprints", int, where),
                          _field(settings, "noise", int, where), _field(settings, "guarantee", int, where)),
        distributions=[_distribution(d, where) for d in _field(doc, "distributions", list, where)],
        pairs=[_pair(p, where) for p in _field(doc, "pairs", list, where)],
        notes=[NoteRecord(*(_field(n, k, str, where) for k in ("origin", "id", "assignment", "note")))
               for n in _field(doc, "notes", list, where)],
        seconds=float(_field(doc, "seconds", _NUMBER, where)),
    )
