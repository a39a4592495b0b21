"""What a sandbox worker holds of the grader for the network's tests: a ``Value`` that records, and handles.

Fault isolation for the network's tests runs the student's ``Neuron``, ``Layer``
and ``MLP`` on the grader's ``Value`` (so an engine bug costs no network
points), and a method under test on parts the grader made (the student's
``Layer.__call__`` on the grader's neurons). None of that may live in the
worker as working code: the student's code shares the process, and could call
it, copy it or switch off any check made there. So the worker holds only:

* :class:`Value`: forward values (the operations' table of the probes,
  ``engine_probes.FORWARD``) and the graph they were made in (each node's
  operation and operands, with the operands' data when it was made). It has
  no local gradient and no ``_backward``; :meth:`Value.backward` sends the
  graph to the judge (``probekit.ask("backward", ...)``), which computes every
  gradient (micrograd's accumulation, from the grads the nodes hold) and
  answers with them. The graph sent is the *tape*: every node made since the
  last ``backward()``, in the order made, with the older leaves they use (no
  walk of the graph in the worker; the judge passes gradients only to what
  the root was made from), or, for a root from an older graph, the nodes
  found through ``_prev``. A node the student's code made itself and gave its
  own ``_backward`` closure is the student's: the judge's pass stops there,
  the worker runs the closure, and the pass goes on from the gradients it left
  (what the student's engine would give; the grader's own nodes hold no
  closure).
* :class:`Neuron`, :class:`Layer`, :class:`MLP`: handles with the handout's
  attributes (``w``, ``b``, ``nonlin``, ``neurons``, ``layers``), whose
  weights the judge draws (``make``), whose forward pass the judge computes
  (``call``: the worker sends the weights' and inputs' data, and builds the
  nodes the judge answers with) and whose ``parameters()`` the judge allows.

The judge's side (the part ``network_judge``) decides for each probe which of
these questions it answers: a method that calls the grader's ``Neuron`` while
its own ``Neuron`` is tested is refused there, whatever it did in the worker.
A grader part (see ``grader.sandbox.own_parts``): the student's self-check has
none, and runs the network on the student's own engine.
"""

from __future__ import annotations

import array
import base64
import itertools
import operator
from collections.abc import Sequence
from typing import Any

from assignments.shared.probes.engine_probes import FORWARD
from probekit import ProbeError, ask, short_repr

MAX_NODES = 200_000
"""The largest graph :meth:`Value.backward` sends to the judge (a training step of the tests makes a few thousand)."""

_NUMBERS = (int, float)


