"""Demo code left at the top level of a module (``print(Value(2.0) * 3)`` at the bottom of engine.py) that calls a
method still raising: the worker names the top-level line, the judge reads it with bounds, and the student is told
the file, the line and to put such code under ``if __name__ == "__main__":``."""

from __future__ import annotations

import pytest

from grader.intake.cellmap import CellSpan, LineMap, locate_imports
from grader.judge import worker_reports
from grader.outputs.failures import NOTEBOOK_ADVICE, TOP_LEVEL_ADVICE, load_errors

ENGINE = '''\
class Value:
    def __init__(self, data):
        self.data = data

    def __mul__(self, other):
        raise NotImplementedError("Task 1.2: implement Value.__mul__")


a = Value(2.0)
print(a * 3)
'''


def test_the_worker_names_the_top_level_line_that_called_the_failing_method(worker_factory):
    error = worker_factory(ENGINE).start()["micrograd.engine"]
    assert error["type"] == "NotImplementedError" and error["where"]["function"] == "__mul__"
    assert error["top_level"] == {"file": "micrograd/engine.py", "line": 10, "source": "print(a * 3)"}


@pytest.mark.parametrize("worker_factory", ["portable"], indirect=True)
def test_an_error_raised_by_the_top_level_line_itself_has_no_other_line(worker_factory):
    error = worker_factory("x = 1\ny = x / 0\n").start()["micrograd.engine"]
    assert error["type"] == "ZeroDivisionError" and error["where"]["line"] == 2 and "top_level" not in error


def test_the_judge_reads_the_top_level_line_with_bounds():
    where = {"file": "micrograd/engine.py", "line": 5, "function": "__mul__", "source": "raise X"}
    sent = {"type": "NotImplementedError", "message": "m", "where": where, "during": ""}
    for hostile in ({"file": "micrograd/engine.py", "line": "10"}, {"file": "", "line": 10}, [1], "x",
                    {"file": "micrograd/engine.py", "line": True}, {"file": "micrograd/engine.py", "line": 10**8}):
        assert "top_level" not in worker_reports.import_result({**sent, "top_level": hostile})
    read = worker_reports.import_result({**sent, "top_level": {"file": "f" * 10_000, "line": 10, "source": "s" * 10_000,
                                                               "extra": {"deep": [1] * 1000}}})
    assert read is not None and read["top_level"] == {"file": "f" * 200, "line": 10, "source": "s" * 200}


def mul_from_line(line: int) -> dict:
    return {"type": "NotImplementedError", "message": "Task 1.2: implement Value.__mul__", "during": "",
            "where": {"file": "micrograd/engine.py", "line": 6, "function": "__mul__",
                      "source": 'raise NotImplementedError("Task 1.2: implement Value.__mul__")', "qualname": ""},
            "top_level": {"file": "micrograd/engine.py", "line": line, "source": "print(a * 3)"}}


def test_the_student_is_told_the_file_the_line_and_to_guard_demo_code():
    [error] = load_errors({"micrograd.engine": mul_from_line(10)})
    assert error["detail"].splitlines() == [
        "micrograd/engine.py could not be imported: code at its top level raised NotImplementedError: "
        "Task 1.2: implement Value.__mul__",
        "  at micrograd/engine.py line 10, at the top level: print(a * 3)",
        '  called micrograd/engine.py line 6, in __mul__: raise NotImplementedError("Task 1.2: implement Value.__mul__")',
        f"  {TOP_LEVEL_ADVICE}",
    ]
    assert "(micrograd/engine.py line 10)" in error["problem"] and 'if __name__ == "__main__":' in error["problem"]
    assert "\n" not in error["problem"]


def test_in_a_notebook_the_top_level_line_is_a_cell_s():
    line_map = LineMap(notebook="notebooks/value_ops.ipynb", module="micrograd/engine.py",
                       spans=[CellSpan(line=1, lines=8, cell=2, code_cell=1, cell_line=1),
                              CellSpan(line=9, lines=2, cell=4, code_cell=2, cell_line=1)])
    located = locate_imports({"micrograd.engine": mul_from_line(10)}, line_map)
    [error] = load_errors(located)
    assert "  at notebook cell 4 (code cell 2), line 2, at the top level: print(a * 3)" in error["detail"]
    assert error["detail"].startswith("notebooks/value_ops.ipynb could not be run: code at its top level raised")
    assert error["detail"].endswith(NOTEBOOK_ADVICE)
