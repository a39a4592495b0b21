"""Does ``grader similarity`` flag disguised copies and leave honest students alone, in time?

    python bench/similarity.py [--students 300] [--copies 60] [--seed 7] [--jobs 2] [--keep DIR] [--no-sweep]
                               [--baseline REV]

Builds a class with a fixed seed in a temporary folder, runs ``grader similarity`` on it (with ``-j
JOBS``, against the public engine as ``--corpus``, on the assignments made of ``micrograd/engine.py`` and
``micrograd/nn.py`` only: the students write no other file), and prints the share of disguised copies flagged
at the default setting (and per kind of code that does nothing added), the share of honest pairs flagged, and the
wall time; then, unless ``--no-sweep``, the same shares for other thresholds and floors (from the scores of every
pair), which is how the defaults were chosen. ``--baseline REV`` first runs the grader of that git revision (its
``grader`` package, unpacked with ``git archive``) on the same class, for figures before and after a change.

Honest students (``students - copies``) are each composed, method by method, from a pool of
independent correct implementations in different styles: the course's reference (its solution
markers removed), its correct variants (``reference/variants/``), and ``bench/similarity_styles/``
(closures or helper functions or factories, recursive or iterative or Kahn topological sorts, loops
or comprehensions...). Most fill in the release's template (its docstrings and signatures kept),
the others write the files from scratch in one style's order; some work in the release's notebooks.
An engine takes each method from a style drawn at random; a network each class.

Copies are disguised: of a classmate (an honest student's files) or of the public engine
(karpathy's micrograd, MIT licence, fetched with ``pip download --no-deps micrograd`` into the
temporary folder and never stored here; without the network, a course variant stands in, with a
note, and leaves the honest pool). A copy of the public engine adds the methods it lacks from the
pool. Every copy then has its docstrings rewritten or dropped, its comments removed, its
identifiers renamed, its methods reordered, dead code added, and a third become notebooks. The copies
also get, in turn, code that does nothing (:data:`NOISES`): none, a ``pass``, a ``...`` or a bare
constant after every statement, a statement of the file pasted after every ``return``, every
statement wrapped in ``if True:``, or a mix of these, statement by statement.

The same seed writes the same class byte for byte (every random draw comes from the seeded ``rng``, in
orders that depend on no set or hash, and notebook cells get fixed ids instead of nbformat's random ones).
"""

from __future__ import annotations

import argparse
import ast
import io
import json
import keyword
import random
import re
import subprocess
import sys
import tempfile
import time
import tokenize
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.course.config import Assignment  # noqa: E402
from grader.course.course import Course  # noqa: E402
from grader.course.handouts import build_notebook  # noqa: E402
from grader.similarity.ranking import FLOOR, IDENTICAL, THRESHOLD  # noqa: E402

STYLES = Path(__file__).resolve().parent / "similarity_styles"
MARKER = re.compile(r"^\s*# (BEGIN|END) SOLUTION.*\n", re.M)
ENGINE_API = ["__init__", "__add__", "__mul__", "__pow__", "tanh", "relu", "exp", "log", "sigmoid", "backward",
              "__neg__", "__radd__", "__sub__", "__rsub__", "__rmul__", "__truediv__", "__rtruediv__", "__repr__"]
NN_CLASSES = ["Module", "Neuron", "Layer", "MLP"]
BUILTINS = set(dir(__import__("builtins")))
KEEP = {"self", "cls", "Value", "Module", "Neuron", "Layer", "MLP", "math", "random", "functools", "itertools", "deque",
        "operator", "reduce", "Union", "Callable", "Iterable", "Sequence", "annotations", "data", "grad", "_prev",
        "_op", "_backward", "nonlin", "nin", "nout", "nouts", "kwargs", "micrograd", "engine", *ENGINE_API, *BUILTINS}
NAMES = ["acc", "tmp", "node", "res", "val", "item", "lhs", "rhs", "x1", "y1", "z", "out_node", "parent", "kid", "cur",
         "buf", "seen_set", "order_list", "grad_cb", "fn", "pending", "vtx", "elem", "ret", "total", "factor", "q"]
DOCS = ["Compute the result and register the gradient rule.", "Helper used by the forward pass.",
        "Returns a new node.", "Implements the operation for autodiff.", "See lecture notes.", "Forward and backward."]
DEAD = ["_unused = None", "if False:\n    print('debug')", "assert True", "_tmp = 0 * 1", "pass"]
DEAD_HELPER = ("\n\ndef _debug_dump(node, depth=0):\n    print('  ' * depth, node)\n"
               "    for child in getattr(node, '_prev', ()):\n        _debug_dump(child, depth + 1)\n")


