"""The layout keeps its promises: no import cycle between the grader's modules, and the sandbox (which runs
next to student code, copied as a package of its own) imports nothing but the standard library and itself."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest
from checkout import ROOT

PACKAGE = ROOT / "grader"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path, typing_too: bool = False) -> set[str]:
    """The modules ``path`` imports, at load time or inside a function (a lazy import hides a cycle, it does not
    remove it); with ``typing_too``, also those imported for annotations only (``if TYPE_CHECKING:``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module_name(path) if path.name == "__init__.py" else module_name(path).rpartition(".")[0]
    typing_only = {id(n) for block in ast.walk(tree) if isinstance(block, ast.If)
                   and "TYPE_CHECKING" in ast.unparse(block.test) for n in ast.walk(block)}
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in typing_only and not typing_too:  # for annotations only: never imported at run time
            continue
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parent + ([base] if base else []))
            found.add(base)
            found.update(f"{base}.{a.name}" for a in node.names)
    return found


def test_no_import_cycle_between_the_graders_modules():
    """Not even one that only annotations close (``if TYPE_CHECKING:``): a cycle of types is a cycle of concerns."""
    assert_no_cycle(PACKAGE)


def test_no_import_cycle_between_the_courses_modules():
    """The course's modules too, lazy imports included: a probe module names its judge side (``JUDGE_SIDE``, a
    string) and never imports it; the judge side imports the probe module it serves (issue 41)."""
    assert_no_cycle(ROOT / "assignments")


def assert_no_cycle(folder: Path) -> None:
    modules = {module_name(p): p for p in folder.rglob("*.py") if "tests" not in p.relative_to(folder).parts}
    graph = {name: {m for m in imports_of(p, typing_too=True) if m in modules and m != name}
             for name, p in modules.items()}
    done: set[str] = set()

    def visit(name: str, path: list[str]) -> None:
        if name in path:
            raise AssertionError("import cycle: " + " -> ".join(path[path.index(name):] + [name]))
        if name in done:
            return
        for dep in sorted(graph[name]):
            visit(dep, path + [name])
        done.add(name)

    for name in sorted(graph):
        visit(name, [])


def test_the_sandbox_imports_only_the_standard_library_and_itself():
    allowed = set(sys.stdlib_module_names)
    for path in (PACKAGE / "sandbox").glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
            for name in names:
                assert name.split(".")[0] in allowed, f"{path.name} imports {name}"


def test_the_grader_holds_no_course_content():
    """Course content (probes, checks, parts, handout tables) lives in assignments/, and the grader reaches it only
    through the registries a course fills: no module of grader/ imports the course's code, whose package name
    (``assignments``) and probe API name (``probekit``) only grader/sandbox/course_code.py registers."""
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for name in imports_of(path):
            top = name.split(".")[0]
            if top in ("assignments", "probekit") or name.startswith("grader.sandbox.course_parts"):
                offenders.append(f"{path.relative_to(ROOT)} imports {name}")
    assert offenders == []


def test_probe_modules_use_the_sandbox_only_through_probekit():
    """A probe module is imported in a worker, where the grader package does not exist: at its top level it imports
    the standard library, ``probekit`` and other course probe modules, nothing else (its judge side, ``REQUESTS``
    and ``JUDGED`` that need the grader, is another module it names in ``JUDGE_SIDE`` and never imports)."""
    stdlib = set(sys.stdlib_module_names)
    course = ROOT / "assignments"
    probe_files = sorted(course.glob("shared/probes/*.py")) + sorted(course.glob("*/probes.py"))
    assert probe_files
    offenders = []
    for path in probe_files:
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module or ""]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top in stdlib or top in ("__future__", "probekit") or name.startswith("assignments.") and (
                        name.startswith("assignments.shared.probes") or name.endswith(".probes")):
                    continue
                offenders.append(f"{path.relative_to(ROOT)} imports {name}")
    assert offenders == []


LAYERS = ("commands", "grading", "judge", "outputs", "similarity", "testing", "questions", "intake", "course", "sandbox")
"""The folders of grader/, top to bottom: a folder imports only folders below it (and the top-level modules
``errors``, ``files``, ``inert``, which import no folder). ``cli`` sits above them all."""


def test_every_folder_level_import_runs_downward():
    """No folder imports one above it or beside it in a cycle, type-only imports included: the judge does not climb
    back to grading (the manifest and the claims queue are the judge's), outputs does not climb to commands, and
    similarity takes nothing from outputs (the report's section lives in outputs, inert text at the top level)."""
    assert sorted(LAYERS) == sorted(p.name for p in PACKAGE.iterdir() if p.is_dir() and p.name != "__pycache__")
    upward = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).parts
        here = LAYERS.index(parts[0]) if len(parts) > 1 else -1
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            else:
                continue
            for name in names:
                seg = name.split(".")
                if seg[0] != "grader" or len(seg) < 2 or seg[1] not in LAYERS:
                    continue
                there = LAYERS.index(seg[1])
                if here == -1 and parts[0] not in ("cli.py", "__main__.py"):
                    upward.append(f"{path.relative_to(ROOT)} (a top-level module) imports {name}")
                elif here != -1 and there <= here and seg[1] != parts[0]:
                    upward.append(f"{path.relative_to(ROOT)} imports {name}")
    assert upward == []


