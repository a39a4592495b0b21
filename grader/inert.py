"""Making text a submission controls inert before it reaches a terminal, Markdown or a spreadsheet.

Student ids (entry names), file names, exception messages and program output
are the submission's to choose. Before they are shown:

* :func:`terminal`: control characters (escape sequences, carriage returns,
  bells) and the invisible bidirectional-override characters become visible
  escapes, so nothing reprograms the instructor's terminal or reorders what
  it shows;
* :func:`csv_cell`: a cell that a spreadsheet would read as a formula (it
  starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return) gets a
  leading apostrophe (the usual CSV-injection defence, as OWASP describes it);
* :func:`fence` and :func:`code_span`: Markdown code whose backtick fences are
  longer than any run of backticks inside, so a message cannot close its
  block; :func:`markdown` escapes prose so it cannot become a heading, a link,
  an image or raw HTML;
* :func:`xml_text`: characters XML 1.0 forbids (most control characters, lone
  surrogates, U+FFFE and U+FFFF) become visible escapes, so a JUnit report
  stays well-formed XML whatever a message holds;
* :func:`actions_log` and :func:`actions_fence`: no line becomes a GitHub
  Actions workflow command. The runner (actions/runner,
  ``ActionCommand.TryParseV2`` and ``TryParse``) obeys a line whose start,
  after any whitespace, is ``::name`` and then ``::``, and a line holding
  ``##[name]`` anywhere; between ``::stop-commands::TOKEN`` and ``::TOKEN::``
  it obeys neither, but for the token itself (``::TOKEN::`` or ``##[TOKEN]``).
"""

from __future__ import annotations

import re
import secrets
import unicodedata

_FORMULA = ("=", "+", "-", "@", "\t", "\r")
_MARKDOWN = re.compile(r"([\\`*_\[\]#!|<>~])")


_HIDDEN = ("Cc", "Cf", "Cs")
"""Unicode categories never shown as they are: control, format (bidirectional overrides, zero-width spaces and
joiners, byte-order marks, soft hyphens...) and lone surrogates."""


def _visible(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def terminal(text: str, keep: str = "\n\t") -> str:
    """``text`` with every control, format and lone surrogate character (:data:`_HIDDEN`: ``\\x1b``, a bidi
    override ``\\u202e``, a zero-width space ``\\u200b``) shown as an escape, except those in ``keep``; and no line
    a GitHub Actions runner would obey (:func:`actions_log`: a terminal is often a CI log, ``grader grade`` in a
    workflow)."""
    return actions_log(shown(text, keep))


def shown(text: str, keep: str = "\n\t") -> str:
    """:func:`terminal` without the workflow-command marks: for a line the grader writes as a workflow command
    itself (an annotation, whose student text GitHub's own escaping keeps on that one line)."""
    if text.isprintable():  # the usual case, at C speed: none of them (nor any whitespace but spaces)
        return text
    rest = text
    for char in keep:
        rest = rest.replace(char, "")
    if rest.isprintable():  # also at C speed: only kept characters (a message's lines) were not printable
        return text
    return "".join(_visible(c) if c not in keep and unicodedata.category(c) in _HIDDEN else c for c in text)


def csv_cell(text: str) -> str:
    """A CSV cell no spreadsheet runs as a formula."""
    return "'" + text if text.startswith(_FORMULA) else text


def fence(text: str, info: str = "text") -> list[str]:
    """``text`` as a fenced Markdown code block (lines), its fence longer than any backtick run inside."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    marks = "`" * max(3, longest + 1)
    return [f"{marks}{info}", text, marks]


def code_span(text: str) -> str:
    """``text`` as inline Markdown code that its own backticks cannot close (one line)."""
    text = " ".join(terminal(text, keep="").splitlines())
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    marks = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{marks}{pad}{text}{pad}{marks}"


def markdown(text: str) -> str:
    """``text`` as Markdown prose: every character Markdown or HTML would read as structure is escaped."""
    return _MARKDOWN.sub(r"\\\1", terminal(text, keep=""))


_NOT_XML = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_text(text: str) -> str:
    """``text`` with every character XML 1.0 does not allow shown as an escape (``\\x1b``)."""
    return _NOT_XML.sub(lambda m: _visible(m.group(0)), text)


_LINE_COMMAND = re.compile(r"(?<![^\r\n])([^\S\r\n]*)::")
"""The ``::`` that starts a line, after any whitespace (the runner trims it, Unicode spaces too). Lines end as the
runner's reader ends them: at CR, LF or CRLF."""
LEGACY_COMMAND = "##["
"""What starts a legacy workflow command anywhere in a line (``##[warning]``)."""


def actions_log(text: str) -> str:
    """``text`` with no line the GitHub Actions runner reads as a workflow command: a backslash before the ``::``
    that starts a line (``\\::error::x``, after the line's whitespace) and inside every ``##[`` (``##\\[warning]``).
    Text without either is returned as it is; the change is visible, so a student still reads their message."""
    if "::" not in text and LEGACY_COMMAND not in text:  # the usual case
        return text
    return _LINE_COMMAND.sub(r"\1\\::", text.replace(LEGACY_COMMAND, "##\\["))


def actions_fence(text: str) -> list[str]:
    """``text`` for a GitHub Actions log (lines): made inert (:func:`actions_log`) and between
    ``::stop-commands::TOKEN`` and ``::TOKEN::``, so the runner obeys no command in it even if one got through.

    TOKEN is 32 hex digits drawn here, when the text is printed: no submission's code is running any more, none saw
    it before, and the runner masks it (``***``) in the log, so nothing in ``text`` can end the fence early.
    """
    token = secrets.token_hex(16)
    return [f"::stop-commands::{token}", actions_log(text), f"::{token}::"]
