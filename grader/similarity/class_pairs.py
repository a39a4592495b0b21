"""Every pair of a class scored: read, tokenise, fingerprint, compare, rank (nothing written).

:func:`score_class` takes each submission's code per assignment (:mod:`grader.similarity.sources`),
fingerprints it with the release's template subtracted (:mod:`grader.similarity.fingerprints`),
compares every pair of the class and every submission with every document of each corpus folder, and
ranks each set of pairs against itself (:mod:`grader.similarity.ranking`). ``grader similarity``
turns the result into records and pages (:mod:`grader.similarity.run`); ``bench/similarity.py``
reads its scores directly to choose the defaults.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from grader.course.config import Assignment
from grader.course.course import Course
from grader.course.handouts import notebook_code_cells
from grader.course.roster import identify, read_roster
from grader.errors import GraderError
from grader.intake.notebook import assemble
from grader.intake.notebook_imports import OwnCode
from grader.intake.submission import discover, student_id
from grader.similarity.fingerprints import Fingerprint, Tokens, boilerplate, fingerprint, join, tokenise_all
from grader.similarity.ranking import Pair, Settings, Stats, across, rank, within
from grader.similarity.sources import CLASS, Document, Note, read_folder


@dataclass(frozen=True)
class Corpus:
    """A folder to compare the class against, and the name it goes by in the outputs."""

    path: Path
    name: str


@dataclass
class Distribution:
    """One set of pairs ranked together: the class's own pairs of an assignment, or the class against a corpus.

    Attributes:
        assignment: The assignment.
        against: ``"class"``, or the corpus folder's name.
        mine: The class's documents (``Pair.a`` indexes them).
        others: The other side's documents (``Pair.b``): ``mine`` again, or the corpus's.
        pairs: Every pair compared, scored.
        stats: The distribution's statistics.
        prints: Each document's fingerprints, by ``id(document)`` (None: too little code to compare).
    """

    assignment: Assignment
    against: str
    mine: list[Document]
    others: list[Document]
    pairs: list[Pair]
    stats: Stats
    prints: dict[int, Fingerprint | None] = field(repr=False)

    @property
    def documents(self) -> int:
        """Documents compared in it."""
        if self.against == CLASS:
            return len({p.a for p in self.pairs} | {p.b for p in self.pairs})
        return len({p.a for p in self.pairs}) + len({p.b for p in self.pairs})

    def fingerprints(self, pair: Pair) -> tuple[Fingerprint, Fingerprint]:
        """The two sides' fingerprints (compared pairs always have them)."""
        a, b = self.prints[id(self.mine[pair.a])], self.prints[id(self.others[pair.b])]
        if a is None or b is None:
            raise ValueError("a pair of documents without fingerprints")
        return a, b


@dataclass
class Scored:
    """A class scored: its distributions (per assignment: the class, then each corpus) and the notes on documents."""

    corpora: list[Corpus]
    distributions: list[Distribution]
    notes: list[Note]


def corpora_of(paths: Sequence[Path]) -> list[Corpus]:
    """Each corpus folder with a name of its own (its folder name; ``-2``, ``-3``... when repeated).

    Raises:
        GraderError: If a path is not a folder.
    """
    named: list[Corpus] = []
    for path in paths:
        if not path.is_dir():
            raise GraderError(f"--corpus {path} is not a folder")
        base = path.resolve().name or "corpus"
        name, n = base, 1
        while name == CLASS or any(c.name == name for c in named):
            n += 1
            name = f"{base}-{n}"
        named.append(Corpus(path, name))
    return named


def template_texts(course: Course, assignment: Assignment) -> list[list[str]]:
    """What the release gives for ``assignment``, as documents of file texts: its template files, and its notebook's
    code cells (one module)."""
    try:
        sources = {f: (course.template_dir / f).read_text(encoding="utf-8") for f in assignment.files}
    except (OSError, UnicodeDecodeError):
        return []
    cells = notebook_code_cells(assignment.files, sources, assignment.id, assignment.own_modules)
    notebook = assemble([(n, n, code) for n, code in enumerate(cells, start=1)], f"{assignment.id}.ipynb",
                        OwnCode.of(assignment)).code
    return [[sources[f] if sources[f].endswith("\n") else sources[f] + "\n" for f in assignment.files], [notebook]]