def test_the_architecture_page_lists_the_layers_in_order():
    """docs/explanation/architecture.md quotes the folders' order: it is :data:`LAYERS`, the order the import test
    holds."""
    page = (ROOT / "docs" / "explanation" / "architecture.md").read_text(encoding="utf-8")
    assert f"```text\n{' > '.join(LAYERS)}\n```" in page


def test_no_two_modules_of_the_grader_share_a_name():
    """A module's name says what it owns: two ``worker.py`` (or ``release.py``) with different meanings make a reader
    open both to know which is meant."""
    seen: dict[str, list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name not in ("__init__.py", "__main__.py"):
            seen.setdefault(path.name, []).append(str(path.relative_to(PACKAGE)))
    assert {name: where for name, where in seen.items() if len(where) > 1} == {}


def test_every_command_is_thin_declares_its_options_and_typed_arguments_and_the_parser_is_a_loop():
    """Each ``commands/<name>.py`` has ``NAME``, ``HELP``, ``add_arguments``, a frozen ``Args`` dataclass and ``run``,
    and holds no other class (records and library code live in the concern folders); every module is a subcommand."""
    import dataclasses
    import importlib

    from grader.cli import build_parser
    from grader.commands import COMMANDS, CourseArgs, module_of

    modules = sorted(p.stem for p in (PACKAGE / "commands").glob("*.py") if p.stem != "__init__")
    assert sorted(COMMANDS) == modules
    names = []
    for name in COMMANDS:
        command = importlib.import_module(f"grader.commands.{name}")
        assert callable(command.add_arguments) and callable(command.run) and command.HELP
        assert dataclasses.is_dataclass(command.Args) and issubclass(command.Args, CourseArgs)
        assert command.Args.__dataclass_params__.frozen
        tree = ast.parse((PACKAGE / "commands" / f"{name}.py").read_text(encoding="utf-8"))
        assert [n.name for n in tree.body if isinstance(n, ast.ClassDef)] == ["Args"], name
        assert module_of(command.NAME) == name  # `grader NAME ...` imports this module alone
        names.append(command.NAME)
    actions = [a for a in build_parser()._actions if a.dest == "command"]
    assert list(actions[0].choices) == names  # type: ignore[union-attr]
    for name in COMMANDS:  # every option parsed is a typed field, and every field an option
        command = importlib.import_module(f"grader.commands.{name}")
        parser = actions[0].choices[command.NAME]  # type: ignore[index]
        options = {a.dest for a in parser._actions if a.dest != "help"}
        assert options | {"course"} == {f.name for f in dataclasses.fields(command.Args)}, name


@pytest.mark.parametrize("argv", [["--course", "c", "check", "x", "-a", "value_ops"], ["--course=c", "grade", "s", "-j", "2"],
                                  ["sheet", "checkpoint", "--student", "s1"], ["submit-zip", "-o", "z.zip"],
                                  ["export", "canvas", "out.csv", "--canvas", "in.csv", "--graded", "g"]])
def test_a_command_is_parsed_by_its_own_parser_as_by_the_whole_one(argv):
    from grader.cli import build_parser

    assert vars(build_parser(argv).parse_args(argv)) == vars(build_parser().parse_args(argv))


def test_a_command_starts_without_the_other_commands_modules():
    """``grader check`` (a student's, hundreds of times a term) imports no other command's module, nor the class
    report's templates: 0.15 s of every start."""
    code = ("import sys\nfrom grader.cli import build_parser\nbuild_parser(['--course', '.', 'check', 'x'])\n"
            "print(sorted(m for m in sys.modules if m.startswith('grader.commands.')), 'jinja2' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["['grader.commands.check']", "False"]


def test_every_command_but_similarity_runs_without_the_similarity_extra():
    """``grader similarity``'s packages (copydetect, numpy, matplotlib) are an extra no student install, Gradescope
    image or Classroom 50 runner has: importing any other command, or the class report, must not need them."""
    code = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('numpy', 'copydetect', 'matplotlib'):\n"
        "            raise ImportError('the similarity extra is not installed: ' + name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "from grader.cli import build_parser\n"
        "build_parser()\n"
        "import grader.outputs.class_report, grader.commands.grade, grader.commands.check, grader.commands.report\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 0, done.stderr[-2000:]


def test_the_judge_starts_without_the_readers_of_notebooks_and_answers():
    """Every judge process imports its plugin at start (hundreds in a class): what only intake or a concept check
    needs (nbformat and its JSON schemas, the answers' readers) is imported where it is used, never by the start."""
    code = ("import sys, grader.judge.__main__, grader.judge.plugin; "
            "print(sorted(m for m in ('nbformat', 'jsonschema', 'grader.intake.candidates', "
            "'grader.questions.answer_sheet', 'grader.testing.concept_checks', 'hypothesis') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT,
                          env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"})
    assert done.stdout.strip() == "[]", done.stdout
