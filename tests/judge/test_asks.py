"""The judge answers a probe's questions (grader.sandbox.probekit.ask), and nothing else: a question where the probe
has no judge side, too many questions, a question the judge's side refuses, and a bug in the judge's side each end
the way the trust rules say (the student's fault, the student's fault, the student's probe error, the grader's
error) and never grant anything."""

from __future__ import annotations

import csv
import json
import time
from pathlib import Path
from typing import Any

import hostile_submissions as H
import pytest
from checkout import ROOT

from grader.cli import main
from grader.course.config import Limits
from grader.judge.worker_handle import Worker, WorkerProtocolError
from grader.sandbox import protocol
from grader.testing.judged import MAX_ASKS, AskRefused


class Scripted(Worker):
    """A worker that sends the scripted messages, one per read, and keeps what the judge wrote."""

    def __init__(self, messages: list[dict[str, Any]]) -> None:
        super().__init__(Path("/nonexistent"), Path("/nonexistent"), Path("/nonexistent"), [], Limits())
        self.messages, self.written, self.killed = list(messages), [], False

    @property
    def alive(self) -> bool:
        return not self.killed

    def _read(self, deadline: float, during: str) -> dict[str, Any]:
        return self.messages.pop(0)

    def _write(self, data: bytes, deadline: float, during: str) -> None:
        self.written.append(protocol.decode(data))

    def kill(self) -> None:
        self.killed = True


class Counter:
    """A judge's side that answers ``call`` with the number of questions so far, and refuses anything else."""

    def __init__(self) -> None:
        self.asked = 0

    def public(self, args: list[Any]) -> list[Any]:
        return args

    def answer(self, topic: str, payload: Any) -> Any:
        if topic != "call":
            raise AskRefused("not a question of this probe")
        self.asked += 1
        return self.asked

    def record(self) -> dict[str, Any]:
        return {"asked": self.asked}


def ask(topic: str = "call") -> dict[str, Any]:
    return {"ask": topic, "payload": {"f": 0}}


DONE = {"id": 1, "ok": True, "value": 7}


def test_each_question_is_answered_in_turn_and_the_answer_follows():
    worker, judged = Scripted([ask(), ask("nonsense"), ask(), DONE]), Counter()
    assert worker.request("p", [], 5.0, "testing", judged) == DONE
    assert worker.written[1:] == [{"answer": 1}, {"refused": "not a question of this probe"}, {"answer": 2}]
    assert judged.record() == {"asked": 2} and not worker.killed


def test_a_question_from_a_probe_without_a_judge_side_kills_the_worker_as_the_students_fault():
    worker = Scripted([ask(), DONE])
    with pytest.raises(WorkerProtocolError, match="asked the grader a question it does not answer"):
        worker.request("p", [], 5.0, "testing", None)
    assert worker.killed


@pytest.mark.parametrize("message", [{"ask": 5, "payload": 1}, {"ask": "call"}, {"ask": "call", "payload": 1, "x": 2}])
def test_a_question_of_the_wrong_shape_kills_the_worker(message):
    worker = Scripted([message, DONE])
    with pytest.raises(WorkerProtocolError):
        worker.request("p", [], 5.0, "testing", Counter())
    assert worker.killed


def test_more_questions_than_one_probe_may_ask_kill_the_worker():
    judged = Counter()
    worker = Scripted([ask()] * (MAX_ASKS + 1) + [DONE])
    with pytest.raises(WorkerProtocolError):
        worker.request("p", [], 5.0, "testing", judged)
    assert judged.asked == MAX_ASKS and worker.killed


def test_a_bug_in_the_judges_side_is_the_graders_and_kills_the_worker():
    class Broken(Counter):
        def answer(self, topic: str, payload: Any) -> Any:
            raise KeyError("the grader's own bug")

    worker = Scripted([ask(), DONE])
    with pytest.raises(KeyError):
        worker.request("p", [], 5.0, "testing", Broken())
    assert worker.killed


FORGED_ASKS = """
import sys as _sys

_kit = _sys.modules.get("probekit")
_QUESTIONS = [("call", {{"f": 10 ** 30, "at": [1.0]}}), ("call", {{"f": 0, "at": "x"}}), ("order", {{"call": 5, "node": 0}}),
              ("backward", {{"call": 0, "node": 0, "grad": 1.0}}), ("nonsense", None), ("call", {{"f": -1, "at": []}})]


def _asking(name):
    def probe(mg, ctx, *args):
        refused = 0
        for topic, payload in _QUESTIONS if {strategy!r} == "garbage" else [("call", {{"f": 0, "at": [1.0]}})]:
            try:
                _kit.ask(topic, payload)
            except Exception:
                refused += 1
        return {{"refused": refused}}
    return probe


for _module in list(_sys.modules.values()):
    _probes = getattr(_module, "PROBES", None)
    if isinstance(_probes, dict) and _kit is not None:
        for _name in list(_probes):
            _probes[_name] = _asking(_name)
"""


