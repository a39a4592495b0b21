"""Classroom 50 output of ``grader check --format classroom50``: ``result.json`` and ``release-body.md``.

Classroom 50 (github.com/foundation50/classroom50), which replaced GitHub Classroom, runs a teacher's
``autograder.py`` in the student's checkout with the submission named in the environment (``CLASSROOM``,
``ASSIGNMENT``, ``SUBMISSION_TAG``, ``OWNER``/``USERNAME``, ``ASSIGNMENT_TYPE``, ``COMMIT_URL``, ``RELEASE_URL``,
``REVIEW_URL``, GitHub's ``GITHUB_SHA``). The autograder writes ``./result.json`` and may write ``./release-body.md``
(shown on the submission's GitHub Release); it exits 0 whenever grading ran, and non-zero only when grading itself
failed (the runner then records an error, never a score).

``result.json`` follows ``classroom50/result/v1`` as its schema (``schemas/result-v1.schema.json``) and the runner's
``validate_result`` (``cli/gh-teacher/skeleton/dotgithub/scripts/runner.py``) define it; :func:`validate` restates
that contract in plain Python (no jsonschema, none of Classroom 50's GPL-3.0 code): no extra top-level keys, non-empty
identity strings and links, ``submission`` under ``submit/``, ``YYYY-MM-DDTHH:MM:SSZ`` times, whole non-negative
points that are not booleans, no score above its maximum. The runner overwrites ``owner``, ``assignment_type``,
``datetime``, ``graded_at`` and ``submitted_by`` itself; they are filled here so a local run is valid too. Points
are made whole by :func:`integer_points`.
"""

from __future__ import annotations

import html
import json
import math
import os
import re
import subprocess
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from grader.errors import GraderError, WithheldError
from grader.files import write_atomic
from grader.inert import fence, markdown, terminal
from grader.outputs.failures import NOT_RUN, not_run, views
from grader.outputs.feedback import built_on, likely_causes, start_here
from grader.outputs.gradebook import points
from grader.outputs.self_check import CheckResult, headline, label, package_of

SCHEMA = "classroom50/result/v1"
RESULT_FILE = "result.json"
BODY_FILE = "release-body.md"
MAX_ENV = 200  # characters kept of an environment value, and of a test's name
MAX_MESSAGE = 2000  # characters kept of a failing test's feedback in result.json
MAX_FEEDBACK = 4000  # ... and in release-body.md
MAX_BODY = 60_000  # characters of release-body.md at most (a GitHub Release holds 125 000)
MAX_FACTOR = 100  # the largest factor integer_points scales points by
TIME_FORMAT = "%Y-%m-%dT%H:%M:%SZ"
TIME = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]Z", re.ASCII)
"""The schema's pattern for ``datetime`` and ``graded_at`` (it checks the clock, not the calendar)."""
TOP_LEVEL = ("schema", "classroom", "assignment", "assignment_type", "owner", "submission", "commit", "release",
             "review", "datetime", "score", "max-score", "tests")
"""The required top-level keys, in the order they are written."""
OPTIONAL = ("graded_at", "submitted_by")
SHORTENED = "*This feedback was shortened to fit a GitHub Release: run `grader check` to see all of it.*"
_BIDI = {"\u200e", "\u200f", "\u061c", *map(chr, range(0x202A, 0x202F)), *map(chr, range(0x2066, 0x206A))}
_METHOD = re.compile(r"[A-Za-z_][A-Za-z0-9_.]{0,80}", re.ASCII)
_SURROGATE = re.compile("[\ud800-\udfff]")  # a lone one cannot be written as UTF-8


def _clean(text: str, keep: str = "") -> str:
    """``text`` without control characters (but those in ``keep``), bidi overrides and lone surrogates."""
    return _SURROGATE.sub("\ufffd", "".join(c for c in text if c in keep or (
        unicodedata.category(c) != "Cc" and c not in _BIDI)))


