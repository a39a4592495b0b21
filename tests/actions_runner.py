"""How the GitHub Actions runner reads a step's output for workflow commands: the oracle of the tests that no student
text becomes one.

It follows actions/runner as read (``src/Runner.Common/ActionCommand.cs``,
``src/Runner.Worker/ActionCommandManager.cs``, ``src/Runner.Worker/Handlers/OutputManager.cs``,
``src/Runner.Sdk/ProcessInvoker.cs``):

* output is read line by line (``StreamReader.ReadLine``: a line ends at CR, LF or CRLF), stdout and stderr alike;
* ``TryParseV2``: the line, its leading whitespace trimmed (``TrimStart``: every ``Char.IsWhiteSpace``), starts with
  ``::``; the command's name and properties run to the next ``::`` (the name up to the first space), the data after
  it; properties are split at ``,`` and at the first ``=``; data and properties are unescaped (``%0D``, ``%0A``,
  ``%3A``, ``%2C``, ``%25``);
* ``TryParse`` (tried when ``TryParseV2`` finds no registered command): ``##[`` anywhere in the line, the name and
  properties up to the next ``]``, the data after it;
* a name is a command only if registered (case-insensitively): the runner's own, ``stop-commands``, and while
  commands are stopped the stop token, the only one then obeyed (in either form); ``::stop-commands::TOKEN`` stops
  them.

The runner's ``StartsWith("::")`` and ``IndexOf("##[")`` compare by culture (ICU), which can skip ignorable
characters; but it reads the name at a fixed offset (2 after the trimmed start, 3 after where ``##[`` was found), so
such a match reads a name starting with ``:`` or ``[``, never a registered one. Matching ordinally, as here, finds
every line the runner obeys.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

WHITESPACE = "\t\n\v\f\r \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000" + "".join(map(chr, range(0x2000, 0x200B)))
""".NET's ``Char.IsWhiteSpace``: what ``TrimStart`` removes."""
COMMANDS = frozenset({"add-mask", "add-matcher", "add-path", "debug", "echo", "endgroup", "error", "group", "notice",
                      "remove-matcher", "save-state", "set-env", "set-output", "warning", "stop-commands"})
"""The runner's registered commands (its ``IActionCommandExtension``s, and ``stop-commands``)."""


@dataclass(frozen=True)
class Command:
    """A line the runner reads as a workflow command."""

    name: str
    properties: dict[str, str] = field(default_factory=dict)
    data: str = ""


def lines(output: str) -> list[str]:
    """``output`` split into lines as the runner's reader splits it."""
    return re.split(r"\r\n|\r|\n", output)


def _unescape(text: str, property: bool) -> str:
    for escaped, char in [("%0D", "\r"), ("%0A", "\n"), *([("%3A", ":"), ("%2C", ",")] if property else []),
                          ("%25", "%")]:
        text = text.replace(escaped, char)
    return text


def parse(line: str, registered: Callable[[str], bool] = lambda name: bool(name)) -> Command | None:
    """The command ``line`` is, as ``TryParseV2`` then ``TryParse`` read it; None if it is none. ``registered`` says
    which names are commands (default: any name at all, as a stop token could be any word)."""
    trimmed = line.lstrip(WHITESPACE)
    end = trimmed.find("::", 2)
    if trimmed.startswith("::") and end >= 0:
        info = trimmed[2:end]
        name = info.split(" ", 1)[0]
        if registered(name):
            properties = {}
            for pair in info[len(name) + 1:].strip().split(","):
                key, equals, value = pair.partition("=")
                if key and equals and value:
                    properties[key] = _unescape(value, property=True)
            return Command(name, properties, _unescape(trimmed[end + 2:], property=False))
    start = line.find("##[")
    close = line.find("]", start) if start >= 0 else -1
    if close >= 0:
        name = line[start + 3:close].split(" ", 1)[0]
        if registered(name):
            return Command(name, {}, line[close + 1:])
    return None


def obeyed(output: str) -> list[Command]:
    """The commands the runner obeys in ``output``, stopping and resuming as ``stop-commands`` says (the stop and
    resume lines included)."""
    done: list[Command] = []
    token: str | None = None
    for line in lines(output):
        if token is None:
            command = parse(line, lambda name: name.lower() in COMMANDS)
            if command is not None and command.name.lower() == "stop-commands":
                token = command.data
        else:
            command = parse(line, lambda name, stop=token: name.lower() == stop.lower())
            if command is not None:
                token = None
        if command is not None:
            done.append(command)
    return done
