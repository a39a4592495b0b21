"""Which method returned None: the cause of a failure that a forgotten ``return`` explains.

A method that builds its result and forgets ``return out`` returns None, and a
probe often sees that one step later: a method built on it returns None too
(``a / b`` is ``a * b**-1``), or the next operation fails on the None it got
(``n2 + None`` raises ``TypeError``). :func:`watched` runs one step of a probe
(an operation, a forward pass, ``parameters()``). When the step returns None,
or raises an exception whose message names ``NoneType``, it runs the step once
more while the methods it is given are watched, and raises
:class:`ReturnedNone` naming the first of them that returned None: the
innermost, since a call returns before its caller does. A step that fails in
any other way is not run again, and keeps its own failure.

The methods are the caller's to name (the course's probes know the handout's
classes); a method is watched where its class or a base class defines it as
a plain function, and put back as it was afterwards. Standard library only.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Callable, Sequence
from typing import Any

from .plain import text

Watched = Sequence[tuple[Any, str, str]]
"""The methods to watch: ``(class, method name, name shown)``, e.g. ``(Value, "__mul__", "Value.__mul__")``; a
class that is None is skipped."""


class ReturnedNone(Exception):
    """A method that must return a result returned None; the message names it and asks for its ``return``."""


def _owner(cls: Any, name: str) -> tuple[Any, Any] | None:
    """The class of ``cls``'s MRO that defines ``name`` as a plain function, and that function (None: there is none)."""
    try:
        mro = [k for k in type.__getattribute__(cls, "__mro__") if k is not object]
    except (AttributeError, TypeError):
        return None
    for klass in mro:
        found = vars(klass).get(name)
        if found is not None:
            return (klass, found) if isinstance(found, types.FunctionType) else None
    return None


class _Watch:
    """Replace the watched methods by wrappers that note the first call returning None (its depth among them)."""

    def __init__(self, methods: Watched) -> None:
        self.methods = methods
        self.found: tuple[str, bool, int] | None = None
        """The first method that returned None: its name shown, whether it has a local ``out``, its call depth."""
        self.depth = 0
        self.saved: list[tuple[Any, str, Any]] = []

    def wrap(self, function: Any, shown: str) -> Callable[..., Any]:
        code = getattr(function, "__code__", None)
        has_out = any("out" in getattr(code, names, ()) for names in ("co_varnames", "co_cellvars"))  # (a closure's)

        @functools.wraps(function)
        def watching(*args: Any, **kwargs: Any) -> Any:
            depth, self.depth = self.depth, self.depth + 1
            try:
                result = function(*args, **kwargs)
            finally:
                self.depth = depth
            if result is None and self.found is None:
                self.found = (shown, has_out, depth)
            return result

        return watching

    def __enter__(self) -> _Watch:
        done: set[tuple[int, str]] = set()
        for cls, name, shown in self.methods:
            owned = _owner(cls, name) if cls is not None else None
            if owned is None or (id(owned[0]), name) in done:
                continue
            klass, function = owned
            try:
                setattr(klass, name, self.wrap(function, shown))
            except (AttributeError, TypeError):  # a class whose methods cannot be replaced: not watched
                continue
            done.add((id(klass), name))
            self.saved.append((klass, name, function))
        return self

    def __exit__(self, *exc: object) -> None:
        for klass, name, function in reversed(self.saved):
            setattr(klass, name, function)


def _first_none(step: Callable[[], Any], methods: Watched) -> tuple[str, bool, int] | None:
    """Run ``step`` again with ``methods`` watched; the first of them that returned None (see :class:`_Watch`)."""
    with _Watch(methods) as watch:
        try:
            step()
        except BaseException:  # noqa: BLE001 - it failed the first time too: only which method returned None matters
            pass
    return watch.found


def returned_none(what: str, found: tuple[str, bool, int], error: BaseException | None) -> str:
    """The message of :class:`ReturnedNone`: what the step did, which method returned None, the ``return`` to add.

    Args:
        what: The step, as the student would write it (``x0 * x1``).
        found: The method that returned None (name shown, whether it has a local ``out``, call depth).
        error: What the step raised (None: it returned None itself).
    """
    shown, has_out, depth = found
    fix = f"did you forget {'`return out`' if has_out else 'a `return`'} at the end of `{shown}`?"
    step = f"`{text(what, 120)}`"
    if error is not None:
        return f"{step} raised {text(type(error).__name__, 60)} ({text(error, 150)}) after `{shown}` returned None: {fix}"
    if depth == 0:
        return f"{step} returned None: {fix}"
    return f"{step} returned None because `{shown}`, which it calls, returned None: {fix}"


def watched(step: Callable[[], Any], what: str, methods: Watched) -> Any:
    """Run ``step`` and return its result, naming the method that returned None when that explains a failure.

    Args:
        step: One step of a probe, with no argument (it is run a second time when it failed).
        what: The step as the student would write it, for the message (``x0 * x1``).
        methods: The methods that must not return None (:data:`Watched`).

    Raises:
        ReturnedNone: If ``step`` returned None, or raised an exception naming ``NoneType``, and a watched method
            returned None when it ran again.
    """
    try:
        result = step()
    except Exception as exc:
        if "NoneType" in text(exc) and (found := _first_none(step, methods)) is not None:
            raise ReturnedNone(returned_none(what, found, exc)) from None
        raise
    if result is None and (found := _first_none(step, methods)) is not None:
        raise ReturnedNone(returned_none(what, found, None))
    return result
