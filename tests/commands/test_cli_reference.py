"""The docs' command reference is generated from the parser: every command, and exactly what its --help prints."""

from __future__ import annotations

import importlib.util

from checkout import ROOT

from grader.cli import build_parser
from grader.cli_reference import MARKER, commands_markdown, help_text, subcommands
from grader.commands import COMMANDS


def test_every_command_and_its_whole_help_are_in_the_reference():
    page = commands_markdown()
    names = list(subcommands(build_parser()))
    assert len(names) == len(COMMANDS)
    assert help_text() in page
    for name in names:
        assert f"## grader {name}\n" in page
        assert help_text(name).rstrip() in page, name


def test_the_docs_page_takes_the_generated_reference_through_the_sites_hook():
    page = (ROOT / "docs" / "reference" / "commands.md").read_text(encoding="utf-8")
    assert MARKER in page and "## grader grade" not in page  # no hand-written copy to drift
    spec = importlib.util.spec_from_file_location("commands_hook", ROOT / "docs" / "hooks" / "commands.py")
    assert spec is not None and spec.loader is not None
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    built = hook.on_page_markdown(page, None, None, None)
    assert MARKER not in built and commands_markdown() in built
