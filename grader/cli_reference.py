"""The command-line reference, generated from the parser itself so that it cannot drift from ``grader --help``.

``docs/reference/commands.md`` is :func:`page`, written into the repository (so that it reads on GitHub too) by
``python -m grader.cli_reference docs/reference/commands.md``; ``tests/commands/test_cli_reference.py`` fails when the
file differs from what the parser says now (an option added, a help text changed), naming that command.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from grader.cli import build_parser

HEADER = """# Commands

Every `grader` command with its options, exactly as `grader COMMAND --help` prints them. This page is generated from
the command line's own parser (`python -m grader.cli_reference docs/reference/commands.md`), and a test fails when it
differs from what the parser says, so it cannot drift. Exit statuses are in
[Exit statuses and errors](exit-statuses.md).
"""
"""The page's opening, above the generated reference."""
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


def page() -> str:
    """The whole of ``docs/reference/commands.md``: :data:`HEADER`, then :func:`commands_markdown`."""
    return f"{HEADER}\n{commands_markdown()}"


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m grader.cli_reference PATH``: write :func:`page` to ``PATH`` (the docs' ``reference/commands.md``);
    with ``--check``, write nothing and return 1 if ``PATH`` differs from it."""
    parser = argparse.ArgumentParser(prog="python -m grader.cli_reference",
                                     description="Write the command reference page, generated from the parser.")
    parser.add_argument("path", type=Path, help="the page to write (docs/reference/commands.md)")
    parser.add_argument("--check", action="store_true", help="only say whether the page is up to date")
    args = parser.parse_args(argv)
    text = page()
    if args.check:
        try:
            current = args.path.read_text(encoding="utf-8")
        except OSError as exc:
            print(f"{args.path}: {exc.strerror or exc}", file=sys.stderr)
            return 1
        if current != text:
            print(f"{args.path} is not what the parser says: run python -m grader.cli_reference {args.path}",
                  file=sys.stderr)
            return 1
        return 0
    args.path.write_text(text, encoding="utf-8", newline="\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
