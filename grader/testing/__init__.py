"""The API test authors import in an assignment's tests (judge side): ``from grader.testing import ...``.

A test asks the student's code and the reference for the same probe and
compares the plain data they return::

    @pytest.mark.points(2)
    @pytest.mark.task("1.2")
    def test_mul(student, reference, check):
        '''Value.__mul__: forward value and local gradients'''
        for a, b in [(2.0, -3.0), (0.5, 4.0)]:  # graphs, compare_graph: from assignments.shared.checks
            spec = graphs.binary("mul", a, b, seed=1.0)
            with check.case(f"x0 * x1 with x0={a}, x1={b}", method="Value.__mul__",
                            hint="d(a*b)/da = b: multiply out.grad by the *other* operand"):
                compare_graph(student("graph", spec), reference("graph", spec), spec)

Failures are :class:`Failure` exceptions whose message is written for the
student: the method, the inputs, expected vs got, and a hint. Only that
message reaches the feedback, never the test's source. The method named is
the one whose own code failed: a case about ``Value.backward`` that fails
inside ``__add__``'s closure is reported as ``Value.__add__``'s, with a hint
about ``__add__`` (:mod:`~grader.testing.attribution`).

Modules: :mod:`~grader.testing.outcomes` (failures and faults),
:mod:`~grader.testing.cases` (the ``check`` fixture's cases),
:mod:`~grader.testing.attribution` (the method a failure belongs to: the one whose own code failed),
:mod:`~grader.testing.comparisons` (numbers within a tolerance), :mod:`~grader.testing.contracts`
(a contract test that blocks the tests built on it), :mod:`~grader.testing.made_once` (seeded cases built once per
judge, a fresh copy for each student), :mod:`~grader.testing.drawn_once` (a hypothesis test's examples drawn once
per judge; hypothesis itself runs only to shrink a failure).

What belongs to the course (graph and model specs, what math says they compute, hypothesis strategies, the
handout's tables) lives with it, in ``assignments/shared/checks`` and each assignment's folder, imported as
``assignments.<folder>.<module>`` (see :mod:`grader.sandbox.course_code`).
"""

from grader.testing.cases import CaseResult, Check
from grader.testing.comparisons import ABS_TOL, REL_TOL, close, field_list, is_number, relative_error, show
from grader.testing.drawn_once import drawn_once
from grader.testing.made_once import made_once
from grader.testing.outcomes import Failure, GraderFault, StudentFault, describe_error

__all__ = [
    "ABS_TOL", "REL_TOL", "CaseResult", "Check", "Failure", "GraderFault", "StudentFault", "close",
    "describe_error", "drawn_once", "field_list", "is_number", "made_once", "relative_error", "show",
]
