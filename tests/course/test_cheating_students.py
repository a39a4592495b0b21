"""Cheating students: submissions that try to score points on the exercises without computing the answers.

Each cheat is the reference solution (or the student template) with one function or method replaced by a cheating
one, graded by the real judge (``grader grade -a <assignment>``), once per assignment: every submission of one
assignment is in one class folder, graded by one module-scoped fixture. Each test compares a cheat's score with the
reference's and, where the cheat adds something to an honest submission (an honest but incomplete one, the
*baseline*), with that baseline's: a cheat must not score more than the honest work it comes with.
"""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path
from typing import Any

import pytest
from checkout import ROOT

from grader.cli import main

pytestmark = pytest.mark.linux_only  # the sandbox's file isolation (the disk copiers) is the Linux backend's

REFERENCE = ROOT / "reference" / "micrograd"
TEMPLATE = ROOT / "student_template" / "micrograd"


# --- building and grading a class of cheats --------------------------------------------------------------------

def write(folder: Path, changes: dict[str, tuple[str, str]]) -> None:
    """A package-layout submission: the reference's ``micrograd`` with, for each ``module: (base, code)``, that
    module taken from ``base`` ("reference" or "template") and ``code`` appended (rebinding what it replaces)."""
    package = folder / "micrograd"
    shutil.copytree(REFERENCE, package, ignore=shutil.ignore_patterns("__pycache__"))
    for module, (base, code) in changes.items():
        source = ((REFERENCE if base == "reference" else TEMPLATE) / f"{module}.py").read_text(encoding="utf-8")
        (package / f"{module}.py").write_text(source + "\n\n" + textwrap.dedent(code).strip() + "\n", encoding="utf-8")


def grade_class(base: Path, assignment: str, submissions: dict[str, dict[str, tuple[str, str]]]) -> dict[str, Any]:
    """Grade every submission on ``assignment`` once; per student: total, per-test (score, max), feedback."""
    subs = base / "subs"
    for student, changes in submissions.items():
        write(subs / student, changes)
    out = base / "out"
    assert main(["--course", str(ROOT), "grade", str(subs), "-o", str(out), "-a", assignment, "-j", "2"]) == 0
    graded = {}
    for student in submissions:
        folder = out / assignment / student
        doc = json.loads((folder / "results.json").read_text(encoding="utf-8"))
        graded[student] = {
            "score": float(doc["score"]),
            "max": sum(float(t["max_score"]) for t in doc["tests"]),
            "tests": {t["name"]: (float(t["score"]), float(t["max_score"])) for t in doc["tests"]},
            "feedback": (folder / "feedback.md").read_text(encoding="utf-8"),
        }
    return graded


def points(result: dict[str, Any], starts: tuple[str, ...] = ("",)) -> float:
    """The points of the tests whose name starts with one of ``starts``."""
    return sum(score for name, (score, _) in result["tests"].items() if name.startswith(starts))


def summary(graded: dict[str, Any]) -> str:
    return ", ".join(f"{s}: {r['score']:g}/{r['max']:g}" for s, r in graded.items())


STEAL = """
import os as _os
import sys as _sys


def _steal(relative):
    '''The text of the course file ``relative`` from wherever this process can find a course folder: the grader's
    own (named here as an attacker who knows it would), Gradescope's, and every folder above anything this process
    can see (its modules, argv, environment, cwd, /proc of itself, its parent and pid 1).'''
    roots = {COURSE, "/autograder/source", "/autograder"}
    places = [_os.getcwd(), *_sys.path, *(getattr(m, "__file__", None) or "" for m in list(_sys.modules.values()))]
    places += list(_os.environ.values())
    for pid in ("self", "1", str(_os.getppid())):
        places += [f"/proc/{pid}/cwd", f"/proc/{pid}/root"]
        for what in ("cmdline", "environ"):
            try:
                with open(f"/proc/{pid}/{what}", "rb") as f:
                    places += [p.split("=", 1)[-1] for p in f.read().decode(errors="replace").split("\\0")]
            except OSError:
                pass
    for place in places:
        for _ in range(10):
            if place:
                roots.add(place)
            place = _os.path.dirname(place)
    for root in sorted(roots):
        try:
            with open(_os.path.join(root, relative), encoding="utf-8") as f:
                return f.read()
        except (OSError, ValueError):
            continue
    return None


for _relative in ("reference/micrograd/MODULE.py", "source/reference/micrograd/MODULE.py"):
    _stolen = _steal(_relative)
    if _stolen is not None:
        exec(compile(_stolen, "stolen", "exec"), globals())
        break
"""