@dataclass(frozen=True)
class Scale:
    """Whole points for Classroom 50: the course's points times ``factor``.

    Attributes:
        factor: What every test's points are multiplied by (1 when they are whole already).
    """

    factor: int

    def most(self, max_score: float) -> int:
        """A test's whole maximum."""
        return max(0, round(max_score * self.factor))

    def score(self, score: float, max_score: float, passed: bool) -> int:
        """A test's whole score: its maximum when it passed, else its scaled partial credit rounded down and at most
        one point below its maximum (a failed test never shows as full marks)."""
        most = self.most(max_score)
        if passed:
            return most
        return max(0, min(math.floor(score * self.factor + 1e-9), most - 1))


def integer_points(tests: Iterable[Mapping[str, Any]]) -> Scale:
    """The scale that gives ``tests`` (results.json entries with ``max_score``) whole points.

    The factor is the smallest whole number from 1 to :data:`MAX_FACTOR` that makes every test's maximum whole
    (within 1e-9): points of 2, 1.5 and 0.25 become 8, 6 and 1. With no such factor, it is :data:`MAX_FACTOR` and
    maxima are rounded. Points are scaled so that no test changes from failed to passed or back: a passed test scores
    its whole maximum; a failed one its partial credit times the factor rounded down, and never its maximum.
    """
    maxima = [float(t["max_score"]) for t in tests]
    for factor in range(1, MAX_FACTOR + 1):
        if all(abs(m * factor - round(m * factor)) <= 1e-9 for m in maxima):
            return Scale(factor)
    return Scale(MAX_FACTOR)


def _graded(result: CheckResult) -> None:
    """Raise :class:`WithheldError` unless every assignment of ``result`` was graded (a grader failure is no score)."""
    if result.withheld:
        raise WithheldError("the grader failed (not your code), so no result.json is written: "
                            + "; ".join(f"{aid}: {why}" for aid, why in result.withheld.items()))
    missing = [a.id for a in result.assignments if a.id not in result.results]
    if missing:
        raise WithheldError(f"the judge wrote no results for {', '.join(missing)}, so no result.json is written")


def _env(env: Mapping[str, str], *names: str) -> str:
    """The first of ``names`` set in ``env`` to something not blank, cleaned and capped ("" if none)."""
    for name in names:
        value = _clean(str(env.get(name) or "")).strip()[:MAX_ENV].strip()
        if value:
            return value
    return ""


def _rows(result: CheckResult, scale: Scale) -> list[dict[str, Any]]:
    rows = []
    for a in result.assignments:
        loaded = "\n\n".join(e["detail"] for e in result.load_errors(a)) or NOT_RUN
        tests = result.tests(a)
        for t in tests:
            passed = t["status"] == "passed"
            message = "" if passed else loaded if not_run(t) else str(t.get("output") or "failed")
            rows.append({
                "test-name": _clean(f"{a.id}: {t['name']}")[:MAX_ENV],
                "passed": passed,
                "score": scale.score(t["score"], t["max_score"], passed),
                "max-score": scale.most(t["max_score"]),
                "message": _clean(message, keep="\n")[:MAX_MESSAGE],
                "task": str(t.get("number") or ""),
                "assignment": a.id,
            })
        if not tests:  # nothing could be graded: a failure, never the runner's "no autograder configured" pass
            why = "\n".join(result.problems(a)) or "no test could run"
            rows.append({"test-name": f"{a.id}: could not grade", "passed": False, "score": 0, "max-score": 0,
                         "message": _clean(why, keep="\n")[:MAX_MESSAGE], "task": "", "assignment": a.id})
    return rows


def _scale(result: CheckResult) -> Scale:
    return integer_points(t for a in result.assignments for t in result.tests(a))


