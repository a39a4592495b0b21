"""What a release hands out: the assignments released at the moment it is built, those named with ``-a``, and the
student template's files that go with them.

``grader release`` runs every week of a term; students pull (or download again) each new release over their copy
of the last one. So a release is cumulative and stable: it holds every assignment out at the moment of the run
(``released:`` in each ``assignment.yaml``, the dates students' ``grader check`` follows too), plus those the
instructor names with ``-a``, and leaves out the rest, with their handout, public tests, notebook and answers
template, and the template's modules that only they name (``micrograd/forward.py`` of ``forward_mode``). A module
that a module handed out imports is handed out too, so a student's copy always imports.
"""

from __future__ import annotations

import ast
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from grader.course.config import Assignment
from grader.course.course import Course

IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc")


@dataclass(frozen=True)
class HandOut:
    """The assignments of one release, in course order.

    Attributes:
        assignments: Those it holds: released at the moment of the run, or named with ``-a``.
        left_out: Those it does not hold: not released yet, and not named.
        early: Those named with ``-a`` though not released yet (students' ``grader check`` leaves them out until
            their date, unless a student names them).
    """

    assignments: tuple[Assignment, ...]
    left_out: tuple[Assignment, ...] = ()
    early: tuple[Assignment, ...] = ()


def hand_out(course: Course, named: Sequence[str] = (), now: datetime | None = None) -> HandOut:
    """The assignments a release built at ``now`` (aware; None: this moment) holds: the released ones and ``named``.

    Raises:
        GraderError: If a named id is unknown or repeated, or if nothing is released yet and nothing is named.
        ConfigError: If an ``assignment.yaml`` is invalid.
    """
    every = course.assignments()
    chosen = {a.id for a in course.released_assignments(list(named) or None, now, every)}  # checks the ids
    chosen |= {a.id for a in every if a.is_released(now)}
    return HandOut(tuple(a for a in every if a.id in chosen), tuple(a for a in every if a.id not in chosen),
                   tuple(a for a in every if a.id in named and not a.is_released(now)))


def why_not_out(assignment: Assignment) -> str:
    """Why ``assignment`` is not released: ``released: false``, or the moment it is (``released 2026-12-07T00:00:00
    -05:00``)."""
    when = assignment.released
    return "released: false" if isinstance(when, bool) else f"released {when.isoformat()}"


def notes(handed: HandOut) -> list[str]:
    """What ``grader release`` says of the assignments a release leaves out, and of those handed out early."""
    lines = []
    if handed.left_out:
        lines.append(f"Not released yet, so not in the release: {_by_reason(handed.left_out)}. -a ID hands one out "
                     "now; the release built once it is out (released: in its assignment.yaml) adds it.")
    if handed.early:
        lines.append(f"Handed out before it is released (-a): {_by_reason(handed.early)}. Students' grader check, "
                     "like grader grade, leaves it out until then unless it is named (-a ID): change released: in "
                     "its assignment.yaml to hand it out now.")
    return lines


def _by_reason(assignments: Sequence[Assignment]) -> str:
    """``mlp, checkpoint (released: false); graph (released 2026-12-07T00:00:00-05:00)``: the ids, by reason."""
    groups: dict[str, list[str]] = {}
    for a in assignments:
        groups.setdefault(why_not_out(a), []).append(a.id)
    return "; ".join(f"{', '.join(ids)} ({why})" for why, ids in groups.items())


def withheld_modules(course: Course, handed: Sequence[Assignment]) -> frozenset[str]:
    """The template's files (paths under :attr:`Course.template_package`, ``forward.py``) that a copy holding the
    ``handed`` assignments leaves out: those only other assignments name, unless a file it holds imports them."""
    prefix = f"{course.package}/"

    def named(assignments: Sequence[Assignment]) -> set[str]:
        return {f[len(prefix):] for a in assignments for f in a.files if f.startswith(prefix)}

    withheld = named(course.assignments()) - named(handed)
    template = course.template_package
    todo = [p.relative_to(template).as_posix() for p in sorted(template.rglob("*.py"))]
    todo = [p for p in todo if p not in withheld]
    while todo:  # what a held module imports is held too
        path = todo.pop()
        for target in _imports(template / path, path, course.package):
            for candidate in (f"{target}.py", f"{target}/__init__.py"):
                if candidate in withheld:
                    withheld.discard(candidate)
                    todo.append(candidate)
    return frozenset(withheld)


def template_ignore(template: Path, withheld: frozenset[str]) -> Callable[[str, list[str]], list[str]]:
    """A ``shutil.copytree`` ``ignore`` for copying ``template`` without ``withheld`` (:func:`withheld_modules`) and
    without bytecode."""

    def ignore(folder: str, names: list[str]) -> list[str]:
        here = Path(folder).relative_to(template)
        return [*IGNORE(folder, names), *(n for n in names if (here / n).as_posix() in withheld)]

    return ignore


def _imports(path: Path, where: str, package: str) -> set[str]:
    """The modules of ``package`` that the module at ``path`` (``where`` under the package: ``nn.py``) imports, as
    paths under the package without suffix (``engine``, ``sub/x``); none when it does not parse."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return set()
    home = where.split("/")[:-1]  # the module's own package, under ``package``
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {"/".join(a.name.split(".")[1:]) for a in node.names if a.name.startswith(f"{package}.")}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = home[:len(home) - node.level + 1] + (node.module.split(".") if node.module else [])
            elif node.module == package or (node.module or "").startswith(f"{package}."):
                base = node.module.split(".")[1:] if node.module else []
            else:
                continue
            found |= {"/".join(base)} if base else set()
            found |= {"/".join([*base, a.name]) for a in node.names}  # ``from . import nn``: a module, perhaps
    return found
