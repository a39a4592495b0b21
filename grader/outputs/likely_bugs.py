"""Which catalogued bug a student most likely has: at most one per student and assignment, with its strength.

The catalogue (``assignments/<id>/bugs.yaml``, :mod:`grader.course.catalogue`)
names, for each known bug, the tests it must fail (``caught_by``). A student's
results show which tests they failed. :func:`match` scores how well the two
agree, as a Jaccard similarity:

* the bug's *expected* failures are its ``caught_by`` entries (an entry
  without parameters, ``test_unary_local_gradient``, counts once, as failed
  when any of its parametrized tests failed);
* the student's *failures* are the tests they failed on their own code, not
  those failed on a template stub (``NotImplementedError``: unfinished, not a
  bug) nor those the grader could not run;
* a failure in a test the bug does not name but that is *about* the bug's
  method (``extra_data.about``: a bug may cost points in the tests about the
  method it breaks, and nowhere else) is left out of both sets: neither
  evidence for the bug nor against it;
* ``score = hits / (expected + unexplained)``, that is
  ``|expected ∩ failed| / |expected ∪ failed|``: 1.0 when the student failed
  every test the bug must fail and nothing the bug does not explain; each
  expected test the student passed, and each failure elsewhere, lowers it.

:func:`attribute` gives each student the best-scoring bug whose score is at
least :data:`THRESHOLD`, or none. Bugs can have the same signature
(``tanh_grad_from_input`` and ``tanh_grad_not_squared`` fail the same tests):
the tie goes to the bug with more of its expected tests failed, then to the
bug that more students of the class have unambiguously, then to the one
listed first in ``bugs.yaml``; the others are kept as :attr:`Attribution.ties`
so the report can say which bugs fit equally well.

Ties are only as good as the catalogue: two bugs are told apart by a test one
of them fails and the other passes only when an entry's ``caught_by`` names it.
A failure about the bug's method that no entry names is evidence for neither,
so if ``backward_no_visited_set`` named only the two tests it shares in kind
with ``topo_preorder`` (each two of the student's failures), a student without
a visited set would fit both fully and be named ``topo_preorder``, listed
first; naming ``test_backward_accumulates``, which a pre-order sort passes,
makes the missing visited set the better fit.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from grader.course.catalogue import Bug
from grader.outputs.attention import shown_id
from grader.outputs.entries import TestEntry

THRESHOLD = Fraction(1, 2)
"""The lowest score that names a bug: at least half of the union of what the bug must fail and what the student
failed that it does not explain is shared. Below it the results say more about other faults (several bugs, an
engine broken throughout, a cascade from another assignment) than about this one."""


def names(entry: str, test_name: str) -> bool:
    """Whether a ``caught_by`` entry names a test (``test_x`` names ``test_x`` and every ``test_x[...]``).

    The same reading as :meth:`grader.course.catalogue.Bug.catches`, for one entry.
    """
    return test_name == entry or ("[" not in entry and test_name.startswith(entry + "["))


@dataclass(frozen=True)
class BugMatch:
    """How well one student's results on an assignment fit one catalogued bug.

    Attributes:
        bug: The catalogued bug.
        hits: Its ``caught_by`` entries that the student failed.
        missed: Its ``caught_by`` entries that the student passed (the bug would have failed them).
        unexplained: Tests the student failed that the bug neither names nor is about.
    """

    bug: Bug
    hits: tuple[str, ...]
    missed: tuple[str, ...]
    unexplained: tuple[str, ...]

    @property
    def ratio(self) -> Fraction:
        """The Jaccard similarity, exactly: ``hits / (hits + missed + unexplained)``."""
        union = len(self.hits) + len(self.missed) + len(self.unexplained)
        return Fraction(len(self.hits), union) if union else Fraction(0)

    @property
    def score(self) -> float:
        """The Jaccard similarity, from 0 to 1."""
        return float(self.ratio)

    @property
    def rank(self) -> tuple[Fraction, int]:
        """What orders matches, best last: the score, then how many expected tests failed."""
        return self.ratio, len(self.hits)

    @property
    def evidence(self) -> str:
        """One line for the report: what matched and what did not."""
        expected, hit = len(self.bug.caught_by), len(self.hits)
        if hit == expected:
            text = "failed the test that catches it" if expected == 1 else f"failed all {expected} tests that catch it"
        else:
            text = f"failed {hit} of the {expected} tests that catch it"
        if self.unexplained:
            n = len(self.unexplained)
            text += f"; {n} other failure{'s' if n != 1 else ''} it does not explain"
        return text


def match(bug: Bug, tests: Sequence[TestEntry]) -> BugMatch:
    """Score ``bug`` against one student's tests on the bug's assignment (see the module's docstring)."""
    failed = [t for t in tests if t.graded_failure]
    hits = tuple(c for c in bug.caught_by if any(names(c, t.test_name) for t in failed))
    missed = tuple(c for c in bug.caught_by if c not in hits)
    unexplained = tuple(t.test_name for t in failed
                        if not any(names(c, t.test_name) for c in bug.caught_by) and not t.is_about(bug.method))
    return BugMatch(bug, hits, missed, unexplained)


def best_matches(bugs: Sequence[Bug], tests: Sequence[TestEntry]) -> list[BugMatch]:
    """The bugs that fit ``tests`` best, all with the same rank, in catalogue order; none below :data:`THRESHOLD`."""
    found = [m for m in (match(b, tests) for b in bugs) if m.hits and m.ratio >= THRESHOLD]
    if not found:
        return []
    top = max(m.rank for m in found)
    return [m for m in found if m.rank == top]


@dataclass(frozen=True)
class Attribution:
    """The one catalogued bug a student's results on an assignment most likely show.

    Attributes:
        student: The student id, as the report shows it (:func:`grader.outputs.attention.shown_id`).
        match: The bug and how well it fits.
        ties: Other bugs that fit exactly as well (the same score and expected tests failed).
    """

    student: str
    match: BugMatch
    ties: tuple[Bug, ...] = field(default=())

    @property
    def bug(self) -> Bug:
        return self.match.bug

    @property
    def strength(self) -> float:
        """How strongly the bug matched, from :data:`THRESHOLD` to 1."""
        return self.match.score


def attribute(bugs: Sequence[Bug], results: Mapping[str, Sequence[TestEntry]]) -> dict[str, Attribution]:
    """At most one most likely bug per student, for the students of one assignment.

    Args:
        bugs: The assignment's catalogue, in ``bugs.yaml`` order.
        results: Student id to their tests on the assignment. Leave out
            submissions that could not be graded (every test failed on an
            import error, whatever the bug).

    Returns:
        Student id to their attribution (which shows the id inert and capped); students whose results fit no bug
        well enough (:data:`THRESHOLD`) are absent.
    """
    best = {student: found for student, tests in results.items() if (found := best_matches(bugs, tests))}
    clear = Counter(found[0].bug.id for found in best.values() if len(found) == 1)
    attributions = {}
    for student, found in best.items():
        ordered = sorted(found, key=lambda m: -clear[m.bug.id])  # stable: catalogue order among equals
        attributions[student] = Attribution(shown_id(student), ordered[0], tuple(m.bug for m in ordered[1:]))
    return attributions
