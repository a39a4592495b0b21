"""A notebook's code cells as one module: pasted package files, and locations mapped back to cells.

grader.intake.notebook (with grader.intake.notebook_imports) generates the module and its
line map at intake; grader.intake.cellmap applies the map in the judge. Grading
through the sandbox is in test_release.py; here the generated module is run
in this process, as a module of its own.
"""

from __future__ import annotations

import sys
import types

import nbformat
import pytest
from checkout import ROOT
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from grader.intake.cellmap import NOTEBOOK_DURING, failed_import, locate, locate_imports, where_text
from grader.intake.notebook import read_notebook
from grader.intake.notebook_imports import OwnCode
from grader.testing import describe_error

OWN = OwnCode("micrograd/engine.py", frozenset({"engine", "nn"}))
"""What a notebook of the course stands for: its code is staged as the engine, and nn imports it."""


ENGINE = "class Value:\n    def __init__(self, data):\n        self.data = data\n"


def generate(*cells: object) -> tuple[str, dict]:
    """The generated module's code and line map of a notebook holding ``cells``."""
    raw = nbformat.writes(new_notebook(cells=list(cells))).encode("utf-8")
    generated = read_notebook(raw, "notebooks/work.ipynb", OWN)
    return generated.code, dict(generated.line_map)


def run_module(code: str) -> types.ModuleType:
    """Execute ``code`` as a fresh module registered in ``sys.modules`` (as the sandbox imports it)."""
    name = f"notebook_module_{abs(hash(code))}"
    module = types.ModuleType(name)
    sys.modules[name] = module
    try:
        exec(compile(code, f"{name}.py", "exec"), module.__dict__)
    finally:
        del sys.modules[name]
    return module


def line_of(code: str, text: str) -> int:
    """The 1-based line of the generated module holding ``text`` (exactly once)."""
    hits = [i for i, line in enumerate(code.splitlines(), start=1) if text in line]
    assert len(hits) == 1, (text, hits)
    return hits[0]


# from __future__ anywhere ---------------------------------------------------------


def test_a_future_import_in_a_later_cell_is_moved_to_the_top_of_the_module() -> None:
    code, _ = generate(new_code_cell("x = 1"),
                       new_code_cell('"""nn"""\nfrom __future__ import annotations\ndef f(a: Undefined) -> int:\n    return 2'))

    assert code.splitlines()[0] == "from __future__ import annotations"
    module = run_module(code)  # annotations are not evaluated: Undefined is no NameError
    assert module.f(1) == 2 and module.x == 1


def test_several_and_parenthesised_future_imports_are_all_moved() -> None:
    code, line_map = generate(new_code_cell("a = 1\nfrom __future__ import annotations"),
                              new_code_cell("b = 2\nfrom __future__ import (\n    annotations,\n    division,\n)\nc = 3"))

    assert code.splitlines()[:2] == ["from __future__ import annotations",
                                     "from __future__ import annotations, division"]
    module = run_module(code)
    assert (module.a, module.b, module.c) == (1, 2, 3)
    hoisted = [s for s in line_map["spans"] if s["lines"] == 1 and s["line"] <= 2]
    assert [(s["code_cell"], s["cell_line"]) for s in hoisted] == [(1, 2), (2, 2)]


def test_an_indented_future_import_is_left_for_python_to_reject() -> None:
    code, _ = generate(new_code_cell("if True:\n    from __future__ import annotations"))

    assert not code.startswith("from __future__")
    with pytest.raises(SyntaxError):
        compile(code, "nb.py", "exec")


def test_a_future_import_inside_a_string_is_not_touched() -> None:
    code, _ = generate(new_code_cell('DOC = """\nfrom __future__ import annotations\n"""'))

    assert run_module(code).DOC == "\nfrom __future__ import annotations\n"


# imports of the engine: the notebook's own names ------------------------------------


@pytest.mark.parametrize(
    ("statement", "check"),
    [
        ("from .engine import Value", lambda m: m.USED is m.Value),
        ("from micrograd.engine import Value", lambda m: m.USED is m.Value),
        ("from engine import Value", lambda m: m.USED is m.Value),
        ("from micrograd.engine import *", lambda m: m.USED is m.Value),
        ("from .engine import Value as V", lambda m: m.V is m.Value),
        ("from micrograd.engine import (\n    Value,\n    Value as W,\n)", lambda m: m.W is m.Value),
        ("from .nn import Value as N", lambda m: m.N is m.Value),
        ("import micrograd.engine as eng", lambda m: m.eng.Value is m.Value),
        ("import engine", lambda m: m.engine.Value is m.Value),
        ("import micrograd.engine", lambda m: m.micrograd.engine.Value is m.Value),
        ("from micrograd import engine", lambda m: m.engine.Value is m.Value),
        ("from . import engine as e", lambda m: m.e.Value is m.Value),
        ("import math, micrograd.engine as eng", lambda m: m.math.pi > 3 and m.eng.Value is m.Value),
        ("def make():\n    from micrograd.engine import Value as Local\n    return Local", lambda m: m.make() is m.Value),
    ],
)
def test_every_form_of_engine_import_gives_the_notebooks_own_definitions(statement: str, check) -> None:
    code, _ = generate(new_code_cell(ENGINE), new_code_cell(f"{statement}\nUSED = Value\nAFTER = 1"))

    module = run_module(code)

    assert check(module)
    assert line_of(code, "AFTER = 1") - line_of(code, "# cell 2") == statement.count("\n") + 3  # same line numbers


