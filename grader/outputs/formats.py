"""Output formats of ``grader check`` (and JUnit for ``grader grade``).

* ``text``: per-assignment and per-task scores, then each failing test's
  teaching feedback; by default (``grader check`` without ``-v`` or ``-a``) only
  for the first assignment not passing yet, each other in one line; an error
  that stops several assignments is shown once, naming them;
* ``json``: the same as data (every test; each load error once, with the
  assignments it stops);
* ``junit``: JUnit XML (one ``testsuite`` per assignment, every test), read by most CI systems;
* ``github``: for GitHub Actions: an ``::error`` annotation per failing test
  (at the student's line when the failure is an exception in their code), then
  the text report, fenced so the runner obeys no workflow command in it
  (:func:`grader.inert.actions_fence`), and a Markdown job summary appended to
  ``$GITHUB_STEP_SUMMARY``. It no longer
  writes the ``result`` step output GitHub Classroom's reporter read: GitHub
  Classroom was shut down on 28 August 2026, and Classroom 50 reads the
  ``result.json`` that ``--format classroom50`` writes
  (:mod:`grader.outputs.classroom50`).
"""

from __future__ import annotations

import json
import os
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from grader.course.config import Assignment
from grader.inert import LEGACY_COMMAND, actions_fence, fence, markdown, shown, terminal, xml_text
from grader.outputs.entries import is_test
from grader.outputs.failures import not_run, views
from grader.outputs.gradebook import points
from grader.outputs.self_check import CheckResult, headline, label, package_of
from grader.outputs.store import ResultStore

WHERE = re.compile(r"at ([a-z_][a-z0-9_]*/\w+\.py) line (\d+)")
"""Where feedback says an error was: ``at micrograd/engine.py line 12`` (a file of the student's package)."""


def text(result: CheckResult, every: bool = True) -> str:
    """Human-readable self-check report.

    Args:
        result: The self-check.
        every: Show every assignment in detail; False: only the first one not passing yet
            (:meth:`~grader.outputs.self_check.CheckResult.focus`), each other in one line (its score, and what
            stops it or how many of its tests fail). Either way an error that stops several assignments (the same
            module could not be loaded) is shown once, with the assignments it stops.
    """
    lines: list[str] = []
    withheld = result.withheld
    focus = result.focus()
    stops = {shared.error["detail"]: shared.assignments for shared in result.shared_load_errors()}
    shown: set[str] = set()  # the details of the load errors already shown
    briefly: list[Assignment] = []  # the assignments shown in one line (but those an error shown above stopped)
    for a in result.assignments:
        if a.id in withheld:
            lines += [f"{a.title}: not checked. The grader itself failed on this machine (not your code): "
                      f"{withheld[a.id]}", ""]
            continue
        errors = result.load_errors(a)
        if (every or a is focus) and not (result.blocked(a) and errors and all(e["detail"] in shown for e in errors)):
            if lines and lines[-1]:
                lines.append("")
            lines += _details(result, a, stops, shown)
        else:
            above = result.blocked(a) and bool(errors) and all(e["detail"] in shown for e in errors)
            lines.append(_one_line(result, a, shown))
            shown.update(e["detail"] for e in errors)
            if not above:  # its details would show more than the error already shown
                briefly.append(a)
    if lines and lines[-1]:
        lines.append("")
    if withheld:
        lines.append("The self-check could not run completely because of a problem in the grader, not in your "
                     "code. Try `grader check --sandbox portable`, and tell your instructor what it printed.")
        return "\n".join(lines)
    failing = [a for a in briefly if not result.passing(a)]
    if failing and focus is not None and focus not in briefly:
        lines.append(f"Only {label(focus)} is shown in detail: see the others with `grader check -v` (all) or "
                     f"`grader check -a {failing[0].id}` (one).")
    if result.passed:
        lines.append("All public tests pass.")
    elif all(a.is_concept_check for a in result.assignments if not result.passing(a)):
        lines.append("Some answers are missing or not in their form (whether they are right is marked after the due "
                     "date).")
    else:
        lines.append("Some public tests fail (hidden tests check the same things on other inputs).")
    lines.append(total_line(result))
    return "\n".join(lines)


