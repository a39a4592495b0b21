"""What a newcomer reads on a first run: test code left at the top level of a file, and a forgotten ``return``.

Each submission is the reference with one such mistake: ``nn.py`` (or
``engine.py``) ending in a loop that never finishes, ``nn.py`` calling
``input()`` at the bottom, and a method that builds its result and forgets
``return out``. The class is graded once per assignment (value_ops for the
engine, mlp for the network), on a copy of the course whose start-up limit is
2 s instead of 10, and each test reads what one student got: ``feedback.md``,
Gradescope's ``output`` (results.json) and ``grader check``'s terminal output.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from checkout import ROOT

from grader.cli import main
from grader.course.course import Course
from grader.judge.submission_run import startup_message
from grader.judge.worker_handle import WorkerTimeout
from grader.sandbox.returns import ReturnedNone, watched

REFERENCE = ROOT / "reference" / "micrograd"
STARTUP = 2
"""The course copy's start-up limit (``limits.startup_seconds``), in seconds."""
MAIN_HINT = ('code at the top level of the file runs when it is imported: put tests and demos under '
             '`if __name__ == "__main__":`')
MUL_RETURN = '''        out._backward = _backward
        return out
        # END SOLUTION

    def __pow__'''
"""The end of the reference's ``__mul__``, the only ``return out`` followed by ``__pow__``."""

SUBMISSIONS: dict[str, dict[str, Any]] = {  # name: {assignment, file: edit}
    "mul_no_return": {"assignment": "value_ops",
                      "engine.py": lambda e: e.replace(MUL_RETURN, MUL_RETURN.replace("        return out\n", ""))},
    "engine_slow_loop": {"assignment": "value_ops",
                         "engine.py": lambda e: e + "\n\nfor step in range(10**10):\n    pass\n"},
    "nn_endless_loop": {"assignment": "mlp", "nn.py": lambda n: n + "\n\nwhile True:\n    pass\n"},
    "nn_input": {"assignment": "mlp", "nn.py": lambda n: n + '\n\nname = input("your name? ")\n'},
    "neuron_no_return": {"assignment": "mlp", "nn.py": lambda n: n.replace(
        "        return act.tanh() if self.nonlin else act\n", "        out = act.tanh() if self.nonlin else act\n")},
    "parameters_no_return": {"assignment": "mlp", "nn.py": lambda n: n.replace(
        "        return self.w + [self.b]\n", "        params = self.w + [self.b]\n")},
}


