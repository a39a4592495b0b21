"""Per-submission outputs: Gradescope ``results.json`` and ``feedback.md``.

The input is the judge's record of one submission on one assignment (see
:meth:`grader.judge.submission_run.SubmissionRun.finish`): the tests' results, the
intake error if any, import errors and a capped excerpt of what the program
printed. The output follows Gradescope's autograder results specification
(``results.json``: top-level ``score``, ``execution_time``, ``output``,
``tests[]`` with ``name``, ``number``, ``score``, ``max_score``, ``status``,
``output``, ``visibility``, ``tags``).

Only student-facing text is written: test titles and failure messages, never
a test's source; the program's own output only as a capped, marked excerpt.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from grader import __version__
from grader.course.config import Assignment
from grader.files import write_atomic
from grader.intake.cellmap import failed_import, where_text
from grader.outputs.inert import code_span, fence, markdown, terminal
from grader.outputs.records import JudgeRecord
from grader.testing.outcomes import describe_error

OUTPUT_EXCERPT = 2000
"""Characters of the program's own output quoted in feedback."""


def problems(record: Mapping[str, Any]) -> list[str]:
    """One-line reasons why (part of) the submission could not be graded."""
    reasons = []
    if record.get("error"):
        reasons.append(str(record["error"]))
    failed_files: set[str] = set()
    for module, error in (record.get("imports") or {}).items():
        if error:
            where = error.get("where") or {}
            own = module.replace(".", "/") + ".py"
            if isinstance(where, dict) and where.get("file") in failed_files and where.get("file") != own:
                continue  # e.g. nn.py failing only because engine.py does: reported once
            failed_files.add(own)
            first = describe_error(error).splitlines()
            at = f" ({where_text(where)})" if isinstance(where, dict) and where else ""
            reasons.append(f"{failed_import(module, error)}: {first[0]}{at}")
    if record.get("startup"):
        reasons.append(str(record["startup"]))
    return reasons


def withheld(record: Mapping[str, Any]) -> str:
    """Why the score of a judge record or results.json document is withheld ("" when it is not).

    A score is withheld when the grader's own machinery failed (the sandbox
    could not be set up, an internal error in a test, a judge that died):
    such a result is never counted, as 0 or otherwise, and a re-run grades
    the submission again.
    """
    reason = record.get("grader_error") or grader_data(record).get("grader_error")
    if not reason:
        reason = next((t.get("grader_error") for t in record.get("tests", []) if isinstance(t, dict)
                       and t.get("grader_error")), "")
    return str(reason or "")


def score_of(record: Mapping[str, Any]) -> tuple[float, float]:
    """(score, max score) summed over the tests of a judge record or a results.json document."""
    tests = record.get("tests", [])
    return round(sum(t["score"] for t in tests), 4), round(sum(t["max_score"] for t in tests), 4)


def program_output(record: Mapping[str, Any]) -> str:
    """A capped excerpt of what the program printed, or ""."""
    text = str(record.get("program_output") or "").strip()
    if len(text) > OUTPUT_EXCERPT:
        text = "..." + text[-OUTPUT_EXCERPT:]
    return text


def gradescope_results(assignment: Assignment, record: JudgeRecord, fingerprint: str = "") -> dict[str, Any]:
    """The Gradescope ``results.json`` document for one submission.

    ``extra_data.grader`` (Gradescope keeps ``extra_data`` without showing it)
    holds what the grader needs to resume a class and rebuild the gradebook:
    the submission's ``fingerprint``, the one-line ``problems``, intake's
    ``notes``, the sandbox ``isolation`` layers that were active, and the capped excerpt of what the
    program printed (``program_output``): it is kept out of the top-level
    ``output``, which Gradescope shows students at once, because code can
    print the inputs of hidden tests (``feedback.md``, released when the
    instructor chooses, shows it).
    """
    score, max_score = score_of(record)
    error = withheld(record)
    if error:
        output = [f"{assignment.title}: score withheld. The grader could not grade this submission because of a "
                  f"problem in the grader, not in your code ({error}); your instructor will grade it again."]
    else:
        output = [f"{assignment.title}: {round(score, 2):g} / {max_score:g} points."]
    output += [f"Could not grade: {p}" for p in problems(record)]
    output += [f"Note: {n}" for n in record.get("notes", [])]
    excerpt = program_output(record)  # may echo hidden tests' inputs: never in the top-level output students see
    tests = []
    for t in record.get("tests", []):
        test = {
            "name": t["name"],
            "score": t["score"],
            "max_score": t["max_score"],
            "status": t["status"],
            "output": t["output"],
            "visibility": t["visibility"],
            "tags": [f"task {t['task']}"] if t.get("task") else [],
            "extra_data": {"key": t.get("key", ""), "methods": t.get("methods", []),
                           "about": t.get("about", []), "hints": t.get("hints", []),
                           "duration": t.get("duration", 0),
                           **({"grader_error": t["grader_error"]} if t.get("grader_error") else {})},
        }
        if t.get("task"):
            test["number"] = t["task"]
        tests.append(test)
    return {
        **({} if error else {"score": score}),  # withheld: no score at all (Gradescope then sums nothing we vouch for)
        "execution_time": record.get("execution_time", 0.0),
        "output": "\n\n".join(output),
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": tests,
        "extra_data": {
            "grader": {
                "version": __version__,
                "fingerprint": fingerprint,
                "problems": problems(record),
                "isolation": record.get("isolation") or {},
                "program_output": excerpt,
                "notes": [str(n) for n in record.get("notes", [])],
                **({"grader_error": error} if error else {}),
            }
        },
    }