def _details(result: CheckResult, a: Assignment, stops: dict[str, tuple[str, ...]], shown: set[str]) -> list[str]:
    """An assignment in detail: its score, what stopped it (a load error shown before only named), its tasks, each
    failing test's feedback, and what the program printed. Adds the load errors it shows to ``shown``."""
    score, most = result.score(a)
    lines = [f"{a.title}: {points(score)} / {points(most)} public points"]
    loading = result.load_errors(a)
    loaded_problems = {e["problem"] for e in loading}
    lines += [f"  could not grade: {p}" for p in result.problems(a) if p not in loaded_problems]
    titles = {other.id: label(other) for other in result.assignments}
    also = []  # the other assignments each error shown here stops
    for error in loading:  # once, with where and why; the tests it stopped are not listed
        if error["detail"] in shown:
            lines.append(f"  could not grade: {headline(error['problem'])} (the error shown above)")
            continue
        shown.add(error["detail"])
        lines.append("  could not grade: " + error["detail"].replace("\n", "\n    "))
        others = [titles[aid] for aid in stops.get(error["detail"], ()) if aid != a.id]
        if others:
            also.append(f"  The same error stops {_listed(others)}: fix it, and their tests run again too.")
    lines += [f"  note: {note}" for note in result.notes(a)]
    tests = result.tests(a)
    skipped = result.not_run(a)
    if skipped == len(tests) and tests:
        return [*lines, "  None of the public tests could run: fix this first.", *also, ""]
    if skipped:
        lines.append(f"  {skipped} of the {len(tests)} public tests could not run: fix this first.")
    lines += also
    for task, (s, m) in sorted(result.tasks(a).items()):
        mark = "ok" if s == m else "  "
        lines.append(f"  {mark} task {task or '-'}: {points(s)} / {points(m)}")
    for view in views([t for t in tests if t["status"] != "passed" and not not_run(t)]):
        t = view.test
        lines.append(f"\n  ✗ {t['name']} ({points(t['score'])} / {points(t['max_score'])})")
        lines += [f"    {line}" for line in view.lines]
    printed = result.program_output(a).strip()
    if printed:  # the student's own print() calls: theirs, capped by the grader (output_kb)
        lines += ["", "  Your program printed (the last part, as the grader captured it):"]
        lines += [f"  | {line}" for line in printed.splitlines()[-MAX_PRINTED_LINES:]]
    return [*lines, ""]


def _one_line(result: CheckResult, a: Assignment, shown: set[str]) -> str:
    """An assignment in one line: its score, and what stopped it or how many of its public tests fail."""
    score, most = result.score(a)
    head = f"{a.title}: {points(score)} / {points(most)} public points"
    tests = result.tests(a)
    failing = sum(1 for t in tests if t["status"] != "passed")
    errors = result.load_errors(a)
    loaded = {e["problem"] for e in errors}
    known = list(dict.fromkeys(headline(e["problem"]) for e in errors if e["detail"] in shown))
    why = [headline(p) for p in result.problems(a) if p not in loaded]  # intake's: a missing file...
    why += [e["problem"] for e in errors if e["detail"] not in shown]  # the error, where and why, in one line
    why += [f"{'; '.join(known)} (the error above)"] if known else []
    if result.blocked(a):
        return f"{head}: not run: {'; '.join(why) or 'no test could run'}"
    if not failing:
        return f"{head}: all {len(tests)} public tests pass"
    skipped = result.not_run(a)
    return f"{head}: {failing} of {len(tests)} public tests fail" + (
        f" ({skipped} could not run: {'; '.join(why)})" if skipped and why else "")


def _listed(names: list[str]) -> str:
    """``A, B and C``."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + f" and {names[-1]}"


MAX_PRINTED_LINES = 20
"""Most lines of a student's own printed output shown per assignment by ``grader check``."""


def total_line(result: CheckResult) -> str:
    """The last line of a self-check: the total, and what to do next: the first task (in course order) with public
    points lost, or what stopped the first assignment not passing yet from being loaded."""
    total = sum(result.score(a)[0] for a in result.assignments)
    most = sum(result.score(a)[1] for a in result.assignments)
    line = f"Total: {points(total)} / {points(most)} public points"
    focus = result.focus()
    if focus is not None and (result.not_run(focus) or result.blocked(focus)):
        problems = [e["problem"] for e in result.load_errors(focus)] or result.problems(focus)
        if problems:
            return f"{line}; next: {headline(problems[0])} (see above)"
    for a in result.assignments:
        for task, (s, m) in sorted(result.tasks(a).items()):
            if s < m:
                return f"{line}; next: task {task or '-'} of {a.title}"
    return line


