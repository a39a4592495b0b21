"""A hypothesis test whose examples are drawn once per judge and replayed for each student.

Under the grader's hypothesis profile (``derandomize=True``, no database: :mod:`grader.judge.plugin`) a test
sees the same examples, in the same order, for every student whose code passes them: the generator is seeded by
the test function alone. Drawing them is hypothesis's work, not the student's code's: for backward's random
graphs it cost more than the calls of a correct student's code. ``@drawn_once`` (above ``@given`` and
``@settings``) records the examples hypothesis draws for a test whose every example passes, once per judge
process, and runs each student's test on copies of them:

* every example passes: the test passes, exactly as hypothesis would have ended it;
* one fails with a fault no input can change (:attr:`~grader.testing.outcomes.StudentFault.input_independent`:
  a method not written, a time limit used up): that fault ends the test, as it ends hypothesis's run;
* one fails otherwise: hypothesis runs the test itself from the start (the same examples up to that one, since
  the seed is the same), and shrinks the failure it finds, so the feedback shows the same smallest
  counterexample as before.

Where the examples cannot be recorded exactly (a profile without ``derandomize``, a seed of the test's own, a
hypothesis whose internals moved), the test runs under hypothesis alone, as without the decorator.
"""

from __future__ import annotations

import copy
import functools
import inspect
from collections.abc import Callable
from typing import Any

from grader.testing.outcomes import StudentFault

Test = Callable[..., Any]


def _seed_of(test: Any) -> int | None:
    """The seed hypothesis gives ``test``'s generator under ``derandomize`` (``Random(seed)``), or None where the
    test is seeded otherwise or the recording cannot reproduce it."""
    settings = getattr(test, "_hypothesis_internal_use_settings", None)
    inner = test.hypothesis.inner_test
    if (settings is None or not settings.derandomize or settings.database is not None
            or getattr(test, "_hypothesis_internal_use_seed", None) is not None
            or getattr(test, "_hypothesis_internal_use_reproduce_failure", None) is not None
            or hasattr(inner, "_hypothesis_internal_add_digest")):  # (pytest's plugin: a key per parametrized item)
        return None
    try:
        from hypothesis.internal.compat import int_from_bytes
        from hypothesis.internal.reflection import function_digest
    except ImportError:  # pragma: no cover - hypothesis moved them
        return None
    seed: int = int_from_bytes(function_digest(inner))
    return seed


def _record(test: Any, fixtures: list[str]) -> list[dict[str, Any]] | None:
    """The drawn arguments of each example hypothesis runs ``test`` on when every one passes (copies), or None."""
    seed = _seed_of(test)
    if seed is None:
        return None
    inner = test.hypothesis.inner_test
    seen: list[dict[str, Any]] = []

    def recorder(*args: Any, **kwargs: Any) -> None:
        seen.append(copy.deepcopy({k: v for k, v in kwargs.items() if k not in fixtures}))

    test.hypothesis.inner_test = recorder
    test._hypothesis_internal_use_seed = seed  # what derandomize gives `inner`, now that `recorder` is run
    try:
        test(**dict.fromkeys(fixtures))
    except Exception:  # noqa: BLE001 - a strategy that cannot draw here: hypothesis runs the test itself
        return None
    finally:
        test.hypothesis.inner_test = inner
        test._hypothesis_internal_use_seed = None
    return seen


def drawn_once(test: Test) -> Test:
    """Decorate a ``@given`` test (put it above ``@given`` and ``@settings``): its examples are drawn once per
    process and replayed for each call; hypothesis runs the test itself only when an example fails (see the
    module's docstring for what each outcome does).

    The drawn arguments must be deep-copyable; each call gets its own copy, so a test may change them.

    Raises:
        TypeError: If ``test`` is not a hypothesis test.
    """
    handle = getattr(test, "hypothesis", None)
    if handle is None or not hasattr(handle, "inner_test"):
        raise TypeError(f"@drawn_once goes above @given: {getattr(test, '__name__', test)!r} is not a hypothesis test")
    fixtures = list(inspect.signature(test).parameters)
    recorded: list[list[dict[str, Any]] | None] = []

    @functools.wraps(test)
    def run(*args: Any, **kwargs: Any) -> Any:
        if not recorded:
            recorded.append(_record(test, fixtures))
        examples = recorded[0]
        if examples:
            inner = handle.inner_test
            try:
                for drawn in examples:
                    inner(*args, **kwargs, **copy.deepcopy(drawn))
                return None
            except StudentFault as fault:
                if fault.input_independent:
                    raise
            except Exception:  # noqa: BLE001, S110 - hypothesis finds the same failure and shrinks it
                pass
        return test(*args, **kwargs)

    return run
