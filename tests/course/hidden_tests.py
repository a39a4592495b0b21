"""An assignment's hidden test module loaded as a plain module, so the course's own tests can check its inputs (that
the hidden draws are fair, that the reference passes them) without running it under the grader's plugin."""

from __future__ import annotations

import importlib.util
import sys
import types
from typing import Any

from checkout import ROOT


class _NoMark:
    """A marker that leaves a function as it is, also written ``.with_args(...)`` (``base_of``)."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return lambda function: function

    def with_args(self, *args: Any, **kwargs: Any) -> Any:
        return lambda function: function


class _NoMarks:
    """``pytest.mark`` whose markers (the grader's ``points``, ``task``) leave a function as it is."""

    def __getattr__(self, name: str) -> Any:
        return _NoMark()


def load_hidden(assignment: str) -> types.ModuleType:
    """``assignments/<assignment>/tests/hidden/test_<assignment>_hidden.py``, with a ``pytest`` whose marks do
    nothing while it loads (its grader markers are not this suite's)."""
    path = ROOT / "assignments" / assignment / "tests" / "hidden" / f"test_{assignment}_hidden.py"
    spec = importlib.util.spec_from_file_location(f"{assignment}_hidden_for_tests", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    shim = types.ModuleType("pytest")
    shim.mark = _NoMarks()  # type: ignore[attr-defined]
    real = sys.modules["pytest"]
    sys.modules["pytest"] = shim
    try:
        spec.loader.exec_module(module)
    finally:
        sys.modules["pytest"] = real
    return module
