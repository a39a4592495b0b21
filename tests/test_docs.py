"""The docs' tutorials run as written: every ```bash block of a tutorial page, in order, in one shell, from the root
of a fresh copy of the repository, with the grader installed (the pages' set-up, a virtual environment and
``pip install -e .``, is what ``.ci/run`` and the README's quick start do; the pages show it in ```console
blocks, which are illustrative). Blocks a reader cannot run here (a real Gradescope, GitHub or LMS) are
```console or ```text, with a sentence saying why.

Output a tutorial quotes in a ```text block is what its commands print or write: each quoted line, except those
it elides (``...``) and the sandbox's line (it depends on the host), is a line of their output or of a file they wrote
under the copy, with the times the machine decides (a run's seconds, a time limit) and a table's rule (as wide as the terminal)
as the only free parts (the rules, shared with the tests that check the how-to pages' quotes: ``doc_quotes``).

The README stays a front door (at most 120 lines) whose links into the docs resolve.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from checkout import ROOT
from doc_quotes import assert_quoted, text_blocks

TUTORIALS = sorted((ROOT / "docs" / "tutorials").glob("*.md"))
BLOCK = re.compile(r"^```bash\n(.*?)^```$", re.M | re.S)
COPIED = ("assignments", "reference", "student_template", "examples", "grader", "pyproject.toml", "README.md")
"""What a tutorial's copy of the repository holds (the tutorials read and write only these)."""


def bash_blocks(page: Path) -> list[str]:
    """The ```bash blocks of a page, in order."""
    return BLOCK.findall(page.read_text(encoding="utf-8"))


def fresh_copy(repo: Path) -> None:
    """A copy of the repository's parts a page's commands use (:data:`COPIED`) at ``repo``, as a fresh clone holds them."""
    for name in COPIED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, repo / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        else:
            repo.mkdir(parents=True, exist_ok=True)
            shutil.copy(source, repo / name)


def reader_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """The environment a reader runs a page's commands in: the grader installed on ``PATH``, a home of their own,
    no ``CI`` (the commands as a reader runs them), and ``extra``."""
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
           "HOME": str(tmp_path / "home"), **extra}
    env.pop("CI", None)
    return env


def test_every_tutorial_has_commands_to_run():
    assert [p.name for p in TUTORIALS] == ["first-hidden-test.md", "first-self-check.md", "grade-the-example-class.md"]
    assert all(bash_blocks(p) for p in TUTORIALS)


