"""Every right answer of the course's checkpoint at a student's numbers, worked out without the grader's key: hand
formulas and central differences of plain float functions (shared by the concept check's tests)."""

from __future__ import annotations

from pathlib import Path

import yaml
from checkout import ROOT

from grader.questions.params import draw
from grader.questions.questions import load_questions

QUESTIONS = {q.id: q for q in load_questions(ROOT / "assignments" / "checkpoint" / "questions.yaml")}
KEY = yaml.safe_load((ROOT / "reference" / "answers" / "checkpoint.yaml").read_text(encoding="utf-8"))


def relu(x: float) -> float:
    return max(0.0, x)


def sanity_g(a: float, b: float) -> float:
    """micrograd's sanity check on plain floats (its test/test_engine.py), as the prompt states it."""
    c = a + b
    d = a * b + b**3
    c += c + 1
    c += 1 + c + (-a)
    d += d * 2 + relu(b + a)
    d += 3 * d + relu(b - a)
    e = c - d
    f = e**2
    g = f / 2.0
    g += 10.0 / f
    return g


def central(f, x: float, h: float = 1e-5) -> float:
    return (f(x + h) - f(x - h)) / (2 * h)


def numbers(question: str, student: str) -> dict[str, float]:
    return {k: float(v) for k, v in draw(QUESTIONS[question].params, "checkpoint", question, student).items()}


def right_answers(student: str) -> dict[str, object]:
    """Every right answer at ``student``'s numbers, worked out without the grader's key."""
    p, s, h = numbers("chain_rule", student), numbers("sanity_check", student), numbers("hand_gradient", student)
    return {
        "student": student,
        "forward_builds": "b", "reverse_order": "b", "why_accumulate": ["a", "c"], "zero_grad": "a",
        "chain_rule": 2 * (p["a"] * p["b"] + p["c"]) * p["b"],
        "sanity_check": central(lambda a: sanity_g(a, s["b"]), s["a"]),
        "hand_gradient": h["x"] * h["w"],
        "dtanh": "2*tanh(x)/cosh(x)**2",
        "dsigmoid": "2*exp(-2*x)/(1 + exp(-2*x))**2",
        "exp_local": "3*e**(3*x)",
    }


def write(folder: Path, answers: dict[str, object] | str, name: str = "answers/checkpoint.yaml") -> None:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(answers if isinstance(answers, str) else yaml.safe_dump(answers), encoding="utf-8")
