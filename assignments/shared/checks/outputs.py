"""Judge-side readers of the outputs ``assignments.shared.probes.outputs.listed`` reports, and comparisons of lists of
numbers that name the first item that differs (``classifier``, ``modules``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from grader.testing import Failure, close, show


def values(out: dict[str, Any], what: str, length: int | None = None, single: bool = False) -> list[Any]:
    """The numbers of an output (``probes.listed``): a list (of ``length`` items when given), or one Value's data.

    Raises:
        Failure: If the function returned something else.
    """
    if single:
        if "value" in out:
            return [out["value"]]
        have = f"a list of {out['count']} items" if "list" in out else f"{out.get('other')} {out.get('repr', '')}"
        raise Failure(f"{what} returned {have}, expected a single Value")
    if "list" not in out:
        have = "a single Value" if "value" in out else f"{out.get('other')} {out.get('repr', '')}".strip()
        raise Failure(f"{what} returned {have}, expected a list" + (f" of {length} Values" if length else ""))
    if length is not None and out["count"] != length:
        raise Failure(f"{what} returned a list of {out['count']} items, expected {length}")
    return out["list"]


def compare_numbers(got: Sequence[Any], want: Sequence[float], what: str, label: str = "[{k}]",
                    rel: float = 1e-7, abs_tol: float = 1e-10) -> None:
    """Compare two lists of numbers item by item.

    Raises:
        Failure: On the first item that differs, naming it (``label`` formatted with its index ``k``).
    """
    for k, (g, w) in enumerate(zip(got, want, strict=True)):
        if not close(g, float(w), rel, abs_tol):
            raise Failure(f"{what}{label.format(k=k)} was {show(g)}, expected {show(w)}")


def show_list(xs: Sequence[Any], most: int = 6) -> str:
    """A short rendering of a list of numbers."""
    items = [show(x) if not isinstance(x, float) else f"{x:.6g}" for x in xs[:most]]
    return "[" + ", ".join(items) + (", ..." if len(xs) > most else "") + "]"