# --- the pool of honest styles -----------------------------------------------------------------------------------

@dataclass
class Method:
    """One method of a style: its whole source (dedented), its body without the docstring, its parameters."""

    name: str
    source: str
    body: str
    params: list[str]
    uses: tuple[str, ...]


@dataclass
class Style:
    """One complete implementation: its imports, module helpers and classes' methods (in its own order)."""

    name: str
    doc: str
    imports: list[str]
    helpers: dict[str, str]
    classes: dict[str, dict[str, Method]] = field(default_factory=dict)


def _segment(lines: list[str], node: ast.AST) -> str:
    first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])  # type: ignore[attr-defined]
    return "".join(lines[first - 1: node.end_lineno])  # type: ignore[attr-defined]


def _dedent(text: str, by: int) -> str:
    return "".join(line if not line.strip() else line[by:] if line[:by].strip() == "" else line
                   for line in text.splitlines(keepends=True))


def load_style(name: str, text: str) -> Style:
    """A style from a module's text (a class ``Value``, or the network's classes)."""
    tree, lines = ast.parse(text), text.splitlines(keepends=True)
    style = Style(name, ast.get_docstring(tree) or "", [], {})
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            style.imports.append(_segment(lines, node).strip())
        elif isinstance(node, ast.FunctionDef):
            style.helpers[node.name] = _segment(lines, node)
        elif isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            style.helpers[node.targets[0].id] = _segment(lines, node)
        elif isinstance(node, ast.ClassDef):
            methods: dict[str, Method] = {}
            for item in node.body:
                if not isinstance(item, ast.FunctionDef):
                    continue
                body = item.body[1:] if ast.get_docstring(item) is not None and len(item.body) > 1 else item.body
                source = _dedent(_segment(lines, item), item.col_offset)
                text_body = _dedent("".join(lines[body[0].lineno - 1: item.end_lineno]), body[0].col_offset)
                uses = tuple(dict.fromkeys(n.id if isinstance(n, ast.Name) else n.attr for n in ast.walk(item)
                                           if isinstance(n, (ast.Name, ast.Attribute))))  # in order: no set
                methods[item.name] = Method(item.name, source, text_body, [a.arg for a in item.args.args[1:]], uses)
            style.classes[node.name] = methods
    return style


def load_pool(public_stand_in: str | None) -> tuple[list[Style], list[Style]]:
    """The honest engine styles and network styles (a course variant standing in for the public engine left out).

    A course variant gives an engine style if it has ``engine.py``, a network style if it has ``nn.py``: the
    variants of the later assignments (``forward.py``, ``graph.py``, ``classifier.py``...) alone give neither."""
    engines, nets = [], []
    reference = ROOT / "reference" / "micrograd"
    sources = [("reference", reference)] + sorted((v.name, v / "micrograd") for v in (ROOT / "reference" / "variants")
                                                  .iterdir() if (v / "micrograd").is_dir())
    for name, folder in sources:
        if name == public_stand_in:
            continue
        if (folder / "engine.py").is_file():
            engines.append(load_style(name, MARKER.sub("", (folder / "engine.py").read_text(encoding="utf-8"))))
        if (folder / "nn.py").is_file():
            nets.append(load_style(name, MARKER.sub("", (folder / "nn.py").read_text(encoding="utf-8"))))
    engines += [load_style(p.stem, p.read_text(encoding="utf-8")) for p in sorted((STYLES / "engine").glob("*.py"))]
    nets += [load_style(p.stem, p.read_text(encoding="utf-8")) for p in sorted((STYLES / "nn").glob("*.py"))]
    return engines, nets


# --- composing one honest student ----------------------------------------------------------------------------------

def rename_tokens(text: str, mapping: dict[str, str]) -> str:
    """``text`` with each name of ``mapping`` replaced (names after a dot, and inside strings, are left alone)."""
    if not mapping:
        return text
    out, prev = [], None
    tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    lines = text.splitlines(keepends=True)
    edits = []
    for tok in tokens:
        if tok.type == tokenize.NAME and tok.string in mapping and not (prev is not None and prev.string == "."):
            edits.append((tok.start, tok.end, mapping[tok.string]))
        if tok.type not in (tokenize.NL, tokenize.COMMENT):
            prev = tok
    for (row, col), (_, end), new in reversed(edits):
        lines[row - 1] = lines[row - 1][:col] + new + lines[row - 1][end:]
    out = lines
    return "".join(out)


