"""The students' troubleshooting page (``docs/students/troubleshooting.md``) quotes what ``grader check`` prints: each
such ```text block is produced here, by ``grader check`` on a copy of the student release broken the way the page
says, and each of its lines must be a line of what the program printed, by the docs' comparison rules
(:mod:`doc_quotes`: times masked, ``...`` elides). A new assignment, or a message reworded, fails this test instead of aging the page.

The page's other ```text blocks (Windows commands, not output) are skipped by their content, and every ```text block
of the page must be one or the other: a new quote needs a scenario here.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from checkout import ROOT
from course_runs import reference_code, run
from doc_quotes import missing

PAGE = ROOT / "docs" / "students" / "troubleshooting.md"
NAME = PAGE.relative_to(ROOT).as_posix()
STARTUP_SECONDS = 3
"""The limit for loading the student's code in the import-timeout scenario (the course's is 10 s; times are masked)."""


def student_copy(release: Path, dest: Path, edits: dict[str, tuple[str, str]] | None = None,
                 appended: dict[str, str] | None = None) -> Path:
    """A copy of the release (the untouched template) with ``edits[file] = (old, new)`` replaced once in ``file`` and
    ``appended[file]`` added at its end."""
    shutil.copytree(release, dest, ignore=shutil.ignore_patterns("__pycache__", ".venv"))
    for name, (old, new) in (edits or {}).items():
        path = dest / name
        text = path.read_text(encoding="utf-8")
        assert old in text, f"{name} no longer holds {old!r}: update this scenario"
        path.write_text(text.replace(old, new, 1), encoding="utf-8")
    for name, extra in (appended or {}).items():
        path = dest / name
        path.write_text(path.read_text(encoding="utf-8") + extra, encoding="utf-8")
    return dest


def check(folder: Path, *args: str) -> str:
    """What ``grader check`` prints (progress and report) when run in the student's copy ``folder``."""
    _, out = run("--course", str(folder), "check", str(folder), *args)
    return out


def missing_file(release: Path, tmp: Path) -> str:
    """A hand-in holding only ``micrograd/__init__.py``, ``engine.py`` and ``nn.py``: no ``forward.py``."""
    folder = tmp / "handed-in"
    (folder / "micrograd").mkdir(parents=True)
    for name in ("__init__.py", "engine.py", "nn.py"):
        shutil.copy(release / "micrograd" / name, folder / "micrograd" / name)
    _, out = run("--course", str(release), "check", str(folder), "-a", "forward_mode")
    return out


MUL = '    def __mul__(self, other: Union["Value", Number]) -> "Value":\n'


def syntax_error(release: Path, tmp: Path) -> str:
    """The release's ``def __mul__`` without its colon; every released assignment checked (the page quotes which
    ones the error stops)."""
    return check(student_copy(release, tmp / "student", {"micrograd/engine.py": (MUL, MUL.replace(":\n", "\n"))}))


def top_level_code(release: Path, tmp: Path) -> str:
    """A demo left at the bottom of the template's engine.py, calling the unwritten ``__mul__``."""
    folder = student_copy(release, tmp / "student", appended={"micrograd/engine.py": "\n\na = Value(2.0)\nprint(a * 3)\n"})
    return check(folder, "-a", "value_ops")


def import_timeout(release: Path, tmp: Path) -> str:
    """An endless loop at the top level of nn.py, with a shorter limit for loading the code than the course's."""
    folder = student_copy(release, tmp / "student", {
        "assignments/mlp/assignment.yaml": ("limits:\n", f"limits:\n  startup_seconds: {STARTUP_SECONDS}\n")},
        appended={"micrograd/nn.py": "\nwhile True:\n    pass\n"})
    return check(folder, "-a", "mlp")


def returns_none(release: Path, tmp: Path) -> str:
    """The reference's engine.py (every method written) whose ``__mul__`` forgot ``return out``."""
    code = reference_code("engine.py")
    start = code.index(MUL)
    end = code.index("        return out\n", start)
    folder = student_copy(release, tmp / "student")
    (folder / "micrograd" / "engine.py").write_text(code[:end] + code[end + len("        return out\n"):],
                                                    encoding="utf-8")
    return check(folder, "-a", "value_ops")


