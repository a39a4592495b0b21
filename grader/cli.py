"""The ``grader`` command line.

``main(argv) -> int`` is what the console script and the tests call. Library
code raises :class:`~grader.errors.GraderError`; only this module turns it
into a message on stderr and an exit status (:class:`grader.commands.ExitCode`):
2 for an instructor's error, 3 (:class:`~grader.errors.WithheldError`) when the
grader's own machinery failed for some submission (those scores are withheld,
never counted, and the message names the cause). Exit status 1 means the
command ran but found a problem it was asked to check (``template --check``, a
failing self-check, ``validate`` misses).

Subcommands:

* ``grader grade SUBMISSIONS [-a ID]... [-o OUT] [-j N] [--deadline TIME] [--sandbox B]``: grade a class
  (with ``--deadline``, each student git repository at its latest submission at or before TIME).
* ``grader new-assignment ID [--module NAME] [--title TEXT] [--kind code|questions]``: scaffold a new
  assignment (``assignment.yaml``, handout, probes, public and hidden tests, an
  empty bug catalogue, a reference module; or a concept check's questions and key): see
  :mod:`grader.course.scaffold`;
* ``grader sheet ID [--student S] [-o FILE]``: a concept check's questions with one student's own numbers;
* ``grader template [--check]``: regenerate ``student_template/`` from the
  reference's solution markers (or check that it is up to date).
* ``grader validate [-a ID]...``: test the tests (exit 1 on any miss).
* ``grader release -o OUT [--classroom50 DIR] [-a ID]...``: the student release (template,
  notebooks, handouts, public tests, the grader, a self-check workflow) and the
  Classroom 50 autograders for the teacher's config repository, of the assignments
  released at that moment (and those named).
* ``grader merge OUT... -o MERGED``: combine shard outputs (``grade --shard K/N``).
* ``grader report GRADED``: the class report, ``GRADED/report.html``.
* ``grader similarity OUT [--corpus DIR]... [--submissions DIR] [-a ID]...``: similarity evidence (unusually alike
  pairs, side by side, for a person to review; never a score), in ``OUT/similarity.json`` and the report.
* ``grader export canvas|moodle|csv OUT --roster CSV [--canvas FILE]``: scores for an LMS, matched through the roster.
* ``grader gradescope -a ID -o autograder.zip``: a Gradescope autograder;
  ``grader autograde`` is what its ``run_autograder`` calls.
* ``grader check [PATH] [-a ID]... [--format text|json|junit|github|classroom50] [--sandbox B]``:
  a student's self-check on the public tests (exit 0 only when all pass; with ``classroom50``, which writes
  ``result.json`` and ``release-body.md`` for Classroom 50, whenever grading ran).

``--sandbox auto|linux|portable`` picks the sandbox backend (see :mod:`grader.judge.backends`).
Each subcommand is a module of :mod:`grader.commands` that declares its own options and typed arguments
(:data:`grader.commands.COMMANDS`); :func:`build_parser` is a loop over them.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from types import ModuleType

from grader import __version__
from grader.commands import COMMANDS, ExitCode, args_of, module_of
from grader.errors import GraderError, WithheldError
from grader.inert import actions_log, terminal


class HelpFormatter(argparse.HelpFormatter):
    """argparse's help, the same on every Python the course runs (3.10-3.13): an option that takes a value is listed
    with it after each of its spellings (``-o OUT, --output OUT``), as before Python 3.13, which writes ``-o, --output
    OUT``), and a subcommand's name measured for the help column as before 3.13 (without its indent). The generated
    command reference (:mod:`grader.cli_reference`) is then one text everywhere."""

    def add_argument(self, action: argparse.Action) -> None:
        if action.help is not argparse.SUPPRESS:
            invocations = [self._format_action_invocation(action)]
            invocations += [self._format_action_invocation(a) for a in self._iter_indented_subactions(action)]
            self._action_max_length = max(self._action_max_length, max(map(len, invocations)) + self._current_indent)
            self._add_item(self._format_action, [action])

    def _format_action_invocation(self, action: argparse.Action) -> str:
        if not action.option_strings:
            return super()._format_action_invocation(action)
        if action.nargs == 0:
            return ", ".join(action.option_strings)
        value = self._format_args(action, self._get_default_metavar_for_optional(action))
        return ", ".join(f"{option} {value}" for option in action.option_strings)


def named_command(argv: list[str]) -> str | None:
    """The module of the command ``argv`` names (after ``--course DIR``), or None: no command, one that does not exist,
    or an option before it (``--help``, ``--version``)."""
    i = 0
    while i < len(argv):
        if argv[i] == "--course":
            i += 2
        elif argv[i].startswith("--course="):
            i += 1
        else:
            return None if argv[i].startswith("-") else module_of(argv[i])
    return None


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The parser of ``grader`` and every subcommand (each command module adds its own options); with ``argv`` naming
    a command, of that command alone: the other commands' modules are not imported (``grader check`` starts without
    the class report's, the similarity's or the exports' imports)."""
    chosen = named_command(argv) if argv is not None else None
    parser = argparse.ArgumentParser(
        prog="grader", formatter_class=HelpFormatter,
        description="Autograder for a course on automatic differentiation (sandboxed; the docs: docs/index.md)."
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("--course", metavar="DIR", help="course folder (default: the nearest folder with assignments/)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS if chosen is None else (chosen,):
        command = importlib.import_module(f"grader.commands.{name}")
        p = sub.add_parser(command.NAME, help=command.HELP, formatter_class=HelpFormatter)
        command.add_arguments(p)
        p.set_defaults(command_module=command)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit status (:class:`grader.commands.ExitCode`)."""
    for stream in (sys.stdout, sys.stderr):  # a legacy console encoding (cp1252...) must not crash on "✗"
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(errors="replace")
            except (ValueError, OSError):
                pass
    args = sys.argv[1:] if argv is None else argv
    namespace = build_parser(args).parse_args(args)
    command: ModuleType = namespace.command_module
    try:
        return int(command.run(args_of(command.Args, namespace)))
    except GraderError as exc:
        print(actions_log(terminal(f"grader: error: {exc}")), file=sys.stderr)  # it may quote what a submission said
        return ExitCode.GRADER_FAULT if isinstance(exc, WithheldError) else ExitCode.ERROR
    except KeyboardInterrupt:
        print("grader: interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