def _needed(methods: list[Method], style_of: dict[str, Style], cls: str) -> tuple[list[str], list[str], set[str]]:
    """Module helpers and class helpers the chosen methods need (transitively), and the imports of their styles."""
    helpers: dict[str, str] = {}
    class_helpers: dict[str, str] = {}
    imports: set[str] = set()
    todo = [(m, style_of[m.name]) for m in methods]
    while todo:
        m, style = todo.pop()
        imports.update(style.imports)
        for name in m.uses:
            if name in style.helpers and name not in helpers:
                helpers[name] = style.helpers[name]
                src = style.helpers[name]
                todo.append((Method(name, src, src, [], tuple(dict.fromkeys(re.findall(r"\w+", src)))), style))
            own = style.classes.get(cls, {})
            if name in own and name not in (*ENGINE_API, *[x.name for x in methods]) and name not in class_helpers:
                class_helpers[name] = own[name].source
                todo.append((own[name], style))
    return list(helpers.values()), list(class_helpers.values()), imports


def _defines(source: str) -> str:
    """The name a module-level helper (a function or an assignment) defines."""
    node = ast.parse(source).body[0]
    if isinstance(node, ast.FunctionDef):
        return node.name
    target = node.targets[0] if isinstance(node, ast.Assign) else None
    return target.id if isinstance(target, ast.Name) else ""


def _indent(text: str, by: int) -> str:
    return "".join((" " * by + line) if line.strip() else line for line in text.splitlines(keepends=True))


def fill_template(template: str, chosen: dict[str, dict[str, Method]], style_of: dict[tuple[str, str], Style],
                  strip_docs: bool) -> str:
    """The template with each stub's ``raise NotImplementedError`` replaced by the chosen method's body."""
    tree, lines = ast.parse(template), template.splitlines(keepends=True)
    edits: list[tuple[int, int, str]] = []
    extra_imports: set[str] = set()
    for cls in [n for n in tree.body if isinstance(n, ast.ClassDef)]:
        methods = chosen.get(cls.name, {})
        helpers, class_helpers, imports = _needed(list(methods.values()),
                                                  {n: style_of[(cls.name, n)] for n in methods}, cls.name)
        extra_imports |= imports
        defined = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))} | \
                  {t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
        helpers = [h for h in helpers if _defines(h) not in defined]
        if helpers:
            edits.append((cls.lineno, cls.lineno - 1, "".join(h.rstrip() + "\n\n\n" for h in helpers)))
        for item in cls.body:
            if not isinstance(item, ast.FunctionDef):
                continue
            last = item.body[-1]
            stub = isinstance(last, ast.Raise) and "NotImplementedError" in ast.unparse(last)
            if stub and item.name in methods:
                m = methods[item.name]
                mapping = {old: new for old, new in zip(m.params, [a.arg for a in item.args.args[1:]]) if old != new}
                edits.append((last.lineno, last.end_lineno or last.lineno,
                              _indent(rename_tokens(m.body, mapping), last.col_offset)))
            if strip_docs and ast.get_docstring(item) is not None and len(item.body) > 1:
                doc = item.body[0]
                edits.append((doc.lineno, doc.end_lineno or doc.lineno, ""))
            if item.name == "__init__" and class_helpers:
                end = item.end_lineno or item.lineno
                edits.append((end + 1, end, "".join("\n" + _indent(h, 4) for h in class_helpers)))
    for start, end, new in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        lines[start - 1: end] = [new]
    text = "".join(lines)
    missing = sorted(i for i in extra_imports if i not in text and "__future__" not in i and ".engine" not in i)
    if missing:
        anchor = text.index("\nimport ") + 1 if "\nimport " in text else 0
        text = text[:anchor] + "".join(m + "\n" for m in missing) + text[anchor:]
    return text


def from_scratch(chosen: dict[str, dict[str, Method]], style_of: dict[tuple[str, str], Style], order_from: Style,
                 header: str) -> str:
    """A module written from scratch: the chosen methods, each class in the order of one style."""
    imports: set[str] = set()
    parts: list[str] = []
    helpers_all: list[str] = []
    for cls, methods in chosen.items():
        helpers, class_helpers, used = _needed(list(methods.values()), {n: style_of[(cls, n)] for n in methods}, cls)
        imports |= used
        helpers_all += [h for h in helpers if h not in helpers_all]
        order = list(order_from.classes.get(cls, {})) or list(methods)
        names = [n for n in order if n in methods] + [n for n in methods if n not in order]
        base = "(Module)" if cls in NN_CLASSES[1:] else ""
        body = [_indent(methods[n].source, 4) for n in names[:1]] + [_indent(h, 4) for h in class_helpers] + \
               [_indent(methods[n].source, 4) for n in names[1:]]
        parts.append(f"class {cls}{base}:\n\n" + "\n".join(body))
    future = sorted(i for i in imports if "__future__" in i)
    engine = sorted(i for i in imports if ".engine" in i)[:1]
    rest = sorted(i for i in imports if "__future__" not in i and ".engine" not in i) + engine
    head = (f'"""{header}"""\n\n' if header else "") + "".join(i + "\n" for i in future + rest)
    return head + "\n\n" + "".join(h.rstrip() + "\n\n\n" for h in helpers_all) + "\n\n".join(parts)


def compose(rng: random.Random, pool: list[Style], template: str, api: dict[str, list[str]], per_class: bool,
            frame: str, forced: Style | None = None) -> str:
    """One file: each method (or, for the network, each class) from a style drawn at random."""
    chosen: dict[str, dict[str, Method]] = {}
    style_of: dict[tuple[str, str], Style] = {}
    for cls, names in api.items():
        class_style = rng.choice([s for s in pool if cls in s.classes])
        for name in names:
            if forced is not None and name in forced.classes.get(cls, {}):
                style = forced
            else:
                candidates = [s for s in pool if name in s.classes.get(cls, {})]
                style = class_style if per_class and name in class_style.classes[cls] else rng.choice(candidates)
            chosen.setdefault(cls, {})[name] = style.classes[cls][name]
            style_of[(cls, name)] = style
    if frame == "template":
        return fill_template(template, chosen, style_of, strip_docs=rng.random() < 0.15)
    main = forced or rng.choice(pool)
    return from_scratch(chosen, style_of, main, main.doc)


# --- disguises --------------------------------------------------------------------------------------------------------

def _docstrings(text: str, rng: random.Random) -> str:
    tree, lines = ast.parse(text), text.splitlines(keepends=True)
    edits = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef)) and ast.get_docstring(node) is not None:
            doc = node.body[0]
            indent = " " * doc.col_offset
            drop = len(node.body) > 1 and rng.random() < 0.5
            edits.append((doc.lineno, doc.end_lineno or doc.lineno, "" if drop else f'{indent}"""{rng.choice(DOCS)}"""\n'))
    for start, end, new in sorted(edits, reverse=True):
        lines[start - 1: end] = [new]
    return "".join(lines)


