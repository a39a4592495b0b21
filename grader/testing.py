"""What test authors use in an assignment's tests (judge side).

A test asks the student's code and the reference for the same probe and
compares the plain data they return::

    @pytest.mark.points(2)
    @pytest.mark.task("1.2")
    def test_mul(student, reference, check):
        '''Value.__mul__: forward value and local gradients'''
        for a, b in [(2.0, -3.0), (0.5, 4.0)]:
            spec = graphs.binary("mul", a, b, seed=1.0)
            with check.case(f"x0 * x1 with x0={a}, x1={b}", method="Value.__mul__",
                            hint="d(a*b)/da = b: multiply out.grad by the *other* operand"):
                compare_graph(student("graph", spec), reference("graph", spec), spec)

Failures are :class:`Failure` exceptions whose message is written for the
student: the method, the inputs, expected vs got, and a hint. Only that
message reaches the feedback, never the test's source.
"""

from __future__ import annotations

import math
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Iterator, Sequence

from .cellmap import where_text
from .sandbox.graph import describe_node
from .sandbox.plain import NONNUMERIC

REL_TOL = 1e-7
"""Default relative tolerance when comparing with the reference."""
ABS_TOL = 1e-10
"""Default absolute tolerance when comparing with the reference."""


class Failure(AssertionError):
    """A check the student's code failed; ``str()`` is the student-facing message.

    Args:
        message: What went wrong, with the inputs and expected vs got.
        method: The student's method at fault (``Value.__mul__``), if known.
        hint: What a TA would say to fix it.
    """

    def __init__(self, message: str, method: str | None = None, hint: str | None = None) -> None:
        self.message = message
        self.method = method
        self.hint = hint
        super().__init__(self.render())

    def render(self) -> str:
        lines = [f"{self.method}: {self.message}" if self.method else self.message]
        if self.hint:
            lines.append(f"Hint: {self.hint}")
        return "\n".join(lines)


class StudentFault(Failure):
    """The student's code raised, crashed, timed out or could not be imported.

    Attributes:
        kind: ``"raised"``, ``"timeout"``, ``"crash"``, ``"import"``, ``"unavailable"`` or
            ``"malformed"`` (an answer that does not fit its probe's schema, see :mod:`grader.answers`).
        error: For ``raised``/``import``: the sandbox's description
            (``type``, ``message``, ``where``, ``during``).
    """

    def __init__(self, kind: str, message: str, error: dict[str, Any] | None = None) -> None:
        self.kind = kind
        self.error = error or {}
        super().__init__(message)


class GraderFault(BaseException):
    """The grader's own machinery failed (e.g. the sandbox could not be set up): never the student's fault.

    A ``BaseException``, so neither ``check.case`` nor hypothesis treats it
    as a failed case: it ends the test, whose score is then withheld (a
    grader error in the results), never counted as 0 or as passed.
    """


MAX_MESSAGE = 500
"""Longest exception message kept from the sandbox, in characters (a hostile worker may send more)."""


