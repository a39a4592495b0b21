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
from grader.inert import code_span, fence, markdown, terminal
from grader.outputs.failures import LoadError, load_errors, not_run, views
from grader.outputs.records import JudgeRecord, Stamp

OUTPUT_EXCERPT = 2000
"""Characters of the program's own output quoted in feedback."""


def record_load_errors(record: Mapping[str, Any]) -> list[LoadError]:
    """The modules of the submission that could not be loaded (:func:`grader.outputs.failures.load_errors`)."""
    return load_errors(record.get("imports") or {}, str(record.get("startup") or ""))


def problems(record: Mapping[str, Any]) -> list[str]:
    """One-line reasons why (part of) the submission could not be graded: intake's, then each module that could not
    be loaded (:func:`grader.outputs.failures.load_errors`)."""
    reasons = [str(record["error"])] if record.get("error") else []
    return reasons + [e["problem"] for e in record_load_errors(record)]


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


def gradescope_results(assignment: Assignment, record: JudgeRecord, stamp: Stamp | None = None) -> dict[str, Any]:
    """The Gradescope ``results.json`` document for one submission.

    ``extra_data.grader`` (Gradescope keeps ``extra_data`` without showing it)
    holds what the grader needs to resume a class and rebuild the gradebook:
    the submission's ``fingerprint`` and the ``course`` fingerprints it was graded with (the
    :class:`~grader.outputs.records.Stamp`), the git commit graded (``origin``), the one-line ``problems`` (and, for the
    modules that could not be loaded, ``load_errors`` with the detail a student
    needs), intake's ``notes``, the sandbox ``isolation`` layers that were active, and the capped excerpt of what the
    program printed (``program_output``): it is kept out of the top-level
    ``output``, which Gradescope shows students at once, because code can
    print the inputs of hidden tests (``feedback.md``, released when the
    instructor chooses, shows it).
    """
    score, _ = score_of(record)
    error = withheld(record)
    output = ["\n".join(summary_lines(assignment, record))]
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
                           **({"slowest_call": t["slowest_call"]} if t.get("slowest_call") else {}),
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
                "fingerprint": stamp["fingerprint"] if stamp else "",
                "course": stamp["course"] if stamp else {},
                **({"origin": stamp["origin"]} if stamp and stamp["origin"] else {}),
                "problems": problems(record),
                "load_errors": record_load_errors(record),
                "isolation": record.get("isolation") or {},
                "program_output": excerpt,
                "notes": [str(n) for n in record.get("notes", [])],
                **({"grader_error": error} if error else {}),
            }
        },
    }


def likely_causes(failed: Sequence[Mapping[str, Any]], uses: Mapping[str, Sequence[str]] | None = None
                  ) -> list[tuple[str, int]]:
    """Methods the failing tests attribute their failures to, most often first (ties: first named first), a method
    the handout builds from another failing one right after it (``a - b`` is ``a + (-b)``: fix ``__add__`` first),
    and a whole class (``MLP``, named by the tests that train the network) after every method. ``uses``: the
    handout's table of what each method is built from (:attr:`grader.course.config.Assignment.uses`)."""
    uses = uses or {}
    counts: dict[str, int] = {}
    for t in failed:
        for method in t.get("methods", []):
            counts[method] = counts.get(method, 0) + 1
    order: list[str] = []

    def place(method: str) -> None:
        for base in uses.get(method, ()):
            if base in counts and base not in order:
                place(base)
        if method not in order:
            order.append(method)

    # a whole class ("MLP": an integration test that trains the network) says less than a method: after them
    for method, _ in sorted(counts.items(), key=lambda kv: ("." not in kv[0], -kv[1])):
        place(method)
    return [(m, counts[m]) for m in order]


def start_here(causes: list[tuple[str, int]], plain: bool = False, uses: Mapping[str, Sequence[str]] | None = None
               ) -> list[str]:
    """The "Start here" section for the attributed ``causes``, or []: Markdown lines, or with ``plain`` text lines
    (Gradescope's top-level ``output``)."""
    if not causes:
        return []
    failing = {m for m, _ in causes}

    def code(method: str) -> str:
        return method if plain else f"`{method}`"

    def named(method: str, count: int) -> str:
        bases = [code(b) for b in (uses or {}).get(method, ()) if b in failing]
        return f"{code(method)} ({count}" + (f", built on {' and '.join(bases)}" if bases else "") + ")"

    first, count = causes[0]
    advice = (f"{count} of the failing tests {'points' if count == 1 else 'point'} to {code(first)}: "
              "fix it first, the others may follow.")
    then = ["Then: " + ", ".join(named(m, n) for m, n in causes[1:4]) + "."] if len(causes) > 1 else []
    if plain:
        return [f"Start here: {advice}", *then]
    return ["## Start here", "", advice, *then, ""]


def task_scores(tests: Sequence[Mapping[str, Any]]) -> dict[str, tuple[float, float]]:
    """Task number ("" for none) to (score, max score) summed over its tests, in the order tasks first appear."""
    tasks: dict[str, tuple[float, float]] = {}
    for t in tests:
        if not t.get("task") and not t["max_score"]:
            continue  # a contract test: no task, no points (it names what blocks the others)
        s, m = tasks.get(str(t.get("task") or ""), (0.0, 0.0))
        tasks[str(t.get("task") or "")] = (round(s + t["score"], 4), round(m + t["max_score"], 4))
    return tasks


