"""Cases that are the same for every student, made once per judge and handed out as fresh copies.

A hidden test often draws its cases from a seeded generator (``random.Random("broken-" + op)``): every student
gets the same ones, and building them can cost more than asking the student's code about them (gradcheck's
hidden tests spent a third of a correct student's time there). A judge grades many students with one import of
the test module, so ``@made_once`` builds them on the first call and hands each later call a copy of that first
result (a deep copy, :func:`copy.deepcopy`), generators' states included: each student's cases and the order they are
drawn in start exactly where the first student's did, and what one student's test does to its copy (a shuffle,
a generator drawn from) never reaches the next.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable, Hashable
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")


def made_once(build: Callable[P, T]) -> Callable[P, T]:
    """Decorate a function of hashable arguments whose result depends on them alone: the first call with given
    arguments builds it, and every call (that one included) gets its own copy.

    The result must be deep-copyable (plain data, :class:`random.Random`, dataclasses). Its copies are equal to a
    fresh build only if ``build`` is deterministic: seed every generator it uses from its arguments.

    Raises:
        TypeError: If an argument is unhashable (what ``build`` raises, it raises, and nothing is kept).
    """
    made: dict[Hashable, T] = {}

    @functools.wraps(build)
    def fresh(*args: P.args, **kwargs: P.kwargs) -> T:
        key = (args, tuple(sorted(kwargs.items())))
        if key not in made:
            made[key] = build(*args, **kwargs)  # never handed out itself: each call gets a copy
        return copy.deepcopy(made[key])

    return fresh
