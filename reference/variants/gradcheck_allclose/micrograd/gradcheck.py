"""A correct gradcheck.py in another style: the engine module used by attribute, comprehensions, all(), and a
recursive graph walk; the closures restored from a dict keyed by id."""

from __future__ import annotations

from . import engine


def _point(xs):
    return [x.data if isinstance(x, engine.Value) else x for x in xs]


def numerical_grad(f, xs, h=1e-6):
    point = _point(xs)

    def at(i, step):
        return f(*[engine.Value(p + step if j == i else p) for j, p in enumerate(point)]).data

    return [(at(i, h) - at(i, -h)) / (2 * h) for i in range(len(point))]


def analytic_grad(f, xs):
    leaves = [engine.Value(p) for p in _point(xs)]
    f(*leaves).backward()
    return [leaf.grad for leaf in leaves]


def gradcheck(f, xs, atol=1e-5, rtol=1e-3, h=1e-6):
    pairs = zip(analytic_grad(f, xs), numerical_grad(f, xs, h))
    return all(abs(a - n) <= atol + rtol * abs(n) for a, n in pairs)


def count_ops(f, xs):
    out = f(*[engine.Value(p) for p in _point(xs)])
    nodes = {}

    def visit(node):
        if id(node) not in nodes:
            nodes[id(node)] = node
            for child in node._prev:
                visit(child)

    visit(out)
    ops = [node for node in nodes.values() if node._prev]
    saved = {id(node): node._backward for node in ops}
    calls = 0

    def counted(closure):
        def wrapper():
            nonlocal calls
            calls += 1
            closure()
        return wrapper

    for node in ops:
        node._backward = counted(node._backward)
    try:
        out.backward()
    finally:
        for node in ops:
            node._backward = saved[id(node)]
    return len(ops), calls
