"""Follow a command's arguments through the grader's call graph, and count the trip: stays, rooms, climbs.

A static walk (the standard library's ``ast``; nothing is imported or run): from a start function (by default
``grader.commands.grade:run``) it follows, in source order, every call whose arguments (or receiver) carry data
derived from the start's parameters, into any function of ``grader/`` it can resolve (names imported from grader
modules, module aliases, ``self.method``, methods of objects built from a grader class in the same function). Taint
spreads through assignments, ``for`` targets, ``with`` targets and ``self`` attributes. A function is expanded the
first time the walk reaches it; later calls to it are entered and left without expanding it again.

The trace is the sequence of files the walk is in, in execution order (a call enters the callee's file; its return
comes back to the caller's file when the caller does more). Consecutive entries in one file are one *stay*; the
*rooms* are the distinct files; a *climb* is a move back into a file already visited whose folder is above the
current one (``commands > grading > judge > outputs > similarity > testing > questions > intake > course > sandbox``).
It also counts the *call tree*: the calls that cross into another file the first time a function is reached, and
those of them that run upward (a lower folder calling a higher one).

Usage::

    python bench/call_walk.py [--start grader.commands.grade:run] [--root DIR] [--trace]

``--root`` walks another checkout (e.g. ``git worktree add /tmp/old REV``), so a before/after pair is measured by
the same walk.
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

LAYERS = ("commands", "grading", "judge", "outputs", "similarity", "testing", "questions", "intake", "course", "sandbox")


@dataclass
class Module:
    name: str
    path: Path
    functions: dict[str, ast.FunctionDef] = field(default_factory=dict)
    classes: dict[str, ast.ClassDef] = field(default_factory=dict)
    imports: dict[str, tuple[str, str | None]] = field(default_factory=dict)  # local name -> (module, symbol)


def load(root: Path) -> dict[str, Module]:
    modules: dict[str, Module] = {}
    for path in sorted((root / "grader").rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        m = Module(name, path)
        package = name if parts[-1] == "__init__" else name.rsplit(".", 1)[0]
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                m.functions[node.name] = node  # type: ignore[assignment]
            elif isinstance(node, ast.ClassDef):
                m.classes[node.name] = node
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(up + ([base] if base else []))
                for a in node.names:
                    m.imports[a.asname or a.name] = (base, a.name)
            elif isinstance(node, ast.Import):
                for a in node.names:
                    m.imports[a.asname or a.name.split(".")[0]] = (a.name if a.asname else a.name.split(".")[0], None)
        modules[name] = m
    return modules


Key = tuple[str, str]  # (module, qualified name)


class Walk:
    def __init__(self, modules: dict[str, Module]) -> None:
        self.modules = modules
        self.trace: list[str] = []
        self.expanded: set[Key] = set()
        self.stack: list[Key] = []
        self.crossings: list[tuple[str, str]] = []  # (caller's module, callee's module), first reach only

    # --- resolution --------------------------------------------------------------
    def symbol(self, module: str, name: str, depth: int = 0) -> Key | None:
        m = self.modules.get(module)
        if m is None or depth > 3:
            return None
        if name in m.functions:
            return (module, name)
        if name in m.classes:
            return (module, name)
        if name in m.imports:
            target, sym = m.imports[name]
            if sym is None:
                return None
            if f"{target}.{sym}" in self.modules:
                return None  # a module, not a function
            return self.symbol(target, sym, depth + 1)
        return None

    def method(self, module: str, cls: str, name: str) -> Key | None:
        m = self.modules.get(module)
        node = m.classes.get(cls) if m else None
        if node is None:
            return None
        for item in node.body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == name:
                return (module, f"{cls}.{name}")
        for base in node.bases:
            if isinstance(base, ast.Name):
                found = self.symbol(module, base.id)
                if found and found[1] in self.modules[found[0]].classes:
                    hit = self.method(found[0], found[1], name)
                    if hit:
                        return hit
        return None

    def node_of(self, key: Key) -> ast.FunctionDef | None:
        module, qual = key
        m = self.modules[module]
        if "." in qual:
            cls, name = qual.split(".", 1)
            for item in m.classes[cls].body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == name:
                    return item  # type: ignore[return-value]
            return None
        return m.functions.get(qual)

    def resolve(self, module: str, cls: str | None, call: ast.Call, types: dict[str, Key]) -> Key | None:
        f = call.func
        if isinstance(f, ast.Name):
            found = self.symbol(module, f.id)
            if found and found[1] in self.modules[found[0]].classes:
                return self.method(found[0], found[1], "__init__") or None
            return found
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name):
            owner = f.value.id
            if owner == "self" and cls:
                return self.method(module, cls, f.attr)
            if owner in types:
                return self.method(types[owner][0], types[owner][1], f.attr)
            m = self.modules[module]
            if owner in m.imports:
                target, sym = m.imports[owner]
                full = f"{target}.{sym}" if sym else target
                if full in self.modules:
                    found = self.symbol(full, f.attr)
                    if found and found[1] in self.modules[found[0]].classes:
                        return self.method(found[0], found[1], "__init__")
                    return found
                found = self.symbol(module, owner)
                if found and found[1] in self.modules[found[0]].classes:
                    return self.method(found[0], found[1], f.attr)  # a class method or static method
        return None

    # --- the walk ----------------------------------------------------------------
    def enter(self, key: Key, tainted: set[str], self_tainted: bool) -> None:
        self.trace.append(key[0])
        if key in self.expanded or key in self.stack:
            return
        if self.stack and self.stack[-1][0] != key[0]:
            self.crossings.append((self.stack[-1][0], key[0]))
        self.expanded.add(key)
        node = self.node_of(key)
        if node is None:
            return
        self.stack.append(key)
        cls = key[1].split(".")[0] if "." in key[1] else None
        state = {"self": self_tainted}
        self.block(node.body, key[0], cls, set(tainted), {}, state)
        self.stack.pop()

    def block(self, body: list[ast.stmt], module: str, cls: str | None, tainted: set[str], types: dict[str, Key],
              state: dict[str, bool]) -> None:
        for stmt in body:
            self.statement(stmt, module, cls, tainted, types, state)

    def carries(self, expr: ast.AST | None, tainted: set[str], state: dict[str, bool]) -> bool:
        if expr is None:
            return False
        for n in ast.walk(expr):
            if isinstance(n, ast.Name) and (n.id in tainted or n.id == "self" and state["self"]):
                return True
        return False

    def statement(self, stmt: ast.stmt, module: str, cls: str | None, tainted: set[str], types: dict[str, Key],
                  state: dict[str, bool]) -> None:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return
        for child in ast.iter_child_nodes(stmt):
            if isinstance(child, ast.expr):
                self.calls(child, module, cls, tainted, types, state)
        if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            value = stmt.value
            if value is not None and self.carries(value, tainted, state):
                for t in targets:
                    for n in ast.walk(t):
                        if isinstance(n, ast.Name):
                            tainted.add(n.id)
                        elif isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "self":
                            state["self"] = True
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
                found = self.symbol(module, value.func.id)
                if found and found[1] in self.modules[found[0]].classes:
                    for t in targets:
                        if isinstance(t, ast.Name):
                            types[t.id] = found
        elif isinstance(stmt, (ast.For, ast.AsyncFor)) and self.carries(stmt.iter, tainted, state):
            tainted.update(n.id for n in ast.walk(stmt.target) if isinstance(n, ast.Name))
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            for item in stmt.items:
                if item.optional_vars is not None and self.carries(item.context_expr, tainted, state):
                    tainted.update(n.id for n in ast.walk(item.optional_vars) if isinstance(n, ast.Name))
        for name in ("body", "orelse", "finalbody"):
            inner = getattr(stmt, name, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                self.block(inner, module, cls, tainted, types, state)
        for handler in getattr(stmt, "handlers", []) or []:
            self.block(handler.body, module, cls, tainted, types, state)

    def calls(self, expr: ast.expr, module: str, cls: str | None, tainted: set[str], types: dict[str, Key],
              state: dict[str, bool]) -> None:
        for node in ast.walk(expr):
            if not isinstance(node, ast.Call):
                continue
            receiver = node.func.value if isinstance(node.func, ast.Attribute) else None
            carried = any(self.carries(a, tainted, state) for a in node.args) or any(
                self.carries(k.value, tainted, state) for k in node.keywords) or self.carries(receiver, tainted, state)
            if not carried:
                continue
            key = self.resolve(module, cls, node, types)
            if key is None:
                continue
            callee = self.node_of(key)
            params = [a.arg for a in (callee.args.posonlyargs + callee.args.args)] if callee else []
            is_method = "." in key[1]
            if is_method and params[:1] == ["self"]:
                params = params[1:]
            bound: set[str] = set()
            for i, a in enumerate(node.args):
                if self.carries(a, tainted, state):
                    if isinstance(a, ast.Starred):
                        bound.update(params[i:])
                    elif i < len(params):
                        bound.add(params[i])
            for k in node.keywords:
                if self.carries(k.value, tainted, state):
                    bound.update(params if k.arg is None else [k.arg])
            if callee is not None and callee.args.kwonlyargs:
                names = {a.arg for a in callee.args.kwonlyargs}
                bound.update(k.arg for k in node.keywords if k.arg in names and self.carries(k.value, tainted, state))
            self_tainted = is_method and (key[1].endswith(".__init__") or self.carries(receiver, tainted, state)
                                          or (receiver is not None and isinstance(receiver, ast.Name)
                                              and receiver.id == "self" and state["self"]))
            self.enter(key, bound, bool(self_tainted))
            self.trace.append(module)


def layer(module: str) -> int:
    parts = module.split(".")
    return LAYERS.index(parts[1]) if len(parts) > 2 and parts[1] in LAYERS else -1


@dataclass
class Measure:
    stays: list[str]
    rooms: int
    climbs: int
    crossings: int
    upward: int


def measure(root: Path, start: str) -> Measure:
    modules = load(root)
    module, function = start.split(":")
    walk = Walk(modules)
    node = modules[module].functions[function]
    walk.enter((module, function), {a.arg for a in node.args.args}, False)
    stays: list[str] = []
    for f in walk.trace:
        if not stays or stays[-1] != f:
            stays.append(f)
    while len(stays) > 1 and stays[-1] == module:  # the start's own last return is not a stay
        if stays.count(module) > 1 and stays[-2] != module:
            break
        stays.pop()
    seen: set[str] = set()
    climbs = 0
    for i, f in enumerate(stays):
        if i and f in seen and layer(f) < layer(stays[i - 1]):
            climbs += 1
        seen.add(f)
    upward = sum(1 for a, b in walk.crossings if 0 <= layer(b) < layer(a))
    return Measure(stays, len(set(stays)), climbs, len(walk.crossings), upward)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=str(Path(__file__).resolve().parents[1]), help="a checkout (default: this)")
    parser.add_argument("--start", default="grader.commands.grade:run", help="module:function to start from")
    parser.add_argument("--trace", action="store_true", help="print every stay")
    args = parser.parse_args(argv)
    m = measure(Path(args.root), args.start)
    print(f"walk of {args.start} in {args.root}: {len(m.stays)} stays, {m.rooms} rooms, {m.climbs} climbs back up; "
          f"call tree: {m.crossings} calls into another file, {m.upward} of them upward")
    stays = m.stays
    entered = Counter(stays)
    print("most entered: " + ", ".join(f"{m.removeprefix('grader.')} {n}" for m, n in entered.most_common(4)))
    if args.trace:
        print("\n".join(f"  {m}" for m in stays))
    return 0


if __name__ == "__main__":
    sys.exit(main())
