"""The docs' command reference is generated from the parser and written into the repository: every command, exactly
what its --help prints, the same on every Python the course runs, and a test fails when the page has drifted."""

from __future__ import annotations

from checkout import ROOT

from grader.cli import build_parser
from grader.cli_reference import commands_markdown, help_text, main, page, subcommands
from grader.commands import COMMANDS

PAGE = ROOT / "docs" / "reference" / "commands.md"


def test_every_command_and_its_whole_help_are_in_the_reference():
    text = commands_markdown()
    names = list(subcommands(build_parser()))
    assert len(names) == len(COMMANDS)
    assert help_text() in text
    for name in names:
        assert f"## grader {name}\n" in text
        assert help_text(name).rstrip() in text, name


def test_the_page_in_the_repository_is_what_the_parser_says():
    """Readers on GitHub see the file itself (no site build fills it in): it must be the generated page."""
    written, wanted = PAGE.read_text(encoding="utf-8"), page()
    if written != wanted:
        stale = [name for name in subcommands(build_parser()) if help_text(name).rstrip() not in written]
        raise AssertionError(f"docs/reference/commands.md differs from the parser (stale: {stale or 'the page'}): "
                             "run python -m grader.cli_reference docs/reference/commands.md")


def test_an_option_listed_with_its_value_after_each_spelling_as_on_every_python():
    """Python 3.13's argparse writes ``-o, --output OUT``; the grader's formatter keeps ``-o OUT, --output OUT``,
    so the page is one text from 3.10 to 3.13."""
    assert "-o OUT, --output OUT" in help_text("release")
    assert "-a ID, --assignment ID" in help_text("validate")


def test_check_says_whether_a_page_is_stale(tmp_path, capsys):
    path = tmp_path / "commands.md"
    assert main([str(path), "--check"]) == 1
    assert main([str(path)]) == 0 and path.read_text(encoding="utf-8") == page()
    assert main([str(path), "--check"]) == 0
    path.write_text(page().replace("## grader grade\n", "## grader grade (old)\n"), encoding="utf-8")
    assert main([str(path), "--check"]) == 1
    assert "python -m grader.cli_reference" in capsys.readouterr().err