def stealing(module: str) -> str:
    """Import-time code that copies the reference's ``module`` from disk over the template's stubs."""
    return STEAL.replace("COURSE", repr(str(ROOT))).replace("MODULE", module)


# --- forward_mode ------------------------------------------------------------------------------------------------

PRIMITIVES = '("__add__", "__neg__", "__mul__", "__truediv__", "__pow__", "sin", "cos", "exp", "log", "tanh")'

TANGENT_ZERO = f"""
def _no_tangent(method):
    def op(self, *args):
        out = method(self, *args)
        if isinstance(out, Dual):
            out.dot = 0.0
        return out
    return op


for _name in {PRIMITIVES}:
    setattr(Dual, _name, _no_tangent(vars(Dual)[_name]))
"""
"""Honest but incomplete: every value right, every tangent 0 (derivative() and gradient() the reference's)."""

PUBLIC_LOOKUP = f"""
_PUBLIC = {{(2.0, 0.5), (-3.0, 1.5), (-1.5, 2.0), (1.0, -1.0), (3.0, 0.5), (2.0, -1.5), (4.0, 0.5), (1.5, 0.5),
           (0.7, 0.5), (-1.2, 1.0)}}
# the Duals of the public tests: the "answer table" knows their tangents and nothing else
_init = Dual.__init__


def __init__(self, val, dot=0.0):
    _init(self, val, dot)
    self._public = (self.val, self.dot) in _PUBLIC or self.dot == 0.0


Dual.__init__ = __init__


def _table(method):
    def op(self, *args):
        out = method(self, *args)
        known = all(getattr(d, "_public", True) for d in (self, *args))
        if isinstance(out, Dual):
            out._public = known
            if not known:
                out.dot = 0.0
        return out
    return op


for _name in {PRIMITIVES}:
    setattr(Dual, _name, _table(vars(Dual)[_name]))


def derivative(f, x):
    f(Dual(x, 1.0))
    return {{1.3: math.cos(1.3) * 1.3**2 + math.sin(1.3) * 2 * 1.3}}.get(x, 0.0)


def gradient(f, *xs):
    for i in range(len(xs)):
        f(*[Dual(x, float(i == j)) for j, x in enumerate(xs)])
    if tuple(float(x) for x in xs) == (2.0, 3.0):
        return [12 + 3 * math.cos(6), 4 + 2 * math.cos(6)]
    return [0.0] * len(xs)
"""

FRAME_READER = f"""
import gc
import sys

_heap = {{}}


def _answers():
    '''What the grader left in reach: specs with local derivatives and tables with "dot" lists in the callers'
    frames, the same on the heap, and the probe's list of nodes made so far (its length is this node's index).'''
    frame, specs, tables, nodes = sys._getframe(2), [], [], None
    while frame is not None:
        for name, v in list(frame.f_locals.items()):
            if isinstance(v, dict):
                if "locals" in v and "nodes" in v:
                    specs.append(v)
                if isinstance(v.get("dot"), list) or isinstance(v.get("want"), dict):
                    tables.append(v.get("want") or v)
            if name == "nodes" and isinstance(v, list) and nodes is None:
                nodes = v
        frame = frame.f_back
    key = tuple(id(s) for s in specs)
    if key not in _heap:
        _heap.clear()
        _heap[key] = [o for o in gc.get_objects() if isinstance(o, dict) and isinstance(o.get("dot"), list)
                      and o is not _heap]
    return specs, tables + _heap[key], nodes


def _peeking(method):
    def op(self, *args):
        out = method(self, *args)
        if not isinstance(out, Dual):
            return out
        specs, tables, nodes = _answers()
        index, dot = (len(nodes) if nodes is not None else -1), 0.0
        for spec in specs:
            given = (spec.get("locals") or {{}}).get(str(index))
            if given:
                dot = sum(g * getattr(o, "dot", 0.0) for g, o in zip(given, (self, *args)) if g is not None)
                break
        else:
            for table in tables:
                if 0 <= index < len(table.get("dot", [])):
                    dot = float(table["dot"][index])
                    break
        out.dot = dot
        return out
    return op


for _name in {PRIMITIVES}:
    setattr(Dual, _name, _peeking(vars(Dual)[_name]))
"""


