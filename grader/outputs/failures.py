"""How failing tests read: each distinct error once, and code that could not be loaded reported once.

The judge writes each test's feedback with :func:`render_output`: a header
(``2 of 3 case(s) passed.``), then one block per distinct error, the first
case that met it and how many more did::

    ✗ x0 + 1 at 2
      Value.__add__: your code raised TypeError: ...
        at micrograd/engine.py line 12, in __add__: out = Value(self.data + other.data)
      Hint: ...
      (the same error in 2 more cases)

Column 0 holds only the grader's text (``✗`` and a case title, the header,
the first line of a failure that ended the test); whatever came from the
submission is indented, so :func:`parse` reads the blocks back safely. The
views of a whole assignment (``grader check``, ``feedback.md``) use
:func:`views` to show an error met in several tests once, with the count of
every other case that met it.

A test that could not run because the submission could not be loaded says
only :data:`NOT_RUN`; the error itself is reported once per assignment
(:func:`load_errors`), with the standard-library advice when an import of a
package outside it is the cause, and where to put test code when code run at
import (``input()``, a long loop, demo code calling a method that raises:
:func:`top_level_call` then names the top-level line) is.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypedDict

from grader.intake.cellmap import failed_import, where_text
from grader.testing.cases import NOT_RUN_KINDS, CaseResult, Check
from grader.testing.contracts import blocked_text
from grader.testing.outcomes import MAX_MESSAGE, Failure, StudentFault, cap, describe_error

NOT_RUN = "Not run: your code could not be loaded, so this test could not run (the error is shown once, at the top)."
"""The whole feedback of a test that no code of the submission could run in."""
MAX_CASES_SHOWN = 3
"""Distinct errors shown per test; the rest are counted."""
MORE = re.compile(r"  \((?:and|the same error in) (\d+) more cases?\)")
"""The count line of a block, as written now or (``and N more cases``) by earlier versions."""
TOP_LEVEL_ADVICE = ('code at the top level of the file runs when it is imported: put tests and demos under '
                    '`if __name__ == "__main__":`')
"""Why code can fail or hang while it is imported (a training loop, a plot, ``input()`` left at the bottom of a file),
and the fix."""
NOTEBOOK_ADVICE = ('every code cell of a notebook runs when it is graded: put tests and demos under '
                   '`if __name__ == "__main__":`')
""":data:`TOP_LEVEL_ADVICE` for a notebook, graded as one module."""


def more(count: int) -> str:
    """``(the same error in 2 more cases)``: how many other cases met the error just shown."""
    return f"(the same error in {count} more case{'s' if count != 1 else ''})"


def _indented(text: str) -> str:
    return text.replace("\n", "\n  ")


CONTEXT = re.compile(r"Hint: .*|\s+while .*")
"""Lines of a message that are about the case, not the error: its hint, and what the probe was doing."""


def error_key(message: str) -> str:
    """What makes two failures the same error: their message without the hint and the probe's context."""
    return "\n".join(line for line in message.splitlines() if not CONTEXT.fullmatch(line))


@dataclass(frozen=True)
class Ended:
    """A failure that ended a test outside its cases' own handling.

    Attributes:
        text: The failure, rendered (method, message, hint).
        title: What was being checked, when the failure is the student's code failing (it is then shown as a case's
            block, so the same error met elsewhere is shown once); "" for the test's own verdict.
        not_run: The submission could not be loaded, or the verdict rests only on cases that could not run.
    """

    text: str
    title: str = ""
    not_run: bool = False


STOPPED = "the test stopped at this error"
"""The title of an :class:`Ended` block when no case was running."""


def ending(checks: Check, failure: Failure, methods: Sequence[str] = (),
           grader_error: bool = False) -> tuple[Ended, str | None, str | None]:
    """How a failure that ended a test is shown, and the method and hint it is attributed to.

    The student's code failing (a fault hypothesis gave up on) is attributed
    like a case's failure (:meth:`~grader.testing.cases.Check.ended_by`) and
    shown as a block; so is the test's own verdict (its ``methods(...)``
    marker naming one method gives the method); a grader error and code that
    could not be loaded keep their message. A verdict drawn from cases that
    could not run (XOR learned for 0 seeds) did not run either.

    Args:
        checks: The test's cases.
        failure: What ended the test.
        methods: The test's ``methods(...)`` marker's arguments.
        grader_error: The failure is the grader's own (the score is withheld).
    """
    method, hint = failure.method, failure.hint
    fault = isinstance(failure, StudentFault)
    student_code = isinstance(failure, StudentFault) and failure.kind not in NOT_RUN_KINDS
    if student_code or not (grader_error or fault):
        method, hint = checks.ended_by(failure, *methods)
        declared = checks.stopped.about if checks.stopped else (methods[0] if len(methods) == 1 else None)
        blocker = checks.blocker(failure, method, declared)
        if blocker is not None:
            title = (checks.stopped.title if checks.stopped else STOPPED) if student_code else ""
            return Ended(Failure(blocked_text(*blocker, failure.message)).render(), title, False), \
                blocker[0], None
    not_run = (fault and not student_code) or (not fault and not grader_error and any(
        c.not_run for c in checks.failures))
    title = (checks.stopped.title if checks.stopped else STOPPED) if student_code else ""
    return Ended(Failure(failure.message, method, hint).render(), title, not_run), method, hint