def _comments(text: str) -> str:
    lines = text.splitlines(keepends=True)
    for tok in reversed(list(tokenize.generate_tokens(io.StringIO(text).readline))):
        if tok.type == tokenize.COMMENT:
            row, col = tok.start
            kept = lines[row - 1][:col].rstrip()
            lines[row - 1] = kept + "\n" if kept else ""
    return "".join(lines)


def _reorder(text: str, rng: random.Random) -> str:
    tree, lines = ast.parse(text), text.splitlines(keepends=True)
    for cls in sorted((n for n in tree.body if isinstance(n, ast.ClassDef)), key=lambda n: -n.lineno):
        defs = [n for n in cls.body if isinstance(n, ast.FunctionDef)]
        if len(defs) < 3:
            continue
        starts = [min([d.lineno] + [x.lineno for x in d.decorator_list]) for d in defs]
        ends = [s - 1 for s in starts[1:]] + [cls.end_lineno or cls.lineno]
        chunks = ["".join(lines[s - 1: e]).rstrip("\n") + "\n\n" for s, e in zip(starts, ends)]
        first = [c for d, c in zip(defs, chunks) if d.name == "__init__"]
        rest = [c for d, c in zip(defs, chunks) if d.name != "__init__"]
        rng.shuffle(rest)
        lines[starts[0] - 1: ends[-1]] = first + rest
    return "".join(lines)


def _dead_code(text: str, rng: random.Random) -> str:
    tree, lines = ast.parse(text), text.splitlines(keepends=True)
    spots = []
    for cls in (n for n in tree.body if isinstance(n, ast.ClassDef)):
        for item in (n for n in cls.body if isinstance(n, ast.FunctionDef)):
            body = item.body[1:] if ast.get_docstring(item) is not None and len(item.body) > 1 else item.body
            if rng.random() < 0.35:
                spots.append((body[0].lineno, body[0].col_offset))
    for row, col in sorted(spots, reverse=True):
        lines.insert(row - 1, _indent(rng.choice(DEAD) + "\n", col))
    text = "".join(lines)
    return text + DEAD_HELPER if rng.random() < 0.6 else text


def _rename(text: str, rng: random.Random) -> str:
    tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    attrs = {b.string for a, b in zip(tokens, tokens[1:]) if a.string == "." and b.type == tokenize.NAME}
    names = {t.string for t in tokens if t.type == tokenize.NAME}
    imported = {part for node in ast.walk(ast.parse(text)) if isinstance(node, (ast.Import, ast.ImportFrom))
                for alias in node.names for part in [*(alias.name.split(".")), alias.asname or "",
                                                     *((getattr(node, "module", None) or "").split("."))]}
    local = sorted(n for n in names if n not in KEEP and n not in attrs and n not in imported and not keyword.iskeyword(n)
                   and not n.startswith("__"))
    fresh = [f"{w}_{i}" if i else w for i in range(5) for w in NAMES]
    fresh = [n for n in fresh if n not in names]
    rng.shuffle(fresh)
    return rename_tokens(text, dict(zip(local, fresh)))