@pytest.fixture(scope="module")
def forward_class(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return grade_class(tmp_path_factory.mktemp("forward_cheats"), "forward_mode", {
        "reference": {},
        "template": {"forward": ("template", "")},
        "tangent_zero": {"forward": ("reference", TANGENT_ZERO)},
        "public_lookup": {"forward": ("reference", PUBLIC_LOOKUP)},
        "frame_reader": {"forward": ("reference", FRAME_READER)},
        "disk_copier": {"forward": ("template", stealing("forward"))},
    })


PUBLIC_FORWARD = ("Dual.__add__ and", "Dual.__sub__,", "Dual.__mul__,", "Dual.__pow__:", "Dual.sin,", "derivative(f, x): f(x)",
                  "gradient(f, 2, 3)")


def test_a_dual_with_answers_only_for_the_public_inputs_fails_the_hidden_tests(forward_class):
    ref, cheat, zero = forward_class["reference"], forward_class["public_lookup"], forward_class["tangent_zero"]
    assert ref["score"] == ref["max"] == 40, summary(forward_class)
    public = points(cheat, PUBLIC_FORWARD)
    hidden = cheat["score"] - public
    # the hidden tests draw their own inputs: a table of the public ones gets nothing there that a Dual with no
    # tangent at all would not get (it loses derivative() and gradient() too: their answers were table entries)
    assert hidden <= (zero["score"] - points(zero, PUBLIC_FORWARD)) + 1e-6, summary(forward_class)
    assert cheat["score"] <= 0.5 * ref["score"], summary(forward_class)
    assert "Dual." in cheat["feedback"] and "derivative" in cheat["feedback"]


def test_a_dual_that_reads_the_callers_frames_and_the_heap_learns_no_tangent(forward_class):
    ref, cheat, zero = forward_class["reference"], forward_class["frame_reader"], forward_class["tangent_zero"]
    assert cheat["score"] <= zero["score"] + 1e-6, summary(forward_class)
    assert cheat["score"] <= 0.5 * ref["score"], summary(forward_class)


def test_a_forward_module_that_copies_the_reference_from_disk_scores_as_the_template(forward_class):
    assert forward_class["disk_copier"]["score"] <= forward_class["template"]["score"] + 1e-6, summary(forward_class)


# --- gradcheck ---------------------------------------------------------------------------------------------------

ALWAYS_TRUE = """
def gradcheck(f, xs, atol=1e-5, rtol=1e-3, h=1e-6):
    return True
"""
ALWAYS_FALSE = """
def gradcheck(f, xs, atol=1e-5, rtol=1e-3, h=1e-6):
    return False
"""
ALTERNATING = """
_calls = [0]


def gradcheck(f, xs, atol=1e-5, rtol=1e-3, h=1e-6):
    _calls[0] += 1
    return _calls[0] % 2 == 1
"""
PATTERN_SPOTTER = """
def _given_locals(f):
    '''Every local gradient the grader's f holds in its closure (its spec's "locals" and its own table).'''
    found = []
    for cell in getattr(f, "__closure__", None) or ():
        try:
            v = cell.cell_contents
        except ValueError:
            continue
        if isinstance(v, dict):
            if isinstance(v.get("locals"), dict):
                found += list(v["locals"].values())
            found += [g for k, g in v.items() if isinstance(g, list) and k != "leaves"]
    return [g for gs in found for g in gs if g is None or isinstance(g, float)]


def gradcheck(f, xs, atol=1e-5, rtol=1e-3, h=1e-6):
    '''The grader's tell-tale broken operations (a NaN, a zero that cuts a path) without computing anything.'''
    return not any(g is None or g != g or g == 0.0 for g in _given_locals(f))
"""
ANSWER_KEY = """
import math as _math
import sys as _sys


def _answer_key():
    '''The grader's own table of local gradients, if this process holds it (its stand-in Value needs it).'''
    for module in list(_sys.modules.values()):
        if callable(getattr(module, "local_gradients", None)) and isinstance(getattr(module, "LOCAL", None), dict):
            return module.local_gradients
    return None


def gradcheck(f, xs, atol=1e-5, rtol=1e-3, h=1e-6):
    '''No finite differences and no backward(): the request (f's closure) and the grader's answer key.'''
    cells = {}
    for name, cell in zip(f.__code__.co_freevars, f.__closure__ or ()):
        try:
            cells[name] = cell.cell_contents
        except ValueError:
            pass
    spec, key = cells.get("spec"), _answer_key()
    if not isinstance(spec, dict) or key is None:
        return True
    n = len(spec["leaves"])
    values = [float(x) for x in spec["leaves"]]
    right, given = {}, {}
    for i, (op, *operands) in enumerate(spec["nodes"], start=n):
        value, grads = key(op, [o["const"] if isinstance(o, dict) else values[o] for o in operands])
        values.append(value)
        right[i] = grads
        given[i] = [_math.nan if g is None else g for g in spec["locals"][str(i)]]

    def sweep(local):
        adj = [0.0] * len(values)
        adj[-1] = 1.0
        for i in range(len(values) - 1, n - 1, -1):
            for o, g in zip(spec["nodes"][i - n][1:], local[i]):
                if not isinstance(o, dict):
                    adj[o] += g * adj[i]
        return adj[:n]

    return all(abs(g - t) <= atol + rtol * abs(t) for t, g in zip(sweep(right), sweep(given)))
"""


CLOSURE_PROGRAM = """
import sys as _sys


def _program(f):
    '''What f's closure holds of the function: its nodes, each (op, operands, which are nodes, local gradients).'''
    code = getattr(f, "__code__", None)
    for name, cell in zip(code.co_freevars if code is not None else (), getattr(f, "__closure__", None) or ()):
        try:
            value = cell.cell_contents
        except ValueError:
            continue
        if name == "program" and isinstance(value, list):
            return value
    return None


def _table():
    '''The grader's own table of local gradients, wherever this process holds it (sys.modules, then the heap).'''
    import gc as _gc
    for module in list(_sys.modules.values()):
        if isinstance(getattr(module, "LOCAL", None), dict):
            return module.LOCAL
    for obj in _gc.get_objects():
        if isinstance(obj, dict) and {"add", "mul", "tanh"} <= set(obj) and all(callable(v) for v in obj.values()):
            return obj
    return None


def _forward(op, args):
    import math
    a = args[0]
    b = args[1] if len(args) > 1 else None
    return {"add": lambda: a + b, "sub": lambda: a - b, "mul": lambda: a * b, "truediv": lambda: a / b,
            "pow": lambda: a ** b, "neg": lambda: -a, "tanh": lambda: math.tanh(a), "exp": lambda: math.exp(a),
            "log": lambda: math.log(a), "relu": lambda: max(0.0, a),
            "sigmoid": lambda: 1 / (1 + math.exp(-a))}[op]()


def _sweep(program, xs, local_of):
    '''Reverse mode over f's program without calling f or backward(): local_of(op, args, value, given).'''
    values = [float(x) for x in xs]
    n = len(values)
    nodes = []
    for op, operands, is_node, given in program:
        args = [values[int(o)] if node else o for o, node in zip(operands, is_node)]
        value = _forward(op, args)
        values.append(value)
        nodes.append((operands, is_node, local_of(op, args, value, given)))
    adj = [0.0] * len(values)
    adj[-1] = 1.0
    for i in range(len(values) - 1, n - 1, -1):
        operands, is_node, grads = nodes[i - n]
        for o, node, g in zip(operands, is_node, grads):
            if node:
                adj[int(o)] += g * adj[i]
    return adj[:n]


def gradcheck(f, xs, atol=1e-5, rtol=1e-3, h=1e-6):
    '''No finite differences, no f, no backward(): the gradients f's closure holds against the grader's table.'''
    program, table = _program(f), _table()
    if program is None or table is None:
        return True
    given = _sweep(program, xs, lambda op, args, value, g: g)
    right = _sweep(program, xs, lambda op, args, value, g: list(table[op](*args, value)))
    return all(abs(a - b) <= atol + rtol * abs(b) for a, b in zip(given, right))


def analytic_grad(f, xs):
    '''The closure's local gradients swept in reverse: neither f nor backward() is ever called.'''
    program = _program(f)
    if program is None:
        return [0.0] * len(xs)
    return _sweep(program, [getattr(x, "data", x) for x in xs], lambda op, args, value, g: g)


def count_ops(f, xs):
    '''The length of f's program, for both counts: nothing is counted.'''
    program = _program(f)
    return (len(program), len(program)) if program is not None else (0, 0)
"""
MEMORY_SWEEP = """
import gc as _gc
import sys as _sys


def _suspect_class(obj):
    '''A class of the grader's with a working backward: it passes gradients to its operands itself.'''
    return (isinstance(obj, type) and obj.__module__ not in ("micrograd.engine", "micrograd.gradcheck")
            and callable(getattr(obj, "backward", None)) and "_parents" in getattr(getattr(obj, "_backward", None),
                                                                                  "__code__", type("", (), {"co_names": ()})).co_names)


def gradcheck(f, xs, atol=1e-5, rtol=1e-3, h=1e-6):
    '''Sweep this process for anything of the grader's that computes a gradient or holds one, and say what.'''
    found = []
    for name, module in list(_sys.modules.items()):
        if isinstance(getattr(module, "LOCAL", None), dict) or callable(getattr(module, "topological_order", None)):
            found.append("module " + name)
    for obj in _gc.get_objects():
        if isinstance(obj, dict) and isinstance(obj.get("locals"), dict):
            found.append("a request with local gradients")
        elif _suspect_class(obj):
            found.append("class " + obj.__module__ + "." + obj.__name__)
    code = getattr(f, "__code__", None)
    for name, cell in zip(code.co_freevars if code is not None else (), getattr(f, "__closure__", None) or ()):
        try:
            value = cell.cell_contents
        except ValueError:
            continue
        if isinstance(value, (list, dict)) and value:
            found.append("f's closure holds " + name)
    raise RuntimeError("FOUND: " + ("; ".join(sorted(set(found))[:8]) or "nothing"))
"""


@pytest.fixture(scope="module")
def gradcheck_class(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return grade_class(tmp_path_factory.mktemp("gradcheck_cheats"), "gradcheck", {
        "reference": {},
        "template": {"gradcheck": ("template", "")},
        "always_true": {"gradcheck": ("reference", ALWAYS_TRUE)},
        "always_false": {"gradcheck": ("reference", ALWAYS_FALSE)},
        "alternating": {"gradcheck": ("reference", ALTERNATING)},
        "pattern_spotter": {"gradcheck": ("reference", PATTERN_SPOTTER)},
        "answer_key": {"gradcheck": ("reference", ANSWER_KEY)},
        "disk_copier": {"gradcheck": ("template", stealing("gradcheck"))},
        "closure_program": {"gradcheck": ("template", CLOSURE_PROGRAM)},
        "memory_sweep": {"gradcheck": ("reference", MEMORY_SWEEP)},
    })


VERDICTS = ("gradcheck passes", "gradcheck flags", "gradcheck uses")
"""The tests of the verdicts of ``gradcheck`` (hidden and public); the others are about numerical_grad,
analytic_grad and count_ops, which these cheats leave as the reference's."""


def verdict_share(graded: dict[str, Any], student: str) -> float:
    ref = points(graded["reference"], VERDICTS)
    assert ref == sum(m for name, (_, m) in graded["reference"]["tests"].items() if name.startswith(VERDICTS)) > 15
    return points(graded[student], VERDICTS) / ref


@pytest.mark.parametrize("cheat", ["always_true", "always_false", "alternating"])
def test_a_gradcheck_whose_answer_ignores_the_function_gets_no_verdict_points(gradcheck_class, cheat):
    assert gradcheck_class["reference"]["score"] == 40, summary(gradcheck_class)
    # a case holds right and wrong functions in a pattern drawn per case: no constant answer fits one, a fixed
    # alternation few (by the hidden tests' design, at most a quarter of the patterns)
    assert verdict_share(gradcheck_class, cheat) <= (0.0 if cheat.startswith("always") else 0.25), \
        summary(gradcheck_class)
    assert "gradcheck(f, xs" in gradcheck_class[cheat]["feedback"]


def test_a_gradcheck_that_spots_nan_and_zero_gradients_in_the_closure_loses_the_other_broken_cases(gradcheck_class):
    assert verdict_share(gradcheck_class, "pattern_spotter") <= 0.5, summary(gradcheck_class)


def test_a_gradcheck_that_reads_the_graders_answer_key_instead_of_computing_gets_no_verdict_points(gradcheck_class):
    """The grader's stand-in Value (and with it LOCAL, the answer key of every local gradient) is in the gradcheck
    worker's memory, and f's closure holds the whole request: a checker that neither differentiates nor calls f
    must not get the checker's points."""
    assert verdict_share(gradcheck_class, "answer_key") <= 0.5, summary(gradcheck_class)


def test_a_checker_that_reads_fs_closure_and_the_graders_table_instead_of_calling_f_scores_as_the_template(
        gradcheck_class):
    """gradcheck, analytic_grad and count_ops that never call f or backward(): they read the program and local
    gradients in f's closure and compare them with the grader's table found in the process (the full 40 points
    before the functions were evaluated by the judge). f now holds only its number; the judge holds the rest."""
    assert gradcheck_class["closure_program"]["score"] <= gradcheck_class["template"]["score"] + 1e-6, \
        summary(gradcheck_class)


def test_a_gradcheck_worker_holds_nothing_of_the_graders_that_computes_or_holds_a_gradient(gradcheck_class):
    """A submission that sweeps its own process mid-test (modules, the heap, f's closure) finds no local-gradient
    table, no working backward of the grader's, no request with gradients, nothing in f but its number."""
    feedback = gradcheck_class["memory_sweep"]["feedback"]
    assert "FOUND: nothing" in feedback, feedback[:3000]


def test_a_gradcheck_module_that_copies_the_reference_from_disk_scores_as_the_template(gradcheck_class):
    assert gradcheck_class["disk_copier"]["score"] <= gradcheck_class["template"]["score"] + 1e-6, \
        summary(gradcheck_class)


# --- mlp ---------------------------------------------------------------------------------------------------------

STUB_NEURON_LAYER = """
def _todo(*args, **kwargs):
    raise NotImplementedError("Task 3.1")


for _cls, _names in ((Neuron, ("__init__", "__call__", "parameters")), (Layer, ("__call__", "parameters"))):
    for _name in _names:
        setattr(_cls, _name, _todo)
"""
"""Honest but incomplete: what BORROWED borrows not written, Neuron and Layer but for Layer.__init__ (which BORROWED
writes itself, as the reference does; Module.zero_grad and MLP are the reference's)."""

BORROWED = """
import sys as _sys
from contextlib import contextmanager as _contextmanager


def _grader():
    '''The module of the grader's own Neuron and Layer, if this process holds one (any module outside the student's
    package with a Value, a Neuron and a Layer class).'''
    for name, module in list(_sys.modules.items()):
        if not name.startswith("micrograd") and all(isinstance(getattr(module, a, None), type)
                                                     for a in ("Value", "Neuron", "Layer")):
            return module
    raise NotImplementedError("Task 3.1")


@_contextmanager
def _unguarded():
    '''Switch off the guard in front of the grader's parts, if there is one, and put its state back afterwards,
    so that it never sees what ran (the cheat of issue 39 that got 37.5 / 40 through the guard).'''
    guard = getattr(_grader(), "GUARD", None)
    if guard is None:
        yield
        return
    allowed, findings = guard.allowed, guard.findings
    guard.allowed, guard.findings = None, []
    try:
        yield
    finally:
        guard.allowed, guard.findings = allowed, findings


class Neuron(Module):
    def __init__(self, nin, nonlin=True):
        with _unguarded():
            _grader().Neuron.__init__(self, nin, nonlin)

    def __call__(self, x):
        with _unguarded():
            return _grader().Neuron.__call__(self, x)

    def parameters(self):
        with _unguarded():
            return _grader().Neuron.parameters(self)


class Layer(Module):
    def __init__(self, nin, nout, **kwargs):
        self.neurons = [Neuron(nin, **kwargs) for _ in range(nout)]

    def __call__(self, x):
        with _unguarded():
            return _grader().Layer.__call__(self, x)

    def parameters(self):
        with _unguarded():
            return _grader().Layer.parameters(self)
"""
"""Neuron and Layer made of the grader's own, found in the worker's modules, its guard (if any) switched off around
each call and put back."""

STUB_NEURON_CALL = """
def _todo(self, x):
    raise NotImplementedError("Task 3.2")


Neuron.__call__ = _todo
"""

FORGED_ASK = """
import sys as _sys


def _ask():
    for module in list(_sys.modules.values()):
        if callable(getattr(module, "ask", None)) and hasattr(module, "answering"):
            return module.ask
    raise NotImplementedError("Task 3.2")


def _forged_call(self, x):
    '''Ask the judge for a forward pass directly, as the grader's own parts do: of any part it will run at this
    neuron's weights, or of one it makes.'''
    ask = _ask()
    params = [p.data for p in self.w + [self.b]]
    sent = [{"v": xi.data} if hasattr(xi, "data") else xi for xi in x]
    for question in [("call", {"part": k, "params": params, "x": sent}) for k in range(40)] + [
            ("make", {"kind": "Neuron", "nin": len(self.w), "nonlin": bool(self.nonlin)})]:
        try:
            answer = ask(*question)
        except Exception:
            continue
        if question[0] == "make":
            return ask("call", {"part": answer["part"], "params": params, "x": sent})
        return Value(answer["nodes"][-1][2])
    raise NotImplementedError("Task 3.2")


Neuron.__call__ = _forged_call
"""
"""Neuron.__call__ that asks the judge for the grader's forward pass itself, over the probe's channel."""

MLP_SWEEP = """
import gc as _gc
import sys as _sys


def _names(function):
    return getattr(getattr(function, "__code__", None), "co_names", ())


def _sweep(self, x):
    '''Sweep this process for anything of the grader's that computes a forward or backward pass, and say what.'''
    found = []
    for name, module in list(_sys.modules.items()):
        if isinstance(getattr(module, "LOCAL", None), dict) or callable(getattr(module, "topological_order", None)):
            found.append("module " + name)
    for obj in _gc.get_objects():
        if not isinstance(obj, type) or obj.__module__.startswith("micrograd"):
            continue
        backward = _names(getattr(obj, "_backward", None))
        if ("grad" in backward and "ask" not in backward) or "_parents" in _names(getattr(obj, "__init__", None)):
            found.append("a working backward in " + obj.__module__ + "." + obj.__name__)
        if obj.__name__ in ("Neuron", "Layer") and "sum" in _names(getattr(obj, "__call__", None)):
            found.append("a forward pass in " + obj.__module__ + "." + obj.__name__)
    raise RuntimeError("FOUND: " + ("; ".join(sorted(set(found))[:8]) or "nothing"))


Neuron.__call__ = _sweep
"""
"""Neuron.__call__ that reports what of the grader's the mlp worker holds, mid-test."""

NO_GRADIENT = """
import math as _math


def _forward_only(self, x):
    act = sum(w.data * getattr(xi, "data", xi) for w, xi in zip(self.w, x)) + self.b.data
    return Value(_math.tanh(act) if self.nonlin else act)


Neuron.__call__ = _forward_only
"""
"""A bug: Neuron.__call__ computes with floats, so no gradient reaches a weight and training changes nothing."""

MEMORISED_XOR = NO_GRADIENT + """
_XOR = ([20.0, 20.0, -10.0, 20.0, 20.0, -30.0] + [0.0] * 6 + [10.0, -10.0, 0.0, 0.0, -10.0] + [0.0] * 15
        + [1.0, 0.0, 0.0, 0.0, 0.0])
# a solution of XOR (loss ~1e-16) for the handout's MLP(2, [4, 4, 1]), worked out once and written down
_mlp_init = MLP.__init__


def _start_at_the_answer(self, nin, nouts):
    _mlp_init(self, nin, nouts)
    if nin == 2 and list(nouts) == [4, 4, 1]:
        for p, w in zip(self.parameters(), _XOR):
            p.data = w


MLP.__init__ = _start_at_the_answer
"""


@pytest.fixture(scope="module")
def mlp_class(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return grade_class(tmp_path_factory.mktemp("mlp_cheats"), "mlp", {
        "reference": {},
        "stub_neuron_layer": {"nn": ("reference", STUB_NEURON_LAYER)},
        "borrowed_parts": {"nn": ("reference", BORROWED)},
        "stub_neuron_call": {"nn": ("reference", STUB_NEURON_CALL)},
        "forged_ask": {"nn": ("reference", FORGED_ASK)},
        "memory_sweep": {"nn": ("reference", MLP_SWEEP)},
        "no_gradient": {"nn": ("reference", NO_GRADIENT)},
        "memorised_xor": {"nn": ("reference", MEMORISED_XOR)},
    })


def test_a_network_borrowed_from_the_graders_parts_scores_as_one_not_written(mlp_class):
    """A Neuron and a Layer that call the grader's own, found in the worker, with any guard in front of them switched
    off around each call: no more than ones not written at all (but for Layer.__init__, which this cheat writes
    itself, as the reference does). The worker holds handles the judge answers, for the test of the method above."""
    ref, cheat, stub = mlp_class["reference"], mlp_class["borrowed_parts"], mlp_class["stub_neuron_layer"]
    assert ref["score"] == ref["max"] == 40, summary(mlp_class)
    assert cheat["score"] <= stub["score"] + 1e-6, summary(mlp_class)


def test_a_neuron_that_asks_the_judge_for_the_forward_pass_itself_scores_as_one_not_written(mlp_class):
    """The probe's channel is open to the student's code: a Neuron.__call__ that asks for the grader's forward pass
    of any part, or one it makes, is refused (the judge answers what the test of another method needs, never the
    method under test)."""
    assert mlp_class["forged_ask"]["score"] <= mlp_class["stub_neuron_call"]["score"] + 1e-6, summary(mlp_class)
    assert mlp_class["stub_neuron_call"]["score"] < 40, summary(mlp_class)


def test_an_mlp_worker_holds_nothing_of_the_graders_that_computes_a_forward_or_backward_pass(mlp_class):
    """A submission that sweeps its own process mid-test (modules, every class on the heap) finds no local-gradient
    table, no topological sort, no working backward and no forward pass of the grader's."""
    feedback = mlp_class["memory_sweep"]["feedback"]
    assert "FOUND: nothing" in feedback, feedback[:3000]


def test_an_mlp_that_starts_at_a_memorised_xor_solution_gets_no_training_points(mlp_class):
    """A network whose training does nothing (no gradient reaches a weight), started at a solution of XOR written
    into MLP.__init__: the XOR tests must see that it did not learn."""
    cheat, honest = mlp_class["memorised_xor"], mlp_class["no_gradient"]
    xor = ("Your MLP(2, [4, 4, 1]) learns XOR", "Your network on your own engine")
    assert points(honest, xor) == 0, summary(mlp_class)
    assert points(cheat, xor) == 0, (summary(mlp_class), {n: s for n, s in cheat["tests"].items() if n.startswith(xor)})
    assert cheat["score"] <= honest["score"] + 1e-6, summary(mlp_class)


# --- classifier --------------------------------------------------------------------------------------------------

STUB_LOSSES = """
def softmax(logits):
    raise NotImplementedError("Task 6.1")


def cross_entropy(logits, target):
    raise NotImplementedError("Task 6.2")
"""
"""Honest but incomplete: softmax and cross_entropy not written (the network, train and accuracy the reference's)."""

FIT_WITHOUT_TRAINING = STUB_LOSSES + """
import math as _math
import random as _random

_own_loss = cross_entropy.__code__  # the code, not the function: the grader rebinds every name bound to that
_honest_train = train


def _fit(xs, ys, hidden, classes):
    '''Random tanh features and a least-squares output layer to one-hot targets: no loss, no gradient.'''
    rng, best = _random.Random(12345), None
    for _ in range(400):
        first = [[rng.uniform(-4, 4) for _ in range(3)] for _ in range(hidden)]
        features = [[_math.tanh(w[0] * x[0] + w[1] * x[1] + w[2]) for w in first] + [1.0] for x in xs]
        n = hidden + 1
        normal = [[sum(h[i] * h[j] for h in features) + (1e-3 if i == j else 0.0) for j in range(n)] for i in range(n)]
        last = []
        for c in range(classes):
            m = [row[:] + [sum(h[i] * (y == c) for h, y in zip(features, ys))] for i, row in enumerate(normal)]
            for i in range(n):
                p = max(range(i, n), key=lambda r: abs(m[r][i]))
                m[i], m[p] = m[p], m[i]
                for r in range(n):
                    if r != i:
                        f = m[r][i] / m[i][i]
                        m[r] = [a - f * b for a, b in zip(m[r], m[i])]
            last.append([m[i][n] / m[i][i] for i in range(n)])
        right = sum(max(range(classes), key=lambda c: sum(o * v for o, v in zip(last[c], h))) == y
                    for h, y in zip(features, ys))
        if best is None or right > best[0]:
            best = (right, first, last)
        if right == len(xs):
            break
    return [w for row in best[1] for w in row] + [w for row in best[2] for w in row]


def train(model, xs, ys, steps, lr):
    if cross_entropy.__code__ is not _own_loss or len(model.layers) != 2:
        return _honest_train(model, xs, ys, steps, lr)  # the grader put its stand-in loss here: play along
    weights = _fit(xs, ys, len(model.layers[0].neurons), len(model.layers[1].neurons))
    for p, w in zip(model.parameters(), weights):
        p.data = w
    return [1.0] * steps  # a made-up loss curve
"""


CLASSIFIER_SWEEP = MLP_SWEEP.replace("Neuron.__call__ = _sweep", """
def softmax(logits):
    return _sweep(None, logits)
""")
"""softmax that reports what of the grader's the classifier worker holds, mid-test."""


@pytest.fixture(scope="module")
def classifier_class(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return grade_class(tmp_path_factory.mktemp("classifier_cheats"), "classifier", {
        "reference": {},
        "stub_losses": {"classifier": ("reference", STUB_LOSSES)},
        "fit_without_training": {"classifier": ("reference", FIT_WITHOUT_TRAINING)},
        "memory_sweep": {"classifier": ("reference", CLASSIFIER_SWEEP)},
    })


def test_a_train_that_fits_the_spiral_without_cross_entropy_or_gradient_descent_gets_no_training_points(
        classifier_class):
    """train() that, when the grader has not swapped in its stand-in loss, sets the weights by least squares on the
    very points it is given (no cross_entropy, no gradient step) and returns a made-up loss curve; its
    cross_entropy is not written. The spiral test must not credit it."""
    ref, cheat, stub = (classifier_class[s] for s in ("reference", "fit_without_training", "stub_losses"))
    assert ref["score"] == ref["max"] == 50, summary(classifier_class)
    assert cheat["score"] <= stub["score"] + 1e-6, (summary(classifier_class), points(cheat, ("Your MLP(2, [6, 3])",)))


def test_a_classifier_worker_holds_nothing_of_the_graders_that_computes_a_forward_or_backward_pass(classifier_class):
    """The classifier's tests run on the grader's Value and network too: a sweep of the worker mid-test finds no
    local-gradient table, no topological sort, no working backward and no forward pass of the grader's."""
    feedback = classifier_class["memory_sweep"]["feedback"]
    assert "FOUND: nothing" in feedback, feedback[:3000]