def write_submission(name: str, dest: Path) -> Path:
    """The reference with the submission's edits, in ``dest/name/micrograd``."""
    package = dest / name / "micrograd"
    shutil.copytree(REFERENCE, package, ignore=shutil.ignore_patterns("__pycache__"))
    for file, edit in SUBMISSIONS[name].items():
        if file != "assignment":
            text = (package / file).read_text(encoding="utf-8")
            changed = edit(text)
            assert changed != text, f"{name}: the edit of {file} changed nothing"
            (package / file).write_text(changed, encoding="utf-8")
    return package.parent


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the course whose value_ops and mlp allow :data:`STARTUP` seconds to import a submission."""
    course = tmp_path_factory.mktemp("first-run") / "course"
    for name in ("assignments", "reference", "student_template"):
        shutil.copytree(ROOT / name, course / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", course / "pyproject.toml")
    for aid in ("value_ops", "mlp"):
        config = course / "assignments" / aid / "assignment.yaml"
        text = config.read_text(encoding="utf-8")
        assert "limits:\n" in text
        config.write_text(text.replace("limits:\n", f"limits:\n  startup_seconds: {STARTUP}\n", 1), encoding="utf-8")
    return course


@pytest.fixture(scope="module")
def graded(course: Path) -> Path:
    """Every submission graded on its assignment; the output folder."""
    out = course.parent / "out"
    for aid in ("value_ops", "mlp"):
        subs = course.parent / f"subs-{aid}"
        for name, spec in SUBMISSIONS.items():
            if spec["assignment"] == aid:
                write_submission(name, subs)
        assert main(["--course", str(course), "grade", str(subs), "-a", aid, "-o", str(out)]) == 0
    return out


def feedback(out: Path, student: str) -> str:
    return (out / SUBMISSIONS[student]["assignment"] / student / "feedback.md").read_text(encoding="utf-8")


def results(out: Path, student: str) -> dict[str, Any]:
    path = out / SUBMISSIONS[student]["assignment"] / student / "results.json"
    result: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return result


def start_here(text: str) -> str:
    return text.split("## Start here", 1)[1].split("##", 1)[0]


# --- A. test code at the top level of a file ----------------------------------------------------------------------

@pytest.mark.parametrize("student, file", [("nn_endless_loop", "micrograd/nn.py"),
                                           ("engine_slow_loop", "micrograd/engine.py")])
def test_code_that_never_finishes_loading_names_the_file_the_limit_and_where_tests_go(graded, student, file):
    text = feedback(graded, student)
    assert f"time ran out while importing {file} (the limit for loading your code is {STARTUP} s)" in text
    assert MAIN_HINT in text
    assert "took too long" not in text
    output = results(graded, student)["output"]  # Gradescope's top-level output
    assert f"Could not grade: your code could not be loaded: time ran out while importing {file}" in output
    assert f"{STARTUP} s" in output and 'put tests and demos under `if __name__ == "__main__":`' in output
    assert results(graded, student)["score"] == 0


def test_grader_check_says_the_same_on_the_terminal(course, tmp_path, capsys):
    submission = write_submission("nn_endless_loop", tmp_path)
    assert main(["--course", str(course), "check", str(submission), "-a", "mlp"]) == 1
    out = capsys.readouterr().out
    assert f"time ran out while importing micrograd/nn.py (the limit for loading your code is {STARTUP} s)" in out
    assert MAIN_HINT in out


def test_input_at_import_gets_the_same_advice(graded):
    text = feedback(graded, "nn_input")
    assert "EOFError" in text and 'name = input("your name? ")' in text
    assert "input() found nothing to read: the grader gives your code no input" in text and MAIN_HINT in text
    assert MAIN_HINT in results(graded, "nn_input")["output"]


def test_when_the_worker_never_said_which_file_both_are_named():
    mlp = Course(ROOT).assignment("mlp")
    message = startup_message(WorkerTimeout("timed out"), "", mlp, None)
    assert "time ran out while importing micrograd/engine.py or micrograd/nn.py" in message
    assert f"(the limit for loading your code is {mlp.limits.startup_seconds:g} s)" in message and MAIN_HINT in message


# --- B. a forgotten return ---------------------------------------------------------------------------------------

def test_a_method_without_its_return_is_named_with_the_return_to_add_and_no_gradient_hint(graded):
    text = feedback(graded, "mul_no_return")
    assert "`x0 * x1` returned None: did you forget `return out` at the end of `Value.__mul__`?" in text
    assert "returned NoneType" not in text and "ProbeError" not in text
    assert "d(a*b)/da" not in text and "Hint:" not in text, "no hint about the gradient formula, nor any other"


def test_every_follow_on_failure_is_the_method_that_returned_none(graded):
    text = feedback(graded, "mul_no_return")
    failed = [t for t in results(graded, "mul_no_return")["tests"] if t["status"] == "failed"]
    assert len(failed) > 5
    for test in failed:  # a - b is a + (-b), and -b is b * -1: the None came from __mul__, not from __add__
        assert test["extra_data"]["methods"] == ["Value.__mul__"], (test["name"], test["output"])
    to_fix = text.split("## What to fix", 1)[1].split("## Passed", 1)[0]
    assert "Value.__add__:" not in to_fix and "Value.__init__:" not in to_fix and "Value.__truediv__:" not in to_fix
    assert "after `Value.__mul__` returned None" in text  # x0 - x1 raised in __add__ on the None __neg__ passed on
    assert "`x0 / x1` returned None because `Value.__mul__`, which it calls, returned None" in text
    advice = start_here(text)
    assert "point to `Value.__mul__`" in advice and "Then:" not in advice


@pytest.mark.parametrize("student, method, said", [
    ("neuron_no_return", "Neuron.__call__", "`neuron(x)` returned None: did you forget `return out` at the end of "
                                            "`Neuron.__call__`?"),
    ("parameters_no_return", "Neuron.parameters", "`neuron.parameters()` returned None: did you forget a `return` "
                                                  "at the end of `Neuron.parameters`?"),
])
def test_the_network_s_methods_get_the_same_treatment(graded, student, method, said):
    text = feedback(graded, student)
    assert said in text
    failed = [t for t in results(graded, student)["tests"] if t["status"] == "failed"]
    assert failed and all(t["extra_data"]["methods"] == [method] for t in failed), [
        (t["name"], t["extra_data"]["methods"]) for t in failed]
    assert "Hint:" not in text
    advice = start_here(text)
    assert f"point to `{method}`" in advice and "Then:" not in advice


def test_the_innermost_method_that_returned_none_is_named_and_a_step_that_worked_is_not_run_again():
    calls = []

    class Value:
        def __init__(self, data: float) -> None:
            self.data = data

        def __mul__(self, other: Any) -> Any:
            calls.append("mul")
            out = Value(self.data * other.data)  # noqa: F841 - the forgotten return this test is about

        def __neg__(self) -> Any:
            return self * Value(-1.0)

        def __add__(self, other: Any) -> Any:
            return Value(self.data + other.data)

    methods = [(Value, name, f"Value.{name}") for name in ("__mul__", "__neg__", "__add__")]
    x0, x1 = Value(2.0), Value(3.0)
    with pytest.raises(ReturnedNone, match=r"^`-x0` returned None because `Value.__mul__`, which it calls, returned "
                                           r"None: did you forget `return out` at the end of `Value.__mul__`\?$"):
        watched(lambda: -x0, "-x0", methods)
    with pytest.raises(ReturnedNone, match=r"^`x0 - x1` raised AttributeError \('NoneType' object has no attribute "
                                           r"'data'\) after `Value.__mul__` returned None"):
        watched(lambda: x0 + (-x1), "x0 - x1", methods)
    assert Value.__dict__["__mul__"].__name__ == "__mul__" and "watching" not in repr(Value.__dict__["__mul__"])
    calls.clear()
    assert watched(lambda: x0 + x1, "x0 + x1", methods).data == 5.0 and calls == []
    with pytest.raises(ZeroDivisionError):  # a failure a None does not explain is left as it was, not run again
        watched(lambda: x0.data / 0, "x0 / 0", methods)