NOISES = ("none", "pass", "ellipsis", "constants", "after_return", "if_true", "mixed")
"""The code that does nothing added to the copies, in turn: none; a ``pass``, a ``...`` or a bare constant after every
statement; a statement of the file pasted after every ``return``; every statement in an ``if True:``; or, statement by
statement, any of these."""
CONSTANTS = ["0", "None", "1.0", "True", "-1", "()", "'x'"]
COMPOUND = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.If, ast.For, ast.While, ast.With, ast.Try)


def _own_lines(text: str, tree: ast.Module) -> list[ast.stmt]:
    """The simple statements that have their lines to themselves, after any ``from __future__`` import."""
    lines = text.splitlines(keepends=True)
    future = max((n.end_lineno or 0 for n in tree.body if isinstance(n, ast.ImportFrom) and n.module == "__future__"),
                 default=0)
    found = []
    for node in ast.walk(tree):
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            for s in block if isinstance(block, list) else []:
                end = s.end_lineno or s.lineno
                after = lines[end - 1][s.end_col_offset:].strip()
                if not isinstance(s, COMPOUND) and s.lineno > future and not lines[s.lineno - 1][:s.col_offset].strip() \
                        and (not after or after.startswith("#")):
                    found.append(s)
    return sorted(found, key=lambda s: s.lineno)


def add_noise(text: str, kind: str, rng: random.Random) -> str:
    """``text`` with code that does nothing added (``kind``: one of :data:`NOISES`)."""
    tree, lines = ast.parse(text), text.splitlines(keepends=True)
    own = _own_lines(text, tree)
    pasted = [lines[s.lineno - 1].strip() for s in own if isinstance(s, (ast.Assign, ast.AugAssign))
              and s.lineno == s.end_lineno and not any(isinstance(n, (ast.Yield, ast.YieldFrom, ast.Await))
                                                       for n in ast.walk(s))]
    edits: list[tuple[int, int, str]] = []  # lines[start - 1: end] becomes the text
    for s in own:
        pad, end = " " * s.col_offset, s.end_lineno or s.lineno
        how = rng.choice(NOISES[1:-1]) if kind == "mixed" else kind
        if how == "if_true" and s.lineno == end and not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)):
            edits.append((end, end, f"{pad}if True:\n    {lines[end - 1]}"))
        elif how in ("pass", "ellipsis", "constants"):
            word = {"pass": "pass", "ellipsis": "...", "constants": rng.choice(CONSTANTS)}[how]
            edits.append((end + 1, end, f"{pad}{word}\n"))
        elif how == "after_return" and isinstance(s, ast.Return) and pasted:
            edits.append((end + 1, end, f"{pad}{rng.choice(pasted)}\n"))
    for start, end, new in sorted(edits, reverse=True):
        lines[start - 1: end] = [new]
    return "".join(lines)


def disguise(text: str, rng: random.Random, noise: str = "none") -> str:
    """Docstrings rewritten or dropped, comments removed, methods reordered, dead code added, code that does nothing
    added (``noise``: one of :data:`NOISES`), identifiers renamed."""
    for step in (_docstrings, lambda t, r: _comments(t), _reorder, _dead_code, lambda t, r: add_noise(t, noise, r),
                 _rename):
        text = step(text, rng)
    compile(text, "<disguised>", "exec")
    return text


# --- the public engine ---------------------------------------------------------------------------------------------

STAND_IN = "recursive_set"
"""The course variant that stands in for the public engine without the network (closest to karpathy's)."""


