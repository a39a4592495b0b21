"""Output formats of ``grader check`` (and JUnit for ``grader grade``).

* ``text``: per-assignment and per-task scores, then each failing test's
  teaching feedback;
* ``json``: the same as data;
* ``junit``: JUnit XML (one ``testsuite`` per assignment), read by most CI systems;
* ``github``: for GitHub Actions: an ``::error`` annotation per failing test
  (at the student's line when the failure is an exception in their code) and
  a Markdown job summary appended to ``$GITHUB_STEP_SUMMARY``. It no longer
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
from grader.inert import fence, markdown, terminal, xml_text
from grader.outputs.failures import not_run, views
from grader.outputs.gradebook import points
from grader.outputs.self_check import CheckResult
from grader.outputs.store import ResultStore

WHERE = re.compile(r"at (micrograd/\w+\.py) line (\d+)")


def text(result: CheckResult) -> str:
    """Human-readable self-check report."""
    lines = []
    withheld = result.withheld
    for a in result.assignments:
        if a.id in withheld:
            lines += [f"{a.title}: not checked. The grader itself failed on this machine (not your code): "
                      f"{withheld[a.id]}", ""]
            continue
        score, most = result.score(a)
        lines.append(f"{a.title}: {points(score)} / {points(most)} public points")
        loading = result.load_errors(a)
        loaded_problems = {e["problem"] for e in loading}
        lines += [f"  could not grade: {p}" for p in result.problems(a) if p not in loaded_problems]
        for error in loading:  # once per assignment, with where and why; the tests it stopped are not listed
            lines.append("  could not grade: " + error["detail"].replace("\n", "\n    "))
        lines += [f"  note: {note}" for note in result.notes(a)]
        tests = result.tests(a)
        skipped = sum(1 for t in tests if not_run(t))
        if skipped == len(tests) and tests:
            lines += ["  None of the public tests could run: fix this first.", ""]
            continue
        if skipped:
            lines.append(f"  {skipped} of the {len(tests)} public tests could not run: fix this first.")
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
        lines.append("")
    if withheld:
        lines.append("The self-check could not run completely because of a problem in the grader, not in your "
                     "code. Try `grader check --sandbox portable`, and tell your instructor what it printed.")
        return "\n".join(lines)
    lines.append("All public tests pass." if result.passed else
                 "Some public tests fail (hidden tests check the same things on other inputs).")
    lines.append(total_line(result))
    return "\n".join(lines)


MAX_PRINTED_LINES = 20
"""Most lines of a student's own printed output shown per assignment by ``grader check``."""


def total_line(result: CheckResult) -> str:
    """The last line of a self-check: the total, and the first task (in course order) with public points lost."""
    total = sum(result.score(a)[0] for a in result.assignments)
    most = sum(result.score(a)[1] for a in result.assignments)
    line = f"Total: {points(total)} / {points(most)} public points"
    for a in result.assignments:
        for task, (s, m) in sorted(result.tasks(a).items()):
            if s < m:
                return f"{line}; next: task {task or '-'} of {a.title}"
    return line


def as_json(result: CheckResult) -> str:
    """The self-check as JSON."""
    assignments: dict[str, Any] = {}
    doc = {"passed": result.passed, "assignments": assignments}
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
    return json.dumps(doc, indent=2)


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
    return ET.tostring(root, encoding="unicode", xml_declaration=True)


def check_junit(result: CheckResult) -> str:
    return junit((a.id, result.tests(a)) for a in result.assignments)


def _escape(message: str) -> str:
    """Escape a workflow-command message (GitHub's rules for %, CR and LF)."""
    return message.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(value: str) -> str:
    return _escape(value).replace(":", "%3A").replace(",", "%2C")


def github(result: CheckResult, env: dict[str, str] | None = None) -> str:
    """Annotations (returned, for stdout); the job summary appended to ``$GITHUB_STEP_SUMMARY`` when ``env`` names it."""
    env = dict(os.environ) if env is None else env
    lines = []
    for a in result.assignments:
        for error in result.load_errors(a):  # once, where the error is; not once per test it stopped
            where = WHERE.search(error["detail"])
            location = f"file={where.group(1)},line={where.group(2)}," if where else ""
            title = _escape_property(f"{a.id}: your code could not be loaded")
            lines.append(f"::error {location}title={title}::{_escape(error['detail'])}")
        for t in result.tests(a):
            if t["status"] == "passed" or not_run(t):
                continue
            where = WHERE.search(t["output"])
            location = f"file={where.group(1)},line={where.group(2)}," if where else ""
            title = _escape_property(f"{a.id}: {t['name']}")
            lines.append(f"::error {location}title={title}::{_escape(t['output'] or 'failed')}")
    if env.get("GITHUB_STEP_SUMMARY"):
        with open(env["GITHUB_STEP_SUMMARY"], "a", encoding="utf-8") as f:
            f.write(summary_markdown(result))
    lines.append(text(result))
    return "\n".join(lines)


def summary_markdown(result: CheckResult) -> str:
    """The job summary: a table per assignment and the feedback of failing tests."""
    out = ["## micrograd self-check", ""]
    for a in result.assignments:
        score, most = result.score(a)
        out += [f"### {a.title}: {points(score)} / {points(most)}", "", "| test | task | points |", "| --- | --- | --- |"]
        for t in result.tests(a):
            mark = "✅" if t["status"] == "passed" else "❌"
            out.append(f"| {mark} {t['name']} | {t.get('number', '')} | {points(t['score'])} / {points(t['max_score'])} |")
        out.append("")
        for error in result.load_errors(a):
            out += ["**Your code could not be loaded:**", "", *fence(terminal(error["detail"])), ""]
        for t in result.tests(a):
            if t["status"] != "passed" and not not_run(t):
                out += [f"<details><summary>{markdown(t['name'])}</summary>", "", *fence(t["output"]), "</details>", ""]
    return "\n".join(out) + "\n"


def write_grade_junit(path: Path, assignments: list[Assignment], store: ResultStore, students: list[str]) -> None:
    """JUnit XML of a whole class: one ``testsuite`` per (assignment, student)."""
    suites = []
    for a in assignments:
        for s in students:
            result = store.get(a.id, s)
            suites.append((f"{a.id}.{s}", [t for t in result.document["tests"] if isinstance(t, dict)] if result else []))
    path.write_text(junit(suites), encoding="utf-8")