class Value:
    """The grader's scalar in a worker: forward values and the graph, gradients from the judge."""

    def __init__(self, data: float, _children: tuple[Any, ...] = (), _op: str = "") -> None:
        self.data = data
        self.grad = 0.0
        self._prev = set(_children)
        self._op = _op
        self._vals: tuple[Any, ...] = tuple([getattr(c, "data", c) for c in _children]) if _children else ()
        """Each operand's data when this node was made: the point of its local gradients."""
        self._rs: tuple[int, ...] = tuple([_ref(c) for c in _children]) if _children else ()
        """Each operand's ``_seq`` (-1 for a number)."""
        self._seq = next(_MADE)
        """When this node was made: a node is made after its operands, so this order is topological."""
        _taped(self)

    def _apply(self, op: str, *operands: Any) -> Any:
        args, refs, prev, base = [], [], set(), _BASE[0]
        for o in operands:  # one pass (a training step makes thousands of nodes)
            if isinstance(o, Value):
                seq = o._seq
                if seq < base:
                    _OUTSIDE[seq] = o
                args.append(o.data)
                refs.append(seq)
                prev.add(o)
            elif isinstance(o, _NUMBERS):
                args.append(o)
                refs.append(-1)
            else:
                return NotImplemented
        return _made(FORWARD[op](*args), op, tuple(args), prev, tuple(refs))

    def _unary(self, op: str) -> Any:
        a, seq = self.data, self._seq
        if seq < _BASE[0]:
            _OUTSIDE[seq] = self
        return _made(FORWARD[op](a), op, (a,), {self}, (seq,))

    def __add__(self, other: Any) -> Any:
        if isinstance(other, Value):  # the fast path of the network's sums: FORWARD["add"]
            a, b, ra, rb = self.data, other.data, self._seq, other._seq
            if ra < _BASE[0] or rb < _BASE[0]:
                _outside(self, other)
            return _made(a + b, "add", (a, b), {self, other}, (ra, rb))
        return self._apply("add", self, other)

    def __radd__(self, other: Any) -> Any:
        return self._apply("add", other, self)

    def __sub__(self, other: Any) -> Any:
        return self._apply("sub", self, other)

    def __rsub__(self, other: Any) -> Any:
        return self._apply("sub", other, self)

    def __mul__(self, other: Any) -> Any:
        if isinstance(other, Value):  # the fast path of the network's products: FORWARD["mul"]
            a, b, ra, rb = self.data, other.data, self._seq, other._seq
            if ra < _BASE[0] or rb < _BASE[0]:
                _outside(self, other)
            return _made(a * b, "mul", (a, b), {self, other}, (ra, rb))
        return self._apply("mul", self, other)

    def __rmul__(self, other: Any) -> Any:
        return self._apply("mul", other, self)

    def __truediv__(self, other: Any) -> Any:
        return self._apply("truediv", self, other)

    def __rtruediv__(self, other: Any) -> Any:
        return self._apply("truediv", other, self)

    def __neg__(self) -> Any:
        return self._unary("neg")

    def __pow__(self, other: Any) -> Any:
        if not isinstance(other, _NUMBERS):
            raise TypeError("the grader's Value supports int/float exponents only")
        return self._apply("pow", self, other)

    def tanh(self) -> Any:
        return self._unary("tanh")

    def relu(self) -> Any:
        return self._unary("relu")

    def exp(self) -> Any:
        return self._unary("exp")

    def log(self) -> Any:
        return self._unary("log")

    def sigmoid(self) -> Any:
        return self._unary("sigmoid")

    @property
    def _backward(self) -> Any:
        """The closure the student's code gave a node it made itself (micrograd's ``out._backward = _backward``):
        what that node passes its gradient on with (:meth:`backward`). The grader's own nodes have none."""
        try:
            return self.__dict__["_closure"]
        except KeyError:
            raise AttributeError("the grader's Value computes its gradients in backward(): a node it made has no "
                                 "_backward") from None

    @_backward.setter
    def _backward(self, closure: Any) -> None:
        self.__dict__["_closure"] = closure
        _CLOSURES[0] = True

    @_backward.deleter
    def _backward(self) -> None:
        self.__dict__.pop("_closure", None)

    def backward(self) -> None:
        """Every gradient of the graph that made this node, computed by the judge (:func:`graph` is what it gets);
        a node the student's code made with its own ``_backward`` passes its gradient on with that closure, run here
        when the judge's pass reaches it (``network_judge``'s ``backward``), as the student's engine would."""
        nodes, payload = graph(self)
        answer = ask("backward", payload)
        while type(answer) is dict:  # the judge's pass paused at the student's own nodes: run their closures here
            grads, run = unpacked("d", answer.get("grads")), unpacked("q", answer.get("run"))
            if grads is None or len(grads) != len(nodes) or not run or not 0 <= min(run) <= max(run) < len(nodes):
                raise ProbeError("the judge's gradients do not fit the graph")
            for node, g in zip(nodes, grads):
                node.grad = g
            for i in run:
                nodes[i]._backward()
            after = [node.grad for node in nodes]
            answer = ask("backward", {"more": packed("d", _numbers(after, "after the _backward of a node your code "
                                                                          "made, a gradient"))})
        grads = unpacked("d", answer)
        if grads is None or len(grads) != len(nodes):
            raise ProbeError("the judge's gradients do not fit the graph")
        for node, g in zip(nodes, grads):
            node.grad = g

    def __repr__(self) -> str:
        return f"Value(data={self.data}, grad={self.grad})"


