"""The judge's side of the functions a gradient checker is graded on: their programs, their local gradients (a broken
operation's wrong ones included) and every count, held and evaluated in the judge (judge only).

The worker gets a handle per function (:func:`assignments.gradcheck.probes.function_of`) and asks, over the probe's
channel (:mod:`grader.testing.judged`):

* ``call`` ``{"f": k, "at": [x0, ...]}``: function ``k`` evaluated at those numbers: ``{"call": c, "nodes": [[op,
  [children], value], ...]}``, each node's operation, the indices of its operands that are nodes (leaves first, in
  the spec's order, repeats kept) and its forward value (:func:`~assignments.shared.probes.engine_probes.forward_value`);
* ``backward`` ``{"call": c, "node": i}``: ``backward()`` on node ``i`` of call ``c``: ``{"order": [...],
  "locals": {node: [...]}}``, the nodes whose closures it calls, in order (the nodes ``i`` depends on, latest made
  first: the spec's own order is topological, so nothing here walks a graph and a student's copy of the course holds
  no topological sort), each once or, for the tests of a ``backward()`` without a visited set, once per path; and
  each node's local gradients per operand that is a node (the judge's, given at the spec's point, as they were when
  the worker held them);
* ``locals`` ``{"call": c}``: the local gradients alone, for a closure called before any ``backward()`` of its call;
* ``forward`` ``{"op": op, "args": [...]}``: the value of one operation the checker does on its own Values
  (``Value(x) + h``): the worker's ``Value`` holds no operation of the engine.

Every answer is computed here, so the worker holds nothing to read instead of calling ``f`` and running
``backward()``, and the counts a test may rely on (evaluations of each function, ``backward()`` runs, local
gradients asked for outside one) are the judge's. Anything malformed is refused (:class:`~grader.testing.judged.AskRefused`), failing the student's probe.
"""

from __future__ import annotations

import math
from typing import Any

from assignments.gradcheck.probes import PROBES, public
from assignments.shared.checks.graphs import with_local_gradients
from assignments.shared.probes.engine_probes import FORWARD, forward_value, given_locals
from grader.testing.judged import AskRefused

MAX_ORDER = 100_000
"""The longest order of closure calls answered (a graph whose paths outnumber it is refused)."""


def _number(value: Any, what: str) -> float:
    """``value`` as a float: a float as it is (NaN and infinities too: a checker may step onto them), a whole number
    that a float holds.

    Raises:
        AskRefused: If ``value`` is not a number (a bool is not), or is a whole number too large for a float.
    """
    if type(value) is float:
        return value
    if type(value) is not int:
        raise AskRefused(f"{what} is not a number")
    try:
        return float(value)
    except OverflowError:
        digits = int(value.bit_length() * math.log10(2))  # of its magnitude, without writing out its digits
        raise AskRefused(f"{what} is a number too large for the grader (about {'-' if value < 0 else ''}10**{digits}; "
                         "a float holds at most about 1.8e308)") from None


def _index(value: Any, size: int, what: str) -> int:
    """``value`` as an index below ``size``.

    Raises:
        AskRefused: If it is not a whole number (named by its type only), or out of range.
    """
    if type(value) is not int:
        raise AskRefused(f"a {what} number is a whole number, not a {type(value).__name__}")
    if not 0 <= value < size:
        raise AskRefused(f"there is no {what} {value if abs(value) < 10**12 else 'that large'}")
    return value