def public_engine(tmp: Path) -> tuple[Path, str, str, str | None]:
    """The corpus folder holding the public engine, its engine and network texts, and the stand-in's name (or None)."""
    corpus = tmp / "public"
    download = tmp / "download"
    try:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "micrograd", "-d",
                        str(download)], check=True, timeout=180, capture_output=True)
        files: dict[str, str] = {}
        for archive in sorted(download.iterdir()):
            if archive.suffix == ".whl":
                with zipfile.ZipFile(archive) as zf:
                    files = {n.rsplit("/", 1)[-1]: zf.read(n).decode("utf-8") for n in zf.namelist()
                             if re.fullmatch(r"micrograd/(engine|nn)\.py", n)}
            elif archive.name.endswith(".tar.gz"):
                import tarfile

                with tarfile.open(archive) as tf:
                    for member in tf.getmembers():
                        if re.search(r"(^|/)micrograd/(engine|nn)\.py$", member.name) and member.isfile():
                            handle = tf.extractfile(member)
                            if handle is not None:
                                files[member.name.rsplit("/", 1)[-1]] = handle.read().decode("utf-8")
        if {"engine.py", "nn.py"} <= set(files):
            package = corpus / "micrograd-pypi" / "micrograd"
            package.mkdir(parents=True)
            for name, text in files.items():
                (package / name).write_text(text, encoding="utf-8")
            print(f"Public engine: micrograd from PyPI ({', '.join(p.name for p in download.iterdir())}), "
                  f"in {corpus} only")
            return corpus, files["engine.py"], files["nn.py"], None
        raise OSError("no micrograd/engine.py and nn.py in the download")
    except (OSError, subprocess.SubprocessError, zipfile.BadZipFile) as exc:
        variant = ROOT / "reference" / "variants" / STAND_IN / "micrograd"
        package = corpus / STAND_IN / "micrograd"
        package.mkdir(parents=True)
        engine, nn = (variant / "engine.py").read_text(encoding="utf-8"), (variant / "nn.py").read_text(encoding="utf-8")
        (package / "engine.py").write_text(engine, encoding="utf-8")
        (package / "nn.py").write_text(nn, encoding="utf-8")
        print(f"Note: micrograd could not be downloaded ({str(exc)[:120]}); the course variant {STAND_IN} stands in "
              "for the public engine and leaves the honest pool")
        return corpus, engine, nn, STAND_IN


# --- the class ---------------------------------------------------------------------------------------------------------

@dataclass
class Student:
    """One student of the bench's class: ``kind`` is honest, classmate (a copy of ``source``) or public."""

    id: str
    kind: str
    source: str = ""
    notebook: bool = False
    frame: str = "template"
    noise: str = ""


WRITTEN = ("micrograd/engine.py", "micrograd/nn.py")
"""The files a student of the bench writes: it compares only the assignments made of them."""


def compared(course: Course) -> list[Assignment]:
    """The course's assignments whose files are all among :data:`WRITTEN` (the engine's and the network's)."""
    return [a for a in course.assignments() if set(a.files) <= set(WRITTEN)]


def write_student(folder: Path, engine: str, nn: str, notebook: bool, course: Course,
                  assignments: list[Assignment]) -> None:
    """A package-layout submission, or the release's layout with the work in its notebooks (the package untouched),
    one per assignment of ``assignments``."""
    package = folder / "micrograd"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    if not notebook:
        (package / "engine.py").write_text(engine, encoding="utf-8")
        (package / "nn.py").write_text(nn, encoding="utf-8")
        return
    for name in ("engine.py", "nn.py"):
        (package / name).write_text((course.template_dir / "micrograd" / name).read_text(encoding="utf-8"))
    (folder / "notebooks").mkdir()
    for a in assignments:
        sources = {"micrograd/engine.py": engine, "micrograd/nn.py": nn}
        nb = build_notebook(a, sources, (a.root / "README.md").read_text(encoding="utf-8"))
        for n, cell in enumerate(nb.cells):
            cell["id"] = f"{a.id}-{n}"  # nbformat draws each cell's id at random (uuid4): the class would differ
        nbformat.write(nb, str(folder / "notebooks" / f"{a.id}.ipynb"))