@pytest.fixture(scope="module")
def asked(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The template whose process, for every probe, asks the judge questions it forged: where the probe has no judge
    side (value_ops), and garbage where it has one (gradcheck)."""
    base = tmp_path_factory.mktemp("asks")
    subs, out = base / "subs", base / "out"
    engine = (ROOT / "student_template" / "micrograd" / "engine.py").read_text(encoding="utf-8")
    for strategy in ("unasked", "garbage"):
        H.write(subs / strategy, H.with_import_code(FORGED_ASKS.format(strategy=strategy), engine))
    status = main(["--course", str(ROOT), "grade", str(subs), "-o", str(out), "-a", "value_ops", "-a", "gradcheck",
                   "-j", "2"])
    with open(out / "grades.csv", encoding="utf-8") as f:
        return {"status": status, "out": out, "grades": {r["student"]: r for r in csv.DictReader(f)}}


@pytest.mark.parametrize("student", ["unasked", "garbage"])
def test_forged_questions_earn_nothing_and_withhold_nothing(asked, student):
    assert asked["status"] == 0
    row = asked["grades"][student]
    assert (row["value_ops"], row["gradcheck"]) == ("0", "0"), row
    for aid in ("value_ops", "gradcheck"):
        results = json.loads((asked["out"] / aid / student / "results.json").read_text(encoding="utf-8"))
        assert "grader error" not in json.dumps(results).lower()


class Deadlines(Scripted):
    """A scripted worker that notes the deadline of every read."""

    def __init__(self, messages: list[dict[str, Any]]) -> None:
        super().__init__(messages)
        self.deadlines: list[float] = []

    def _read(self, deadline: float, during: str) -> dict[str, Any]:
        self.deadlines.append(deadline)
        return super()._read(deadline, during)


class Slow(Counter):
    """A judge's side that takes 0.3 s to answer (as when the judge's own process is held up)."""

    def answer(self, topic: str, payload: Any) -> Any:
        time.sleep(0.3)
        return super().answer(topic, payload)


def test_the_judges_time_answering_a_question_is_never_the_students():
    """Issue 56: the 0.3 s the judge takes to answer each question is given back to the call (a scripted worker:
    wall-clock time), so two slow answers do not use up a 0.5 s limit, and the student is charged only the rest."""
    worker = Deadlines([ask(), ask(), DONE])
    start = time.monotonic()
    assert worker.request("p", [], 0.5, "testing", Slow()) == DONE
    first, second, third = worker.deadlines
    assert first == pytest.approx(start + 0.5, abs=0.05)
    assert 0.25 < second - first < 0.45 and 0.25 < third - second < 0.45  # each answer's 0.3 s given back
    assert worker.charged < 0.1  # of about 0.6 s, the judge's


@pytest.mark.parametrize(("answer", "raised", "says"), [
    (lambda payload: 10 ** 5000, None, "over its bound"),  # an integer JSON cannot spell (over 4,300 digits)
    (lambda payload: [0.0] * 3_000_000, None, "over its bound"),  # over the protocol's 8 MB
    (lambda payload: float(10 ** 400), OverflowError, "cannot compute its answer from the numbers your code sent"),
    (lambda payload: 1 / 0, ZeroDivisionError, "cannot compute its answer from the numbers your code sent"),
    (lambda payload: (_ for _ in ()).throw(RecursionError("maximum recursion depth exceeded")), RecursionError,
     "cannot compute its answer"),
])
def test_an_answer_the_judge_cannot_compute_or_send_is_refused_to_the_students_probe(answer, raised, says):
    """Issue 53, 2: what the judge computes from a submission's question is bounded where it is sent; an answer it
    cannot compute (arithmetic on the submission's numbers) or cannot send fails that probe with why, and the worker
    lives on: never a withheld score."""
    class Computing(Counter):
        def answer(self, topic: str, payload: Any) -> Any:
            return answer(payload)

    worker = Scripted([ask(), DONE])
    assert worker.request("p", [], 5.0, "testing", Computing()) == DONE
    refused = worker.written[1]["refused"]
    assert says in refused and (raised is None or raised.__name__ in refused) and not worker.killed