class Functions:
    """The functions of one call of a ``gradcheck_*`` probe (see the module docstring).

    Args:
        specs: The functions, graph specs (``leaves``: the point, ``nodes``: the program; ``locals``: each node's local
            gradients, computed here when absent).
        request: The probe's arguments, as the test gave them.
        engine: ``"once"`` or ``"per_path"``: how ``backward()`` orders the closures.
    """

    def __init__(self, specs: list[dict[str, Any]], request: list[Any], engine: str = "once") -> None:
        self.specs = [spec if spec.get("locals") else with_local_gradients({**spec, "build": "probe"}) for spec in specs]
        self.request = public(list(request))
        self.engine = engine
        self.evaluations = [0] * len(specs)
        self.calls: list[int] = []
        """Each call's function, by call number."""
        self.backward_passes = 0
        self.outside = 0

    def public(self, args: list[Any]) -> list[Any]:
        """The request as the worker gets it: the points, never the programs or their gradients."""
        return self.request

    def record(self) -> dict[str, Any]:
        """How often each function was evaluated, how many ``backward()`` ran, how often a closure needed its call's
        local gradients outside one."""
        return {"evaluations": list(self.evaluations), "backward_passes": self.backward_passes,
                "locals_outside_backward": self.outside}

    def answer(self, topic: str, payload: Any) -> Any:
        if not isinstance(payload, dict):
            raise AskRefused("a question of the wrong shape")
        if topic == "call" and set(payload) == {"f", "at"}:
            return self._call(payload)
        if topic == "backward" and set(payload) == {"call", "node"}:
            spec, root = self._node(payload)
            order = self._order(spec, root)
            self.backward_passes += 1
            return {"order": order, "locals": self._locals(spec)}
        if topic == "forward" and set(payload) == {"op", "args"}:
            return self._forward(payload)
        if topic == "locals" and set(payload) == {"call"}:
            call = _index(payload["call"], len(self.calls), "call")
            self.outside += 1
            return self._locals(self.specs[self.calls[call]])
        raise AskRefused("a question these functions do not answer")

    def _call(self, payload: dict[str, Any]) -> dict[str, Any]:
        k = _index(payload["f"], len(self.specs), "function")
        spec = self.specs[k]
        at = payload["at"]
        if type(at) is not list or len(at) != len(spec["leaves"]):
            raise AskRefused(f"f takes {len(spec['leaves'])} values")
        values = [_number(x, "an input") for x in at]
        nodes = []
        for op, *operands in spec["nodes"]:
            value = forward_value(op, [values[o] if not isinstance(o, dict) else float(o["const"]) for o in operands])
            nodes.append([op, [o for o in operands if not isinstance(o, dict)], value])
            values.append(value)
        self.evaluations[k] += 1
        self.calls.append(k)
        return {"call": len(self.calls) - 1, "nodes": nodes}

    def _forward(self, payload: dict[str, Any]) -> float:
        """Arithmetic the student's checker does on its Values: the forward value of one operation."""
        op, args = payload["op"], payload["args"]
        if type(op) is not str or op not in FORWARD or type(args) is not list or not 1 <= len(args) <= 2:
            raise AskRefused("not an operation of the engine")
        return forward_value(op, [_number(a, "an operand") for a in args])

    def _node(self, payload: dict[str, Any]) -> tuple[dict[str, Any], int]:
        call = _index(payload["call"], len(self.calls), "call")
        spec = self.specs[self.calls[call]]
        return spec, _index(payload["node"], len(spec["leaves"]) + len(spec["nodes"]), "node")

    def _children(self, spec: dict[str, Any], i: int) -> list[int]:
        """Node ``i``'s distinct operands that are nodes, in the spec's order (as its ``_prev`` iterates)."""
        n = len(spec["leaves"])
        if i < n:
            return []
        return list(dict.fromkeys(o for o in spec["nodes"][i - n][1:] if not isinstance(o, dict)))

    def _order(self, spec: dict[str, Any], root: int) -> list[int]:
        """The nodes whose closures ``backward()`` on node ``root`` calls, in order: every node it depends on (a
        sweep down the spec's list), latest made first (a node is made after its operands, so each comes before
        its operands); once each, or, for a ``backward()`` without a visited set, once per path from ``root`` (over
        each node's distinct operands, as ``_prev`` is a set), the repeats together. No graph is walked: the spec's
        order is a topological order already."""
        per_path = self.engine == "per_path"
        paths = [0] * (root + 1)
        paths[root] = 1
        for i in range(root, -1, -1):
            if paths[i]:
                for child in self._children(spec, i):
                    paths[child] += paths[i] if per_path else 1
        order = [i for i in range(root, -1, -1) for _ in range(paths[i] if per_path else min(paths[i], 1))]
        if len(order) > MAX_ORDER:
            raise AskRefused("this graph has too many paths")
        return order

    def _locals(self, spec: dict[str, Any]) -> dict[str, list[float]]:
        """Each node's local gradients per operand that is a node (the spec's, given at its point)."""
        n = len(spec["leaves"])
        return {str(i): [g for o, g in zip(operands, given_locals(spec, i, len(operands))) if not isinstance(o, dict)]
                for i, (_, *operands) in enumerate(spec["nodes"], start=n)}


def judged(specs: list[Any], args: list[Any], engine: str = "once") -> Functions:
    """The judge's side of a call of one of the probes of :mod:`.probes`: its functions ``specs`` (one for all but
    ``gradcheck_verdicts``), the request ``args``, and how ``backward()`` calls the closures (``engine``)."""
    return Functions(specs, args, engine)


JUDGED = {
    "gradcheck_verdicts": lambda args: judged(args[0], args),
    "gradcheck_numerical": lambda args: judged([args[0]], args),
    "gradcheck_analytic": lambda args: judged([args[0]], args),
    "gradcheck_count": lambda args: judged([args[0]], args, engine=args[1]),
    "gradcheck_count_raising": lambda args: judged([args[0]], args),
}
"""The judge side of :mod:`.probes` (its ``JUDGE_SIDE``): one :class:`Functions` per call of a probe."""
assert set(JUDGED) == set(PROBES), "every probe of the module asks the judge"
