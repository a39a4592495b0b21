"""Task numbers against the assignment's order, checked without grading (``grader validate``).

The course's convention: the assignment with ``order: N`` has the tasks ``N.1``, ``N.2``...: its tests' markers
(``@pytest.mark.task("N.2")``, or a range ``"N.1-N.4"``) in ``tests/public`` and ``tests/hidden``, and the solution
markers (``# BEGIN SOLUTION Task N.2``) of the reference files it lists in ``files:``. A reference file several
assignments list (the engine, with tasks 1.x and 2.x) may hold tasks of any of their orders. A task of another
order (a test copied from another assignment, a scaffold renumbered) is a miss: feedback, the gradebook's tasks and
the template's stubs would send students to the wrong assignment. An assignment with no ``order:`` is not checked.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence
from pathlib import Path

from grader.course.config import UNORDERED, Assignment
from grader.course.course import Course
from grader.course.student_template import BEGIN


def task_order_misses(course: Course, chosen: Sequence[Assignment]) -> list[str]:
    """One line for each task marker of the ``chosen`` assignments' tests and reference files that is not of the
    assignment's order (for a file several assignments list, of one of theirs)."""
    misses = [miss for a in chosen if a.order != UNORDERED for miss in _test_misses(a)]
    listing = [a for a in course.assignments() if not a.is_concept_check]
    files = dict.fromkeys(f for a in chosen if not a.is_concept_check and a.order != UNORDERED for f in a.files)
    for file in files:
        owners = [a for a in listing if file in a.files]
        orders = sorted({a.order for a in owners})
        ids = ", ".join(a.id for a in chosen if file in a.files)
        path = course.reference_dir / file
        for task in solution_tasks(path) if path.is_file() else []:
            if _major(task) in orders:
                continue
            where = f"{ids}: {path.relative_to(course.root).as_posix()} holds Task {task}, but "
            if len(owners) == 1:
                misses.append(where + f"the assignment's order is {orders[0]} (its tasks are {orders[0]}.x)")
            else:
                misses.append(where + f"the orders of the assignments that list it are {_listed(orders)} (their "
                              f"tasks are {_listed([f'{o}.x' for o in orders])})")
    return misses


def _test_misses(assignment: Assignment) -> Iterator[str]:
    """A line for each test of ``assignment`` marked with a task of another order."""
    order = assignment.order
    for folder in (assignment.public_tests, assignment.hidden_tests):
        for path in sorted(folder.rglob("*.py")) if folder.is_dir() else []:
            for name, task in marked_tests(path):
                majors = [_major(part) for part in task.split("-")]
                if any(m != order for m in majors):
                    yield (f"{assignment.id}: {name} is task {task}, but the assignment's order is {order} (its tasks "
                           f"are {order}.x), in {path.relative_to(assignment.root).as_posix()}")


def _major(task: str) -> int | None:
    """The ``N`` of a task ``N.x`` (None if it has none)."""
    head = task.strip().split(".", 1)[0]
    return int(head) if head.isdigit() else None


def _listed(items: Sequence[object]) -> str:
    return ", ".join(map(str, items))


def solution_tasks(path: Path) -> list[str]:
    """The tasks of the solution markers in the reference file ``path`` (``# BEGIN SOLUTION Task 2.1`` gives
    ``2.1``), in the file's order."""
    found = (BEGIN.match(line) for line in path.read_text(encoding="utf-8").splitlines())
    return [m.group("task").split(None, 1)[1] for m in found if m is not None and m.group("task")]


def marked_tests(path: Path) -> list[tuple[str, str]]:
    """``(name, task)`` of each test (function or class) of the module ``path`` marked ``@pytest.mark.task(...)``,
    and of its ``pytestmark`` (named ``pytestmark``); a module that does not parse has none (its collection fails)."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    except (SyntaxError, UnicodeDecodeError, ValueError):
        return []
    found: list[tuple[str, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found += [(node.name, task) for d in node.decorator_list for task in _marked_tasks(d)]
        elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets):
            found += [("pytestmark", task) for task in _marked_tasks(node.value)]
    return found


def _marked_tasks(node: ast.expr) -> list[str]:
    """The tasks ``node`` marks: ``pytest.mark.task("2.1")``, or a list or tuple holding such marks."""
    if isinstance(node, (ast.List, ast.Tuple)):
        return [task for item in node.elts for task in _marked_tasks(item)]
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "task"
            and isinstance(node.func.value, ast.Attribute) and node.func.value.attr == "mark"
            and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
        return [node.args[0].value]
    return []
