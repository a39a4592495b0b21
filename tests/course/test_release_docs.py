"""What the release tells a student to type must be true: every `grader` command it shows parses and
names real assignments and files, its links resolve, and nothing stale remains."""

from __future__ import annotations

import json
import os
import re
import shlex
from pathlib import Path

import nbformat
import yaml

from grader.cli import build_parser

# --- What the release tells a student to type must be true -------------------------------------------

STALE = ("no self-check", "not yet", "coming soon")
FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.S | re.M)
INLINE = re.compile(r"`([^`\n]+)`")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
PYTHON = re.compile(r"^(python3?(\.\d+)?|py|\{sys\.executable\}|.*[/\\]python3?(\.exe)?)$")
OPERATORS = {"&&", "||", ";", "|"}


def grader_arguments(line: str) -> list[list[str]]:
    """The argument lists of every ``grader`` invocation on one shell line: ``grader ...``,
    ``python -m grader ...``, ``"{sys.executable}" -m grader ...``, after a notebook's ``!``."""
    line = line.strip()
    line = line[1:] if line.startswith("!") else line[2:] if line.startswith("$ ") else line
    tokens = shlex.split(line, comments=True)
    commands: list[list[str]] = [[]]
    for token in tokens:
        if token in OPERATORS:
            commands.append([])
        else:
            commands[-1].append(token)
    found = []
    for words in commands:
        if words and (words[0] == "grader" or words[0].endswith(("/grader", "\\grader"))):
            found.append(words[1:])
        elif len(words) >= 3 and PYTHON.match(words[0]) and words[1:3] == ["-m", "grader"]:
            found.append(words[3:])
    return found


def markdown_commands(text: str, where: str, cwd: Path) -> list[tuple[str, Path, list[str]]]:
    """Command lines of a Markdown text: every line of a fenced block, and inline code spans
    that invoke ``grader`` with arguments (a bare "`grader`" in prose names the command)."""
    shown = []
    for block in FENCE.findall(text):
        for line in block.splitlines():
            if re.search(r"\bgrader\b", line):
                shown += [(f"{where}: {line.strip()}", cwd, args) for args in grader_arguments(line)]
    prose = FENCE.sub("", text)
    for span in INLINE.findall(prose):
        if re.search(r"\bgrader\b", span):
            shown += [(f"{where}: `{span}`", cwd, args) for args in grader_arguments(span) if args]
    return shown


def student_texts(release: Path) -> dict[str, str]:
    """Everything a student reads about using the release, by path: README, handouts, notebooks,
    the classroom workflow and the dev container."""
    paths = [release / "README.md", *sorted(release.glob("assignments/*/README.md")),
             *sorted(release.glob("notebooks/*.ipynb")), *sorted(release.glob(".github/workflows/*.yml")),
             *sorted(release.glob(".devcontainer/*.json"))]
    return {p.relative_to(release).as_posix(): p.read_text(encoding="utf-8") for p in paths}


SHELL_LINE = re.compile(r"^(\s*)!(.*)$", re.M)
EXPANSION = re.compile(r"\{([^{}]+)\}")


def shell_lines(cell: str, cwd: Path) -> list[str]:
    """The ``!`` lines of a notebook's code cell as IPython runs them in ``cwd``: the cell's Python runs, and each
    ``!`` line reached has its ``{expression}`` parts expanded (``{sys.executable}`` kept: the kernel's Python)."""
    ran: list[str] = []

    def shell(line: str, namespace: dict) -> None:
        ran.append("!" + EXPANSION.sub(lambda m: m[0] if m[1] == "sys.executable" else str(eval(m[1], namespace)),
                                       line))

    source = SHELL_LINE.sub(lambda m: f"{m[1]}_shell({m[2]!r}, globals())", cell)
    before = Path.cwd()
    os.chdir(cwd)
    try:
        exec(compile(source, "<notebook cell>", "exec"), {"__name__": "__main__", "_shell": shell})
    finally:
        os.chdir(before)
    return ran


def shown_commands(release: Path) -> list[tuple[str, Path, list[str]]]:
    """(where, working folder, arguments) of every ``grader`` command the release shows a student."""
    shown = []
    for name, text in student_texts(release).items():
        if name.endswith(".md"):
            shown += markdown_commands(text, name, release)
        elif name.endswith(".ipynb"):
            for cell in nbformat.reads(text, as_version=4).cells:
                if cell.cell_type == "markdown":
                    shown += markdown_commands(cell.source, name, release)
                elif cell.cell_type == "code" and SHELL_LINE.search(cell.source):
                    for line in shell_lines(cell.source, release / "notebooks"):  # Jupyter's choice of folder
                        shown += [(f"{name}: {line.strip()}", release / "notebooks", args)
                                  for args in grader_arguments(line)]
        elif name.endswith(".yml"):
            for job in yaml.safe_load(text)["jobs"].values():
                for step in job["steps"]:
                    for line in step.get("run", "").splitlines():
                        shown += [(f"{name}: {line.strip()}", release, a) for a in grader_arguments(line)]
        elif name.endswith(".json"):
            spec = json.loads(text)
            for key in ("onCreateCommand", "postCreateCommand", "postStartCommand"):
                command = spec.get(key, "")
                line = command if isinstance(command, str) else shlex.join(command)
                shown += [(f"{name}: {line}", release, a) for a in grader_arguments(line)]
    return shown


def test_every_grader_command_the_release_shows_parses_and_names_real_things(release):
    assignments = {p.name for p in (release / "assignments").iterdir() if (p / "assignment.yaml").is_file()}
    shown = shown_commands(release)
    problems = []
    for where, cwd, args in shown:
        try:
            ns = build_parser().parse_args(args)
        except SystemExit as exc:
            if exc.code != 0:  # --help and --version exit 0
                problems.append(f"{where}: the argument parser rejects {args}")
            continue
        ids = ns.assignment if isinstance(getattr(ns, "assignment", None), list) else [
            getattr(ns, "assignment", None)]
        problems += [f"{where}: no assignment {aid!r}" for aid in ids if aid is not None and aid not in assignments]
        for attr in ("path", "submissions", "submission", "course"):
            value = getattr(ns, attr, None)
            if value is not None and not (cwd / value).exists():
                problems.append(f"{where}: {value} does not exist in {cwd.relative_to(release.parent)}")
    assert not problems, "\n".join(problems)
    # Not vacuous: the README, every handout and every notebook show how to run the self-check.
    checks = {(where.split(":")[0], tuple(ns_args)) for where, _, ns_args in shown if ns_args[:1] == ["check"]}
    assert any(w == "README.md" for w, _ in checks)
    for aid in assignments:
        docs = [f"assignments/{aid}/README.md"] + ([] if (release / "answers" / f"{aid}.yaml").exists()
                                                   else [f"notebooks/{aid}.ipynb"])  # a concept check has none
        for doc in docs:
            assert any(w == doc and ("-a", aid) in zip(a, a[1:]) for w, a in checks), (doc, "shows no check of", aid)


def test_the_release_links_only_to_files_it_holds_and_says_nothing_stale(release):
    for name, text in student_texts(release).items():
        lowered = text.lower()
        assert not [p for p in STALE if p in lowered], (name, [p for p in STALE if p in lowered])
        if name.endswith(".md"):
            for target in LINK.findall(text):
                if "://" in target or target.startswith(("#", "mailto:")):
                    continue
                assert ((release / name).parent / target.split("#")[0]).exists(), (name, target)