def _files(doc: Document) -> list[str]:
    """The texts of a document's files (a notebook's code cells are one)."""
    bounds = [offset for offset, _ in doc.parts] + [len(doc.text)]
    return [doc.text[a:b] for a, b in zip(bounds, bounds[1:])]


def _prints(docs: Sequence[Document], tokens: dict[str, Tokens], subtract: Any, assignment: Assignment,
            settings: Settings, prints: dict[int, Fingerprint | None], notes: list[Note]) -> list[Fingerprint | None]:
    """Each document's fingerprints (None, with a note, when it has too few of its own to compare)."""
    found: list[Fingerprint | None] = []
    for doc in docs:
        fp = fingerprint(tokens[doc.text], subtract)
        if len(fp) < settings.min_fingerprints:
            notes.append(Note(doc.origin, doc.owner, assignment.id,
                              f"too little code of its own to compare ({len(fp)} fingerprints beyond the template, "
                              f"fewer than {settings.min_fingerprints})"))
            prints[id(doc)] = None
        else:
            prints[id(doc)] = fp
        found.append(prints[id(doc)])
    return found


def score_class(course: Course, submissions: Path, *, deadline: datetime | None = None,
                  commits: Mapping[str, Mapping[str, str]] | None = None,
                corpora: Sequence[Path] = (), assignment_ids: list[str] | None = None,
                settings: Settings | None = None, jobs: int = 1) -> Scored:
    """Score every pair of the class in ``submissions``, and the class against each corpus folder.

    Args:
        course: The course (assignments, and the template subtracted as boilerplate).
        submissions: The class's submissions folder (the one ``grader grade`` graded).
        deadline: Read git repositories at their last submission before it, as ``grader grade --deadline`` did.
        commits: Student id to assignment id to the commit its result records: git repositories are read at the
            commits graded (:func:`grader.similarity.sources.read_folder`).
        corpora: Folders of other code (last term's submissions, a public engine).
        assignment_ids: The assignments to compare (default: all).
        settings: When a pair is flagged (default: :class:`~grader.similarity.ranking.Settings`).
        jobs: Processes that tokenise.

    Raises:
        GraderError: If a folder is missing, an assignment is unknown, or there is no submission.
    """
    settings = settings or Settings()
    assignments = course.assignments(assignment_ids)
    named = corpora_of(corpora)
    template = course.template_dir if course.template_package.is_dir() else None
    roster = course.term.roster
    names = [student_id(e) for e in discover(Path(submissions))] if Path(submissions).is_dir() else []
    students = {k.name: k.student for k in identify(names, read_roster(roster) if roster is not None else ())[0].values()}
    source = read_folder(Path(submissions), CLASS, assignments, template, deadline, commits, students)
    if not source.entries:
        raise GraderError(f"no submissions found in {submissions} (expected folders, .zip or .ipynb files)")
    others = [read_folder(c.path, c.name, assignments, template) for c in named]
    notes = source.notes + [n for corpus in others for n in corpus.notes]
    docs = {a.id: (source.documents[a.id], [(corpus.origin, corpus.documents[a.id]) for corpus in others])
            for a in assignments}
    every = [d for mine, theirs in docs.values() for d in mine + [x for _, ds in theirs for x in ds]]
    files = sorted({text for d in every for text in _files(d)})  # each file once: the engine is in every assignment
    known = dict(zip(files, tokenise_all(files, jobs)))
    tokens = {d.text: join([(len(text), known[text]) for text in _files(d)]) for d in every}

    distributions: list[Distribution] = []
    for a in assignments:
        mine, theirs = docs[a.id]
        subtract = boilerplate(template_texts(course, a))
        prints: dict[int, Fingerprint | None] = {}
        mine_prints = _prints(mine, tokens, subtract, a, settings, prints, notes)
        pairs = within(mine_prints)
        distributions.append(Distribution(a, CLASS, mine, mine, pairs, rank(pairs, settings), prints))
        for name, found in theirs:
            pairs = across(mine_prints, _prints(found, tokens, subtract, a, settings, prints, notes))
            distributions.append(Distribution(a, name, mine, found, pairs, rank(pairs, settings), prints))
    return Scored(named, distributions, notes)