def cap(value: Any, limit: int) -> str:
    """``str(value)`` cut to ``limit`` characters (with "..." when cut)."""
    text = value if isinstance(value, str) else str(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def describe_error(error: dict[str, Any]) -> str:
    """Render a sandbox exception description for the student, every field capped (the worker is not trusted)."""
    etype = cap(error.get("type", "Exception"), 100)
    message = cap(error.get("message", ""), MAX_MESSAGE)
    text = f"raised {etype}: {message}" if message else f"raised {etype}"
    where = error.get("where")
    if isinstance(where, dict):
        text += f"\n  at {cap(where_text(where), 300)}, in {cap(where.get('function'), 100)}"
        if where.get("source"):
            text += f": {cap(where.get('source'), 200)}"
    if error.get("during"):
        text += f"\n  while {cap(error.get('during'), 300)}"
    if etype == "NotImplementedError":
        text += "\n  (this part is not implemented yet)"
    return text


def is_number(x: Any) -> bool:
    """True for a plain number (bools excluded)."""
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def show(x: Any) -> str:
    """Student-facing rendering of a probe value (number or non-number marker)."""
    if isinstance(x, dict) and NONNUMERIC in x:
        return f"a {x[NONNUMERIC]} object ({x.get('repr', '')}), not a number"
    if is_number(x):
        return repr(float(x)) if not (isinstance(x, float) and x.is_integer() and abs(x) < 1e16) else repr(x)
    return repr(x)


def close(got: Any, expected: float, rel: float = REL_TOL, abs_tol: float = ABS_TOL) -> bool:
    """Whether ``got`` is a number within tolerance of ``expected`` (NaN equals NaN, inf equals inf)."""
    if not is_number(got):
        return False
    got = float(got)
    if math.isnan(expected) or math.isnan(got):
        return math.isnan(expected) and math.isnan(got)
    return math.isclose(got, expected, rel_tol=rel, abs_tol=abs_tol)


def relative_error(got: float, expected: float) -> float:
    """``|got - expected| / max(|got|, |expected|)`` (0 when both are 0)."""
    scale = max(abs(got), abs(expected))
    return 0.0 if scale == 0 else abs(got - expected) / scale


def field_list(result: Any, key: str, length: int) -> list[Any]:
    """Return ``result[key]`` validated as a list of ``length`` items.

    Raises:
        Failure: If the probe result does not have that shape (it comes from
            the sandbox and is untrusted).
    """
    value = result.get(key) if isinstance(result, dict) else None
    if not isinstance(value, list) or len(value) != length:
        raise Failure(f"the sandbox returned malformed data (field {key!r})")
    return value


def compare_graph(
    got: Any,
    expected: Any,
    spec: dict[str, Any],
    *,
    data_nodes: Sequence[int] | None = None,
    grad_nodes: Sequence[int] | None = None,
    rel: float = REL_TOL,
    abs_tol: float = ABS_TOL,
) -> None:
    """Compare a ``graph`` probe result with the expected one.

    Args:
        got: The student's result (``{"data": [...], "grad": [...]}``).
        expected: The reference's result, or a hand-written one of the same shape.
        spec: The graph spec both were computed from.
        data_nodes: Node indices whose forward value is compared (default:
            every node that is not a leaf).
        grad_nodes: Node indices whose gradient is compared (default: the leaves).
        rel: Relative tolerance.
        abs_tol: Absolute tolerance.

    Raises:
        Failure: On the first mismatch: forward values first (a wrong forward
            value explains wrong gradients), then gradients.
    """
    n = len(spec["leaves"]) + len(spec["nodes"])
    inputs = ", ".join(f"x{i}={v!r}" for i, v in enumerate(spec["leaves"]))
    if data_nodes is None:
        data_nodes = range(len(spec["leaves"]), n)
    if grad_nodes is None:
        grad_nodes = range(len(spec["leaves"]))
    got_data, exp_data = field_list(got, "data", n), field_list(expected, "data", n)
    for i in data_nodes:
        if not close(got_data[i], float(exp_data[i]), rel, abs_tol):
            raise Failure(
                f"forward pass: {describe_node(spec, i)} with {inputs} gave {show(got_data[i])}, "
                f"expected {show(exp_data[i])}"
            )
    got_grad, exp_grad = field_list(got, "grad", n), field_list(expected, "grad", n)
    for i in grad_nodes:
        if not close(got_grad[i], float(exp_grad[i]), rel, abs_tol):
            raise Failure(
                f"{graph_text(spec)}\n  with {inputs}: "
                f"{'x' if i < len(spec['leaves']) else 'n'}{i}.grad was {show(got_grad[i])}, expected {show(exp_grad[i])}"
            )


def expression(spec: dict[str, Any]) -> str:
    """The nodes of a graph spec, e.g. ``n1 = x0 * 2; n2 = n1.tanh()``."""
    leaves = len(spec["leaves"])
    return "; ".join(f"n{i} = {describe_node(spec, i)}" for i in range(leaves, leaves + len(spec["nodes"])))


def graph_text(spec: dict[str, Any]) -> str:
    """A readable listing of a graph spec and how its backward pass was run."""
    leaves = len(spec["leaves"])
    body = expression(spec)
    mode = spec.get("mode", "backward")
    if mode == "local":
        how = f"set n{(spec.get('output', -1)) % (leaves + len(spec['nodes']))}.grad = {spec.get('seed', 1.0)!r} and ran the _backward closures"
    else:
        targets = ", ".join(f"n{i % (leaves + len(spec['nodes']))}" for i in spec.get("backward", [-1]))
        how = f"called backward() on {targets}"
    return f"{body}; {how}"


@dataclass
class CaseResult:
    """One case of a test: its title and, if it failed, the failure and its rendered message.

    Attributes:
        title: What the case checks, with its inputs.
        failure: The failure raised in the case, or None if it passed.
        method: The student's method named in the feedback.
        message: The student-facing message: method, what went wrong, hint.
        hint: The hint shown, always the test's own text (never parsed from a message).
    """

    title: str
    failure: Failure | None = None
    method: str | None = None
    message: str = ""
    hint: str | None = None


@dataclass
class Check:
    """Soft assertions with partial credit (the ``check`` fixture).

    Each :meth:`case` counts equally; a test scores
    ``points * passed_cases / cases``. A failing case does not stop the
    test; the test is reported failed if any case failed.
    """

    cases: list[CaseResult] = field(default_factory=list)

    @contextmanager
    def case(self, title: str, method: str | None = None, hint: str | None = None) -> Iterator[None]:
        """Run one case; a :class:`Failure` inside is recorded, not raised.

        Args:
            title: What the case checks, with its inputs.
            method: The student's method under test, named in the feedback.
            hint: Shown when the case fails (unless the failure has its own).
        """
        result = CaseResult(title)
        self.cases.append(result)
        try:
            yield
        except Failure as failure:
            # the same fault object may be raised again by other cases: read it, never edit it
            not_written = isinstance(failure, StudentFault) and failure.error.get("type") == "NotImplementedError"
            result.failure = failure
            result.method = failure.method or method
            shown_hint = failure.hint if failure.hint is not None else (None if not_written else hint)
            result.hint = shown_hint
            result.message = Failure(failure.message, result.method, shown_hint).render()

    @property
    def failures(self) -> list[CaseResult]:
        return [c for c in self.cases if c.failure is not None]

    @property
    def fraction(self) -> float:
        """Fraction of cases passed (1.0 when no case was recorded)."""
        if not self.cases:
            return 1.0
        return 1.0 - len(self.failures) / len(self.cases)