OPS = {op: k for k, op in enumerate(("", *FORWARD))}
"""Each operation's code in a packed graph (a leaf's is 0)."""
OTHER = 255
"""The code of a node made with another operation (the student's ``Value(data, children, "+")``)."""
OWN = 254
"""The code of a node the student's code gave its own ``_backward``: the judge's pass stops there for the worker to
run it (:meth:`Value.backward`)."""
_CLOSURES = [False]
"""Whether the student's code gave any node its own ``_backward`` (until then :func:`graph` looks for none)."""
_MADE = itertools.count()
_TAPE: list[Value] = []
"""Every node made since the last ``backward()``, in the order made: a training step's graph, without a walk."""
_BASE = [0]
"""The ``_seq`` of the first node the tape may hold; a node made before it is *outside*."""
_OUTSIDE: dict[int, Value] = {}
"""The nodes made before :data:`_BASE` that nodes on the tape use (a network's weights, mostly), by ``_seq``."""
_TOKENS: dict[int, int] = {}
"""The judge's token of each node it made, by the node's ``_seq`` (the checkpointing tests only: the judge keeps its
own record of them and checks every graph sent against it; elsewhere empty)."""
MAX_TAPE = 50_000
"""The most nodes the tape holds: made without a ``backward()`` (a forward pass over many points), it starts again."""


def _ref(o: Any) -> int:
    """``o``'s ``_seq`` (-1 for a number), noting it as outside the tape if it was made before it."""
    if isinstance(o, Value):
        if o._seq < _BASE[0]:
            _OUTSIDE[o._seq] = o
        return o._seq
    return -1


def _outside(*operands: Value) -> None:
    for o in operands:
        if o._seq < _BASE[0]:
            _OUTSIDE[o._seq] = o


def _restart() -> None:
    """Start the tape again: what is on it now is outside it from here."""
    _TAPE.clear()
    _OUTSIDE.clear()
    _BASE[0] = next(_MADE) + 1


def _made(data: Any, op: str, vals: tuple[Any, ...], prev: set[Any], rs: tuple[int, ...]) -> Value:
    """A node made by an operation (``__init__``'s fields, set at once: a training step makes thousands)."""
    out = _NEW(Value)
    out.data, out.grad, out._prev, out._op, out._vals, out._rs, out._seq = data, 0.0, prev, op, vals, rs, next(_MADE)
    return _taped(out)


def _taped(node: Value) -> Value:
    """Put ``node`` on the tape (which starts again when full); return it."""
    _TAPE.append(node)
    if len(_TAPE) > MAX_TAPE:
        _restart()
    return node


_NEW = object.__new__
_BY_MADE, _VALS, _OP, _GRAD, _RS = (operator.attrgetter(name) for name in ("_seq", "_vals", "_op", "grad", "_rs"))
_PLAIN = {int, float}


def _odd(nodes: list[Any]) -> str:
    """What is wrong in a graph :func:`graph` could not pack (for the message)."""
    try:
        for n in nodes:
            if not isinstance(n, Value):
                return f"{type(n).__name__} {short_repr(n, 40)} among the operands"
            for name, value in (("grad", n.grad), *(("an operand", v) for v in n._vals)):
                if type(value) not in _PLAIN:
                    return f"{name} is {type(value).__name__} {short_repr(value, 40)}, not a number"
    except Exception:  # noqa: BLE001 - only the message depends on it
        pass
    return "a field that is not what the grader's Value made"


def _numbers(values: list[Any], what: str) -> list[Any]:
    if not set(map(type, values)) <= _PLAIN:
        x = next(x for x in values if type(x) not in _PLAIN)
        raise ProbeError(f"{what} is {type(x).__name__} {short_repr(x, 40)}, not a number")
    return values


def packed(kind: str, values: list[Any]) -> str:
    """``values`` as a machine array of type code ``kind``, in base64."""
    try:
        return base64.b64encode(array.array(kind, values).tobytes()).decode("ascii")
    except OverflowError:
        raise ProbeError("a graph too large for the grader's backward()") from None


