"""MkDocs hook: fill ``docs/reference/commands.md`` with every ``grader`` command's ``--help``, generated from the
parser at build time (:func:`grader.cli_reference.commands_markdown`), so the page cannot drift from the tool."""

from __future__ import annotations

from typing import Any

from grader.cli_reference import MARKER, commands_markdown


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """Replace the marker of the commands page with the generated reference."""
    return markdown.replace(MARKER, commands_markdown()) if MARKER in markdown else markdown