def as_json(result: CheckResult) -> str:
    """The self-check as JSON: every assignment with every test, and each load error once (``load_errors``, with
    the ids of the assignments it stopped; each assignment's ``load_errors`` still lists its own)."""
    assignments: dict[str, Any] = {}
    doc = {"passed": result.passed, "assignments": assignments,
           "load_errors": [{**shared.error, "assignments": list(shared.assignments)}
                           for shared in result.shared_load_errors()]}
    for a in result.assignments:
        score, most = result.score(a)
        assignments[a.id] = {
            "title": a.title, "score": score, "max_score": most, "problems": result.problems(a),
            "load_errors": result.load_errors(a),
            "grader_error": result.withheld.get(a.id, ""),
            "tasks": {task: {"score": s, "max_score": m} for task, (s, m) in result.tasks(a).items()},
            "tests": [{k: t.get(k) for k in ("name", "number", "score", "max_score", "status", "output")}
                      for t in result.tests(a)],
        }
    return json.dumps(doc, indent=2).replace(LEGACY_COMMAND, "##\\u005b")  # the same data, no command in a CI log


_LINE_COLONS = re.compile(r"(?<![^\r\n])([^\S\r\n]*):")
"""A line's leading ``:``, after its whitespace; a line ends at CR, LF or CRLF, as the runner reads them."""


def xml_actions_log(xml: str) -> str:
    """XML text as the same document with no line a GitHub Actions runner obeys (a JUnit report printed in a
    workflow log): ``##[`` written ``##&#91;``, and a line's leading ``:`` written ``&#58;`` (character references,
    which every XML reader reads back as the characters)."""
    return _LINE_COLONS.sub(r"\1&#58;", xml.replace(LEGACY_COMMAND, "##&#91;"))


def junit(suites: Iterable[tuple[str, list[dict[str, Any]]]]) -> str:
    """JUnit XML for ``(suite name, results.json tests)`` pairs."""
    root = ET.Element("testsuites")
    for name, tests in suites:
        failures = sum(1 for t in tests if t["status"] != "passed")
        name = xml_text(name)  # a suite's name holds the student id; messages hold what the program said
        suite = ET.SubElement(root, "testsuite", name=name, tests=str(len(tests)), failures=str(failures), errors="0")
        for t in tests:
            case = ET.SubElement(suite, "testcase", classname=name, name=xml_text(t["name"]))
            ET.SubElement(case, "properties").extend([
                ET.Element("property", name="score", value=points(t["score"])),
                ET.Element("property", name="max_score", value=points(t["max_score"])),
            ])
            if t["status"] != "passed":
                output = xml_text(t["output"])
                failure = ET.SubElement(case, "failure", message=(output.splitlines() or ["failed"])[0][:300])
                failure.text = output
    ET.indent(root)
    return xml_actions_log(ET.tostring(root, encoding="unicode", xml_declaration=True))


def check_junit(result: CheckResult) -> str:
    """JUnit XML of a self-check: one ``testsuite`` per assignment, every test in it. A test that could not run
    because the code could not be loaded carries that error (a JUnit viewer shows each test on its own)."""
    suites = []
    for a in result.assignments:
        errors = result.load_errors(a)
        loaded = "\n".join([f"{NOT_RUN_IN_JUNIT} {'; '.join(e['problem'] for e in errors)}",
                            *(e["detail"] for e in errors)])
        suites.append((a.id, [{**t, "output": loaded} if not_run(t) and errors else t for t in result.tests(a)]))
    return junit(suites)


NOT_RUN_IN_JUNIT = "Not run (your code could not be loaded):"
"""How a test's JUnit failure starts when the code could not be loaded (the error's one line, then its detail)."""


