"""Which of a submission's files stand for an assignment: ``.py`` files or a notebook.

The student release holds both the ``micrograd/`` package and one notebook
per assignment, and a student works in one of them. For assignment ``A``,
the candidates are:

* the ``.py`` files: package layout (``.../micrograd/engine.py``) first, then
  flat layout (``.../engine.py``), shallowest first; a candidate only when
  every file the assignment names is there; never one under the release's
  ``student_template/`` (the course's copy, beside the student's own);
* the notebook ``A.ipynb`` (shallowest), or else the submission's only
  notebook; next to complete ``.py`` files, only if it defines at its top
  level a class the handout puts in the first file (``Value``: the assignment's
  ``defines``), else it is a scratch notebook that imports the package.

A candidate equal to the student template (the course's
``student_template/micrograd/*.py``; for a notebook, the code cells
``grader release`` puts in ``A.ipynb``), compared after normalising line
endings, trailing spaces, blank lines and IPython-only lines, is
*untouched*. The one candidate the student worked on is graded. When
several were worked on, the one with fewer ``NotImplementedError`` stubs
left wins, then the most recently modified, then the ``.py`` files. When
none was, the ``.py`` files are graded (else the notebook). Whenever the
choice is not the plain ``.py`` files as before, a note says which was graded
and which ignored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from grader.course.handouts import notebook_code_cells
from grader.errors import SubmissionError
from grader.intake.cellmap import LineMap
from grader.intake.entry import Submission
from grader.intake.notebook import IPYTHON_LINE, assemble, cap, code_cells, parse, source_lines
from grader.intake.notebook_imports import OwnCode

COURSE_COPIES = frozenset({"student_template"})
"""Folders of the student release that hold the course's own copy of the package (the template ``grader release``
puts beside the student's ``micrograd/``): never a student's file, even when theirs is missing."""
STUB = re.compile(r"^\s*raise\s+NotImplementedError\b", re.M)
"""A stub left to fill (the template's methods raise ``NotImplementedError("Task N.M: ...")``)."""


def defines(code: str, names: tuple[str, ...]) -> bool:
    """Whether ``code`` defines one of ``names`` at its top level (``class Value`` or ``Value = ...``); True when
    ``names`` is empty (nothing to look for)."""
    if not names:
        return True
    alternatives = "|".join(re.escape(n) for n in names)
    return re.search(rf"^(class\s+({alternatives})\b|({alternatives})\s*=)", code, re.M) is not None
def reexport(first: str) -> str:
    """A module that stands for the notebook's code staged as ``first`` (``micrograd/engine.py``): every name of it,
    those starting with ``_`` too (``from .engine import *`` would leave out a helper such as ``_escape``)."""
    module = first.rsplit("/", 1)[-1][: -len(".py")]
    return (f"from . import {module} as _notebook  # the notebook's code is {first}\n"
            "globals().update({k: v for k, v in vars(_notebook).items() if not (k.startswith('__') and k.endswith('__'))})\n")




@dataclass
class Resolved:
    """What is graded for one assignment.

    Attributes:
        sources: Package path (``micrograd/engine.py``) to the text staged for it.
        notes: Student-facing notes on the choice (which candidate was graded, which ignored).
        line_map: For a notebook, where each line of the staged module comes from; else None.
    """

    sources: dict[str, str]
    notes: list[str] = field(default_factory=list)
    line_map: LineMap | None = None


@dataclass
class Candidate:
    """One way of reading the submission for an assignment.

    Attributes:
        label: What it is, for notes (``micrograd/engine.py``, ``notebooks/mlp.ipynb``), capped.
        resolved: What would be staged if it were graded.
        normalised: Its code as compared with the template (:func:`normalise`).
        stubs: ``raise NotImplementedError`` statements left in it.
        mtime: Its (latest) modification time, seconds since the epoch (0 if unknown).
        notebook: Whether it is a notebook.
    """

    label: str
    resolved: Resolved
    normalised: str
    stubs: int
    mtime: float
    notebook: bool


def normalise(sources: list[str]) -> str:
    """Code compared with the template: lines without trailing spaces, blank and IPython-only lines dropped."""
    lines = (line.rstrip() for source in sources for line in source_lines(source))
    return "\n".join(line for line in lines if line and not IPYTHON_LINE.search(line))


def decode(data: bytes, name: str) -> str:
    """``data`` as UTF-8 text (a byte order mark is dropped).

    Raises:
        SubmissionError: If it is not UTF-8.
    """
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SubmissionError(f"{cap(name)} is not UTF-8 text (byte {exc.start}); save it as UTF-8") from None


def _depth(rel: str) -> int:
    return rel.count("/")


def _pick(candidates: list[str], what: str) -> str | None:
    if not candidates:
        return None
    shallowest = min(_depth(c) for c in candidates)
    best = sorted(c for c in candidates if _depth(c) == shallowest)
    if len(best) > 1:
        names = ", ".join(cap(b, 80) for b in best[:5])
        raise SubmissionError(f"found several {what} files at the same level: {names}; keep only one")
    return best[0]


def find_files(sub: Submission, wanted: tuple[str, ...]) -> dict[str, str]:
    """Package path to the submission's path for each wanted file found (package layout, then flat).

    Raises:
        SubmissionError: If a file is ambiguous (two at the same, shallowest level).
    """
    found: dict[str, str] = {}
    own = [p for p in sub.files if COURSE_COPIES.isdisjoint(p.split("/")[:-1])]
    for target in wanted:
        base = target.rsplit("/", 1)[-1]
        package = [p for p in own if p == target or p.endswith("/" + target)]
        flat = [p for p in own if p.rsplit("/", 1)[-1] == base and p not in package]
        chosen = _pick(package, target) or _pick(flat, base)
        if chosen is not None:
            found[target] = chosen
    return found


def find_notebook(sub: Submission, assignment_id: str) -> str | None:
    """The notebook standing for the assignment: ``<id>.ipynb`` (shallowest), else the only notebook."""
    notebooks = [p for p in sub.files if p.endswith(".ipynb")]
    named = [p for p in notebooks if assignment_id and p.rsplit("/", 1)[-1] == f"{assignment_id}.ipynb"]
    if named:
        return _pick(named, f"{assignment_id}.ipynb")
    return notebooks[0] if len(notebooks) == 1 else None


def template_code(template: Path | None, wanted: tuple[str, ...], own: OwnCode) -> tuple[str, str] | None:
    """Normalised template code of the ``.py`` files and of the notebook, or None without a template."""
    if template is None:
        return None
    try:
        sources = {t: (template / t).read_text(encoding="utf-8") for t in wanted}
    except (OSError, UnicodeDecodeError):
        return None
    return (normalise([sources[t] for t in wanted]),
            normalise(notebook_code_cells(wanted, sources, "", tuple(sorted(own.modules)))))


def _files_candidate(sub: Submission, wanted: tuple[str, ...], paths: dict[str, str]) -> Candidate:
    sources = {t: decode(sub.files[paths[t]], paths[t]) for t in wanted}
    texts = [sources[t] for t in wanted]
    label = " and ".join(cap(paths[t], 80) for t in wanted)
    return Candidate(label, Resolved(sources), normalise(texts), sum(len(STUB.findall(t)) for t in texts),
                     max(sub.mtimes.get(paths[t], 0.0) for t in wanted), notebook=False)


def _notebook_candidate(sub: Submission, wanted: tuple[str, ...], path: str, own: OwnCode) -> Candidate:
    cells = code_cells(parse(sub.files[path], path))
    first = wanted[0]  # the notebook's code is the assignment's first file; the others re-export it
    generated = assemble(cells, path, own)
    sources = {t: (generated.code if t == first else reexport(first)) for t in wanted}
    return Candidate(cap(path, 80), Resolved(sources, line_map=generated.line_map),
                     normalise([source for _, _, source in cells]), len(STUB.findall(generated.code)),
                     sub.mtimes.get(path, 0.0), notebook=True)


def _missing(sub: Submission, wanted: tuple[str, ...], found: dict[str, str]) -> SubmissionError:
    missing = [t for t in wanted if t not in found]
    seen = ", ".join(cap(p, 80) for p in sorted(sub.files)[:8]) or "nothing"
    return SubmissionError(
        f"missing {', '.join(missing)} (looked for {' or '.join(m.rsplit('/', 1)[-1] for m in missing)} "
        f"in a {wanted[0].split('/', 1)[0]}/ folder or at the top level, or a notebook; found {seen})"
    )


def choose(sub: Submission, wanted: tuple[str, ...], assignment_id: str = "", template: Path | None = None, *,
           own: tuple[str, ...] = (), classes: tuple[str, ...] = ()) -> Resolved:
    """What to grade of ``sub`` for an assignment naming the files ``wanted`` (see the module docstring).

    Args:
        sub: The submission as read.
        wanted: The package paths the assignment names, in import order (``("micrograd/engine.py",)``).
        assignment_id: The assignment's id: its notebook is ``<id>.ipynb``. "" accepts only a lone notebook.
        template: The course's template folder (holding the student's package), or None: without it no
            candidate counts as untouched.
        own: The course's modules a notebook's imports may name for its own code
            (:attr:`~grader.course.config.Assignment.own_modules`), besides those of ``wanted``.
        classes: The classes that show a notebook stands for the first file
            (:attr:`~grader.course.config.Assignment.defines`); none: any notebook does.

    Raises:
        SubmissionError: If nothing stands for the assignment, a file is ambiguous or not UTF-8,
            or the only candidate is a notebook that cannot be read.
    """
    if sub.error:
        raise SubmissionError(sub.error)
    paths = find_files(sub, wanted)
    code = OwnCode(wanted[0], frozenset(own) | {t.rsplit("/", 1)[-1].removesuffix(".py") for t in wanted})
    candidates = [_files_candidate(sub, wanted, paths)] if len(paths) == len(wanted) else []
    notebook = find_notebook(sub, assignment_id)
    notes: list[str] = []
    if notebook is not None:
        try:
            candidate = _notebook_candidate(sub, wanted, notebook, code)
            if not candidates or defines(candidate.resolved.sources[wanted[0]], classes):
                candidates.append(candidate)  # else a scratch notebook using the package: not an alternative
        except SubmissionError as exc:
            if not candidates:
                raise
            notes.append(f"ignored {cap(notebook, 80)}: {exc}")
    if not candidates:
        raise _missing(sub, wanted, paths)
    reference = template_code(template, wanted, code)  # (files, notebook), normalised
    worked = [c for c in candidates if reference is None or c.normalised != reference[1 if c.notebook else 0]]
    if len(worked) <= 1:
        chosen = worked[0] if worked else candidates[0]
        others = [c for c in candidates if c is not chosen]
        if chosen.notebook and others:
            notes.append(f"graded {chosen.label}; ignored {others[0].label}, which is unchanged from the template")
    else:
        worked.sort(key=lambda c: (c.stubs, -c.mtime, c.notebook))
        chosen, other = worked[0], worked[1]
        if chosen.stubs < other.stubs:
            why = f"fewer NotImplementedError stubs left: {chosen.stubs} against {other.stubs}"
        elif chosen.mtime > other.mtime:
            why = f"as many stubs left ({chosen.stubs}), and modified more recently"
        else:
            why = f"as many stubs left ({chosen.stubs}), modified at the same time: the .py files come first"
        notes.append(f"both {chosen.label} and {other.label} hold work: graded {chosen.label} ({why}); "
                     f"ignored {other.label}")
    return Resolved(chosen.resolved.sources, notes, chosen.resolved.line_map)