def imports_numpy(release: Path, tmp: Path) -> str:
    """``import numpy`` beside the template's own imports."""
    folder = student_copy(release, tmp / "student", {"micrograd/engine.py": ("import math\n", "import math\nimport numpy\n")})
    return check(folder, "-a", "value_ops")


SCENARIOS: dict[str, Callable[[Path, Path], str]] = {
    "  could not grade: missing micrograd/forward.py": missing_file,
    "Assignment 1: Value operations": syntax_error,
    "  could not grade: micrograd/engine.py could not be imported: code at its top level raised": top_level_code,
    "  could not grade: your code could not be loaded: time ran out while importing": import_timeout,
    "  ✗ Value.__mul__: forward value and local gradients": returns_none,
    "  could not grade: micrograd/engine.py could not be imported: raised ModuleNotFoundError": imports_numpy,
}
"""Each block quoting ``grader check``'s output, by the start of its first line, and the scenario printing it."""
NOT_OUTPUT = ("py -m venv .venv", "Set-ExecutionPolicy ")
"""Blocks that are not output (Windows commands a student types), by the start of their first line."""


QUOTED = re.compile(r"^```text\n(.*?)^```$", re.M | re.S)


def blocks() -> list[str]:
    """The page's ```text blocks as written (their first line's indentation kept: :data:`SCENARIOS` names them so)."""
    return QUOTED.findall(PAGE.read_text(encoding="utf-8"))


def test_every_text_block_of_the_page_is_checked_here_or_is_not_output():
    unknown = [(n, block.splitlines()[0]) for n, block in enumerate(blocks(), 1)
               if not block.startswith(tuple(SCENARIOS)) and not block.startswith(NOT_OUTPUT)]
    assert not unknown, (f"{NAME}: ```text blocks neither quoted output checked by {__name__} nor known commands "
                         f"(give each a scenario in SCENARIOS, or add it to NOT_OUTPUT):\n"
                         + "\n".join(f"  block {n}: {first}" for n, first in unknown))
    for start in (*SCENARIOS, *NOT_OUTPUT):
        assert sum(block.startswith(start) for block in blocks()) == 1, f"{NAME}: no one block starts with {start!r}"


@pytest.mark.timeout(120)
def test_the_troubleshooting_page_quotes_what_grader_check_prints(release: Path, tmp_path: Path) -> None:
    """Every quoted block, one scenario each (run in order, so that a failure names all the stale blocks)."""
    stale = []
    for n, block in enumerate(blocks(), 1):
        first = block.splitlines()[0]
        scenario = next((SCENARIOS[start] for start in SCENARIOS if block.startswith(start)), None)
        if scenario is None:
            assert block.startswith(NOT_OUTPUT), f"{NAME}, block {n} ({first!r}): no scenario"
            continue
        (tmp := tmp_path / scenario.__name__).mkdir()
        out = scenario(release, tmp)
        gone = missing(block, [out])
        if gone:
            stale.append(f"{NAME}, block {n} ({first!r}, scenario {scenario.__name__}): these quoted lines are not "
                         "what `grader check` prints now:\n" + "\n".join(f"  | {line}" for line in gone)
                         + "\n--- it printed:\n" + "\n".join(f"  | {line}" for line in out.splitlines()))
    assert not stale, "\n\n".join(stale)


def test_the_page_names_this_test_before_each_checked_block():
    """Each checked block is preceded by a comment naming the test that checks it; the others say why not."""
    text = PAGE.read_text(encoding="utf-8")
    checked = f"<!-- checked: tests/{Path(__file__).name}::test_the_troubleshooting_page_quotes_what_grader_check_prints -->"
    for match in re.finditer(r"^```text\n(.*?)^```$", text, re.M | re.S):
        before = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        block = match.group(1)
        wanted = ("<!-- illustrative: Windows commands, not output -->" if block.startswith(NOT_OUTPUT) else checked)
        assert before == wanted, f"{NAME}: the block starting {block.splitlines()[0]!r} is preceded by {before!r}"
