"""The judge's ``backward()`` on a graph the worker's recording ``Value`` sent: micrograd's accumulation, computed in
the judge (judge only).

The worker sends the graph of a ``backward()`` as packed columns, one entry per node in the order the nodes were made
(``recording.graph``); :class:`Backward` computes every node's gradient as the grader's engine would: the root's grad
set to 1, then each node's local gradients times its grad added to its operands', in reverse topological order, from
the grads the nodes held. A node the student's code made itself with its own ``_backward`` closure is the student's:
the pass stops there, the worker runs the closures (``recording.Value.backward``) and sends the gradients back, and
the pass goes on, so such a node passes on what the student's own engine would. Used by
:class:`.network_judge.Network`; the checkpointing tests' record of the judge's own nodes (:mod:`.activations_judge`)
checks the graph first.
"""

from __future__ import annotations

import itertools
import math
import operator
from typing import Any

from assignments.shared.probes.engine_probes import FORWARD
from grader.testing.judged import AskRefused

from .activations_judge import Activations
from .local_gradients import LOCAL
from .recording import OPS, OWN, unpacked

NAMES = {code: op for op, code in OPS.items()}
_ADD, _MUL, _TANH = OPS["add"], OPS["mul"], OPS["tanh"]
"""Each operation's name by its code in a packed graph (:data:`.recording.OPS`; another code: no operation of the
engine, nothing flows through it)."""
MAX_NODES = 200_000
"""The largest graph a ``backward`` question may send."""
_LATER = "backward() sent a graph whose operands are not made before their nodes"


