"""A correct gradcheck.py in a third style: central differences divided by the step the floats actually took
(``x + h`` minus ``x - h``, not ``2 h``), the tolerance rule written as a margin with NaN caught by ``e != e``, a
breadth-first walk on a deque, and the counting done by a callable object (not a closure) put in place of each
``_backward`` and taken out again."""

from collections import deque

from .engine import Value


def _data(xs):
    return [float(getattr(x, "data", x)) for x in xs]


def _at(f, point):
    return f(*map(Value, point)).data


def numerical_grad(f, xs, h=1e-6):
    base = _data(xs)
    grads = []
    for i, x in enumerate(base):
        up, down = x + h, x - h
        above = _at(f, base[:i] + [up] + base[i + 1:])
        below = _at(f, base[:i] + [down] + base[i + 1:])
        grads.append((above - below) / (up - down))
    return grads


def analytic_grad(f, xs):
    leaves = list(map(Value, _data(xs)))
    for leaf in leaves:
        leaf.grad = 0.0
    f(*leaves).backward()
    return [leaf.grad for leaf in leaves]


def gradcheck(f, xs, atol=1e-5, rtol=1e-3, h=1e-6):
    numeric = numerical_grad(f, xs, h)
    analytic = analytic_grad(f, xs)
    margins = [abs(a - n) - (atol + rtol * abs(n)) for a, n in zip(analytic, numeric)]
    return not any(m > 0 or m != m for m in margins)


class _Counted:
    def __init__(self, original, tally):
        self.original, self.tally = original, tally

    def __call__(self):
        self.tally[0] += 1
        return self.original()


def count_ops(f, xs):
    out = f(*map(Value, _data(xs)))
    seen, order, queue = {id(out)}, [], deque([out])
    while queue:
        node = queue.popleft()
        order.append(node)
        for child in node._prev:
            if id(child) not in seen:
                seen.add(id(child))
                queue.append(child)
    ops = [node for node in order if len(node._prev) > 0]
    tally = [0]
    for node in ops:
        node._backward = _Counted(node._backward, tally)
    try:
        out.backward()
    finally:
        for node in ops:
            node._backward = node._backward.original
    return len(ops), tally[0]
