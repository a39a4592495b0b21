"""The judge's ``backward()`` on a graph the worker's recording ``Value`` sent: micrograd's accumulation, computed in
the judge (judge only).

The worker sends the graph of a ``backward()`` as packed columns, one entry per node in the order the nodes were made
(``recording.graph``); :func:`gradients` answers with every node's gradient, computed as the grader's engine would:
the root's grad set to 1, then each node's local gradients times its grad added to its operands', in reverse
topological order, from the grads the nodes held. Used by :class:`.network_judge.Network`; the checkpointing tests'
record of the judge's own nodes (:mod:`.activations_judge`) checks the graph first.
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
from .recording import OPS, unpacked

NAMES = {code: op for op, code in OPS.items()}
_ADD, _MUL, _TANH = OPS["add"], OPS["mul"], OPS["tanh"]
"""Each operation's name by its code in a packed graph (:data:`.recording.OPS`; another code: no operation of the
engine, nothing flows through it)."""
MAX_NODES = 200_000
"""The largest graph a ``backward`` question may send."""
_LATER = "backward() sent a graph whose operands are not made before their nodes"


def gradients(payload: Any, judged: Activations | None = None) -> list[float]:
    """The ``backward`` answer (see the module docstring); a malformed graph is refused.

    With ``judged`` (the checkpointing tests: :mod:`.activations_judge`), the graph's nodes that carry the judge's
    tokens (column ``toks``) are checked against the judge's record first, and the judge counts the activations the
    root was made from.

    The nodes come in the order they were made, so each operand is an earlier node (checked) and the reverse of
    that order is a topological one: no graph walk, and no cycle can be sent.
    """
    fields = ("seqs", "ops", "arity", "refs", "vals", "grads")
    if type(payload) is not dict or set(payload) != {*fields, *(("toks",) if judged is not None else ())}:
        raise AskRefused("backward() sent no graph the grader reads")
    columns = [unpacked(kind, payload[f], MAX_NODES * most) for f, kind, most in zip(
        fields, ("q", "B", "I", "q", "d", "d"), (1, 1, 1, 3, 3, 1))]
    seqs, ops, arity, sent, vals, grads = columns
    toks = unpacked("q", payload["toks"], MAX_NODES) if judged is not None else []
    if seqs is None or ops is None or arity is None or sent is None or vals is None or grads is None or toks is None:
        raise AskRefused("backward() sent a graph the grader does not read")
    n = len(ops)
    if not 0 < n <= MAX_NODES or len(seqs) != n or len(arity) != n or len(sent) != len(vals) or len(grads) != n \
            or sum(arity) != len(sent) or not all(map(operator.lt, seqs, seqs[1:])):
        raise AskRefused("backward() sent a graph the grader does not read")
    place = dict(zip(seqs, range(n)))
    refs = list(map(place.get, sent, itertools.repeat(-1)))  # an operand not sent (or -1) is a number
    starts = list(itertools.accumulate(arity, initial=0))
    if judged is not None:
        judged.check(toks, ops, arity, starts, refs, vals, grads)
    reached = bytearray(n)
    reached[n - 1] = 1
    grads[n - 1] = 1.0  # backward() on the last node made: the root
    for i in range(n - 1, -1, -1):
        a = arity[i]
        if not a or not reached[i]:  # a leaf, or a node root was not made from (it keeps its grad)
            continue
        s, g, code = starts[i], grads[i], ops[i]
        if a == 2:  # the network's sums and products: LOCAL's "add" and "mul", inline
            r0, r1 = refs[s], refs[s + 1]
            if not (-1 <= r0 < i and -1 <= r1 < i):
                raise AskRefused(_LATER)
            if code == _ADD:
                if r0 >= 0:
                    grads[r0] += g
                    reached[r0] = 1
                if r1 >= 0:
                    grads[r1] += g
                    reached[r1] = 1
                continue
            if code == _MUL:
                if r0 >= 0:
                    grads[r0] += vals[s + 1] * g
                    reached[r0] = 1
                if r1 >= 0:
                    grads[r1] += vals[s] * g
                    reached[r1] = 1
                continue
        elif a == 1 and code == _TANH:  # LOCAL's "tanh", inline: 1 - out**2 at the output it had
            r0 = refs[s]
            if not -1 <= r0 < i:
                raise AskRefused(_LATER)
            if r0 >= 0:
                out = math.tanh(vals[s])
                grads[r0] += (1.0 - out * out) * g
                reached[r0] = 1
            continue
        operands = refs[s:s + a]
        if not -1 <= min(operands) <= max(operands) < i:
            raise AskRefused(_LATER)
        op = NAMES.get(code, "")
        local = LOCAL.get(op)
        if local is None:
            continue  # a node the student made with Value(data, children, op): nothing flows through it
        args = vals[s:s + a]
        try:
            locals_ = local(*args, FORWARD[op](*args))  # its value as it was made
        except TypeError:
            continue  # an operation with another number of operands than the engine's
        except (ArithmeticError, ValueError) as exc:
            raise AskRefused(f"the local gradient of {op} at {args} is not defined ({type(exc).__name__}: {exc})"
                             ) from None
        if any(type(g) is complex for g in locals_):  # (-1.0) ** 0.5
            raise AskRefused(f"the local gradient of {op} at {args} is not a real number")
        for r, local_g in zip(operands, locals_):
            if r >= 0:
                grads[r] += local_g * g
                reached[r] = 1
    if judged is not None:
        judged.after(toks, grads, reached)
    return grads
