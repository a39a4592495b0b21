"""A student's feedback page, ``feedback.md``, and the "Start here" advice it shares with Gradescope's summary.

The input is the judge's record of one submission on one assignment
(:class:`grader.outputs.records.JudgeRecord`). Code that could not be loaded is
reported once, "Start here" names the method most failures are attributed to,
and every text that came from the submission is made inert for Markdown
(:mod:`grader.inert`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from grader.course.config import Assignment
from grader.course.due_dates import LateTerms, final_score
from grader.inert import code_span, fence, markdown, terminal
from grader.outputs.failures import not_run, views
from grader.outputs.records import JudgeRecord, program_output, record_load_errors, score_of, withheld

MAX_PASSED_NOTES = 3
"""Lines of a passed test's output (the grader's notes on it) shown under it."""


def built_on(failed: Sequence[Mapping[str, Any]], table: Mapping[str, Sequence[str]]) -> dict[str, tuple[str, ...]]:
    """What each method is built on in this submission, as its failing tests found it: each test's own ``uses``
    (a test drops a base the student's method does not use: a ``to_dot`` that never calls ``_escape`` is not built
    on it, and fixing ``_escape`` fixes none of its failures), else, for a test recorded without them, the handout's
    ``table`` for the methods it names."""
    found: dict[str, list[str]] = {}
    for t in failed:
        declared = t.get("uses")
        pairs = (declared.items() if isinstance(declared, Mapping)
                 else [(m, table.get(m, ())) for m in t.get("methods", []) if isinstance(m, str)])
        for method, bases in pairs:
            if isinstance(method, str) and isinstance(bases, (list, tuple)):
                found.setdefault(method, [])
                found[method] += [b for b in bases if isinstance(b, str) and b not in found[method]]
    return {m: tuple(b) for m, b in found.items() if b}


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


def late_sentence(late: LateTerms | None, raw: float, points: float, error: str) -> str:
    """The due date and what the late policy did to this score, in plain text ("" without a due date); ``raw``:
    the tests' points, ``points``: what the assignment is worth, ``error``: why the score is withheld, if it is."""
    if late is None:
        return ""
    said = [late["extension"], late["sentence"]]
    taken, final = final_score(late, raw, points)
    if error:
        said.append("No penalty is applied to a withheld score.")
    elif taken:
        said.append(f"Score after the penalty: {round(final, 2):g} / {points:g} ({round(raw, 2):g} before).")
    said.append(f"Late policy: {late['policy']}")
    return " ".join(s for s in said if s)


def feedback_markdown(assignment: Assignment, student: str, record: JudgeRecord, late: LateTerms | None = None
                      ) -> str:
    """A readable Markdown feedback page for one submission (``late``: what its due date and the late policy made
    of it, when the assignment has a due date).

    Code that could not be loaded is reported once, with where and why, and the tests it kept from running are not
    listed; "Start here" names the method most failures are attributed to; an error met in several tests is shown
    once (:func:`grader.outputs.failures.views`).
    """
    score, max_score = score_of(record)
    error = withheld(record)
    final = final_score(late, score, assignment.points)[1] if late is not None else score
    shown = "score withheld (grader error)" if error else f"{round(final, 2):g} / {max_score:g} points"
    lines = [f"# {assignment.title}", "", f"Student: {code_span(student)} — **{shown}**", ""]
    if error:
        lines += [f"> **Grader error, not your code:** {markdown(error)}. Your score is withheld until your "
                  "instructor grades this submission again.", ""]
    if late is not None:
        lines += [f"> **Due date:** {markdown(late_sentence(late, score, assignment.points, error))}", ""]
    lines += could_not_load(record)
    for note in record.get("notes", []):
        lines += [f"> Note: {markdown(str(note))}", ""]
    ran = [t for t in record.get("tests", []) if not not_run(t)]
    failed = [t for t in ran if t["status"] != "passed"]
    passed = [t for t in ran if t["status"] == "passed"]
    uses = built_on(failed, assignment.uses)
    causes = likely_causes(failed, uses)
    lines += start_here(causes, uses=uses)
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
        for t in passed:
            lines.append(f"- ✓ {t['name']} ({t['max_score']:g} / {t['max_score']:g})")
            lines += [f"  - {markdown(line)}" for line in str(t.get("output") or "").splitlines()[:MAX_PASSED_NOTES]]
        lines.append("")
    excerpt = program_output(record)
    if excerpt and ran:
        lines += ["## Your program's own output", "", "(the last part of what your code printed)", "",
                  *fence(terminal(excerpt)), ""]
    return "\n".join(lines)