class Backward:
    """One ``backward()`` the worker asked for, computed here; paused at each node the student's code made with its own
    ``_backward`` (op code :data:`.recording.OWN`), which only the worker can run.

    :meth:`step` goes on in reverse topological order (the reverse of the order the nodes were made) and returns the
    next run of such nodes, in that order: consecutive ones, up to the first node of the grader's the run's nodes may
    pass a gradient to (its gradient is not complete before their closures ran); ``[]`` when the pass is over
    (:attr:`grads` is then the answer). The worker runs their closures on the gradients so far and sends every
    node's gradient back (:meth:`resume`): what the student's own engine would have done at that point of micrograd's
    ``backward()``. A graph with no such node is computed in one call, in a tight loop.

    The nodes come in the order they were made, so each operand is an earlier node (checked) and the reverse of that
    order is a topological one: no graph walk, and no cycle can be sent. With ``judged`` (the checkpointing tests:
    :mod:`.activations_judge`), the graph's nodes that carry the judge's tokens (column ``toks``) are checked against
    the judge's record first, and the judge counts the activations the root was made from.

    Args:
        payload: The columns ``recording.graph`` sends: ``seqs``, ``ops``, ``arity``, ``refs``, ``vals``,
            ``grads`` (and ``toks``), packed.
        judged: The checkpointing tests' record of the judge's own nodes (:mod:`.activations_judge`), or None.

    Raises:
        AskRefused: If the graph is malformed.
    """

    def __init__(self, payload: Any, judged: Activations | None = None) -> None:
        fields = ("seqs", "ops", "arity", "refs", "vals", "grads")
        if type(payload) is not dict or not set(fields) <= set(payload) <= {*fields, "toks"} \
                or (judged is not None and "toks" not in payload):
            raise AskRefused("backward() sent no graph the grader reads")
        columns = [unpacked(kind, payload[f], MAX_NODES * most) for f, kind, most in zip(
            fields, ("q", "B", "I", "q", "d", "d"), (1, 1, 1, 3, 3, 1))]
        seqs, ops, arity, sent, vals, grads = columns
        # tokens of the judge's nodes are read only where it keeps a record of them (a worker may still hold some
        # from an earlier test's probe, meaningless here)
        toks = unpacked("q", payload["toks"], MAX_NODES) if judged is not None else []
        if seqs is None or ops is None or arity is None or sent is None or vals is None or grads is None \
                or toks is None:
            raise AskRefused("backward() sent a graph the grader does not read")
        n = len(ops)
        if not 0 < n <= MAX_NODES or len(seqs) != n or len(arity) != n or len(sent) != len(vals) \
                or len(grads) != n or sum(arity) != len(sent) or not all(map(operator.lt, seqs, seqs[1:])):
            raise AskRefused("backward() sent a graph the grader does not read")
        place = dict(zip(seqs, range(n)))
        refs = list(map(place.get, sent, itertools.repeat(-1)))  # an operand not sent (or -1) is a number
        starts = list(itertools.accumulate(arity, initial=0))
        if judged is not None:
            judged.check(toks, ops, arity, starts, refs, vals, grads)
        self.n, self.ops, self.arity, self.refs, self.vals, self.starts = n, ops, arity, refs, vals, starts
        self.grads: list[float] = grads
        """Each node's gradient so far (the answer, once :meth:`step` returned ``[]``)."""
        self.toks, self.judged = toks, judged
        self.reached = bytearray(n)
        self.reached[n - 1] = 1
        grads[n - 1] = 1.0  # backward() on the last node made: the root
        self.at = n - 1
        """The next node to go through (-1: none left)."""
        self.fixed = bytearray(n)
        """The nodes of the grader's that passed their gradient on: a gradient the worker sends for one is not
        taken."""
        self.run: list[int] = []
        self.own = OWN in ops

    def step(self) -> list[int]:
        """Go on; the next run of the student's own nodes to run, or ``[]`` when the pass is over."""
        if not self.own:
            self._through_all()
        else:
            self.run = self._through_to_own()
            if self.run:
                return self.run
        if self.judged is not None:
            self.judged.after(self.toks, self.grads, self.reached)
        return []

    def resume(self, sent: Any) -> None:
        """Take each node's gradient after the worker ran the last run's closures (packed, one per node).

        Raises:
            AskRefused: If nothing is paused, ``sent`` is no such column, or (the checkpointing tests) a closure
                changed the gradient of a node of the judge's that its node was not made from.
        """
        grads = unpacked("d", sent, self.n) if self.run else None
        if grads is None or len(grads) != self.n:
            raise AskRefused("backward() sent gradients that do not fit the graph")
        refs, starts, arity = self.refs, self.starts, self.arity
        operands = {r for i in self.run for r in refs[starts[i]:starts[i] + arity[i]] if r >= 0}
        for i, (was, now) in enumerate(zip(self.grads, grads)):
            if self.fixed[i] or was == now:
                continue
            if self.toks and self.toks[i] and i not in operands:
                raise AskRefused("the _backward of a node of yours changed the gradient of a node of the grader's "
                                 "layers it was not made from")
            self.grads[i] = now
        self.run = []

    def _through_to_own(self) -> list[int]:
        """Go through the nodes from :attr:`at` down, one by one, up to the next run of the student's own nodes."""
        run: list[int] = []
        arity, ops, reached, refs, starts = self.arity, self.ops, self.reached, self.refs, self.starts
        i = self.at
        while i >= 0:
            a = arity[i]
            if a and reached[i]:
                if ops[i] == OWN:
                    operands = refs[starts[i]:starts[i] + a]
                    if not -1 <= min(operands) <= max(operands) < i:
                        raise AskRefused(_LATER)
                    for r in operands:  # what the closure passes its gradient to: not complete before it ran
                        if r >= 0:
                            reached[r] = 1
                    run.append(i)
                elif run:
                    break
                else:
                    self._through(i)
                    self.fixed[i] = 1
            i -= 1
        self.at = i
        return run

    def _through(self, i: int) -> None:
        """Pass node ``i``'s gradient to its operands with its operation's local gradients (none: nothing flows)."""
        a, s = self.arity[i], self.starts[i]
        operands = self.refs[s:s + a]
        if not -1 <= min(operands) <= max(operands) < i:
            raise AskRefused(_LATER)
        op = NAMES.get(self.ops[i], "")
        local = LOCAL.get(op)
        if local is None:
            return  # a node the student made with Value(data, children, op) and no _backward: nothing flows
        args = self.vals[s:s + a]
        try:
            locals_ = local(*args, FORWARD[op](*args))  # its value as it was made
        except TypeError:
            return  # an operation with another number of operands than the engine's
        except (ArithmeticError, ValueError) as exc:
            raise AskRefused(f"the local gradient of {op} at {args} is not defined ({type(exc).__name__}: {exc})"
                             ) from None
        if any(type(g) is complex for g in locals_):  # (-1.0) ** 0.5
            raise AskRefused(f"the local gradient of {op} at {args} is not a real number")
        g, grads, reached = self.grads[i], self.grads, self.reached
        for r, local_g in zip(operands, locals_):
            if r >= 0:
                grads[r] += local_g * g
                reached[r] = 1

    def _through_all(self) -> None:
        """The whole pass of a graph with none of the student's own nodes: the network's sums, products and tanh
        inline (a training step's graph is thousands of them), any other operation by :meth:`_through`."""
        arity, starts, refs, vals, grads, ops, reached = (self.arity, self.starts, self.refs, self.vals, self.grads,
                                                          self.ops, self.reached)
        for i in range(self.n - 1, -1, -1):
            a = arity[i]
            if not a or not reached[i]:  # a leaf, or a node root was not made from (it keeps its grad)
                continue
            s, g, code = starts[i], grads[i], ops[i]
            if a == 2 and (code == _ADD or code == _MUL):  # LOCAL's "add" and "mul", inline
                r0, r1 = refs[s], refs[s + 1]
                if not (-1 <= r0 < i and -1 <= r1 < i):
                    raise AskRefused(_LATER)
                add = code == _ADD
                if r0 >= 0:
                    grads[r0] += g if add else vals[s + 1] * g
                    reached[r0] = 1
                if r1 >= 0:
                    grads[r1] += g if add else vals[s] * g
                    reached[r1] = 1
            elif a == 1 and code == _TANH:  # LOCAL's "tanh", inline: 1 - out**2 at the output it had
                r0 = refs[s]
                if not -1 <= r0 < i:
                    raise AskRefused(_LATER)
                if r0 >= 0:
                    out = math.tanh(vals[s])
                    grads[r0] += (1.0 - out * out) * g
                    reached[r0] = 1
            else:
                self._through(i)
        self.at = -1