def likely_causes(failed: Sequence[Mapping[str, Any]]) -> list[tuple[str, int]]:
    """Methods named by failing tests, most often named first (ties: first named first)."""
    counts: dict[str, int] = {}
    for t in failed:
        for method in t.get("methods", []):
            counts[method] = counts.get(method, 0) + 1
    return sorted(counts.items(), key=lambda kv: -kv[1])


def feedback_markdown(assignment: Assignment, student: str, record: JudgeRecord) -> str:
    """A readable Markdown feedback page for one submission."""
    score, max_score = score_of(record)
    error = withheld(record)
    shown = "score withheld (grader error)" if error else f"{round(score, 2):g} / {max_score:g} points"
    lines = [f"# {assignment.title}", "", f"Student: {code_span(student)} — **{shown}**", ""]
    if error:
        lines += [f"> **Grader error, not your code:** {markdown(error)}. Your score is withheld until your "
                  "instructor grades this submission again.", ""]
    for problem in problems(record):
        lines += [f"> **Could not grade:** {markdown(problem)}", ""]
    for note in record.get("notes", []):
        lines += [f"> Note: {markdown(str(note))}", ""]
    failed = [t for t in record.get("tests", []) if t["status"] != "passed"]
    passed = [t for t in record.get("tests", []) if t["status"] == "passed"]
    causes = likely_causes(failed)
    if causes:
        first, count = causes[0]
        lines += ["## Start here", "",
                  f"{count} of the failing tests point to `{first}`: fix it first, the others may follow."]
        if len(causes) > 1:
            lines.append("Then: " + ", ".join(f"`{m}` ({n})" for m, n in causes[1:4]) + ".")
        lines.append("")
        rank = {m: i for i, (m, _) in enumerate(causes)}
        failed.sort(key=lambda t: min((rank[m] for m in t.get("methods", []) if m in rank), default=len(rank)))
    if failed:
        lines += ["## What to fix", ""]
        for t in failed:
            task = f" (task {t['task']})" if t.get("task") else ""
            lines += [f"### ✗ {t['name']}{task}: {round(t['score'], 2):g} / {t['max_score']:g}", ""]
            if t["output"]:
                lines += [*fence(t["output"]), ""]
    if passed:
        lines += ["## Passed", ""]
        lines += [f"- ✓ {t['name']} ({t['max_score']:g} / {t['max_score']:g})" for t in passed]
        lines.append("")
    excerpt = program_output(record)
    if excerpt:
        lines += ["## Your program's own output", "", "(the last part of what your code printed)", "",
                  *fence(terminal(excerpt)), ""]
    return "\n".join(lines)


def write_submission(out: Path, assignment: Assignment, student: str, record: JudgeRecord, fingerprint: str = "") -> None:
    """Write ``out/<assignment>/<student>/results.json`` and ``feedback.md``.

    ``results.json`` is written last, so its presence means the pair is complete.
    """
    folder = out / assignment.id / student
    write_atomic(folder / "feedback.md", feedback_markdown(assignment, student, record))
    internal = [t for t in record.get("tests", []) if t.get("internal_error")]
    if internal:  # tracebacks quote hidden tests: kept out of the student's folder
        write_atomic(
            out / "_instructor" / "judge-errors" / f"{assignment.id}--{student}.log",
            "\n\n".join(f"{t['key']}\n{t['internal_error']}" for t in internal),
        )
    write_atomic(folder / "results.json", json.dumps(gradescope_results(assignment, record, fingerprint), indent=2))


def read_results(out: Path, assignment: Assignment, student: str) -> dict[str, Any] | None:
    """The results.json written for ``student``, or None if missing or unreadable."""
    try:
        doc = json.loads((out / assignment.id / student / "results.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) and isinstance(doc.get("tests"), list) else None


def grader_data(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The grader's own entry of a results.json's ``extra_data``."""
    data = (doc.get("extra_data") or {}).get("grader")
    return data if isinstance(data, dict) else {}