def result_document(result: CheckResult, env: Mapping[str, str], commit_time: str | None) -> dict[str, Any]:
    """The ``result.json`` document of a self-check.

    Args:
        result: The self-check (every assignment graded; none withheld).
        env: The environment Classroom 50's runner sets (missing values fall back to ones that keep the document
            valid: ``local``, the assignments' ids joined with ``+``, ``unknown``, ``submit/local-<sha>``).
        commit_time: The graded commit's committer date (:func:`commit_time`); None (or malformed): now.

    Raises:
        WithheldError: If the grader failed on some assignment: that is no score, not even 0.
    """
    _graded(result)
    scale = _scale(result)
    tests = _rows(result, scale)
    kind = _env(env, "ASSIGNMENT_TYPE").lower()
    sha = _env(env, "GITHUB_SHA")
    submission = _env(env, "SUBMISSION_TAG")
    commit = _env(env, "COMMIT_URL") or sha or "unknown"
    now = datetime.now(timezone.utc).strftime(TIME_FORMAT)
    return {
        "schema": SCHEMA,
        "classroom": _env(env, "CLASSROOM") or "local",
        "assignment": _env(env, "ASSIGNMENT") or "+".join(a.id for a in result.assignments) or "unknown",
        "assignment_type": "group" if kind in ("group", "team") else "individual",
        "owner": _env(env, "OWNER", "USERNAME", "GITHUB_ACTOR") or "unknown",
        "submission": submission if submission.startswith("submit/") else f"submit/local-{sha[:7] or 'unknown'}",
        "commit": commit,
        "release": _env(env, "RELEASE_URL") or commit,
        "review": _env(env, "REVIEW_URL") or commit,
        "datetime": commit_time if commit_time and TIME.fullmatch(commit_time) else now,
        "graded_at": now,
        "score": sum(t["score"] for t in tests),
        "max-score": sum(t["max-score"] for t in tests),
        "tests": tests,
    }


def commit_time(path: Path) -> str | None:
    """The committer date (UTC, ``YYYY-MM-DDTHH:MM:SSZ``) of HEAD of the git repository holding ``path``.

    Returns:
        The date, or None when git is missing, ``path`` is in no repository, or anything else fails.
    """
    folder = path if path.is_dir() else path.parent
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C", "GIT_PAGER": "cat"}
    command = ["git", "-c", "safe.directory=*", "-c", "log.showSignature=false", "--no-pager", "-C", str(folder),
               "log", "-1", "--format=%ct", "HEAD"]
    try:
        done = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, timeout=30, env=env, check=False)
        if done.returncode != 0:
            return None
        stamp = datetime.fromtimestamp(int(done.stdout.decode("ascii").strip()), timezone.utc).strftime(TIME_FORMAT)
    except (OSError, subprocess.SubprocessError, ValueError, OverflowError):
        return None
    return stamp if TIME.fullmatch(stamp) else None


def _methods(test: Mapping[str, Any]) -> dict[str, Any]:
    """A failing test's methods, and what they were built on if it says (``uses``), each a method's name."""
    extra = test.get("extra_data") or {}
    found = extra.get("methods") or []
    out: dict[str, Any] = {"methods": [m for m in found if isinstance(m, str) and _METHOD.fullmatch(m)]}
    uses = extra.get("uses")
    if isinstance(uses, dict):
        out["uses"] = {m: [b for b in bases if isinstance(b, str) and _METHOD.fullmatch(b)]
                       for m, bases in uses.items() if isinstance(m, str) and _METHOD.fullmatch(m)
                       and isinstance(bases, list)}
    return out


