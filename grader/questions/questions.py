"""A concept check's questions (``questions.yaml`` in the assignment's folder) and its answer key (never shipped).

The questions file, which students may read (these questions are made up: the grader, which students receive, quotes
no course's questions or answers)::

    questions:
      - id: pick_one                 # letters, digits and _; the answers file's key
        kind: choice                 # choice, number or expression
        points: 1
        prompt: "Which operation passes its output's gradient on to each input unchanged?"
        choices: {p: "multiplication", q: "addition"}
        multiple: false              # true: choose every right one (partial credit)
      - id: slope
        kind: number
        points: 2
        prompt: "f = a**3 / b at a = {a}, b = {b}: what is df/da?"
        params: {a: {int: [1, 5]}, b: {int: [-5, 5], exclude: [0]}}
        tolerance: {abs: 1e-6, rel: 1e-6}
      - id: dcube
        kind: expression
        points: 1
        prompt: "d/dx x**3, as an expression in x"
        variables: {x: [-2, 2]}      # where the answer is compared with the key's, at random points

A top-level ``functions:`` may define functions of one number the course uses, as formulas in ``x`` (``sigmoid:
"1/(1 + exp(-x))"``); :mod:`math`'s are always there.

The answer key, ``reference/answers/<id>.yaml``, which only the judge reads (one entry per question): the right
choices (``[q]``, or ``{right: [q], feedback: {p: "why p is wrong"}}``: the feedback a wrong choice shows lives in the
key, since feedback written for a choice would tell a reader of the questions that it is wrong), a number or an
expression over the question's parameters (``3*a**2/b``), or an expression over its variables.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from grader.course.yaml_file import load_yaml
from grader.errors import ConfigError
from grader.questions.expressions import Expression, ExpressionError, Function, course_function, parse_expression
from grader.questions.params import ParamSpec

KINDS = ("choice", "number", "expression")
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,39}\Z")
DEFAULT_TOLERANCE = (1e-6, 1e-6)
"""(absolute, relative) tolerance of a number or expression answer when its question gives none."""


@dataclass(frozen=True)
class Question:
    """One question of a concept check.

    Attributes:
        id: Its name, the answers file's key.
        kind: ``choice``, ``number`` or ``expression``.
        points: What it is worth.
        prompt: Its text, with ``{name}`` where a parameter's value goes.
        choices: A choice question's letters to their texts, in order.
        multiple: Whether several choices may be right (each right one chosen earns a share, each wrong one
            chosen takes one back, never below 0).
        params: A number question's parameters, drawn per student (:mod:`grader.questions.params`).
        tolerance: ``(absolute, relative)``: an answer ``a`` is right when ``|a - k| <= max(abs, rel * |k|)``.
        variables: An expression question's variables to the interval its points are drawn from.
        functions: The functions the questions file defines (beside :mod:`math`'s), by name.
    """

    id: str
    kind: str
    points: float
    prompt: str
    choices: dict[str, str] = field(default_factory=dict)
    multiple: bool = False
    params: dict[str, ParamSpec] = field(default_factory=dict)
    tolerance: tuple[float, float] = DEFAULT_TOLERANCE
    variables: dict[str, tuple[float, float]] = field(default_factory=dict)
    functions: Mapping[str, Function] = field(default_factory=dict)


@dataclass(frozen=True)
class KeyEntry:
    """The answer key's entry for one question: ``choices`` (the right letters, with ``feedback``: a wrong choice's
    letter to why it is wrong), ``formula`` (an expression over the question's parameters or variables), or
    ``reference`` (a function of the concept check's reference module, ``reference/answers/<id>.py``, called in the
    judge with a number question's parameters as keyword arguments: ``{reference: chain_rule}``)."""

    choices: frozenset[str] = frozenset()
    feedback: Mapping[str, str] = field(default_factory=dict)
    formula: Expression | None = None
    reference: str | None = None


def load_questions(path: Path) -> list[Question]:
    """The questions of ``path``, validated.

    Raises:
        ConfigError: If the file is not YAML, or a question is malformed (the message names the file and the
            question's key, e.g. ``questions[2].params.a``).
    """
    raw = load_yaml(path)
    items = raw.get("questions")
    if set(raw) - {"questions", "functions"} or not isinstance(items, list) or not items:
        raise ConfigError(path, "questions", "expected questions: a non-empty list of questions (and functions: if "
                                             "any)")
    functions = _functions(path, raw.get("functions", {}))
    questions: list[Question] = []
    for i, item in enumerate(items):
        question = replace(_question(path, f"questions[{i}]", item), functions=functions)
        if any(q.id == question.id for q in questions):
            raise ConfigError(path, f"questions[{i}].id", f"{question.id!r} is the id of an earlier question")
        questions.append(question)
    return questions


def _question(path: Path, where: str, item: Any) -> Question:
    known = {"id", "kind", "points", "prompt", "choices", "multiple", "params", "tolerance", "variables"}
    if not isinstance(item, dict):
        raise ConfigError(path, where, "expected a mapping with id, kind, points and prompt")
    for key in item:
        if key == "feedback":
            raise ConfigError(path, f"{where}.feedback", "a wrong choice's feedback goes in the answer key "
                                                         "({right: [q], feedback: {p: ...}}): written here, it tells "
                                                         "students which choices are wrong")
        if key not in known:
            raise ConfigError(path, f"{where}.{key}", f"unknown key; known keys: {', '.join(sorted(known))}")
    qid, kind, points, prompt = item.get("id"), item.get("kind"), item.get("points"), item.get("prompt")
    if not isinstance(qid, str) or not NAME.match(qid):
        raise ConfigError(path, f"{where}.id", "expected a name of letters, digits and _ (at most 40)")
    if kind not in KINDS:
        raise ConfigError(path, f"{where}.kind", f"expected one of {', '.join(KINDS)}")
    if isinstance(points, bool) or not isinstance(points, (int, float)) or not points > 0:
        raise ConfigError(path, f"{where}.points", "expected a number of points > 0")
    if not isinstance(prompt, str) or not prompt.strip():
        raise ConfigError(path, f"{where}.prompt", "expected the question's text")
    allowed = {"choice": {"choices", "multiple"}, "number": {"params", "tolerance"},
               "expression": {"variables", "tolerance"}}[kind]
    for key in set(item) - {"id", "kind", "points", "prompt"} - allowed:
        raise ConfigError(path, f"{where}.{key}", f"not a key of a {kind} question")
    choices = _strings(path, f"{where}.choices", item.get("choices", {}))
    if kind == "choice" and len(choices) < 2:
        raise ConfigError(path, f"{where}.choices", "expected at least two choices, e.g. {a: ..., b: ...}")
    multiple = item.get("multiple", False)
    if not isinstance(multiple, bool):
        raise ConfigError(path, f"{where}.multiple", "expected true or false")
    return Question(qid, kind, float(points), prompt, choices, multiple,
                    _params(path, f"{where}.params", item.get("params", {})),
                    _tolerance(path, f"{where}.tolerance", item.get("tolerance", {})),
                    _variables(path, f"{where}.variables", item.get("variables", {}), kind))


def _functions(path: Path, raw: Any) -> dict[str, Function]:
    if not isinstance(raw, dict):
        raise ConfigError(path, "functions", "expected a mapping of names to formulas in x, e.g. "
                                             "{sigmoid: 1/(1 + exp(-x))}")
    made: dict[str, Function] = {}
    for name, formula in raw.items():
        if not isinstance(name, str) or not NAME.match(name) or not isinstance(formula, str):
            raise ConfigError(path, f"functions.{name}", "expected a name and a formula in x as text")
        try:
            made[name] = course_function(name, formula)
        except ExpressionError as exc:
            raise ConfigError(path, f"functions.{name}", str(exc)) from None
    return made


def _strings(path: Path, where: str, raw: Any) -> dict[str, str]:
    if not isinstance(raw, dict) or not all(isinstance(k, str) and NAME.match(k) and isinstance(v, str)
                                            for k, v in raw.items()):
        raise ConfigError(path, where, "expected a mapping of letters (a, b, ...) to texts")
    return dict(raw)


def _number(path: Path, where: str, raw: Any) -> float:
    if isinstance(raw, bool) or not isinstance(raw, (int, float)):
        raise ConfigError(path, where, "expected a number")
    return float(raw)


def _interval(path: Path, where: str, raw: Any) -> tuple[float, float]:
    if not isinstance(raw, list) or len(raw) != 2:
        raise ConfigError(path, where, "expected [low, high]")
    low, high = _number(path, where, raw[0]), _number(path, where, raw[1])
    if not low <= high:
        raise ConfigError(path, where, "expected [low, high] with low <= high")
    return low, high


def _params(path: Path, where: str, raw: Any) -> dict[str, ParamSpec]:
    if not isinstance(raw, dict):
        raise ConfigError(path, where, "expected a mapping of names to {int: [low, high]}, {uniform: [low, high]} "
                                       "or {choice: [values]}")
    specs: dict[str, ParamSpec] = {}
    for name, spec in raw.items():
        at = f"{where}.{name}"
        if not isinstance(name, str) or not NAME.match(name):
            raise ConfigError(path, at, "expected a parameter name of letters, digits and _")
        if not isinstance(spec, dict) or len(set(spec) & {"int", "uniform", "choice"}) != 1 \
                or set(spec) - {"int", "uniform", "choice", "digits", "exclude"}:
            raise ConfigError(path, at, "expected one of int: [low, high], uniform: [low, high] (digits: N), "
                                        "choice: [values]; and exclude: [values] if any")
        exclude = spec.get("exclude", [])
        if not isinstance(exclude, list):
            raise ConfigError(path, f"{at}.exclude", "expected a list of values")
        excluded = tuple(_number(path, f"{at}.exclude", v) for v in exclude)
        if "choice" in spec:
            values = spec["choice"]
            if not isinstance(values, list) or not values:
                raise ConfigError(path, f"{at}.choice", "expected a list of numbers")
            made = ParamSpec("choice", values=tuple(v if isinstance(v, int) and not isinstance(v, bool)
                                                    else _number(path, f"{at}.choice", v) for v in values),
                             exclude=excluded)
            left = [v for v in made.values if v not in excluded]
        else:
            kind = "int" if "int" in spec else "uniform"
            low, high = _interval(path, f"{at}.{kind}", spec[kind])
            digits = spec.get("digits", 2)
            if isinstance(digits, bool) or not isinstance(digits, int) or not 0 <= digits <= 6:
                raise ConfigError(path, f"{at}.digits", "expected a whole number of decimals from 0 to 6")
            if kind == "int" and (low != int(low) or high != int(high)):
                raise ConfigError(path, f"{at}.int", "expected whole numbers [low, high]")
            made = ParamSpec(kind, low, high, digits, exclude=excluded)
            left = [v for v in range(int(low), int(high) + 1) if v not in excluded] if kind == "int" else [low]
        if not left:
            raise ConfigError(path, f"{at}.exclude", "excludes every value the parameter can take")
        specs[name] = made
    return specs


def _tolerance(path: Path, where: str, raw: Any) -> tuple[float, float]:
    if not isinstance(raw, dict) or set(raw) - {"abs", "rel"}:
        raise ConfigError(path, where, "expected {abs: number, rel: number}")
    absolute = _number(path, f"{where}.abs", raw.get("abs", DEFAULT_TOLERANCE[0]))
    relative = _number(path, f"{where}.rel", raw.get("rel", DEFAULT_TOLERANCE[1]))
    if not (0 <= absolute and 0 <= relative < 1):
        raise ConfigError(path, where, "expected abs >= 0 and 0 <= rel < 1")
    return absolute, relative


def _variables(path: Path, where: str, raw: Any, kind: str) -> dict[str, tuple[float, float]]:
    if not isinstance(raw, dict):
        raise ConfigError(path, where, "expected a mapping of variable names to [low, high]")
    if kind == "expression" and not raw:
        raise ConfigError(path, where, "an expression question needs its variables, e.g. {x: [-2, 2]}")
    out = {}
    for name, interval in raw.items():
        if not isinstance(name, str) or not NAME.match(name):
            raise ConfigError(path, f"{where}.{name}", "expected a variable name of letters, digits and _")
        out[name] = _interval(path, f"{where}.{name}", interval)
    return out


def load_key(path: Path, questions: list[Question]) -> dict[str, KeyEntry]:
    """The answer key of ``path`` for ``questions``: exactly one valid entry per question.

    Raises:
        ConfigError: If an entry is missing, names no question, or does not fit its question (a letter that is no
            choice, several right choices for a single-choice question, a formula that does not parse over the
            question's names).
    """
    raw = load_yaml(path)
    by_id = {q.id: q for q in questions}
    for qid in raw:
        if qid not in by_id:
            raise ConfigError(path, str(qid), "names no question of the questions file")
    return {q.id: _entry(path, q, raw.get(q.id)) for q in questions}


def _entry(path: Path, question: Question, raw: Any) -> KeyEntry:
    if raw is None:
        raise ConfigError(path, question.id, "missing: every question needs its answer")
    if question.kind == "choice":
        feedback: dict[str, str] = {}
        if isinstance(raw, dict):
            if set(raw) - {"right", "feedback"} or "right" not in raw:
                raise ConfigError(path, question.id, "expected the right choices ([q]), or {right: [q], feedback: "
                                                     "{p: why p is wrong}}")
            feedback = _strings(path, f"{question.id}.feedback", raw.get("feedback", {}))
            for letter in feedback:
                if letter not in question.choices:
                    raise ConfigError(path, f"{question.id}.feedback.{letter}", "is not one of the choices")
            raw = raw["right"]
        letters = [raw] if isinstance(raw, str) else raw
        if not isinstance(letters, list) or not letters or not all(isinstance(x, str) for x in letters):
            raise ConfigError(path, question.id, "expected the right choices, e.g. [q]")
        wrong = [x for x in letters if x not in question.choices]
        if wrong:
            raise ConfigError(path, question.id, f"{wrong[0]!r} is not one of the choices")
        if not question.multiple and len(set(letters)) != 1:
            raise ConfigError(path, question.id, "a single-choice question has one right choice")
        return KeyEntry(choices=frozenset(letters), feedback=feedback)
    if isinstance(raw, dict):
        target = raw.get("reference")
        if question.kind != "number" or set(raw) != {"reference"} or not isinstance(target, str) \
                or not NAME.match(target):
            raise ConfigError(path, question.id, "expected {reference: function} (a number question's answer computed "
                                                 "by a function of the concept check's reference module, "
                                                 "reference/answers/<id>.py)")
        return KeyEntry(reference=target)
    names = tuple(question.params) if question.kind == "number" else tuple(question.variables)
    text = repr(raw) if isinstance(raw, (int, float)) and not isinstance(raw, bool) else raw
    try:
        return KeyEntry(formula=parse_expression(text, names, question.functions))
    except ExpressionError as exc:
        raise ConfigError(path, question.id, f"expected a number or a formula over {', '.join(names) or 'nothing'}: "
                                             f"{exc}") from None


def key_value(entry: KeyEntry, values: Mapping[str, float], reference: Any = None) -> float:
    """A question's right answer at one student's parameter ``values`` (or an expression question's variables):
    the key's formula there, or what the function of the concept check's reference module returns for them
    (``reference``: that module, loaded by the judge with the reference solution:
    :func:`grader.judge.reference.load_answers_module`).

    Raises:
        ExpressionError: If the key's formula has no value there (the question's parameters allow a division by 0:
            the questions file should exclude such values).
        ValueError: If the key names the reference and none is given (a self-check), or its function does not give
            a finite number: a fault of the course, for the judge to withhold the score on.
    """
    if entry.reference is not None:
        function = entry.reference
        if reference is None:
            raise ValueError(f"the key calls the reference ({function}), which is not loaded here")
        if not callable(getattr(reference, function, None)):
            raise ValueError(f"the concept check's reference module has no function {function}")
        result = getattr(reference, function)(**values)
        if isinstance(result, bool) or not isinstance(result, (int, float)) or not math.isfinite(result):
            raise ValueError(f"the reference's {function} gave {result!r} for {dict(values)}, not a number")
        return float(result)
    if entry.formula is None:
        raise ExpressionError("a choice question's key has no value")
    return entry.formula(values)