def summary_lines(assignment: Assignment, record: JudgeRecord) -> list[str]:
    """The plain-text summary students see first on Gradescope (its top-level ``output``, visible at once): the score,
    the score of each task and "Start here".

    Everything in it is computed from the tests visible now (``visibility`` ``"visible"``): a test the instructor
    shows only after the due date (``after_due_date``, ``after_published``, ``hidden``) changes nothing in it, not even
    the score, so resubmitting cannot probe the hidden tests through it. When some tests are not visible, the score
    line is the visible tests' points, and says how many points the others are worth (the same for every student).
    """
    error = withheld(record)
    if error:
        return [f"{assignment.title}: score withheld. The grader could not grade this submission because of a "
                f"problem in the grader, not in your code ({error}); your instructor will grade it again."]
    every = record.get("tests", [])
    tests = [t for t in every if t.get("visibility", "visible") == "visible"]
    if len(tests) == len(every):
        score, max_score = score_of(record)
        lines = [f"{assignment.title}: {round(score, 2):g} / {max_score:g} points."]
        seen = ""
    else:
        score, max_score = sum(t["score"] for t in tests), sum(t["max_score"] for t in tests)
        later = sum(t["max_score"] for t in every) - max_score
        lines = [f"{assignment.title}: {round(score, 2):g} / {max_score:g} points in the tests you can see now; the "
                 f"other {round(later, 2):g} points are tests you will see after the due date."]
        seen = " (the tests you can see now)"
    tasks = task_scores(tests)
    if any(tasks):
        lines.append(f"Tasks{seen}: " + ", ".join(f"{task or '-'} {round(s, 2):g}/{m:g}{'' if s < m else ' ✓'}"
                                           for task, (s, m) in sorted(tasks.items())) + ".")
    failed = [t for t in tests if t["status"] != "passed" and not not_run(t)]
    lines += start_here(likely_causes(failed, assignment.uses), plain=True, uses=assignment.uses)
    if failed:
        lines.append("Each failing test below says what went wrong and how to fix it.")
    return lines


def could_not_load(record: Mapping[str, Any]) -> list[str]:
    """Why the submission (or part of it) could not be graded, each cause once (Markdown lines)."""
    lines = [f"> **Could not grade:** {markdown(str(record['error']))}", ""] if record.get("error") else []
    tests = record.get("tests", [])
    skipped = sum(1 for t in tests if not_run(t))
    if not skipped:
        effect = ""
    elif skipped == len(tests):
        effect = ", so none of the tests could run"
    else:
        effect = f", so {skipped} of the {len(tests)} tests could not run"
    for error in record_load_errors(record):
        lines += [f"> **Could not grade:** your code could not be loaded{effect}. Fix this first:", "",
                  *fence(terminal(error["detail"])), ""]
    return lines


def feedback_markdown(assignment: Assignment, student: str, record: JudgeRecord) -> str:
    """A readable Markdown feedback page for one submission.

    Code that could not be loaded is reported once, with where and why, and the tests it kept from running are not
    listed; "Start here" names the method most failures are attributed to; an error met in several tests is shown
    once (:func:`grader.outputs.failures.views`).
    """
    score, max_score = score_of(record)
    error = withheld(record)
    shown = "score withheld (grader error)" if error else f"{round(score, 2):g} / {max_score:g} points"
    lines = [f"# {assignment.title}", "", f"Student: {code_span(student)} — **{shown}**", ""]
    if error:
        lines += [f"> **Grader error, not your code:** {markdown(error)}. Your score is withheld until your "
                  "instructor grades this submission again.", ""]
    lines += could_not_load(record)
    for note in record.get("notes", []):
        lines += [f"> Note: {markdown(str(note))}", ""]
    ran = [t for t in record.get("tests", []) if not not_run(t)]
    failed = [t for t in ran if t["status"] != "passed"]
    passed = [t for t in ran if t["status"] == "passed"]
    causes = likely_causes(failed, assignment.uses)
    lines += start_here(causes, uses=assignment.uses)
    rank = {m: i for i, (m, _) in enumerate(causes)}
    failed.sort(key=lambda t: min((rank[m] for m in t.get("methods", []) if m in rank), default=len(rank)))
    if failed:
        lines += ["## What to fix", ""]
        for view in views(failed):
            t = view.test
            task = f" (task {t['task']})" if t.get("task") else ""
            lines += [f"### ✗ {t['name']}{task}: {round(t['score'], 2):g} / {t['max_score']:g}", ""]
            if view.lines:
                lines += [*fence(terminal("\n".join(view.lines))), ""]
    if passed:
        lines += ["## Passed", ""]
        lines += [f"- ✓ {t['name']} ({t['max_score']:g} / {t['max_score']:g})" for t in passed]
        lines.append("")
    excerpt = program_output(record)
    if excerpt and ran:
        lines += ["## Your program's own output", "", "(the last part of what your code printed)", "",
                  *fence(terminal(excerpt)), ""]
    return "\n".join(lines)


def write_submission(out: Path, assignment: Assignment, student: str, record: JudgeRecord,
                     stamp: Stamp | None = None) -> None:
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
    write_atomic(folder / "results.json", json.dumps(gradescope_results(assignment, record, stamp), indent=2))


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