def release_body(result: CheckResult) -> str:
    """The Markdown of the submission's Release: the total, each error that stopped code from loading once (with the
    assignments it stopped), "Start here", each assignment's task scores (one line for an assignment none of whose
    tests could run), and each failing test's feedback in a ``<details>`` block; all the submission's text inert, at
    most :data:`MAX_BODY` characters (a last line says when it was shortened)."""
    _graded(result)
    scale = _scale(result)
    rows = _rows(result, scale)
    score, most = sum(t["score"] for t in rows), sum(t["max-score"] for t in rows)
    course = (sum(result.score(a)[0] for a in result.assignments), sum(result.score(a)[1] for a in result.assignments))
    title = f"# {package_of(result)} self-check: {score} / {most} points"
    if (points(course[0]), points(course[1])) != (str(score), str(most)):
        title += f" (course points: {points(course[0])} / {points(course[1])})"
    head = [title, ""]
    if scale.factor != 1:
        head += [f"Classroom 50 counts whole points: the course's points are multiplied by {scale.factor}.", ""]
    failing = [t for a in result.assignments for t in result.tests(a) if t["status"] != "passed" and not not_run(t)]
    handout = {m: b for a in result.assignments for m, b in a.uses.items()}
    uses = built_on([_methods(t) for t in failing], handout)
    titles = {a.id: label(a) for a in result.assignments}
    for shared in result.shared_load_errors():  # once, however many assignments it stopped; first: it stops most
        stopped = ", ".join(titles[aid] for aid in shared.assignments)
        head += [f"**Your code could not be loaded** (this stops {markdown(stopped)}):", "",
                 *fence(terminal(shared.error["detail"][:MAX_FEEDBACK])), ""]
    head += start_here(likely_causes([_methods(t) for t in failing], uses), uses=uses)
    sections = [head]
    for a in result.assignments:
        s, m = result.score(a)
        table = [f"## {markdown(a.title)}: {points(s)} / {points(m)}", ""]
        errors = result.load_errors(a)
        stopped = "; ".join(dict.fromkeys(headline(e["problem"]) for e in errors))
        if result.blocked(a) and errors:  # no test could run: the error above says why
            sections.append([*table, f"Not run: {markdown(stopped)} (the error above).", ""])
            continue
        table += ["| task | points | |", "| --- | --- | --- |"]
        table += [f"| {markdown(task or '-')} | {points(ts)} / {points(tm)} | {'✅' if ts >= tm else '❌'} |"
                  for task, (ts, tm) in sorted(result.tasks(a).items())]
        table.append("")
        loaded = {e["problem"] for e in errors}
        table += [line for p in result.problems(a) if p not in loaded for line in (f"> **Could not grade:** {markdown(p)}", "")]
        if errors:
            table += [f"Some tests could not run: {markdown(stopped)} (the error above).", ""]
        sections.append(table)
        for view in views([t for t in result.tests(a) if t["status"] != "passed" and not not_run(t)]):
            t = view.test
            name = html.escape(terminal(str(t["name"])[:MAX_ENV], keep=""))
            text = "\n".join(view.lines)
            text = text if len(text) <= MAX_FEEDBACK else text[:MAX_FEEDBACK] + "\n... (shortened)"
            sections.append([f"<details><summary>✗ {name} ({points(t['score'])} / {points(t['max_score'])})</summary>",
                             "", *fence(terminal(text)), "", "</details>", ""])
    out: list[str] = []
    size = 0
    for section in sections:
        text = "\n".join(section) + "\n"
        if size + len(text) > MAX_BODY - len(SHORTENED) - 2:
            out.append(SHORTENED + "\n")
            break
        out.append(text)
        size += len(text)
    return _SURROGATE.sub("\ufffd", "".join(out))


def _fields(obj: Mapping[str, Any], where: str, strings: tuple[str, ...]) -> list[str]:
    """What is wrong with the non-empty ``strings``, the whole points and score <= max-score of ``obj``."""
    errors = [f"{where}{k!r} must be a non-empty string" for k in strings
              if k in obj and not (isinstance(obj[k], str) and obj[k])]
    bad = [k for k in ("score", "max-score")
           if k in obj and (isinstance(obj[k], bool) or not isinstance(obj[k], int) or obj[k] < 0)]
    errors += [f"{where}{k!r} must be a non-negative integer, not {obj[k]!r}" for k in bad]
    if not bad and "score" in obj and "max-score" in obj and obj["score"] > obj["max-score"]:
        errors.append(f"{where}'score' ({obj['score']}) is above 'max-score' ({obj['max-score']})")
    return errors


