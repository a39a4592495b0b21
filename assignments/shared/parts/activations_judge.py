"""The judge's own record of the grader's layers in the checkpointing tests: what only it can make, it counts (judge
only).

The checkpointing tests measure memory (the most activations alive at once) and compute (layer evaluations), and
need every layer's gradient to come from a ``backward()`` through that layer. A worker can build, relabel or detach
anything it holds, so none of that is read from the worker's graph as the worker describes it. Instead every node
the judge makes (each weight of the grader's layers, when it makes the network; each node of a layer's forward pass,
when it computes one) gets a *token*, a number the worker keeps beside its copy of the node
(``recording._TOKENS``) and sends back with it: in a layer's inputs (a layer evaluated on an earlier layer's
output) and with every graph ``backward()`` sends. The judge keeps each token's node as it made it (its operation,
its operands' tokens and values) and:

* checks every node of a sent graph that carries a token against its record: same operation, same operand values,
  and each operand that is the judge's node is there with its token. So the graph below any of the judge's nodes is
  exactly the one the judge made: a relabelled ``tanh``, a layer input cut loose to look like a leaf, or a token
  copied onto another node is refused, failing the student's probe (:class:`AskRefused`);
* lets the grader's weights take gradients only from the grader's nodes (a node of the student's that uses a weight
  of the grader's layer is refused), and keeps their gradients itself: a gradient the worker claims for one of the
  judge's nodes must be what the judge answered last, or 0 (a reset); the test reads the weights' gradients from
  the judge (:meth:`Activations.grads`), never from the worker;
* counts as activations only the outputs of the judge's own layer evaluations that a ``backward()`` reached, and
  keeps a :class:`~assignments.shared.probes.live_activations.Ledger` of them: when each was made, from which, and
  when it was last used (reached by a ``backward()``, or evaluated on), so :meth:`Activations.most_alive` is the
  most alive at once at any moment, not only inside ``backward()``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, NamedTuple

from assignments.shared.probes.live_activations import Ledger
from grader.testing.judged import AskRefused

from .recording import OPS, OTHER


class Made(NamedTuple):
    """One node the judge made, as it made it.

    Attributes:
        op: Its operation's code in a packed graph (:data:`.recording.OPS`; a weight's is 0).
        operands: Each operand's token, 0 for one that is not the judge's node (a student's input, a number).
        vals: Each operand's value when the node was made (a number: compared with the worker's as numbers).
        below: The activations its graph holds (for a layer's output, itself).
        weight: Whether it is a weight of the grader's layers.
    """

    op: int
    operands: tuple[int, ...]
    vals: tuple[float, ...]
    below: tuple[int, ...]
    weight: bool = False


def _same(a: float, b: float) -> bool:
    return a == b or (math.isnan(a) and math.isnan(b))


class Activations:
    """The judge's nodes of one call of a checkpointing probe (see the module docstring)."""

    def __init__(self) -> None:
        self.made: dict[int, Made] = {}
        self.grad: dict[int, float] = {}
        """Each node's gradient as the judge answered it last."""
        self.weights: list[int] = []
        """The grader's weights' tokens, in the network's order."""
        self.ledger = Ledger()
        self.last_reached = 0
        """How many of the judge's activations the last ``backward()`` reached."""
        self._next = 1

    def _token(self, made: Made) -> int:
        token, self._next = self._next, self._next + 1
        self.made[token] = made
        return token

    def weight(self) -> int:
        """A token for a new weight of the grader's layers."""
        token = self._token(Made(0, (), (), (), True))
        self.weights.append(token)
        return token

    def input_token(self, item: dict[str, Any]) -> int:
        """The token an input of a layer evaluation carries (``{"v": data, "t": token}``), 0 for none.

        Raises:
            AskRefused: If it names no node of the judge's.
        """
        token = item.get("t", 0)
        if token == 0:
            return 0
        if type(token) is not int or token not in self.made:
            raise AskRefused("a layer's input names a node the grader did not make")
        return token

    def evaluated(self, program: dict[str, Any], weights: Sequence[int], params: Sequence[Any],
                  inputs: Sequence[Any], tokens: Sequence[int]) -> list[int]:
        """Record a layer evaluation's nodes (``program``: :func:`.network_judge._program`'s, on the part's
        ``params`` with the weight tokens ``weights``, and ``inputs``, whose tokens are ``tokens``); return each
        node's token, and count its outputs as activations made now, from what its inputs' graphs hold."""
        self.ledger.tick()
        made = self.made
        parents = tuple(dict.fromkeys(a for t in tokens if t for a in made[t].below))
        outs = program["out"] if isinstance(program["out"], list) else [program["out"]]
        activations = {ref["n"] for ref in outs if "n" in ref}
        first = self._next
        values: list[Any] = []
        for k, (op, refs, data) in enumerate(program["nodes"]):
            operands, vals = [], []
            for ref in refs:
                for key, i in ref.items():  # one each
                    if key == "n":
                        operands.append(first + i)
                        vals.append(values[i])
                    elif key == "p":
                        operands.append(weights[i])
                        vals.append(params[i].data)
                    elif key == "x":
                        operands.append(tokens[i])
                        vals.append(getattr(inputs[i], "data", inputs[i]))
                    else:
                        operands.append(0)
                        vals.append(i)
            token = first + k
            made[token] = Made(OPS.get(op, OTHER), tuple(operands), tuple(vals),
                               (token,) if k in activations else parents)
            values.append(data)
        self._next = first + len(values)
        for k in sorted(activations):
            self.ledger.made(first + k, parents)
        return list(range(first, self._next))

    def check(self, toks: list[int], ops: list[int], arity: list[int], starts: list[int], refs: list[int],
              vals: list[float], grads: list[float]) -> None:
        """Check the judge's nodes in a graph ``backward()`` sent (columns as :class:`.graph_backward.Backward`
        reads them, ``refs`` already node indices or -1; ``toks`` each node's token or 0) against what the judge
        made: each one's claimed gradient must be the judge's or 0 (a reset).

        Raises:
            AskRefused: If one is not as the judge made it, is there twice, claims a gradient the judge did not give
                it, or a node of the student's uses a weight of the grader's.
        """
        n = len(ops)
        if len(toks) != n:
            raise AskRefused("backward() sent a graph the grader does not read")
        at: dict[int, int] = {}
        for i, token in enumerate(toks):
            if not token:
                continue
            if token in at or token not in self.made:
                raise AskRefused("backward() sent a node of the grader's layers twice, or one it did not make")
            at[token] = i
        for i, token in enumerate(toks):
            s, a = starts[i], arity[i]
            if not token:
                if any(r >= 0 and toks[r] and self.made[toks[r]].weight for r in refs[s:s + a]):
                    raise AskRefused("a weight of the grader's layers takes its gradient only through the grader's "
                                     "layers: backward() reached a node of yours made from one")
                continue
            made = self.made[token]
            if (ops[i] != made.op or a != len(made.operands)
                    or not all(map(_same, vals[s:s + a], made.vals))
                    or any(want and (refs[s + k] < 0 or toks[refs[s + k]] != want)
                           for k, want in enumerate(made.operands))):
                raise AskRefused("backward() reached a node of the grader's layers that is not as the grader made "
                                 "it (its operation, its operands or their values were changed)")
            if i != n - 1:  # backward() seeds its root with 1, whatever it held
                kept = self.grad.get(token, 0.0)
                if grads[i] != 0.0 and not _same(grads[i], kept):
                    raise AskRefused("a gradient of the grader's layers was set by hand: it must come from "
                                     "backward()")

    def after(self, toks: list[int], grads: list[float], reached: bytearray) -> int:
        """Keep the gradients a ``backward()`` gave the judge's nodes, and use the activations it reached now;
        return how many it reached."""
        self.ledger.tick()
        hit = []
        for i, token in enumerate(toks):
            if token:
                self.grad[token] = grads[i]
                if reached[i] and self.made[token].below == (token,):
                    hit.append(token)
        self.ledger.used(hit)
        self.last_reached = len(hit)
        return self.last_reached

    def grads(self) -> list[float]:
        """The gradient of each of the grader's weights, in the network's order, as the judge's backward passes gave
        them."""
        return [self.grad.get(token, 0.0) for token in self.weights]

    def most_alive(self) -> int:
        """The most of the judge's activations alive at once (:class:`~assignments.shared.probes.live_activations.
        Ledger`)."""
        return self.ledger.most_alive()