def render_output(cases: Sequence[CaseResult], ended: Ended | None = None, notes: Sequence[str] = ()) -> str:
    """The feedback of one test (its ``output``): "" when it passed, unless the grader left notes.

    Args:
        cases: The test's cases.
        ended: A failure that ended the test outside any case, if one did.
        notes: The grader's notes on the test (:meth:`grader.testing.cases.Check.note`), one ``Note:`` line each at
            the end, also when the test passed.
    """
    said = [f"Note: {n}" for n in notes]
    failed = [c for c in cases if c.failure is not None]
    if not failed and ended is None:
        return "\n".join(said)
    if all(c.not_run for c in failed) and (ended is None or ended.not_run):
        return NOT_RUN
    groups: dict[str, list[tuple[str, str]]] = {}
    for case in failed:
        groups.setdefault(error_key(case.message), []).append((case.title, case.message))
    if ended is not None and ended.title:
        groups.setdefault(error_key(ended.text), []).append((ended.title, ended.text))
    lines = []
    for group in list(groups.values())[:MAX_CASES_SHOWN]:
        title, message = group[0]
        lines.append(f"✗ {title}\n  " + _indented(message) + (f"\n  {more(len(group) - 1)}" if len(group) > 1 else ""))
    hidden = list(groups.values())[MAX_CASES_SHOWN:]
    if hidden:
        lines.append(f"... and {sum(len(g) for g in hidden)} more failing case(s)")
    if ended is not None and not ended.title:
        lines.append(_indented(ended.text))
    if cases:
        lines.insert(0, f"{len(cases) - len(failed)} of {len(cases) + (1 if ended else 0)} case(s) passed.")
    return "\n".join(lines + said)


@dataclass
class Block:
    """One part of a test's feedback: a failed case's block (``title`` set) or the grader's other lines.

    Attributes:
        title: The case's title, or "" for other lines (the header, a failure that ended the test).
        lines: The block's lines as written (the ``✗`` line first), without its count line (:func:`more`).
        count: How many cases met this error (1 + N).
    """

    title: str
    lines: list[str]
    count: int = 1

    @property
    def error(self) -> str:
        """What makes two blocks the same (:func:`error_key` of the message)."""
        return error_key("\n".join(line[2:] for line in self.lines[1:]))


def parse(output: str) -> list[Block]:
    """Read a test's feedback (written by :func:`render_output`) back into blocks."""
    blocks: list[Block] = []
    for line in output.splitlines():
        if line.startswith("✗ "):
            blocks.append(Block(line[2:], [line]))
        elif line.startswith(" ") and blocks:
            match = MORE.fullmatch(line)
            if match and blocks[-1].title:
                blocks[-1].count += int(match.group(1))
            else:
                blocks[-1].lines.append(line)
        else:
            blocks.append(Block("", [line]))
    return blocks


@dataclass
class ShownTest:
    """A failing test as an assignment's view shows it.

    Attributes:
        test: The test (a results.json entry).
        lines: Its feedback, an error met earlier in the view replaced by one line saying so.
    """

    test: Mapping[str, Any]
    lines: list[str] = field(default_factory=list)


def views(tests: Sequence[Mapping[str, Any]]) -> list[ShownTest]:
    """The failing ``tests`` (in the order given) with each distinct error shown once, where first met, followed by
    a count line (:func:`more`) counting every other case in ``tests`` that met it."""
    parsed = [(t, parse(str(t.get("output", "")))) for t in tests]
    totals: dict[str, int] = {}
    for _, blocks in parsed:
        for block in blocks:
            if block.title:
                totals[block.error] = totals.get(block.error, 0) + block.count
    shown: set[str] = set()
    result = []
    for test, blocks in parsed:
        view = ShownTest(test)
        for block in blocks:
            if not block.title:
                view.lines += block.lines
            elif block.error in shown:
                view.lines.append(f"✗ {block.title}: the same error as above")
            else:
                shown.add(block.error)
                view.lines += block.lines + ([f"  {more(totals[block.error] - 1)}"] if totals[block.error] > 1 else [])
        result.append(view)
    return result


# --- code that could not be loaded: reported once per assignment ----------------------------------------------

class LoadError(TypedDict):
    """Why a student module could not be loaded, as results.json keeps it (``extra_data.grader.load_errors``).

    Attributes:
        problem: One line (the gradebook's note, results.json's ``problems``).
        detail: The error with where it was raised (file, line, the line's code) and the advice, for the
            student (several lines).
    """

    problem: str
    detail: str