def build_class(dest: Path, students: int, copies: int, seed: int, public: tuple[str, str],
                pool: tuple[list[Style], list[Style]], course: Course, assignments: list[Assignment]) -> list[Student]:
    """Write the class into ``dest`` (notebooks for ``assignments``); return who is who."""
    rng = random.Random(seed)
    engines, nets = pool
    template_engine = (course.template_dir / "micrograd" / "engine.py").read_text(encoding="utf-8")
    template_nn = (course.template_dir / "micrograd" / "nn.py").read_text(encoding="utf-8")
    engine_api = {"Value": ENGINE_API}
    nn_api = {"Module": ["zero_grad", "parameters"], **{c: ["__init__", "__call__", "parameters", "__repr__"]
                                                          for c in NN_CLASSES[1:]}}
    ids = [f"s{i:03d}" for i in range(1, students + 1)]
    rng.shuffle(ids)
    roster: list[Student] = []
    code: dict[str, tuple[str, str]] = {}
    for sid in ids[: students - copies]:
        frame = "template" if rng.random() < 0.7 else "scratch"
        engine = compose(rng, engines, template_engine, engine_api, False, frame)
        nn = compose(rng, nets, template_nn, nn_api, True, frame)
        roster.append(Student(sid, "honest", notebook=rng.random() < 0.15, frame=frame))
        code[sid] = (engine, nn)
    honest = [s.id for s in roster]
    public_engine_style, public_nn_style = load_style("public", public[0]), load_style("public", public[1])
    for n, sid in enumerate(ids[students - copies:]):
        if n % 2 == 0:
            source = rng.choice(honest)
            engine, nn = code[source]
            roster.append(Student(sid, "classmate", source, notebook=rng.random() < 1 / 3))
        else:
            frame = "template" if rng.random() < 0.5 else "scratch"
            engine = compose(rng, engines, template_engine, engine_api, False, frame, forced=public_engine_style)
            nn = compose(rng, nets, template_nn, nn_api, True, frame, forced=public_nn_style)
            nn = nn.replace(".relu()", ".tanh()").replace("'ReLU'", "'Tanh'")
            roster.append(Student(sid, "public", "public", notebook=rng.random() < 1 / 3, frame=frame))
        roster[-1].noise = NOISES[n % len(NOISES)]
        code[sid] = (disguise(engine, rng, roster[-1].noise), disguise(nn, rng, roster[-1].noise))
    for s in roster:
        write_student(dest / s.id, *code[s.id], s.notebook, course, assignments)
    return roster


# --- measuring ---------------------------------------------------------------------------------------------------------

def _hit(s: Student, assignment: str, flagged_class: set[tuple[str, frozenset[str]]],
         flagged_public: set[tuple[str, str]]) -> bool:
    if s.kind == "classmate":
        return (assignment, frozenset((s.id, s.source))) in flagged_class
    return (assignment, s.id) in flagged_public


def rates(roster: list[Student], flagged_class: set[tuple[str, frozenset[str]]], flagged_public: set[tuple[str, str]],
          assignments: list[str]) -> dict[str, float]:
    """Shares of copies flagged (per copy and assignment, and per copy on any assignment) and of honest pairs."""
    honest = [s.id for s in roster if s.kind == "honest"]
    copy_hits, any_hits = 0, 0
    copies = [s for s in roster if s.kind != "honest"]
    for s in copies:
        hits = [_hit(s, a, flagged_class, flagged_public) for a in assignments]
        copy_hits += sum(hits)
        any_hits += any(hits)
    honest_set = set(honest)
    false = sum(1 for a, pair in flagged_class if pair <= honest_set)
    public_false = sum(1 for a, who in flagged_public if who in honest_set)
    pairs = len(honest) * (len(honest) - 1) // 2 * len(assignments)
    return {"copies": copy_hits / max(1, len(copies) * len(assignments)), "copies_any": any_hits / max(1, len(copies)),
            "honest_pairs": false / max(1, pairs), "honest_pairs_flagged": false,
            "honest_vs_public": public_false / max(1, len(honest) * len(assignments))}


def by_noise(roster: list[Student], flagged_class: set[tuple[str, frozenset[str]]],
             flagged_public: set[tuple[str, str]], assignments: list[str]) -> str:
    """Copy-assignment pairs flagged, per kind of code that does nothing added (``pass 24/24, ...``)."""
    counts = {kind: [0, 0] for kind in NOISES}
    for s in roster:
        if s.kind != "honest":
            for a in assignments:
                counts[s.noise][0] += _hit(s, a, flagged_class, flagged_public)
                counts[s.noise][1] += 1
    return ", ".join(f"{kind} {hit}/{total}" for kind, (hit, total) in counts.items() if total)


def sweep(roster: list[Student], subs: Path, corpus: Path, jobs: int, assignments: list[Assignment]) -> None:
    """The shares at other thresholds and floors, from every pair's score."""
    from grader.similarity.class_pairs import score_class

    scored = score_class(Course(ROOT), subs, corpora=[corpus], assignment_ids=[a.id for a in assignments], jobs=jobs)
    assignments = sorted({d.assignment.id for d in scored.distributions})
    print("\nthreshold floor | copies flagged (per assignment, any) | honest pairs flagged | honest vs public")
    for threshold in (3.0, 3.5, 4.0, 4.5, 5.0, 6.0):
        for floor in (0.4, 0.5, 0.6, 0.7):
            fc: set[tuple[str, frozenset[str]]] = set()
            fp: set[tuple[str, str]] = set()
            for d in scored.distributions:
                for p in d.pairs:
                    if (p.score >= threshold and p.similarity >= floor) or p.similarity >= IDENTICAL:
                        if d.against == "class":
                            fc.add((d.assignment.id, frozenset((d.mine[p.a].owner, d.others[p.b].owner))))
                        else:
                            fp.add((d.assignment.id, d.mine[p.a].owner))
            r = rates(roster, fc, fp, assignments)
            mark = "  <- default" if (threshold, floor) == (THRESHOLD, FLOOR) else ""
            print(f"{threshold:9g} {floor:5.0%} | {r['copies']:7.1%} {r['copies_any']:7.1%} | "
                  f"{r['honest_pairs']:7.3%} ({r['honest_pairs_flagged']}) | {r['honest_vs_public']:6.2%}{mark}")


