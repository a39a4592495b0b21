"""The course folder: ``assignments/``, ``reference/``, ``student_template/``, and what it declares once for every
assignment (the handout's tables, the term, the student's package).

:class:`Course` is the one object commands are handed. It reads the course's YAML files and hands what they hold on:
the handout's to :func:`grader.course.handout.parse_handout` (once for all the assignments it loads), each
``assignment.yaml``'s to :func:`grader.course.config.parse_assignment`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from grader.course.config import ASSIGNMENT, HANDOUT, PARTS, SHARED, Assignment, parse_assignment
from grader.course.handout import Handout, parse_handout
from grader.course.term import Term, load_term
from grader.course.yaml_file import load_yaml
from grader.errors import GraderError


@dataclass(frozen=True)
class Course:
    """A course directory: ``assignments/``, ``reference/``, ``student_template/``."""

    root: Path

    @property
    def assignments_dir(self) -> Path:
        return self.root / "assignments"

    @property
    def reference_dir(self) -> Path:
        """The folder holding the reference solution's package (:attr:`reference_package`)."""
        return self.root / "reference"

    @property
    def package(self) -> str:
        """The student's package (``micrograd``): ``handout.yaml``'s ``package``, or else the package the first
        assignment's files name.

        Raises:
            ConfigError: If the handout or an assignment's configuration is invalid.
            GraderError: If the course has neither.
        """
        if declared := self.handout.package:
            return declared
        ids = self.assignment_ids()
        if not ids:
            raise GraderError(f"{self.assignments_dir}: no assignment, and no package in {SHARED}/{HANDOUT}")
        return self.assignment(ids[0]).package

    @property
    def reference_package(self) -> Path:
        """The reference solution's package folder (``reference/micrograd``)."""
        return self.reference_dir / self.package

    @property
    def template_package(self) -> Path:
        """The student template's package folder (``student_template/micrograd``)."""
        return self.template_dir / self.package

    @property
    def parts_dir(self) -> Path:
        """The folder of the grader's own parts (``assignments/shared/parts``); a student's release has none."""
        return self.assignments_dir / SHARED / PARTS

    @property
    def handout(self) -> Handout:
        """The handout's tables the feedback names methods by (``assignments/shared/handout.yaml``; empty without).

        Raises:
            ConfigError: If the file is invalid.
        """
        path = self.assignments_dir / SHARED / HANDOUT
        return parse_handout(load_yaml(path), path)

    @property
    def term(self) -> Term:
        """The course's term settings (``assignments/course.yaml``: time zone, roster, extensions).

        Raises:
            ConfigError: If the file is invalid.
        """
        return load_term(self.assignments_dir)

    @property
    def template_dir(self) -> Path:
        """The folder holding the student template's package (:attr:`template_package`)."""
        return self.root / "student_template"

    def assignment_ids(self) -> list[str]:
        """Ids of every assignment (folders with an ``assignment.yaml``), sorted."""
        if not self.assignments_dir.is_dir():
            return []
        return sorted(p.name for p in self.assignments_dir.iterdir() if (p / ASSIGNMENT).is_file())

    def assignment(self, assignment_id: str, term: Term | None = None) -> Assignment:
        """Load one assignment by id (``term``: the course's ``course.yaml`` already read; None reads it if a date
        needs it).

        Raises:
            GraderError: If there is no such assignment.
            ConfigError: If its ``assignment.yaml`` or the handout is invalid.
        """
        return self.assignments([assignment_id], term)[0]

    def assignments(self, ids: list[str] | None = None, term: Term | None = None) -> list[Assignment]:
        """Load the given assignments (default: all), in the given order or by (order, id): their ``assignment.yaml``
        files and the handout, each read once (``term``: the course's ``course.yaml`` already read; None reads it
        where a date needs it).

        Raises:
            GraderError: If an id is unknown or repeated.
            ConfigError: If an ``assignment.yaml`` or the handout is invalid.
        """
        known = self.assignment_ids()
        if ids:
            self._refuse_unknown(ids, known)
        chosen = ids or known
        if not chosen:
            return []
        handout = self.handout
        folders = [self.assignments_dir / i for i in chosen]
        loaded = [parse_assignment(f, load_yaml(f / ASSIGNMENT, required=True), handout, term) for f in folders]
        return loaded if ids else sorted(loaded, key=lambda a: (a.order, a.id))

    def code_assignments(self, ids: list[str] | None = None) -> list[Assignment]:
        """:meth:`assignments` without the concept checks (``kind: questions``): those students write code for."""
        return [a for a in self.assignments(ids) if not a.is_concept_check]

    def released_assignments(self, ids: list[str] | None = None, now: datetime | None = None,
                             every: Sequence[Assignment] | None = None) -> list[Assignment]:
        """The given assignments (:meth:`assignments`), or, without ``ids``, those handed out at ``now`` (None: this
        moment; :attr:`Assignment.released`), in course order: what a command works on by default.

        Args:
            ids: The assignments named (``-a``), or None.
            now: The moment that decides what is released (aware; None: this moment).
            every: The course's assignments, already loaded (:meth:`assignments`): chosen from, never read again.

        Raises:
            GraderError: If an id is unknown or repeated, or, without ``ids``, if no assignment is released yet.
            ConfigError: If an ``assignment.yaml`` is invalid.
        """
        if ids and every is None:
            return self.assignments(ids)
        every = self.assignments() if every is None else every
        if ids:
            by_id = {a.id: a for a in every}
            self._refuse_unknown(ids, sorted(by_id))
            return [by_id[i] for i in ids]
        out = [a for a in every if a.is_released(now)]
        if every and not out:
            raise GraderError("no assignment is released yet (released: in each assignment.yaml): name one with -a ID")
        return out

    def _refuse_unknown(self, ids: Sequence[str], known: Sequence[str]) -> None:
        """Refuse an assignment named twice (``-a mlp -a mlp``), then one not among ``known``.

        Raises:
            GraderError: Naming the first id repeated, else the first unknown one.
        """
        repeated = sorted({i for i in ids if ids.count(i) > 1})
        if repeated:
            raise GraderError(f"assignment {repeated[0]!r} given more than once")
        for i in ids:
            if i not in known:
                raise GraderError(f"no assignment {i!r} in {self.assignments_dir}; available: {', '.join(known) or 'none'}")


def find_course(start: Path | None = None) -> Course:
    """Find the course directory: ``start`` or its nearest ancestor with ``assignments/``.

    Raises:
        GraderError: If no such directory exists.
    """
    here = (start or Path.cwd()).resolve()
    for candidate in (here, *here.parents):
        if (candidate / "assignments").is_dir():
            return Course(candidate)
    raise GraderError(
        f"no course found: neither {here} nor a parent has an 'assignments/' folder "
        "(run from the course directory or pass --course DIR)"
    )