def _escape(message: str) -> str:
    """Escape a workflow command's message: the runner's data escapes (``%``, CR and LF; ``UnescapeData`` in
    actions/runner's ``ActionCommand.cs``), so the message stays on the command's one line."""
    return message.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(value: str) -> str:
    """Escape a workflow command's property (a title, a file): the data escapes, and ``:`` and ``,`` (which would end
    the properties or start another; ``UnescapeProperty``)."""
    return _escape(value).replace(":", "%3A").replace(",", "%2C")


def _annotation(title: str, message: str) -> str:
    """An ``::error`` workflow command: at the student's file and line when ``message`` names them (:data:`WHERE`)."""
    where = WHERE.search(message)
    location = f"file={_escape_property(where.group(1))},line={_escape_property(where.group(2))}," if where else ""
    return f"::error {location}title={_escape_property(title)}::{_escape(message)}"


def github(result: CheckResult, env: dict[str, str] | None = None, every: bool = True) -> str:
    """Annotations (returned, for stdout), then the text report (:func:`text`, ``every`` as there); the job summary
    appended to ``$GITHUB_STEP_SUMMARY`` when ``env`` names it.

    An error that stopped several assignments is one annotation, titled with the assignments it stopped. The
    annotations are the only workflow commands the runner obeys: each is one line (its student text escaped as
    GitHub documents), and the report after them, which holds what the student's code said, is made inert and
    fenced between ``::stop-commands::TOKEN`` and ``::TOKEN::`` (:func:`grader.inert.actions_fence`).
    """
    env = dict(os.environ) if env is None else env
    lines = []
    for shared in result.shared_load_errors():  # once, where the error is; not once per test or assignment
        title = f"{', '.join(shared.assignments)}: your code could not be loaded"
        lines.append(_annotation(title, shared.error["detail"]))
    for a in result.assignments:
        for t in result.tests(a):
            if t["status"] == "passed" or not_run(t):
                continue
            lines.append(_annotation(f"{a.id}: {t['name']}", t["output"] or "failed"))
    if env.get("GITHUB_STEP_SUMMARY"):
        with open(env["GITHUB_STEP_SUMMARY"], "a", encoding="utf-8") as f:
            f.write(summary_markdown(result))
    lines += actions_fence(terminal(text(result, every)))  # the token drawn now, after every worker has ended
    return shown("\n".join(lines))  # the annotations are the grader's commands: escaped, not marked


def summary_markdown(result: CheckResult) -> str:
    """The job summary: each error that stopped code from loading once (with the assignments it stopped), then a
    table per assignment (one line for an assignment none of whose tests could run) and the feedback of failing
    tests."""
    out = [f"## {package_of(result)} self-check", ""]
    titles = {a.id: label(a) for a in result.assignments}
    for shared in result.shared_load_errors():
        stopped = ", ".join(titles[aid] for aid in shared.assignments)
        out += [f"**Your code could not be loaded** (this stops {markdown(stopped)}):", "",
                *fence(terminal(shared.error["detail"])), ""]
    for a in result.assignments:
        score, most = result.score(a)
        out += [f"### {a.title}: {points(score)} / {points(most)}", ""]
        errors = result.load_errors(a)
        if result.blocked(a) and errors:
            stopped = "; ".join(dict.fromkeys(headline(e["problem"]) for e in errors))
            out += [f"Not run: {markdown(stopped)} (the error above).", ""]
            continue
        out += ["| test | task | points |", "| --- | --- | --- |"]
        for t in result.tests(a):
            mark = "✅" if t["status"] == "passed" else "❌"
            out.append(f"| {mark} {t['name']} | {t.get('number', '')} | {points(t['score'])} / {points(t['max_score'])} |")
        out.append("")
        for t in result.tests(a):
            if t["status"] != "passed" and not not_run(t):
                out += [f"<details><summary>{markdown(t['name'])}</summary>", "", *fence(terminal(t["output"])),
                        "</details>", ""]
    return "\n".join(out) + "\n"


def write_grade_junit(path: Path, assignments: list[Assignment], store: ResultStore, students: list[str]) -> None:
    """JUnit XML of a whole class: one ``testsuite`` per (assignment, student)."""
    suites = []
    for a in assignments:
        for s in students:
            result = store.get(a.id, s)
            suites.append((f"{a.id}.{s}", [t for t in result.document["tests"] if is_test(t)] if result else []))
    path.write_text(junit(suites), encoding="utf-8")
