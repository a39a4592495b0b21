"""How many layer outputs (activations) a pass held alive at once, measured from what it did with them.

Gradient checkpointing trades memory for compute, so its tests measure memory: the most activations alive at the
same moment. Nobody outside a process can see which of its objects are alive, but every use of an activation proves
it was alive until then: an activation is alive from the moment its layer made it until its last *use*, where a use
is a ``backward()`` that reached it, or a layer evaluated on it (its graph then holds it, and everything it was made
from, for as long as the new activation lives). :class:`Ledger` keeps that interval for each activation and
:meth:`Ledger.most_alive` is the largest number of intervals that overlap: a lower bound on what any implementation
that did those things must have held, which a pass cannot lower by dropping, relabelling or detaching its objects,
since every use it makes is one the ledger sees.

A plain backward pass holds every activation until its one ``backward()`` (``n``); the handout's checkpointed
backward pass holds one segment's at a time (``every``); a checkpointed forward pass that runs each layer on a fresh
``Value`` of the last output's data holds one; a forward pass that keeps the whole graph, or a backward pass that
reuses the forward pass's graph instead of recomputing it, holds them all.

In hidden grading the judge keeps the ledger (the part ``activations_judge``), keyed by the tokens of the grader's
layer outputs; a self-check keeps the same ledger in the worker, keyed by object identity. Standard library only.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Any


class Ledger:
    """The activations a pass made and used, in the order it did so.

    Moments are counted by :meth:`tick`: one per layer evaluation and one per ``backward()``. Each call is O(1) (a
    chain's graph is not walked on every use); :meth:`most_alive` works out every activation's last use once, in
    linear time.
    """

    def __init__(self) -> None:
        self.moment = 0
        self.made_at: dict[Hashable, int] = {}
        """Each activation's moment of making, in the order made."""
        self.last_use: dict[Hashable, int] = {}
        """Each activation's last use of its own (a ``backward()`` that reached it), not counting its graph's."""
        self.children: dict[Hashable, list[Hashable]] = {}
        """The activations made from each (whose graph holds it)."""

    def tick(self) -> int:
        """A new moment (a layer evaluation or a ``backward()`` starts); returns it."""
        self.moment += 1
        return self.moment

    def made(self, activation: Hashable, parents: Iterable[Hashable] = ()) -> None:
        """A layer made ``activation`` now, from the activations ``parents`` (its input's graph, which holds them for
        as long as ``activation`` lives)."""
        self.made_at[activation] = self.last_use[activation] = self.moment
        self.children[activation] = []
        for parent in parents:
            if parent in self.children and parent != activation:
                self.children[parent].append(activation)

    def used(self, activations: Iterable[Hashable]) -> None:
        """``activations`` (and so every activation their graphs hold) are used now."""
        for a in activations:
            if a in self.last_use:
                self.last_use[a] = self.moment

    def ends(self) -> dict[Hashable, int]:
        """Each activation's last moment alive: its own last use, or that of an activation made from it, whichever
        is later (the later one's graph holds it)."""
        end = dict(self.last_use)
        for a in reversed(list(self.made_at)):  # an activation is made after those it is made from
            for child in self.children[a]:
                if end[child] > end[a]:
                    end[a] = end[child]
        return end

    def most_alive(self) -> int:
        """The most activations alive at one moment (0 when none was made)."""
        starts = sorted(self.made_at.values())
        ends = sorted(self.ends().values())
        alive = most = 0
        j = 0
        for start in starts:  # an interval [made, last moment alive] is alive at both ends
            while j < len(ends) and ends[j] < start:
                alive -= 1
                j += 1
            alive += 1
            most = max(most, alive)
        return most


PROBES: dict[str, Any] = {}
"""No probe of its own: a helper of the checkpointing probes' self-check, and of the judge's side."""
ANSWERS: dict[str, Any] = {}