def test_an_unrelated_import_is_kept_as_it_is() -> None:
    code, _ = generate(new_code_cell("import math\nfrom collections import OrderedDict as OD\nfrom typing import (\n    Any,\n)"))

    assert "import math\nfrom collections import OrderedDict as OD\nfrom typing import (\n    Any,\n)" in code


def test_the_reference_files_pasted_whole_make_a_working_module() -> None:
    engine = (ROOT / "reference" / "micrograd" / "engine.py").read_text(encoding="utf-8")
    nn = (ROOT / "reference" / "micrograd" / "nn.py").read_text(encoding="utf-8")
    code, _ = generate(new_markdown_cell("# mine"), new_code_cell(engine), new_code_cell(nn))

    module = run_module(code)

    x = module.Value(0.5)
    y = (x * 2 + 1).tanh()
    y.backward()
    assert x.grad == pytest.approx(2 * (1 - y.data ** 2))
    assert len(module.MLP(2, [3, 1]).parameters()) == 13


# the line map: generated module -> notebook cell and line ----------------------------


def test_every_line_of_every_code_cell_maps_back_to_its_cell_and_line() -> None:
    cells = [new_markdown_cell("# title"), new_code_cell("a = 1\nb = 2"), new_markdown_cell("text"),
             new_code_cell("%matplotlib inline\nfrom __future__ import annotations\nc = 3\n\nd = 4"),
             new_code_cell("%%bash\necho skipped"), new_code_cell("e = 5")]
    code, line_map = generate(*cells)
    lines = code.splitlines()

    for text, cell, code_cell, line in [("a = 1", 2, 1, 1), ("b = 2", 2, 1, 2), ("c = 3", 4, 2, 3),
                                        ("d = 4", 4, 2, 5), ("e = 5", 6, 4, 1)]:
        error = {"type": "E", "message": "", "where": {"file": "micrograd/engine.py", "line": line_of(code, text),
                                                        "function": "<module>", "source": text}}
        where = locate(error, line_map)["where"]
        assert (where["cell"], where["code_cell"], where["line"]) == (cell, code_cell, line), text
    future = locate({"where": {"file": "micrograd/engine.py", "line": 1}}, line_map)["where"]
    assert (future["cell"], future["line"]) == (4, 2)
    assert lines[0] == "from __future__ import annotations"


def test_a_line_the_grader_added_is_not_given_a_cell() -> None:
    code, line_map = generate(new_code_cell("a = 1"))
    error = {"where": {"file": "micrograd/engine.py", "line": line_of(code, "# cell 1")}}

    assert where_text(locate(error, line_map)["where"]) == "code the grader added around your notebook's cells"
    nn = locate({"where": {"file": "micrograd/nn.py", "line": 1}}, line_map)["where"]
    assert nn["cell"] is None


def test_located_errors_read_as_notebook_cells_and_never_as_the_staged_file() -> None:
    code, line_map = generate(new_markdown_cell("m"), new_code_cell("x = 1"), new_code_cell("y = 2\nraise ValueError"))
    error = {"type": "ValueError", "message": "boom", "during": "calling backward()",
             "where": {"file": "micrograd/engine.py", "line": line_of(code, "raise ValueError"),
                       "function": "<module>", "source": "raise ValueError"}}

    text = describe_error(locate(error, line_map))

    assert "at notebook cell 3 (code cell 2), line 2, in <module>" in text
    assert "micrograd/engine.py line" not in text
    assert "while calling backward()" in text


def test_import_errors_of_a_notebook_name_the_notebook_and_what_was_running() -> None:
    code, line_map = generate(new_code_cell("x = ("))
    imports = {"micrograd.engine": {"type": "SyntaxError", "message": "'(' was never closed",
                                    "where": {"file": "micrograd/engine.py", "line": line_of(code, "x = ("),
                                              "function": "<module>", "source": "x = ("}},
               "micrograd.nn": None}

    located = locate_imports(imports, line_map)

    assert located["micrograd.nn"] is None
    error = located["micrograd.engine"]
    assert error["during"] == NOTEBOOK_DURING
    assert failed_import("micrograd.engine", error) == "notebooks/work.ipynb could not be run"
    assert (error["where"]["cell"], error["where"]["line"]) == (1, 1)


def test_errors_of_py_files_are_left_as_they_are() -> None:
    error = {"type": "E", "message": "m", "where": {"file": "micrograd/engine.py", "line": 245}}

    assert locate(error, None) is error
    assert locate_imports({"micrograd.engine": error}, None) == {"micrograd.engine": error}
    assert where_text(error["where"]) == "micrograd/engine.py line 245"
    assert failed_import("micrograd.nn", error) == "micrograd/nn.py could not be imported"


def test_hostile_or_malformed_errors_are_passed_through_unchanged() -> None:
    _, line_map = generate(new_code_cell("a = 1"))

    for error in ("text", None, {"where": None}, {"where": {"file": "/etc/passwd", "line": 1}},
                  {"where": {"file": "micrograd/engine.py", "line": "1"}}):
        located = locate(error, line_map)
        if isinstance(error, dict) and isinstance(error.get("where"), dict) and error["where"]["file"] != "/etc/passwd":
            assert located["where"]["cell"] is None  # not a valid line: no cell claimed
        else:
            assert located == error


def test_a_long_notebook_name_is_capped_in_the_line_map() -> None:
    raw = nbformat.writes(new_notebook(cells=[new_code_cell("a = 1")])).encode("utf-8")

    line_map = read_notebook(raw, "x" * 5000 + "\n.ipynb", OWN).line_map

    assert len(line_map["notebook"]) <= 120 and "\n" not in line_map["notebook"]
