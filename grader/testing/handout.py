"""What the handouts build from what: the methods each method is defined through.

The handout of assignment 1 defines the derived operations as one-liners,
as micrograd does (``-a`` is ``a * -1``, ``a - b`` is ``a + (-b)``, ``a / b``
is ``a * b**-1``), so a bug in ``__mul__`` shows in ``__sub__``'s cases too.
``check.case(..., method=...)`` looks its method up here (its ``uses``), and
``grader validate`` counts such a case as the base methods' too when it
measures cascades.
"""

from __future__ import annotations

USES: dict[str, tuple[str, ...]] = {
    "Value.__neg__": ("Value.__mul__",),
    "Value.__sub__": ("Value.__add__", "Value.__neg__", "Value.__mul__"),
    "Value.__truediv__": ("Value.__mul__", "Value.__pow__"),
    "Value.__radd__": ("Value.__add__",),
    "Value.__rmul__": ("Value.__mul__",),
    "Value.__rsub__": ("Value.__add__", "Value.__neg__", "Value.__mul__"),
    "Value.__rtruediv__": ("Value.__mul__", "Value.__pow__"),
}
"""Method -> the methods the handout builds it from (assignment 1's derived operations)."""
