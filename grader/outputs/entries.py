"""The test entries of a results.json, as the class report reads them.

``grader grade`` writes each submission's ``results.json`` in Gradescope's
schema (:func:`grader.outputs.gradescope_results.gradescope_results`): per test its
``name``, ``number`` (the handout task), ``score``, ``max_score``, ``status``,
``output``, ``visibility``, and under ``extra_data`` the test's ``key``
(``path::name[params]``), the student's methods its failures named
(``methods``), the methods it is about (``about``), its ``hints`` and, when
the grader itself failed, ``grader_error``. :func:`entries` parses them once
into typed :class:`TestEntry` records, tolerating a malformed or hand-edited
file (a value of the wrong type reads as empty), so the report's modules share
one reading of the format.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

UNFINISHED = "raised NotImplementedError"
"""A failure whose feedback quotes this is unfinished work (a template stub), not a bug."""

PUBLIC_FOLDER = ("tests", "public")
"""The folders of an assignment that hold its public tests (:attr:`grader.course.config.Assignment.public_tests`)."""


@dataclass(frozen=True)
class TestEntry:
    """One test of one submission, read back from results.json.

    Attributes:
        key: The test's stable id across submissions (``path::name[params]``).
        name: The test's title.
        task: The handout task it grades (``"1.2"``, or a range ``"1.1-1.4"``; "" if none).
        score: Points earned.
        max_score: Points it is worth.
        passed: Whether it passed.
        public: Whether it is one of the public tests students have (under ``tests/public/``).
        output: Its feedback (holds text from the submission: show it escaped).
        methods: The student's methods its failed cases named.
        about: The methods the test is about.
        hints: The hints its failed cases gave (the test's own text, never the student's).
        grader_error: Why the grader could not run it ("" unless its score is withheld).
    """

    __test__ = False  # not a pytest class, whatever its name

    key: str
    name: str
    task: str
    score: float
    max_score: float
    passed: bool
    public: bool
    output: str
    methods: tuple[str, ...]
    about: tuple[str, ...]
    grader_error: str
    hints: tuple[str, ...] = ()

    @property
    def test_name(self) -> str:
        """The test function's name with its parameters (``test_unary[tanh]``), as ``bugs.yaml`` names tests."""
        return self.key.rsplit("::", 1)[-1]

    @property
    def unfinished(self) -> bool:
        """It failed on a template stub (``NotImplementedError``): unfinished work, not a bug."""
        return not self.passed and UNFINISHED in self.output

    @property
    def graded_failure(self) -> bool:
        """It failed on the student's code: not unfinished work, not the grader's own failure."""
        return not self.passed and not self.unfinished and not self.grader_error

    def is_about(self, method: str) -> bool:
        """Whether the test is about ``method`` (``Value.tanh``), directly or through its class (``MLP``)."""
        return method in self.about or method.split(".", 1)[0] in self.about


def _number(value: Any) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(str(v) for v in value) if isinstance(value, list) else ()


def is_public(key: str, extra: Mapping[str, Any]) -> bool:
    """Whether the test with this key is public: ``extra_data.public`` when results.json records it, else whether
    its file is under an assignment's ``tests/public/`` folder (the judge's own rule)."""
    if isinstance(extra.get("public"), bool):
        return bool(extra["public"])
    parts = PurePosixPath(key.split("::", 1)[0]).parts
    return any(parts[i:i + 2] == PUBLIC_FOLDER for i in range(len(parts) - 1))


def entry(test: Mapping[str, Any]) -> TestEntry:
    """One results.json test as a :class:`TestEntry` (missing or mistyped values read as empty)."""
    extra = test.get("extra_data")
    extra = extra if isinstance(extra, dict) else {}
    name = str(test.get("name") or "")
    key = str(extra.get("key") or name)
    return TestEntry(
        key=key,
        name=name,
        task=str(test.get("number") or ""),
        score=_number(test.get("score")),
        max_score=_number(test.get("max_score")),
        passed=test.get("status") == "passed",
        public=is_public(key, extra),
        output=str(test.get("output") or ""),
        methods=_strings(extra.get("methods")),
        about=_strings(extra.get("about")),
        grader_error=str(extra.get("grader_error") or ""),
        hints=_strings(extra.get("hints")),
    )


ADJUSTMENT = "adjustment"
"""The key of ``extra_data`` that marks a line of ``tests`` as a person's adjustment of the score, not a test
(:mod:`grader.outputs.adjusted` writes it, and rewrites it from ``adjustments.csv`` on every run)."""


def is_test(test: Any) -> bool:
    """Whether one item of a results.json ``tests`` list is a test: an object, and not an adjustment line."""
    if not isinstance(test, dict):
        return False
    extra = test.get("extra_data")
    return not (isinstance(extra, dict) and ADJUSTMENT in extra)


def entries(doc: Mapping[str, Any] | None) -> list[TestEntry]:
    """The tests of a results.json document, in order (none for a missing document; adjustment lines left out)."""
    tests = (doc or {}).get("tests")
    return [entry(t) for t in tests if is_test(t)] if isinstance(tests, list) else []
