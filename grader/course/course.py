"""The course folder: ``assignments/``, ``reference/``, ``student_template/``, and what it declares once for every
assignment (the handout's tables, the term, the student's package).

:class:`Course` is the one object commands are handed: each assignment's configuration is read by
:func:`grader.course.config.load_assignment`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from grader.course.config import HANDOUT, PARTS, SHARED, Assignment, load_assignment
from grader.course.handout import Handout, load_handout
from grader.course.term import Term, load_term
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
        return load_handout(self.assignments_dir / SHARED / HANDOUT)

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
        return sorted(p.name for p in self.assignments_dir.iterdir() if (p / "assignment.yaml").is_file())

    def assignment(self, assignment_id: str, term: Term | None = None) -> Assignment:
        """Load one assignment by id (``term``: the course's ``course.yaml`` already read; None reads it).

        Raises:
            GraderError: If there is no such assignment.
            ConfigError: If its ``assignment.yaml`` is invalid.
        """
        ids = self.assignment_ids()
        if assignment_id not in ids:
            raise self._unknown(assignment_id, ids)
        return load_assignment(self.assignments_dir / assignment_id, term)

    def assignments(self, ids: list[str] | None = None, term: Term | None = None) -> list[Assignment]:
        """Load the given assignments (default: all), in the given order or by (order, id) (``term``: the course's
        ``course.yaml`` already read; None reads it for each assignment).

        Raises:
            GraderError: If an id is unknown or repeated.
        """
        if ids:
            _refuse_repeated(ids)
            return [self.assignment(i, term) for i in ids]
        return sorted((self.assignment(i, term) for i in self.assignment_ids()), key=lambda a: (a.order, a.id))

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
            _refuse_repeated(ids)
            by_id = {a.id: a for a in every}
            for i in ids:
                if i not in by_id:
                    raise self._unknown(i, sorted(by_id))
            return [by_id[i] for i in ids]
        out = [a for a in every if a.is_released(now)]
        if every and not out:
            raise GraderError("no assignment is released yet (released: in each assignment.yaml): name one with -a ID")
        return out

    def _unknown(self, assignment_id: str, ids: Sequence[str]) -> GraderError:
        return GraderError(f"no assignment {assignment_id!r} in {self.assignments_dir}; available: "
                           f"{', '.join(ids) or 'none'}")


def _refuse_repeated(ids: Sequence[str]) -> None:
    """Refuse an assignment named twice (``-a mlp -a mlp``).

    Raises:
        GraderError: Naming the first id repeated.
    """
    repeated = sorted({i for i in ids if ids.count(i) > 1})
    if repeated:
        raise GraderError(f"assignment {repeated[0]!r} given more than once")


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