@pytest.mark.linux_only
@pytest.mark.timeout(600)
@pytest.mark.parametrize("page", TUTORIALS, ids=[p.stem for p in TUTORIALS])
def test_the_tutorial_runs_as_written(page: Path, tmp_path: Path) -> None:
    repo = tmp_path / "work" / "micrograd-grader"
    fresh_copy(repo)
    script = "set -euo pipefail\n" + "\n".join(bash_blocks(page))
    env = reader_env(tmp_path, PYTHONDONTWRITEBYTECODE="1",
                     COLUMNS="300")  # a wide terminal: a table's line the page quotes cut is a start of the line printed
    done = subprocess.run(["bash", "-c", script], cwd=repo, env=env, capture_output=True, text=True, timeout=540,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 0, f"{page.name} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    produced = [done.stdout, done.stderr]
    for written in repo.rglob("*"):
        if written.suffix in (".md", ".txt", ".csv") and written.is_file() and "grading-output" in written.parts:
            produced.append(written.read_text(encoding="utf-8"))
    for k in range(len(text_blocks(page))):
        assert_quoted(page, k, *produced)
    if page.stem == "first-hidden-test":  # the how-to quotes the same `grader validate -a squares`
        assert_quoted("how-to/add-a-bug.md", 0, *produced)


YAML_BLOCK = re.compile(r"^```yaml\n(.*?)^```$", re.M | re.S)


@pytest.mark.linux_only
@pytest.mark.timeout(600)
def test_the_concept_check_how_to_works_as_written(tmp_path: Path) -> None:
    """docs/how-to/write-a-concept-check.md, followed on a fresh copy: scaffold, the page's questions and key (its
    two ```yaml blocks), ``points:`` set to the sum the page names, then validate, the sheet, the release and the
    Gradescope zip, each exiting 0, and nothing written inside the course repository."""
    import yaml

    page = (ROOT / "docs" / "how-to" / "write-a-concept-check.md").read_text(encoding="utf-8")
    scaffold, *_, last = BLOCK.findall(page)
    questions, key = YAML_BLOCK.findall(page)
    repo = tmp_path / "work" / "course"
    fresh_copy(repo)
    env = reader_env(tmp_path)

    def bash(script: str) -> str:
        done = subprocess.run(["bash", "-c", "set -euo pipefail\n" + script], cwd=repo, env=env, capture_output=True,
                              text=True, timeout=540, stdin=subprocess.DEVNULL)
        assert done.returncode == 0, f"{script}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        return done.stdout

    bash(scaffold)
    (repo / "assignments" / "quiz1" / "questions.yaml").write_text(questions, encoding="utf-8")
    (repo / "reference" / "answers" / "quiz1.yaml").write_text(key, encoding="utf-8")
    total = sum(q["points"] for q in yaml.safe_load(questions)["questions"])
    said = re.search(r"set `points:` in `assignments/quiz1/assignment.yaml` to the questions' sum: (\d+) here", page)
    assert said and int(said.group(1)) == total, "the page names another sum than its questions'"
    config = repo / "assignments" / "quiz1" / "assignment.yaml"
    config.write_text(re.sub(r"(?m)^points: \d+", f"points: {total}", config.read_text(encoding="utf-8")),
                      encoding="utf-8")
    printed = bash(last)
    assert "No misses" in printed and "catalogued bugs" not in printed, printed
    assert (tmp_path / "work" / "release" / "answers" / "quiz1.yaml").is_file()
    assert (tmp_path / "work" / "quiz1.zip").is_file() and not (repo / "release").exists()


CHECKED = re.compile(r"<!-- checked: (tests/[\w/]+\.py)::(test_\w+) -->")
ILLUSTRATIVE = re.compile(r"<!-- illustrative: \S[^>]* -->")


def test_every_quoted_output_outside_the_tutorials_is_checked_by_a_test_or_marked_illustrative():
    """Issue 58: a ```text block a page quotes is what the program prints only if a test says so. Each one (outside
    the tutorials, which are run as written, and the generated command reference) sits right under
    ``<!-- checked: tests/FILE.py::TEST -->`` (the line right above the block), naming a test that exists, or
    ``<!-- illustrative: why -->`` (an input file, a diagram, what depends on the host)."""
    generated = {ROOT / "docs" / "reference" / "commands.md"}
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    unmarked, dangling = [], []
    for page in pages:
        if "tutorials" in page.parts or page in generated:
            continue
        lines = page.read_text(encoding="utf-8").splitlines()
        for n, line in enumerate(lines):
            if line != "```text":
                continue
            where, above = f"{page.relative_to(ROOT).as_posix()} line {n + 1}", lines[n - 1].strip() if n else ""
            checked = CHECKED.fullmatch(above)
            if checked:
                test = ROOT / checked.group(1)
                if not test.is_file() or f"def {checked.group(2)}(" not in test.read_text(encoding="utf-8"):
                    dangling.append(f"{where}: {above}")
            elif not ILLUSTRATIVE.fullmatch(above):
                unmarked.append(where)
    assert not unmarked and not dangling, ("quoted output no test checks:\n" + "\n".join(unmarked)
                                           + "\nnaming no test that exists:\n" + "\n".join(dangling))


def test_the_portable_sandbox_warning_is_the_one_the_page_quotes():
    from grader.judge.backends import PORTABLE_WARNING

    page = (ROOT / "docs" / "how-to" / "normal-user-and-containers.md").read_text(encoding="utf-8")
    assert f"```text\n{PORTABLE_WARNING}\n```" in page


def test_the_readme_is_a_front_door_whose_links_resolve():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 120
    links = re.findall(r"\]\(((?:docs|bench|examples)/[^)#\s]+)", text)
    assert links and all((ROOT / link).exists() for link in links), [x for x in links if not (ROOT / x).exists()]