def measure(roster: list[Student], command: list[str], out: Path, cwd: Path, title: str) -> bool:
    """Run ``command`` (``grader similarity``, from ``cwd``) into ``out`` and print its figures; False if it failed."""
    out.mkdir()
    started = time.monotonic()
    done = subprocess.run(command + [str(out)], capture_output=True, text=True, cwd=cwd)
    wall = time.monotonic() - started
    if done.returncode != 0:
        print(done.stdout + done.stderr)
        return False
    doc = json.loads((out / "similarity.json").read_text(encoding="utf-8"))
    flagged = [p for p in doc["pairs"] if p["flagged"]]
    fc = {(p["assignment"], frozenset((p["a"]["id"], p["b"]["id"]))) for p in flagged if p["against"] == "class"}
    fp = {(p["assignment"], p["a"]["id"]) for p in flagged if p["against"] != "class"}
    r = rates(roster, fc, fp, doc["assignments"])
    print(f"\n{title}: {' '.join(command[1:3] + command[5:6])} ... -j {command[command.index('-j') + 1]}: "
          f"{wall:.1f} s wall (the command's own count: {doc['seconds']} s), {len(doc['notes'])} note(s)")
    print(f"At the default setting (score >= {THRESHOLD:g} and similarity >= {FLOOR:.0%}, or similarity >= "
          f"{IDENTICAL:.0%}):\n"
          f"  disguised copies flagged: {r['copies']:.1%} of copy-assignment pairs, {r['copies_any']:.1%} of copies "
          f"on at least one assignment\n"
          f"  by code that does nothing added: {by_noise(roster, fc, fp, doc['assignments'])}\n"
          f"  honest pairs flagged: {r['honest_pairs']:.3%} ({r['honest_pairs_flagged']} pairs)\n"
          f"  honest students flagged against the public engine: {r['honest_vs_public']:.2%}")
    for d in doc["distributions"]:
        print(f"  {d['assignment']:9} {d['against']:15} median {d['median']:.0%} MAD {d['mad']:.1%} "
              f"cutoff {d['cutoff']:.0%} flagged {d['flagged']}")
    return True


def baseline(revision: str, base: Path) -> Path:
    """The grader of git revision ``revision``, unpacked into ``base`` (its ``grader`` package only)."""
    folder = base / f"grader-{re.sub(r'[^A-Za-z0-9._-]', '_', revision)}"
    folder.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", revision, "grader"],
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=300)
    parser.add_argument("--copies", type=int, default=60)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--keep", type=Path, help="keep the class and the output in DIR")
    parser.add_argument("--no-sweep", action="store_true", help="only the default setting")
    parser.add_argument("--baseline", metavar="REV", help="first run the grader of this git revision on the same class")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-similarity-") as tmp:
        base = args.keep or Path(tmp)
        base.mkdir(parents=True, exist_ok=True)
        corpus, engine, nn, stand_in = public_engine(base)
        course = Course(ROOT)
        subs = base / "submissions"
        assignments = compared(course)
        roster = build_class(subs, args.students, args.copies, args.seed, (engine, nn), load_pool(stand_in), course,
                             assignments)
        (base / "roster.json").write_text(json.dumps([vars(s) for s in roster], indent=1))
        kinds = {k: sum(s.kind == k for s in roster) for k in ("honest", "classmate", "public")}
        print(f"Class of {len(roster)} in {subs} (seed {args.seed}): {kinds['honest']} honest, {kinds['classmate']} "
              f"disguised copies of a classmate, {kinds['public']} of the public engine; "
              f"{sum(s.notebook for s in roster)} in notebooks")
        command = [sys.executable, "-m", "grader", "--course", str(ROOT), "similarity", "--submissions",
                   str(subs), "--corpus", str(corpus), "-j", str(args.jobs)] + \
                  [x for a in assignments for x in ("-a", a.id)]
        if args.baseline and not measure(roster, command, base / "out-baseline", baseline(args.baseline, base),
                                         f"grader of {args.baseline}"):
            return 1
        if not measure(roster, command, base / "out", ROOT, "this grader"):
            return 1
        if not args.no_sweep:
            sweep(roster, subs, corpus, args.jobs, assignments)
    return 0


if __name__ == "__main__":
    sys.exit(main())
