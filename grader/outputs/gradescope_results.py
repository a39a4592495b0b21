"""Gradescope's ``results.json`` document of one submission, and the summary students see first.

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

from typing import Any

from grader import __version__
from grader.course.config import Assignment
from grader.course.due_dates import LateTerms, final_score
from grader.outputs.failures import not_run
from grader.outputs.feedback import built_on, late_sentence, likely_causes, start_here, task_scores
from grader.outputs.records import JudgeRecord, Stamp, problems, program_output, record_load_errors, score_of, withheld
from grader.sandbox.protocol import layer_text


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
    raw, _ = score_of(record)
    error = withheld(record)
    late = stamp["late"] if stamp else None
    taken, score = final_score(late, raw, assignment.points) if late is not None and not error else (0.0, raw)
    output = ["\n".join(summary_lines(assignment, record, late))]
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
                           **({"uses": t["uses"]} if "uses" in t else {}),
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
                **({"late": {**late, "raw_score": raw, "penalty_points": taken, "final_score": score,
                             "applied": not error}} if late is not None else {}),
                "problems": problems(record),
                "load_errors": record_load_errors(record),
                "isolation": {layer: layer_text(s) for layer, s in (record.get("isolation") or {}).items()},
                "program_output": excerpt,
                "notes": [str(n) for n in record.get("notes", [])],
                **({"grader_error": error} if error else {}),
            }
        },
    }


def summary_lines(assignment: Assignment, record: JudgeRecord, late: LateTerms | None = None) -> list[str]:
    """The plain-text summary students see first on Gradescope (its top-level ``output``, visible at once): the score,
    the score of each task, the due date and what the late policy did (``late``), and "Start here".

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
    if late is not None:  # with tests not visible yet, the score after the penalty would reveal theirs
        lines.append(late_sentence(late, *score_of(record)[:1], assignment.points, "") if len(tests) == len(every)
                     else " ".join(s for s in (late["extension"], late["sentence"]) if s))
    tasks = task_scores(tests)
    if any(tasks):
        lines.append(f"Tasks{seen}: " + ", ".join(f"{task or '-'} {round(s, 2):g}/{m:g}{'' if s < m else ' ✓'}"
                                           for task, (s, m) in sorted(tasks.items())) + ".")
    failed = [t for t in tests if t["status"] != "passed" and not not_run(t)]
    uses = built_on(failed, assignment.uses)
    lines += start_here(likely_causes(failed, uses), plain=True, uses=uses)
    if failed:
        lines.append("Each failing test below says what went wrong and how to fix it.")
    return lines