def stdlib_advice(error: Mapping[str, Any], own: Collection[str] = ()) -> str:
    """What to do about an import of a package outside the standard library, or "" when that is not the cause
    (``own``: module names of the submission itself, ``micrograd`` and ``engine``: a missing one is not a package the
    grader lacks)."""
    message = str(error.get("message", ""))
    missing = re.search(r"No module named '([\w.]+)'", message) if error.get("type") == "ModuleNotFoundError" else None
    name = missing.group(1).split(".")[0] if missing else ""
    if not name or name in sys.stdlib_module_names or name in own:
        return ""
    names = ", ".join(dict.fromkeys([name, "numpy", "matplotlib"]))
    return (f"The grader runs the standard library only ({names} and other packages are not installed): "
            "remove the import, or the code that needs it.")


def input_advice(error: Mapping[str, Any]) -> str:
    """What to do about ``input()`` called while the code is imported (it raises ``EOFError``: the grader gives the
    code no input), or "" when that is not the cause."""
    if error.get("type") != "EOFError":
        return ""
    advice = NOTEBOOK_ADVICE if error.get("notebook") else TOP_LEVEL_ADVICE
    return f"input() found nothing to read: the grader gives your code no input; {advice}"


def top_level_call(error: Mapping[str, Any]) -> tuple[str, str, str] | None:
    """How an import error raised in a function that code at the top level of a module called (demo code left at
    the bottom of a file: ``print(Value(2.0) * 3)`` while ``__mul__`` is a stub) is told, or None when it was not.

    Returns:
        The error's first line (``code at its top level raised ...``), the lines naming the top-level line and the
        function that raised, and the advice (put such code under ``if __name__ == "__main__":``).
    """
    top, where = error.get("top_level"), error.get("where")
    if not isinstance(top, Mapping) or not top.get("file"):
        return None
    etype, message = cap(error.get("type") or "Exception", 100), cap(error.get("message") or "", MAX_MESSAGE)
    first = f"code at its top level raised {etype}" + (f": {message}" if message else "")
    lines = f"  at {cap(where_text(dict(top)), 300)}, at the top level: {cap(top.get('source') or '', 200)}"
    if isinstance(where, Mapping) and where:
        lines += (f"\n  called {cap(where_text(dict(where)), 300)}, in {cap(where.get('function') or '', 100)}: "
                  f"{cap(where.get('source') or '', 200)}")
    return first, lines, NOTEBOOK_ADVICE if error.get("notebook") else TOP_LEVEL_ADVICE


def load_errors(imports: Mapping[str, Any], startup: str = "") -> list[LoadError]:
    """The modules of a submission that could not be loaded, each cause once.

    Args:
        imports: Student module to its import error (None when it imported), as the worker reported them.
        startup: Why the code could not be loaded at all (a crash or hang while importing), or "".
    """
    errors: list[LoadError] = []
    failed_files: set[str] = set()
    own_names = {part for module in imports for part in (module.partition(".")[0], module.rpartition(".")[2])}
    for module, error in imports.items():
        if not isinstance(error, Mapping):
            continue
        where = error.get("where")
        own = module.replace(".", "/") + ".py"
        if isinstance(where, Mapping) and where.get("file") in failed_files and where.get("file") != own:
            continue  # e.g. nn.py failing only because engine.py does: reported once
        failed_files.add(own)
        what = failed_import(module, dict(error))
        called = top_level_call(error)
        if called is not None:
            first, lines, advice = called
            top = dict(error["top_level"])
            errors.append(LoadError(problem=f"{what}: {first} ({cap(where_text(top), 300)}). {advice[0].upper()}{advice[1:]}",
                                    detail=f"{what}: {first}\n{lines}\n  {advice}"))
            continue
        described = describe_error(dict(error))
        at = f" ({where_text(dict(where))})" if isinstance(where, Mapping) and where else ""
        advice = stdlib_advice(error, own_names) or input_advice(error)
        errors.append(LoadError(problem=f"{what}: {described.splitlines()[0]}{at}" + (f". {advice}" if advice else ""),
                                detail=f"{what}: {described}" + (f"\n  {advice}" if advice else "")))
    if startup:  # its first line says what happened, each further line (indented) what to do: on one line, sentences
        first, *further = startup.split("\n")
        sentences = [line.strip() for line in further if line.strip()]
        errors.append(LoadError(problem=first + "".join(f". {s[0].upper()}{s[1:]}" for s in sentences), detail=startup))
    return errors


def not_run(test: Mapping[str, Any]) -> bool:
    """Whether a test (a results.json entry) could not run because the submission could not be loaded."""
    return test.get("status") != "passed" and test.get("output") == NOT_RUN