def validate(doc: Any) -> list[str]:
    """Every way ``doc`` breaks the ``classroom50/result/v1`` contract (the schema and the runner's cross-field
    rules, as the module docstring restates them); [] when it is valid."""
    if not isinstance(doc, dict):
        return ["the document is not a JSON object"]
    errors = [f"unknown top-level key {k!r}" for k in doc if k not in TOP_LEVEL + OPTIONAL]
    errors += [f"missing required key {k!r}" for k in TOP_LEVEL if k not in doc]
    if "schema" in doc and doc["schema"] != SCHEMA:
        errors.append(f"'schema' must be {SCHEMA!r}")
    errors += _fields(doc, "", ("classroom", "assignment", "owner", "commit", "release", "review"))
    if "assignment_type" in doc and doc["assignment_type"] not in ("individual", "group"):
        errors.append("'assignment_type' must be 'individual' or 'group'")
    if "submission" in doc and not (isinstance(doc["submission"], str) and doc["submission"].startswith("submit/")):
        errors.append("'submission' must be a string starting with 'submit/'")
    errors += [f"{k!r} must be YYYY-MM-DDTHH:MM:SSZ" for k in ("datetime", "graded_at")
               if k in doc and not (isinstance(doc[k], str) and TIME.fullmatch(doc[k]))]
    tests = doc.get("tests", [])
    if not isinstance(tests, list):
        errors.append("'tests' must be an array")
        tests = []
    for i, test in enumerate(tests):
        if not isinstance(test, dict):
            errors.append(f"tests[{i}]: not an object")
            continue
        errors += [f"tests[{i}]: missing required key {k!r}" for k in ("test-name", "passed", "score", "max-score")
                   if k not in test]
        errors += [f"tests[{i}]: 'passed' must be a boolean"] if not isinstance(test.get("passed", True), bool) else []
        errors += _fields(test, f"tests[{i}]: ", ("test-name",))
    by = doc.get("submitted_by", {"username": "-"})
    if not isinstance(by, dict):
        errors.append("'submitted_by' must be an object")
    else:
        errors += [f"submitted_by: unknown key {k!r}" for k in by if k not in ("username", "id")]
        errors += _fields({"username": by.get("username")}, "submitted_by: ", ("username",))
        if by.get("id") is not None and (isinstance(by["id"], bool) or not isinstance(by["id"], int)):
            errors.append("submitted_by: 'id' must be an integer or null")
    return errors


def clear(cwd: Path) -> None:
    """Remove ``result.json`` and ``release-body.md`` left in ``cwd`` (by an earlier run, or committed), so that a
    run that fails leaves no score behind."""
    for path in (cwd / RESULT_FILE, cwd / BODY_FILE):
        try:
            if path.is_symlink() or path.is_file():
                path.unlink()
        except OSError as exc:
            raise GraderError(f"could not remove {path}: {exc}") from None


def _write(path: Path, text: str) -> None:
    try:  # a new temporary file, then a rename: nothing planted in the checkout is written through
        write_atomic(path, text)
    except OSError as exc:
        raise GraderError(f"could not write {path}: {exc}") from None


def write(result: CheckResult, cwd: Path, env: Mapping[str, str]) -> dict[str, Any]:
    """Write ``cwd/release-body.md`` and then ``cwd/result.json`` (each atomically; a link in their place is
    replaced, not followed).

    Returns:
        The document written to ``result.json``.

    Raises:
        WithheldError: If the grader failed on some assignment, or its own document breaks the contract (a grader bug
            never becomes a score).
        GraderError: If a file cannot be written.
    """
    doc = result_document(result, env, commit_time(result.path))
    problems = validate(doc)
    if problems:
        raise WithheldError("the grader's own result.json breaks the Classroom 50 contract (a grader bug; no score "
                            "is written): " + "; ".join(problems))
    _write(cwd / BODY_FILE, release_body(result))
    _write(cwd / RESULT_FILE, json.dumps(doc, indent=2) + "\n")
    return doc
