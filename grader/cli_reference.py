"""The command-line reference, generated from the parser itself so that it cannot drift from ``grader --help``.

``docs/reference/commands.md`` holds a marker that the docs site's hook (``docs/hooks/commands.py``) replaces with
:func:`commands_markdown` when ``mkdocs build`` runs; ``tests/commands/test_cli_reference.py`` checks that every command
and its ``--help`` are in it.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterator
from contextlib import contextmanager

from grader.cli import build_parser

MARKER = "<!-- grader-commands -->"
"""Where ``docs/reference/commands.md`` takes the generated reference."""
WIDTH = 100
"""Columns argparse formats the help in (it reads ``COLUMNS``), so that the page is the same on every machine."""


@contextmanager
def _columns(width: int) -> Iterator[None]:
    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(width)
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = old


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """Each subcommand's name to its parser, in the order ``grader --help`` lists them."""
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def help_text(command: str | None = None) -> str:
    """What ``grader --help`` (or ``grader COMMAND --help``) prints, formatted :data:`WIDTH` columns wide."""
    with _columns(WIDTH):
        parser = build_parser()
        return (subcommands(parser)[command] if command else parser).format_help()


def commands_markdown() -> str:
    """Every command's reference in Markdown: ``grader --help``, then a section per command with its one-line
    help and its whole ``--help``."""
    with _columns(WIDTH):
        parser = build_parser()
        action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        summaries = {choice.dest: choice.help or "" for choice in action._choices_actions}
        parts = ["## grader", "", "```text", parser.format_help().rstrip(), "```", ""]
        for name, sub in subcommands(parser).items():
            parts += [f"## grader {name}", "", f"{summaries.get(name, '').rstrip('.')}.", "", "```text",
                      sub.format_help().rstrip(), "```", ""]
    return "\n".join(parts)