def unpacked(kind: str, text: Any, most: int | None = None) -> list[Any] | None:
    """The list :func:`packed` made of ``text``, or None when ``text`` is no such array (of at most ``most``
    items)."""
    if type(text) is not str or (most is not None and len(text) > (most * array.array(kind).itemsize + 2) // 3 * 4):
        return None
    try:
        found = array.array(kind)
        found.frombytes(base64.b64decode(text, validate=True))
    except ValueError:  # (binascii.Error too) not base64, or not a whole number of items
        return None
    return found.tolist()


def _plain(x: Any, what: str) -> Any:
    return _numbers([x], what)[0]


def graph(root: Value) -> tuple[list[Value], dict[str, Any]]:
    """The nodes ``root`` may have been made from, in the order they were made (``root`` last), and the graph as the
    judge reads it, in columns packed as machine arrays in base64 (:func:`unpacked`; a training step's graph is
    thousands of numbers, which JSON would spell out digit by digit): ``seqs`` (each node's ``_seq``), ``ops`` (one
    byte per node, its operation's place in :data:`OPS`, or :data:`OTHER`), ``arity`` (how many operands each node
    has), ``refs`` and ``vals`` (each node's operands in turn: the ``_seq`` of an operand that is a node, or -1 for
    a number; and its data when the node was made: the node's own value follows from them, and the judge computes
    it as it was made), ``grads``: each node's grad now.

    The nodes are those on the tape up to ``root`` (every node made since the last ``backward()``: a training step)
    and the nodes from before that they use, when those are leaves (a network's weights); the judge passes
    gradients only to what ``root`` was made from. Otherwise (``root`` or an operand of an older graph) they are the
    nodes found through ``_prev``, as micrograd's ``backward()`` finds them. The tape starts again afterwards.
    """
    seen: set[Any] = {root}
    frontier: Any = []
    try:
        k = root._seq - _BASE[0]
        outside = sorted(_OUTSIDE.values(), key=_BY_MADE)
        if 0 <= k < len(_TAPE) and _TAPE[k] is root and not any(map(_RS, outside)):
            nodes = outside + _TAPE[:k + 1]
        else:
            frontier = [root]
            while frontier:  # level by level, the sets' work in C
                frontier = set().union(*[n._prev for n in frontier]) - seen
                seen |= frontier
                if len(seen) > MAX_NODES:
                    raise ProbeError(f"backward() on a graph of more than {MAX_NODES} nodes")
            nodes = sorted(seen, key=_BY_MADE)
        if len(nodes) > MAX_NODES:
            raise ProbeError(f"backward() on a graph of more than {MAX_NODES} nodes")
        seqs = list(map(_BY_MADE, nodes))
        codes = list(map(OPS.get, map(_OP, nodes), itertools.repeat(OTHER)))
        if _CLOSURES[0]:
            for k, node in enumerate(nodes):
                if node._rs and "_closure" in node.__dict__:
                    codes[k] = OWN
        payload = {"seqs": packed("q", seqs),
                   "ops": packed("B", codes),
                   "arity": packed("I", list(map(len, map(_RS, nodes)))),
                   "refs": packed("q", list(itertools.chain.from_iterable(map(_RS, nodes)))),
                   "vals": packed("d", list(itertools.chain.from_iterable(map(_VALS, nodes)))),
                   "grads": packed("d", list(map(_GRAD, nodes)))}
        if _TOKENS:
            payload["toks"] = packed("q", [_TOKENS.get(seq, 0) for seq in seqs])
    except (AttributeError, TypeError):  # something else than the grader's nodes in the graph, or not a number
        raise ProbeError(f"backward() reached a node of the grader's Value whose fields are not what it made: "
                         f"{_odd(list(seen) + list(frontier))}") from None
    finally:
        _restart()
    return nodes, payload


def _tokened(nodes: Sequence[Value], tokens: Any) -> None:
    """Keep the judge's tokens of ``nodes`` (None: the judge gave none)."""
    if tokens is None:
        return
    if type(tokens) is not list or len(tokens) != len(nodes) or not all(type(t) is int for t in tokens):
        raise ProbeError("the judge's tokens do not fit the grader's parts")
    _TOKENS.update(zip([n._seq for n in nodes], tokens))


def _data(params: Sequence[Any]) -> list[float]:
    return [_plain(getattr(p, "data", None), "a weight") for p in params]


def _inputs(x: Any) -> tuple[list[Any], list[Any]]:
    """The inputs of a part's forward pass, and how the judge gets them: ``{"v": data}`` for a Value, a number as it is."""
    try:
        items = list(x)
    except TypeError:
        raise ProbeError(f"the grader's parts take a list of inputs, got {type(x).__name__}") from None
    sent: list[Any] = []
    for item in items:
        if isinstance(item, Value):
            token = _TOKENS.get(item._seq) if _TOKENS else None
            sent.append({"v": _plain(item.data, "an input")} if token is None
                        else {"v": _plain(item.data, "an input"), "t": token})
        elif isinstance(item, _NUMBERS):
            sent.append(item)
        else:
            raise ProbeError(f"the grader's parts take numbers or Values, got {type(item).__name__} "
                             f"{short_repr(item, 40)}")
    return items, sent


def build(program: Any, params: Sequence[Any], inputs: Sequence[Any]) -> Any:
    """The nodes of a forward pass the judge computed: ``{"nodes": [[op, [ref, ...], data], ...], "out": ref |
    [ref, ...]}``, a ref ``{"p": i}`` (the part's weight ``i``), ``{"x": j}`` (input ``j``), ``{"n": k}`` (node
    ``k``) or ``{"c": number}``; returns the output node(s)."""
    made: list[Value] = []

    def resolve(ref: Any) -> Any:
        if type(ref) is dict and len(ref) == 1:
            (key, i), = ref.items()
            table = {"p": params, "x": inputs, "n": made}.get(key)
            if table is not None and type(i) is int and 0 <= i < len(table):
                return table[i]
            if key == "c" and type(i) in _NUMBERS:
                return i
        raise ProbeError("the judge's forward pass does not fit the grader's parts")

    if type(program) is not dict or type(program.get("nodes")) is not list:
        raise ProbeError("the judge's forward pass does not fit the grader's parts")
    for op, refs, data in program["nodes"]:
        operands = [resolve(r) for r in refs]
        node = _made(data, op, tuple(getattr(o, "data", o) for o in operands),
                     {o for o in operands if isinstance(o, Value)}, tuple([_ref(o) for o in operands]))
        made.append(node)
    _tokened(made, program.get("tokens"))
    out = program.get("out")
    return [resolve(r) for r in out] if type(out) is list else resolve(out)


class _Part:
    """A handle on one of the grader's parts, known to the judge by its number."""

    _part: int
    _params: list[Value]

    def parameters(self) -> list[Value]:
        ask("parameters", {"part": self._part})
        return list(self._params)

    def __call__(self, x: Sequence[Any]) -> Any:
        items, sent = _inputs(x)
        program = ask("call", {"part": self._part, "params": _data(self._params), "x": sent})
        return build(program, self._params, items)


def _values(data: Any) -> list[Value]:
    if type(data) is not list or not all(type(d) in _NUMBERS for d in data):
        raise ProbeError("the judge's weights do not fit the grader's parts")
    return [Value(d) for d in data]


def _truth(flag: Any) -> bool:
    try:
        return bool(flag)
    except Exception:  # noqa: BLE001 - a student's object whose truth raises: a linear part
        return False


class Neuron(_Part):
    """The grader's neuron (a handle); as a part a student's ``Layer`` makes, it keeps the ``nin`` and ``nonlin``
    it was given, for the structure tests."""

    def __init__(self, nin: Any, nonlin: Any = True, **kwargs: Any) -> None:
        self.nin, self.nonlin = nin, nonlin
        made = ask("make", {"kind": "Neuron", "nin": nin if type(nin) is int else -1, "nonlin": _truth(nonlin)})
        self._adopt(made)

    def _adopt(self, made: Any) -> None:
        if type(made) is not dict or type(made.get("part")) is not int:
            raise ProbeError("the judge's part does not fit")
        self._part = made["part"]
        self._params = _values(made.get("data"))
        _tokened(self._params, made.get("tokens"))
        self.w, self.b = self._params[:-1], self._params[-1]

    @classmethod
    def _of(cls, made: Any, nonlin: bool) -> Neuron:
        neuron = cls.__new__(cls)
        neuron.nonlin = nonlin
        neuron._adopt(made)
        neuron.nin = len(neuron.w)
        return neuron


class Layer(_Part):
    """The grader's layer (a handle); as a part a student's ``MLP`` makes, it keeps ``nin``, ``nout`` and
    ``nonlin`` (keyword or third argument)."""

    def __init__(self, nin: Any, nout: Any, *args: Any, **kwargs: Any) -> None:
        self.nin, self.nout = nin, nout
        self.nonlin = args[0] if args else kwargs.get("nonlin", True)
        size = [n if type(n) is int else -1 for n in (nin, nout)]
        self._adopt(ask("make", {"kind": "Layer", "nin": size[0], "nout": size[1], "nonlin": _truth(self.nonlin)}))

    def _adopt(self, made: Any) -> None:
        if type(made) is not dict or type(made.get("part")) is not int or type(made.get("neurons")) is not list:
            raise ProbeError("the judge's part does not fit")
        self._part = made["part"]
        self.neurons = [Neuron._of(n, _truth(self.nonlin)) for n in made["neurons"]]
        self._params = [p for n in self.neurons for p in n._params]

    @classmethod
    def _of(cls, made: Any) -> Layer:
        layer = cls.__new__(cls)
        layer.nonlin = bool(made.get("nonlin", True)) if type(made) is dict else True
        layer._adopt(made)
        layer.nin, layer.nout = len(layer.neurons[0].w) if layer.neurons else 0, len(layer.neurons)
        return layer


class MLP(_Part):
    """The grader's network (a handle) of the spec a probe is about, made by the judge (:func:`network`)."""

    layers: list[Layer]


def network() -> MLP:
    """The grader's network of the probe's model spec, pinned to its weights, as the judge made it (a Neuron is a
    layer of one, a Layer a network of one layer)."""
    _TOKENS.clear()  # a new call of a probe: the judge's earlier nodes are nobody's now
    made = ask("network", {})
    if type(made) is not dict or type(made.get("part")) is not int or type(made.get("layers")) is not list:
        raise ProbeError("the judge's network does not fit")
    mlp = MLP.__new__(MLP)
    mlp._part = made["part"]
    mlp.layers = [Layer._of(layer) for layer in made["layers"]]
    mlp._params = [p for layer in mlp.layers for p in layer._params]
    return mlp


def composed(kind: str, parts: Sequence[Any]) -> Any:
    """The grader's ``Layer`` of the neuron handles ``parts``, or its ``MLP`` of the layer handles ``parts``, as the
    judge made it (what a student's constructor built, measured with the grader's forward pass)."""
    for p in parts:
        if not isinstance(p, Neuron if kind == "Layer" else Layer):
            raise ProbeError(f"a {kind} of the grader's is made of its own parts, not {type(p).__name__}")
    made = ask("compose", {"kind": kind, "parts": [p._part for p in parts]})
    whole: Any = (Layer if kind == "Layer" else MLP).__new__(Layer if kind == "Layer" else MLP)
    whole._part = made["part"] if type(made) is dict and type(made.get("part")) is int else -1
    setattr(whole, "neurons" if kind == "Layer" else "layers", list(parts))
    whole._params = [p for part in parts for p in part._params]
    return whole


def wrapping(w: Sequence[Any], b: Any, nonlin: bool) -> Neuron:
    """The grader's neuron on weights ``w`` and bias ``b`` a student's constructor made (its forward pass is the
    judge's, on their data)."""
    made = ask("compose", {"kind": "Neuron", "nin": len(w), "nonlin": bool(nonlin)})
    neuron = Neuron.__new__(Neuron)
    neuron._part = made["part"] if type(made) is dict and type(made.get("part")) is int else -1
    neuron.nin, neuron.nonlin, neuron.w, neuron.b = len(w), nonlin, list(w), b
    neuron._params = [*w, b]
    return neuron
